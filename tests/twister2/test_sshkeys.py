from __future__ import annotations

import base64
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, padding, rsa
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.errors import ConfigError
from t2gen.kube.yamlio import load_all_yaml
from t2gen.twister2.sshkeys import (
    generate_key_files,
    key_files_from_private_key,
    secret_context,
)
from tests.conftest import KUBE_VERSIONS, kube_schema_errors

runner = CliRunner()


def _secret(*args: str) -> dict[str, Any]:
    result = runner.invoke(
        app, ["secret", "ssh", "--name", "twister2-openmpi-ssh-key", *args]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    (secret,) = load_all_yaml(result.stdout)
    return secret  # type: ignore[no-any-return]


def _files(secret: dict[str, Any]) -> dict[str, bytes]:
    return {name: base64.b64decode(value) for name, value in secret["data"].items()}


def _assert_valid_pair(private: bytes, public: bytes) -> None:
    """Both halves load as OpenSSH keys and a signature by one verifies with the other."""
    key = serialization.load_ssh_private_key(private, password=None)
    public_key = serialization.load_ssh_public_key(public)
    message = b"t2gen ssh key pair check"
    if isinstance(key, rsa.RSAPrivateKey):
        assert isinstance(public_key, rsa.RSAPublicKey)
        public_key.verify(
            key.sign(message, padding.PKCS1v15(), hashes.SHA256()),
            message,
            padding.PKCS1v15(),
            hashes.SHA256(),
        )
    else:
        assert isinstance(key, ed25519.Ed25519PrivateKey) and isinstance(
            public_key, ed25519.Ed25519PublicKey
        )
        public_key.verify(key.sign(message), message)


@pytest.mark.parametrize("key_type", ["rsa", "ed25519"])
def test_fresh_secret_holds_a_valid_openssh_pair(key_type: str) -> None:
    secret = _secret("--key-type", key_type)
    assert (
        secret["kind"] == "Secret"
        and secret["type"] == "Opaque"
        and secret["immutable"] is True
    )
    files = _files(secret)
    assert sorted(files) == ["authorized_keys", "id_rsa", "id_rsa.pub"]
    assert files["authorized_keys"] == files["id_rsa.pub"]
    assert files["id_rsa.pub"].endswith(b" twister2-openmpi-ssh-key\n")
    _assert_valid_pair(files["id_rsa"], files["id_rsa.pub"])
    for version in KUBE_VERSIONS:
        assert kube_schema_errors(secret, version) == []


def test_fresh_keys_differ_each_time() -> None:
    assert _files(_secret())["id_rsa"] != _files(_secret())["id_rsa"]


def test_from_key_gives_the_same_secret_twice(tmp_path: Path) -> None:
    key = tmp_path / "key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "x", "-f", str(key)],
        check=True,
    )
    first = runner.invoke(app, ["secret", "ssh", "--name", "s", "--from-key", str(key)])
    second = runner.invoke(
        app, ["secret", "ssh", "--name", "s", "--from-key", str(key)]
    )
    assert first.exit_code == 0 and first.stdout == second.stdout
    files = _files(load_all_yaml(first.stdout)[0])
    assert files["id_rsa"] == key.read_bytes()
    assert (
        files["id_rsa.pub"].split()[:2]
        == key.with_suffix(".pub").read_bytes().split()[:2]
    )
    _assert_valid_pair(files["id_rsa"], files["id_rsa.pub"])


def test_pem_rsa_keys_are_accepted(tmp_path: Path) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.TraditionalOpenSSL,
        serialization.NoEncryption(),
    )
    files = key_files_from_private_key(pem, path="k", comment="c")
    assert files.private_key.encode() == pem
    assert (
        serialization.load_ssh_public_key(files.public_key.encode()).public_numbers()
        == key.public_key().public_numbers()
    )  # type: ignore[union-attr]


def test_encrypted_keys_are_refused(tmp_path: Path) -> None:
    key = tmp_path / "key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "passphrase", "-f", str(key)],
        check=True,
    )
    with pytest.raises(ConfigError, match="the private key is encrypted"):
        key_files_from_private_key(key.read_bytes(), path="k", comment="c")


