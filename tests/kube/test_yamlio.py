from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from t2gen.kube import yamlio
from t2gen.kube.yamlio import dump_flow, dump_yaml, load_all_yaml
from tests.conftest import GOLDEN, kubectl_objects

# Strings that YAML 1.1 (kubectl) or YAML 1.2 would read as something else if
# written plain, and strings that could reshape a document.
TRICKY = [
    "yes", "Yes", "YES", "no", "n", "N", "y", "Y", "on", "Off", "true", "False", "null", "Null", "~", "",
    "0400", "012", "0x1F", "0o17", "0b101", "1e3", "1E3", "1_000", "1:20", "+1", "-1", ".5", "1.10",
    ".inf", "-.inf", ".nan", "+inf", "2024-01-01", "2001-12-14t21:59:43.10-05:00", "007", "123", "00",
    "=", "<<", "- a", "a: b", "a:", "#x", "x #y", "---", "...", "key: value\n---\nkind: Secret",
    "{{ .Values.x }}", "{% raw %}", "'", '"', "\\", "\t", " lead", "trail ", "line1\nline2", "\r\n",
    "\x00", "\x07", "\x7f", "\x85", "\u2028", "\u200f", "\ufeff", "😀", "é", "日本語", "x" * 10_000,
    "twister2/twister2-k8s:0.8.0", "http://a.b/c?d=e&f=g#h", "500m", "1Gi", "1E", "0", "0.0", "-",
    "@at", "`tick", "!tag", "&anchor", "*alias", "%directive", "|", ">", "[a]", "{a: 1}", "?", "a,b",
]  # fmt: skip


def test_every_tricky_string_round_trips_in_pyyaml() -> None:
    text = dump_yaml(
        {"data": {f"k{i}": value for i, value in enumerate(TRICKY)}, "list": TRICKY}
    )
    assert load_all_yaml(text) == [
        {"data": {f"k{i}": v for i, v in enumerate(TRICKY)}, "list": TRICKY}
    ]
    assert yaml.safe_load(text)["list"] == TRICKY  # plain YAML 1.1 agrees too


def test_kubectl_reads_every_tricky_string_as_the_string(
    kubectl: Any, tmp_path: Path
) -> None:
    data = {f"k{i}": value for i, value in enumerate(TRICKY) if "\x00" not in value}
    labels = {
        "digits": "123",
        "octal": "0400",
        "bool": "yes",
        "n": "n",
        "exp": "1e3",
        "num": "1.10",
    }
    config_map = {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "tricky", "labels": labels},
        "data": data,
    }
    manifest = tmp_path / "cm.yaml"
    manifest.write_text(dump_yaml(config_map), encoding="utf-8")
    assert kubectl_objects(kubectl, manifest) == [config_map]


def test_keys_are_quoted_too() -> None:
    assert load_all_yaml(dump_yaml({"y": 1, "on": 2, "123": 3})) == [
        {"y": 1, "on": 2, "123": 3}
    ]


def test_plain_where_safe() -> None:
    text = dump_yaml(
        {
            "name": "wordcount-0",
            "cpu": "500m",
            "image": "a/b:1.0",
            "port": "9000",
            "n": "n",
        }
    )
    assert (
        text == 'name: wordcount-0\ncpu: 500m\nimage: a/b:1.0\nport: "9000"\n"n": "n"\n'
    )


def test_long_lines_are_never_folded() -> None:
    value = "word " * 100
    assert len(dump_yaml({"k": value}).splitlines()) == 1


@pytest.mark.parametrize(
    "value", [{"a": "yes", "b": [1, "2"]}, "yes", "plain", 3, None, True, [], {}]
)
def test_flow_values_embed_after_a_key(value: Any) -> None:
    assert load_all_yaml(f"key: {dump_flow(value)}\n") == [{"key": value}]


def test_loader_reads_like_kubectl() -> None:
    text = "a: y\nb: 1e3\nc: 2024-01-01\nd: 0400\ne: 'yes'\n"
    assert load_all_yaml(text) == [
        {"a": True, "b": 1000.0, "c": "2024-01-01", "d": 256, "e": "yes"}
    ]


