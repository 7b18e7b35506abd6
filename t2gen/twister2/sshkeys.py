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
    "secret_context",
]

KEY_TYPES = ("rsa", "ed25519")
"""Key types ``t2gen secret ssh --key-type`` makes; RSA is 3072-bit.

The one list of them: the CLI's ``--key-type`` choices are built from it."""

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


def key_files_from_private_key(data: bytes, *, path: str, comment: str) -> SshKeyFiles:
    """Use an existing private key, so re-running gives the same Secret (no rotation).

    The file's text is kept byte for byte as ``id_rsa`` (re-serialising an
    OpenSSH key would change its random check bytes); the public key is derived.

    Args:
        data: the private key file's bytes (OpenSSH or PEM, unencrypted).
        path: the file's name, for messages.
        comment: the public key's comment.

    Returns:
        The key files.

    Raises:
        ConfigError: the file is not an unencrypted RSA, Ed25519 or ECDSA private
            key. The message never contains the file's content.
    """
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise ConfigError(
            path=path, message="not a private key file (it is not ASCII text)"
        ) from None
    loaders = (serialization.load_ssh_private_key, serialization.load_pem_private_key)
    key: Any = None
    for load in loaders:
        try:
            key = load(data, password=None)
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
    if not text.endswith("\n"):
        text += "\n"
    return SshKeyFiles(private_key=text, public_key=_public_line(key, comment))


def secret_context(
    name: str, namespace: str | None, files: SshKeyFiles
) -> dict[str, Any]:
    """The template context of the SSH Secret.

    Args:
        name: the Secret's name (the job files' ``spec.mpi.sshSecretName``).
        namespace: its namespace, or None to leave it to kubectl/kustomize.
        files: the key files.

    Returns:
        ``{metadata, data}`` for ``templates/secret/secret-ssh.yaml.j2``.
    """
    labels = {
        names.APP_LABEL: names.APP_NAME,
        names.NAME_LABEL: names.APP_NAME,
        names.COMPONENT_LABEL: "ssh",
        names.MANAGED_BY_LABEL: names.MANAGER,
    }
    metadata: dict[str, Any] = {"name": name}
    if namespace:
        metadata["namespace"] = namespace
    metadata["labels"] = labels
    return {"metadata": metadata, "data": files.data()}
