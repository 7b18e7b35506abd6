"""SSH key pairs for OpenMPI jobs, as the Secret the Twister2 image's sshd setup reads.

The image's ``start_sshd.sh`` copies ``id_rsa``, ``id_rsa.pub`` and
``authorized_keys`` from ``/ssh-key/openmpi`` (the Secret volume) into the SSH
user's home, whatever the key type (cylondata/twister2,
``docker/kubernetes/image/rootfs/start_sshd.sh``).
Keys are made with ``cryptography``; the private key goes nowhere but the
Secret printed on standard output.
"""

from __future__ import annotations

import base64
import re
import textwrap
from typing import Any

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

from t2gen.errors import ConfigError
from t2gen.record import Record
from t2gen.twister2 import names

__all__ = [
    "KEY_TYPES",
    "SshKeyFiles",
    "generate_key_files",
    "key_files_from_private_key",
    "private_key_block",
    "secret_context",
]

KEY_TYPES = names.SSH_KEY_TYPES
"""Key types :func:`generate_key_files` makes (:data:`t2gen.twister2.names.SSH_KEY_TYPES`)."""

_RSA_BITS = 3072
_PrivateKey = rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey | ec.EllipticCurvePrivateKey


class SshKeyFiles(Record):
    """The three files of the Secret, as text.

    Attributes:
        private_key: ``id_rsa``: the private key (OpenSSH or PEM), unencrypted.
        public_key: ``id_rsa.pub``: one ``<type> <base64> <comment>`` line.
    """

    private_key: str
    public_key: str

    def data(self) -> dict[str, str]:
        """The Secret's ``data``: file name to base64 of the file's bytes."""
        files = {
            "id_rsa": self.private_key,
            "id_rsa.pub": self.public_key,
            "authorized_keys": self.public_key,
        }
        return {
            name: base64.b64encode(text.encode("utf-8")).decode("ascii")
            for name, text in files.items()
        }


def _public_line(key: _PrivateKey, comment: str) -> str:
    """The OpenSSH public key line of a private key, with a comment."""
    raw = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return f"{raw.decode('ascii')} {comment}\n"


def generate_key_files(key_type: str, *, comment: str) -> SshKeyFiles:
    """Make a fresh key pair.

    Args:
        key_type: ``rsa`` (3072-bit) or ``ed25519``.
        comment: the public key's comment (the Secret's name).

    Returns:
        The private key in OpenSSH format and its public line.

    Raises:
        ValueError: an unknown key type.
    """
    key: _PrivateKey
    if key_type == "rsa":
        key = rsa.generate_private_key(public_exponent=65537, key_size=_RSA_BITS)
    elif key_type == "ed25519":
        key = ed25519.Ed25519PrivateKey.generate()
    else:
        raise ValueError(
            f"unknown key type {key_type!r}; use one of {', '.join(KEY_TYPES)}"
        )
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    ).decode("ascii")
    return SshKeyFiles(private_key=private, public_key=_public_line(key, comment))


_BLOCK = re.compile(
    r"-----BEGIN ([A-Z0-9 ]*PRIVATE KEY)-----(.*?)-----END \1-----", re.S
)
_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----")


