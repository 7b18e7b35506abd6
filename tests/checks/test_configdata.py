"""A ConfigMap or Secret holds at most 1 MiB (issue 41: ``check`` called a 2 MB ConfigMap valid).

The boundary is the API server's: kubernetes/kubernetes
``pkg/apis/core/validation/validation.go`` (``ValidateConfigMap``,
``ValidateSecret``: every value's bytes summed, keys not counted, against
``core.MaxSecretSize``). A v1.36.2 ``kube-apiserver`` (``kubectl create
--dry-run=server``) accepts the ``at`` objects below and refuses the ``over`` ones
with ``Too long: may not be more than 1048576 bytes``.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from t2gen.checks import ALL_CHECKS
from t2gen.checks.configdata import config_map_bytes, secret_bytes
from t2gen.cli.app import app
from tests.conftest import ROOT

MIB = 1024 * 1024
LONG_KEY = (
    "k" * 200
)  # keys do not count: the server accepted 1 MiB of values under them
runner = CliRunner()


def _config_map(values: int, **extra: Any) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "settings", "namespace": "default"},
        "data": {"a": "y" * (values - 10), LONG_KEY: "z" * 10},
        **extra,
    }


def _secret(values: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "metadata": {"name": "keys", "namespace": "default"},
        "data": {"a": base64.b64encode(b"y" * (values - 10)).decode()},
        "stringData": {"b": "z" * 10},
    }


def _check(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "objects.yaml"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["check", str(path)])
    return result.exit_code, result.stderr


@pytest.mark.parametrize("make", [_config_map, _secret])
def test_one_mib_of_values_is_valid_and_one_byte_more_is_not(
    tmp_path: Path, make: Any
) -> None:
    assert _check(tmp_path, json.dumps(make(MIB)))[0] == 0
    code, stderr = _check(tmp_path, json.dumps(make(MIB + 1)))
    kind = make(MIB)["kind"]
    assert code == 1
    assert f"{kind}/" in stderr and "holds 1,048,577 bytes" in stderr
    assert f"refuses a {kind} of more than 1,048,576 bytes (1 MiB)" in stderr


def test_two_megabytes_written_out_are_refused_with_their_location(
    tmp_path: Path,
) -> None:
    lines = "".join(f"  k{i}: {'x' * 1000}\n" for i in range(2000))
    code, stderr = _check(
        tmp_path,
        f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n{lines}",
    )
    assert code == 1
    assert stderr.startswith(f"{tmp_path / 'objects.yaml'}:1: ConfigMap/big: data: ")
    assert "holds 2,000,000 bytes" in stderr


def test_values_through_aliases_count_as_often_as_they_are_written_out(
    tmp_path: Path,
) -> None:
    value = "y" * 600_000
    code, stderr = _check(
        tmp_path,
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\n"
        f"data:\n  a: &v {value}\n  b: *v\n  c: *v\n",
    )
    assert code == 1
    assert "holds 1,800,000 bytes" in stderr


def test_binary_data_counts_decoded_and_string_data_replaces_data() -> None:
    binary = _config_map(10, binaryData={"b": base64.b64encode(b"\0" * 300).decode()})
    assert config_map_bytes(binary) == 10 + 300
    secret = {
        "data": {"a": base64.b64encode(b"1234").decode()},
        "stringData": {"a": "12"},
    }
    assert secret_bytes(secret) == 2


def test_the_checks_are_registered_and_documented() -> None:
    ids = {check.id for check in ALL_CHECKS}
    assert {"configmap-size", "secret-size"} <= ids
    rules = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "### `configmap-size`" in rules and "### `secret-size`" in rules
