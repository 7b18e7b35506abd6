from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from t2gen.kube.quantity import Quantity, QuantityFormat, parse_quantity

# Expected canonical forms from apimachinery's tests and doc comments (quantity_test.go),
# worked through for the rest (see the module docstring).
CANONICAL = {
    "0": "0",
    "0.5": "500m",
    "1.5": "1500m",
    "2": "2",
    "100m": "100m",
    "0.0001": "100u",
    "1000": "1k",
    "1000000": "1M",
    "1k": "1k",
    "1G": "1G",
    "1000M": "1G",
    "512": "512",
    "1024Mi": "1Gi",
    "1536Mi": "1536Mi",
    "1.5Gi": "1536Mi",
    "1000Mi": "1000Mi",
    "2048Ki": "2Mi",
    "1023Ki": "1023Ki",
    "0.5Ki": "512",
    "0.1Gi": "107374182400m",
    "0.3Gi": "322122547200m",
    "1.1Gi": "1181116006400m",
    ".000000000001Ki": "2n",
    "0.9n": "1n",
    "1e3": "1e3",
    "12e6": "12e6",
    "1.5e3": "1500",
    "1.": "1",
    ".5": "500m",
    "1E": "1E",
    "8Ei": "9223372036854775807",  # above int64: capped, as Go caps it
}


@pytest.mark.parametrize(("text", "expected"), sorted(CANONICAL.items()))
def test_canonical_form(text: str, expected: str) -> None:
    assert str(parse_quantity(text)) == expected


def test_numbers_are_decimal_si() -> None:
    assert str(parse_quantity(0.2)) == "200m"
    assert str(parse_quantity(2)) == "2"
    assert str(parse_quantity(0.1)) == "100m"
    assert parse_quantity(0.1).value == Decimal("0.1")


def test_exact_arithmetic() -> None:
    # The legacy launcher computed 0.1 * 3 in floating point and crashed
    # serialising 0.30000000000000004Gi.
    assert parse_quantity("0.1Gi") * 3 == parse_quantity("0.3Gi")
    assert str(parse_quantity("0.1Gi") * 3) == "322122547200m"
    assert str(parse_quantity("1Gi") * 8 + parse_quantity("512Mi")) == "8704Mi"
    assert (parse_quantity("1.5") * 3).format is QuantityFormat.DECIMAL_SI


@pytest.mark.parametrize(
    "bad", ["", " 1", "1 ", "2GB", "1x", "1e", "abc", "1.2.3", "--1"]
)
def test_rejects_non_quantities(bad: str) -> None:
    with pytest.raises(ValueError, match=r"quantity|suffix"):
        parse_quantity(bad)


@pytest.mark.parametrize("bad", [True, float("nan"), float("inf")])
def test_rejects_non_numbers(bad: Any) -> None:
    with pytest.raises(ValueError):
        parse_quantity(bad)


def test_rounds_up_to_nano_and_caps_binary() -> None:
    assert parse_quantity("3.001n").value == Decimal("4e-9")
    assert parse_quantity("-0.9n").value == Decimal("-1e-9")
    assert parse_quantity("16Ei").value == Decimal(2**63 - 1)


def test_helpers() -> None:
    assert parse_quantity("500m").is_milli_precise()
    assert not parse_quantity("100u").is_milli_precise()
    assert parse_quantity("2").is_whole() and not parse_quantity("1500m").is_whole()
    assert parse_quantity("1Gi").mebibytes() == 1024
    assert Quantity(Decimal(0)).is_zero()


# Everything t2gen can print must read back as itself in the real parser, and
# every value kubectl canonicalises must agree with ours.
ORACLE_INPUTS = sorted(
    {
        *CANONICAL,
        "250m",
        "4500m",
        "3Gi",
        "8704Mi",
        "322122547200m",
        "7Ti",
        "1Pi",
        "123456789",
        "2.5",
        "0.001",
        "64Mi",
    }
    - {".000000000001Ki", "0.9n"}
)


def test_matches_kubectl(kubectl: Any, tmp_path: Path) -> None:
    containers = [
        {
            "name": f"c{index}",
            "image": "x",
            "resources": {
                "requests": {"cpu": text, "memory": str(parse_quantity(text))}
            },
        }
        for index, text in enumerate(ORACLE_INPUTS)
    ]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p"},
        "spec": {"containers": containers},
    }
    manifest = tmp_path / "pod.json"
    manifest.write_text(json.dumps(pod), encoding="utf-8")
    # `set resources --local` parses every quantity and prints Quantity.String().
    result = kubectl(
        "set",
        "resources",
        "--local",
        "-f",
        str(manifest),
        "--limits=cpu=1",
        "-o",
        "json",
    )
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)["spec"]["containers"]
    for text, container in zip(ORACLE_INPUTS, printed, strict=True):
        ours = str(parse_quantity(text))
        requests = container["resources"]["requests"]
        assert requests["memory"] == ours, (
            f"our canonical {ours!r} of {text!r} is not a fixed point in kubectl"
        )
        # kubectl keeps some inputs verbatim (apimachinery reuses the raw string on its
        # int64 fast path); otherwise its canonical form must equal ours.
        assert requests["cpu"] in (ours, text), (text, requests["cpu"], ours)
        assert parse_quantity(requests["cpu"]).value == parse_quantity(text).value
