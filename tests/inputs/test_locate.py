"""A JSON path's line and column in YAML or JSON text (the plan inputs' error path)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t2gen.errors import InputError, Problem
from t2gen.inputs.kubelist import with_positions
from t2gen.inputs.locate import locate

NODES = json.dumps(
    {
        "items": [
            {"metadata": {"name": "a"}},
            {
                "metadata": {"name": "b", "labels": {"a.b/c": "x"}},
                "status": {"allocatable": {"memory": "64GB"}},
            },
        ]
    },
    indent=2,
)
QUOTA = "items:\n- kind: ResourceQuota\n  spec:\n    hard:\n      limits.cpu: 4O\n"


def _at(text: str, line: int, col: int) -> str:
    return text.splitlines()[line - 1][col - 1 :]


@pytest.mark.parametrize(
    ("text", "path", "starts"),
    [
        (NODES, "items[1].status.allocatable.memory", '"64GB"'),
        (NODES, "items[1].status.allocatable", "{"),
        (NODES, 'items[1].metadata.labels["a.b/c"]', '"x"'),
        (NODES, "items[1].metadata.labels.a.b/c", '"x"'),  # a dotted key written bare
        (NODES, "items[0].metadata.name", '"a"'),
        (QUOTA, "items[0].spec.hard.limits.cpu", "4O"),
        (QUOTA, "items[0].spec", "hard:"),
    ],
)
def test_a_path_is_found_where_its_node_starts(
    text: str, path: str, starts: str
) -> None:
    position = locate(text, path)
    assert position is not None
    assert _at(text, *position).startswith(starts)


@pytest.mark.parametrize(
    "path", ["items[2]", "items[1].nope", "items[0].metadata.name.x", "items.x"]
)
def test_a_path_not_in_the_text_is_none(path: str) -> None:
    assert locate(NODES, path) is None


def test_an_alias_a_broken_text_and_the_budget_give_none() -> None:
    assert locate("a: &x {b: 1}\nc: *x\n", "c.b") is None
    assert locate("a: [1, 2\n", "a[5]") is None
    assert locate(NODES, "items[1].status.allocatable", budget=10) is None


def test_problems_are_located_at_their_path_or_its_nearest_parent(
    tmp_path: Path,
) -> None:
    path = tmp_path / "nodes.json"
    path.write_text(NODES, encoding="utf-8")
    err = InputError(
        problems=[
            Problem(str(path), 0, 0, "bad", "items[1].status.allocatable.memory"),
            Problem(str(path), 0, 0, "has no uid", "items[0].metadata.uid"),
            Problem(str(path), 0, 0, "is empty"),
        ]
    )
    located = {p.message: p for p in with_positions(err, str(path)).problems}
    assert _at(NODES, located["bad"].line, located["bad"].col).startswith('"64GB"')
    missing = located["has no uid"]  # at items[0].metadata, where uid would be
    assert (missing.line, missing.col) == locate(NODES, "items[0].metadata")
    assert located["is empty"].line == 0  # no path: the whole file
    assert with_positions(err, "-") is err  # standard input is read once


def test_a_thousand_problems_are_located_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One pass for all (bench/round4.py's 1,000 forged node names once took 111x a
    # render, searched once per problem).
    import t2gen.inputs.locate as located_module

    items = [{"metadata": {"name": f"n{i}"}} for i in range(1000)]
    text = json.dumps({"items": items}, indent=1)
    path = tmp_path / "nodes.json"
    path.write_text(text, encoding="utf-8")
    passes = []
    parse = located_module.yaml.parse

    def counted(*args: object, **kwargs: object) -> object:
        passes.append(1)
        return parse(*args, **kwargs)

    monkeypatch.setattr(located_module.yaml, "parse", counted)
    err = InputError(
        problems=[
            Problem(str(path), 0, 0, "bad name", f"items[{i}].metadata.name")
            for i in range(1000)
        ]
    )
    problems = with_positions(err, str(path)).problems
    assert len(passes) == 1
    assert all(_at(text, p.line, p.col).startswith('"n') for p in problems)
    assert len({p.line for p in problems}) == 1000
