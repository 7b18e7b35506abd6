"""``status --cluster``'s problems are located at ``line:col`` (t2gen.inputs.cluster), as ``plan --nodes``'s are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t2gen.errors import InputError
from t2gen.inputs.cluster import read_cluster


def test_an_item_that_is_no_object_is_located_at_its_line(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    items = [
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        {"kind": "Pod"},
    ]
    state.write_text(json.dumps({"kind": "List", "items": items}, indent=2))
    with pytest.raises(InputError) as raised:
        read_cluster(str(state))
    (problem,) = raised.value.problems
    lines = state.read_text().splitlines()
    line = next(n for n, text in enumerate(lines, 1) if '"kind": "Pod"' in text)
    assert (problem.path, problem.json_path) == (str(state), "items[1]")
    assert (
        problem.line == line - 1
    )  # the item's opening brace, the line before its first key
    assert problem.col > 0
    assert str(problem).startswith(f"{state}:{problem.line}:{problem.col}: ")


def test_a_yaml_error_is_located(tmp_path: Path) -> None:
    state = tmp_path / "state.yaml"
    state.write_text("kind: List\nitems:\n  - {kind: Pod\n")
    with pytest.raises(InputError) as raised:
        read_cluster(str(state))
    (problem,) = raised.value.problems
    assert problem.line >= 3
