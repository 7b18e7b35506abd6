"""Every integer and number field of the job schema at the edges of machine numbers (issue 23, item 2).

The fields come from the schema itself, so a new field is swept without a
change here. Each value is written into ``examples/wordcount.yaml`` as YAML and
as JSON; ``t2gen validate`` must answer at once with located problems only
(never a traceback, never a hang: a rule once looped ``range(1, perPod)`` after
the schema had refused a ``perPod`` of 2^31), and a value out of the field's
range is exactly one problem at that field.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from pathlib import Path
from typing import Any

import pytest
import typer.main
import yaml
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.errors import format_json_path
from t2gen.jobfile.schema import load_schema
from tests.conftest import ROOT

runner = CliRunner()
COMMAND = typer.main.get_command(app)  # typer would build it again on every invoke

VALUES: dict[str, tuple[str, str, float | int]] = {
    # label: (YAML spelling, JSON spelling, value)
    "2^31": ("2147483648", "2147483648", 2**31),
    "2^53": ("9007199254740993", "9007199254740993", 2**53 + 1),
    "2^63": ("9223372036854775808", "9223372036854775808", 2**63),
    "2^64": ("18446744073709551616", "18446744073709551616", 2**64),
    "10^100": ("1" + "0" * 100, "1" + "0" * 100, 10**100),
    "-0": ("-0", "-0", 0),
    "1e308": ("1e308", "1e308", 1e308),
    ".nan": (".nan", "NaN", math.nan),
    ".inf": (".inf", "Infinity", math.inf),
}

_QUANTITY_LIMIT = 2**63  # Kubernetes keeps quantities as int64


def _resolve(node: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target = schema["$defs"][node["$ref"].rsplit("/", 1)[-1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node


def _number_fields(
    node: dict[str, Any], schema: dict[str, Any], path: tuple[str | int, ...] = ()
) -> list[tuple[tuple[str | int, ...], dict[str, Any]]]:
    """(path, resolved schema) of every field whose type admits an integer or a number."""
    node = _resolve(node, schema)
    if len(path) > 12:
        return []
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    found = [(path, node)] if {"integer", "number"} & set(kinds) else []
    for key, child in node.get("properties", {}).items():
        found += _number_fields(child, schema, (*path, key))
    if isinstance(node.get("additionalProperties"), dict):
        found += _number_fields(
            node["additionalProperties"], schema, (*path, "example.com/gpu")
        )
    for child in node.get("patternProperties", {}).values():
        found += _number_fields(child, schema, (*path, "example.com/gpu"))
    if isinstance(node.get("items"), dict):
        found += _number_fields(node["items"], schema, (*path, 0))
    for branch in [*node.get("anyOf", []), *node.get("oneOf", [])]:
        found += _number_fields(branch, schema, path)
    unique = {format_json_path(p): (p, n) for p, n in found}
    return list(unique.values())


SCHEMA = load_schema()
FIELDS = _number_fields(SCHEMA, SCHEMA)


@functools.cache
def _example() -> dict[str, Any]:
    """examples/wordcount.yaml, parsed once (PyYAML's pure-Python reader: 8 ms a time)."""
    data: dict[str, Any] = yaml.safe_load(
        (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
    )
    return data


def _with_value(path: tuple[str | int, ...], marker: str) -> dict[str, Any]:
    """The example job with ``marker`` (a string replaced later by the spelling) at ``path``."""
    data = copy.deepcopy(_example())
    if path[:2] == ("spec", "lifecycle"):  # every lifecycle field needs the supervisor
        data["spec"].setdefault("lifecycle", {})["supervise"] = True
    node: Any = data
    for part, following in zip(path, (*path[1:], None), strict=True):
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            if not node:
                node.append(empty if following is not None else None)
            if following is None:
                node[0] = marker
            node = node[0]
        elif following is None:
            node[part] = marker
        else:
            node = node.setdefault(part, empty)
    return data


def _out_of_range(node: dict[str, Any], value: float | int) -> bool:
    kinds = node.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if isinstance(value, float) and not math.isfinite(value):
        return True
    if "integer" in kinds and "number" not in kinds and isinstance(value, float):
        return True
    if "maximum" in node and value > node["maximum"]:
        return True
    return "number" in kinds and value >= _QUANTITY_LIMIT


FAST_VALUES = {
    "yaml": ("2^31", "10^100", ".nan"),
    "json": ("2^64", "1e308", ".inf"),
}
"""What ``make test`` sweeps every field with, each form a different third of
:data:`VALUES` (about 1,260 validations were a tenth of the suite's CPU): 2^31
(the ``perPod`` loop), over 100 digits (the reader's own refusal), NaN, past
uint64, the largest float and infinity. ``make fuzz`` sweeps all of them in both."""


@pytest.mark.parametrize(
    ("form", "labels"),
    [
        pytest.param("yaml", FAST_VALUES["yaml"], id="yaml"),
        pytest.param("json", FAST_VALUES["json"], id="json"),
        pytest.param("yaml", tuple(VALUES), id="yaml-all", marks=pytest.mark.slow),
        pytest.param("json", tuple(VALUES), id="json-all", marks=pytest.mark.slow),
    ],
)
def test_every_number_field_at_the_edges(
    form: str, labels: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("typer.testing._get_command", lambda _app: COMMAND)
    assert len(FIELDS) >= 30  # the sweep found the schema's number fields
    failures = []
    for path, node in FIELDS:
        field = format_json_path(path)
        data = _with_value(path, "@@VALUE@@")  # written once a field, each value put in
        if form == "yaml":
            template = yaml.safe_dump(data, sort_keys=False)
        else:
            template = json.dumps(data, indent=1)
        for label in labels:
            yaml_text, json_text, value = VALUES[label]
            if (
                form == "json"
                and json_text in ("NaN", "Infinity")
                and path[:2] == ("spec", "jobConfig")
            ):
                continue  # read as YAML, bare NaN is a string, which a jobConfig value may be
            if form == "yaml":
                text = template.replace("'@@VALUE@@'", yaml_text)
            else:
                text = template.replace('"@@VALUE@@"', json_text)
            job = tmp_path / f"job.{form}"
            job.write_text(text, encoding="utf-8")
            result = runner.invoke(app, ["validate", str(job)])
            lines = result.stderr.splitlines()
            located = all(line.startswith(f"{job}:") for line in lines)
            at_field = [line for line in lines if f": {field}: " in line]
            spellings = (yaml_text, json_text, repr(value), "finite", "integer")
            about_value = [x for x in at_field if any(s in x for s in spellings)]
            wrong = (
                result.exit_code not in (0, 1)
                or "Traceback" in result.output
                or not located
                or (
                    _out_of_range(node, value)
                    and len(about_value) != 1
                    and len(lines) != 1  # the reader's own refusal (over 100 digits)
                )
            )
            if wrong:
                failures.append(f"{field} = {label}: {result.exit_code} {lines}")
    assert failures == [], "\n".join(failures)