def test_errors_never_show_key_material(tmp_path: Path) -> None:
    lines = generate_key_files("ed25519", comment="c").private_key.splitlines()
    broken = tmp_path / "broken"
    broken.write_text(
        "\n".join([*lines[:2], *lines[3:]]) + "\n", encoding="utf-8"
    )  # a base64 line is missing
    result = runner.invoke(
        app, ["secret", "ssh", "--name", "s", "--from-key", str(broken)]
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(
        f"{broken}: not an unencrypted RSA, Ed25519 or ECDSA private key"
    )
    assert not any(line in result.stderr for line in lines if "PRIVATE KEY" not in line)


def test_not_a_key_file(tmp_path: Path) -> None:
    for content in (b"\xff\xfe binary", b"hello\n"):
        with pytest.raises(ConfigError, match="not"):
            key_files_from_private_key(content, path="k", comment="c")


def test_namespace_and_name_checks() -> None:
    assert _secret("--namespace", "batch")["metadata"]["namespace"] == "batch"
    result = runner.invoke(app, ["secret", "ssh", "--name", "Bad_Name"])
    assert result.exit_code == 2 and "is not a Secret name" in result.stderr


def _job_secret(*args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["secret", "ssh", *args])
    assert result.exit_code == 0, result.stderr
    (secret,) = load_all_yaml(result.stdout)
    return secret  # type: ignore[no-any-return]


def test_openmpi_example_and_its_secret_are_everything_the_job_needs() -> None:
    rendered = runner.invoke(app, ["render", "examples/openmpi.yaml"])
    objects = load_all_yaml(rendered.stdout)
    secret = _job_secret("--job", "examples/openmpi.yaml", "--key-type", "ed25519")
    assert secret["metadata"]["name"] == "openmpi-ssh"  # the job's own key
    assert secret["metadata"]["labels"]["t2-job"] == "openmpi"
    volumes = [
        v
        for o in objects
        if o["kind"] == "StatefulSet"
        for v in o["spec"]["template"]["spec"]["volumes"]
    ]
    secret_names = {v["secret"]["secretName"] for v in volumes if "secret" in v}
    assert secret_names == {secret["metadata"]["name"]}
    for obj in [*objects, secret]:
        for version in KUBE_VERSIONS:
            assert kube_schema_errors(obj, version) == []


def test_secret_context_holds_what_the_template_writes() -> None:
    files = generate_key_files("ed25519", comment="k")
    context = secret_context("k", "batch", files)
    assert set(context) == {"metadata", "data"}
    assert context["metadata"]["namespace"] == "batch"
    assert context["metadata"]["labels"]["app.kubernetes.io/component"] == "ssh"


def test_a_job_gets_its_own_key_and_a_shared_key_only_by_name(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    text = (
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: sim, namespace: hpc}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n  workers: [{count: 2, perPod: 2}]\n"
        "  mpi: {enabled: true%s}\n"
    )
    job.write_text(text % "", encoding="utf-8")
    own = _job_secret("--job", str(job), "--key-type", "ed25519")
    assert (own["metadata"]["name"], own["metadata"]["namespace"]) == ("sim-ssh", "hpc")
    assert (
        _job_secret("--job", str(job), "-n", "other")["metadata"]["namespace"]
        == "other"
    )
    job.write_text(text % ", sshSecretName: team-key", encoding="utf-8")
    shared = _job_secret("--job", str(job), "--key-type", "ed25519")
    assert shared["metadata"]["name"] == "team-key"
    for args in ([], ["--name", "k", "--job", str(job)]):
        result = runner.invoke(app, ["secret", "ssh", *args])
        assert result.exit_code == 2 and "give --job JOB" in result.stderr
    job.write_text(
        text.replace("enabled: true", "enabled: false") % "", encoding="utf-8"
    )
    result = runner.invoke(app, ["secret", "ssh", "--job", str(job)])
    assert result.exit_code == 1 and "does not use OpenMPI" in result.stderr
    assert result.stdout == ""