def test_loader_rejects_duplicate_keys() -> None:
    with pytest.raises(yaml.YAMLError, match="duplicate key 'a'"):
        load_all_yaml("a: 1\na: 2\n")


# dump_yaml writes JSON-shaped data through PyYAML's event API; everything else
# (and the reference here) goes through PyYAML's representer. Both must agree.
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.sampled_from(TRICKY),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text() | st.sampled_from(TRICKY), children, max_size=4)
    ),
    max_leaves=25,
)


@given(_JSON)
def test_events_write_what_the_representer_writes(value: Any) -> None:
    assert yamlio._emit(value) == yamlio._dump_represented(value)


def test_events_write_every_golden_object_as_the_representer() -> None:
    objects = []
    for expected in sorted(GOLDEN.glob("*/expected.stdout")):
        text = expected.read_text(encoding="utf-8")
        if text.startswith("---\n# Source: "):  # a rendered stream (not plan or JSON)
            objects += [obj for obj in load_all_yaml(text) if isinstance(obj, dict)]
    assert len(objects) > 100
    for obj in objects:
        assert yamlio._emit(obj) == yamlio._dump_represented(obj)


@pytest.mark.parametrize(
    "value",
    [{"f": 1.5}, [0.1, {"a": 2.0}], {"nested": {"x": float("inf")}}, b"bytes"],
)
def test_what_is_not_json_shaped_goes_through_the_representer(value: Any) -> None:
    with pytest.raises(yamlio._NotJsonShaped):
        yamlio._emit(value)
    assert dump_yaml(value) == yamlio._dump_represented(value)


def test_a_container_used_twice_keeps_pyyaml_anchors() -> None:
    shared = {"app": "twister2"}
    value = {"a": shared, "b": shared}
    assert dump_yaml(value) == yamlio._dump_represented(value)
    assert "&id001" in dump_yaml(value)


# dump_yaml's events carry no tags, UTF-8 values and cached scalars; whatever the
# data, the text must stay yaml.dump's, containers used twice (anchors) included.
_ODD_INTS = st.integers() | st.sampled_from([0, 1, -1, 2**63, -(2**64), 10**40])
_SCALARS = (
    st.none()
    | st.booleans()
    | _ODD_INTS
    | st.text()
    | st.sampled_from(TRICKY)
    | st.text(st.characters(codec="utf-8"), max_size=300)
)
_TREES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text() | st.sampled_from(TRICKY), children, max_size=4)
        | st.dictionaries(_ODD_INTS | st.booleans() | st.none(), children, max_size=3)
        | st.just([]) | st.just({}) | st.just([[{}], {"": []}])
    ),
    max_leaves=30,
)  # fmt: skip


@given(_TREES, _TREES)
def test_dump_yaml_writes_what_yaml_dump_writes(value: Any, shared: Any) -> None:
    # Twice: the second run takes every scalar from the caches.
    for _ in range(2):
        assert dump_yaml(value) == yamlio._dump_represented(value)
    if isinstance(shared, (dict, list)):  # the same container in three places
        doubled = {"a": shared, "b": [value, shared], "c": {"d": shared}}
        assert dump_yaml(doubled) == yamlio._dump_represented(doubled)
        assert "&id001" in dump_yaml(doubled)


def test_cached_ints_never_stand_for_bools_or_strings() -> None:
    data = [1, 0, "1", "0", True, False, 1, 0, {1: True, "1": [True, 1], 0: "0"}]
    assert dump_yaml(data) == yamlio._dump_represented(data)
    assert dump_yaml(data).startswith('- 1\n- 0\n- "1"\n- "0"\n- true\n- false\n')


def test_a_container_holding_itself_keeps_pyyaml_anchors() -> None:
    loop: list[Any] = ["x"]
    loop.append(loop)
    mapping: dict[str, Any] = {"a": 1}
    mapping["self"] = mapping
    for value in (loop, mapping):
        assert dump_yaml(value) == yamlio._dump_represented(value)


def test_a_string_that_is_not_unicode_fails_as_yaml_dump_fails() -> None:
    with pytest.raises(UnicodeEncodeError):
        yamlio._dump_represented({"a": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        dump_yaml({"a": "\ud800"})
