"""t2gen.inputs.aliased: manifests with anchors, aliases and merge keys, within the bounds."""

from __future__ import annotations

import pytest

from t2gen.inputs.aliased import load_with_aliases
from t2gen.inputs.manifests import load_all_yaml_located
from t2gen.kube.yamlbounds import MANIFEST_BOUNDS, YamlLimitError


def _nested(depth: int, inner: str) -> str:
    return "[" * depth + inner + "]" * depth


def test_anchors_aliases_and_merge_keys_read_as_kubectl_reads_them() -> None:
    text = "base: &b {image: x, cpu: 1}\nc1: {<<: *b, cpu: 2}\nc2: *b\n"
    (document,) = load_all_yaml_located(text)
    assert document.data == {
        "base": {"image": "x", "cpu": 1},
        "c1": {"image": "x", "cpu": 2},
        "c2": {"image": "x", "cpu": 1},
    }


def test_an_alias_cannot_nest_a_value_past_the_depth_bound() -> None:
    # each part is 60 deep; the alias puts one inside the other: 120 levels expanded
    text = f"a: &deep {_nested(60, '1')}\nb: {_nested(60, '*deep')}\n"
    with pytest.raises(YamlLimitError, match="with its aliases expanded") as info:
        load_all_yaml_located(text)
    assert info.value.problem_mark.line == 0


def test_the_events_are_bounded_before_the_composer_runs() -> None:
    deep = (
        f"a: &x 1\nb: *x\nc: {_nested(150, '1')}\n"  # deeper than 100, after an alias
    )
    with pytest.raises(YamlLimitError, match="nested more than 100 deep") as info:
        load_with_aliases(deep, MANIFEST_BOUNDS)
    assert (info.value.problem_mark.line, info.value.problem_mark.column) == (
        2,
        102,
    )  # the 101st list or mapping, the document's own counted
    digits = "a: &x 1\nb: *x\nc: " + "9" * 5000 + "\n"
    with pytest.raises(YamlLimitError, match="more than 4,300 digits"):
        load_with_aliases(digits, MANIFEST_BOUNDS)