def private_key_block(text: str, *, path: str) -> str:
    """The one private key block of a key file, with LF line ends, and nothing else.

    Text before or after the block (a comment, an ``AWS_SECRET_ACCESS_KEY=...``
    line pasted below it) is not kept. CRLF line ends become LF; a block whose
    line breaks were lost (the base64 body on the armor's line, or broken by
    spaces) is wrapped again, at 70 characters for OpenSSH keys (as
    ``ssh-keygen`` writes them) and 64 for PEM (RFC 7468, section 2), which
    changes no byte of the key. A block with PEM headers (``Proc-Type:``) is
    kept as written.

    Args:
        text: the key file's text.
        path: the file's name, for messages.

    Returns:
        ``-----BEGIN ...-----`` to ``-----END ...-----`` and a final line feed.

    Raises:
        ConfigError: the file holds no complete private key block, or more than one.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    count = len(_BEGIN.findall(text))
    if count > 1:
        raise ConfigError(
            path=path,
            message=f"holds {count} private keys; give a file with exactly one",
        )
    block = _BLOCK.search(text)
    if block is None:
        raise ConfigError(
            path=path,
            message="not a private key file: no complete private key block (-----BEGIN ... PRIVATE KEY----- to -----END ... "
            "PRIVATE KEY-----); make one with `ssh-keygen -t ed25519 -N '' -f key`",
        )
    label, body = block[1], block[2]
    lines = [line.strip() for line in body.strip("\n").split("\n")]
    if ":" in body or (
        body.startswith("\n")
        and body.endswith("\n")
        and all(line and " " not in line for line in lines)
    ):
        wrapped = lines
    else:
        width = 70 if label == "OPENSSH PRIVATE KEY" else 64
        wrapped = textwrap.wrap("".join(body.split()), width) or [""]
    return (
        "\n".join([f"-----BEGIN {label}-----", *wrapped, f"-----END {label}-----"])
        + "\n"
    )


def key_files_from_private_key(data: bytes, *, path: str, comment: str) -> SshKeyFiles:
    """Use an existing private key, so re-running gives the same Secret (no rotation).

    Only the key block is kept (:func:`private_key_block`): its text byte for
    byte when it is well formed (re-serialising an OpenSSH key would change its
    random check bytes), with LF line ends; the public key is derived.

    Args:
        data: the private key file's bytes (OpenSSH or PEM, unencrypted).
        path: the file's name, for messages.
        comment: the public key's comment.

    Returns:
        The key files.

    Raises:
        ConfigError: the file is not one unencrypted RSA, Ed25519 or ECDSA private
            key. The message never contains the file's content.
    """
    try:
        text = private_key_block(data.decode("ascii"), path=path)
    except UnicodeDecodeError:
        raise ConfigError(
            path=path, message="not a private key file (it is not ASCII text)"
        ) from None
    loaders = (serialization.load_ssh_private_key, serialization.load_pem_private_key)
    key: Any = None
    for load in loaders:
        try:
            key = load(text.encode("ascii"), password=None)
            break
        except TypeError:
            raise ConfigError(
                path=path,
                message="the private key is encrypted; the pods' sshd needs an unencrypted key",
            ) from None
        except (ValueError, UnsupportedAlgorithm):
            continue
    if not isinstance(
        key, (rsa.RSAPrivateKey, ed25519.Ed25519PrivateKey, ec.EllipticCurvePrivateKey)
    ):
        raise ConfigError(
            path=path,
            message="not an unencrypted RSA, Ed25519 or ECDSA private key in OpenSSH or PEM format "
            "(make one with `ssh-keygen -t ed25519 -N '' -f key`)",
        )
    return SshKeyFiles(private_key=text, public_key=_public_line(key, comment))


def secret_context(
    name: str, namespace: str | None, files: SshKeyFiles, *, job: str | None = None
) -> dict[str, Any]:
    """The template context of the SSH Secret.

    Args:
        name: the Secret's name (the job files' ``spec.mpi.sshSecretName``).
        namespace: its namespace, or None to leave it to kubectl/kustomize.
        files: the key files.
        job: the one job whose key it is (``--job``), or None for a key shared
            by the jobs that name it; labels it ``t2-job=<job>`` like the job's
            objects, so that deleting the job by label deletes its key.

    Returns:
        ``{metadata, data}`` for ``templates/secret/secret-ssh.yaml.j2``.
    """
    labels = (
        names.common_labels(job, "ssh")
        if job is not None
        else {
            names.APP_LABEL: names.APP_NAME,
            names.NAME_LABEL: names.APP_NAME,
            names.COMPONENT_LABEL: "ssh",
            names.MANAGED_BY_LABEL: names.MANAGER,
        }
    )
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = labels
    return {"metadata": metadata, "data": files.data()}
