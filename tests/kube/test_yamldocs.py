from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from t2gen.kube import yamlio
from t2gen.kube.yamldocs import dump_yaml_each
from t2gen.kube.yamlio import dump_yaml
from t2gen.pipeline.job import generate
from tests.conftest import ROOT
from tests.kube.test_yamlio import TRICKY

# One emitter writes the mappings one after another; each text cut from its
# stream must be the text dump_yaml writes for the object alone.
_KEYS = st.text() | st.sampled_from(TRICKY)
_STRINGS = (
    st.text()
    | st.sampled_from(TRICKY)
    | st.text(st.characters(codec="utf-8"), max_size=300)
    | st.text(st.sampled_from("ab \n\t:#-\"'"), max_size=40)  # multi-line, odd
    | st.text(st.sampled_from("xy "), min_size=200, max_size=2_000)  # long lines
)
_SCALARS = st.none() | st.booleans() | st.integers() | _STRINGS
_TREES = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(_KEYS, children, max_size=4)
        | st.dictionaries(st.integers() | st.booleans() | st.none(), children, max_size=2)
        | st.just([]) | st.just({}) | st.just({"a": {}, "b": []})
    ),
    max_leaves=30,
)  # fmt: skip
_MAPPINGS = st.dictionaries(_KEYS, _TREES, min_size=1, max_size=5)
_ODD = st.sampled_from(
    [1.5, {"f": 0.5}, {"a": [1, {"b": float("inf")}]}, b"x", {b"k": 1}]
)
_OBJECTS = st.lists(_MAPPINGS | _TREES | _ODD, max_size=8)


@given(_OBJECTS)
def test_each_text_is_what_dump_yaml_writes_alone(objects: list[Any]) -> None:
    expected = [dump_yaml(obj) for obj in objects]
    assert dump_yaml_each(objects) == expected
    # Trees (st.just gives one object each time: not always) may go untracked.
    if not any(_containers_twice(obj, set()) for obj in objects):
        assert dump_yaml_each(objects, trees=True) == expected


@given(st.lists(_MAPPINGS, min_size=2, max_size=6), _TREES)
def test_containers_shared_within_or_between_objects(
    objects: list[dict[str, Any]], shared: Any
) -> None:
    # Within one object: an anchor, as dump_yaml writes (only without trees=True).
    doubled = {"a": shared, "b": [shared], "c": objects[0]}
    batch = [*objects, doubled, *objects, {"again": shared}]
    assert dump_yaml_each(batch) == [dump_yaml(obj) for obj in batch]


def test_an_object_that_is_not_json_shaped_mid_stream_starts_a_new_one() -> None:
    objects = [{"a": 1}, {"b": [1, 2]}, {"c": {"d": 1.5}}, {"e": "x"}, {"f": {}}]
    texts = dump_yaml_each(objects)
    assert texts == [dump_yaml(obj) for obj in objects]
    assert texts == ["a: 1\n", "b:\n- 1\n- 2\n", "c:\n  d: 1.5\n", "e: x\n", "f: {}\n"]


def test_a_container_holding_itself_keeps_pyyaml_anchors() -> None:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = loop
    objects = [{"x": 1}, loop, {"y": 2}]
    assert dump_yaml_each(objects) == [dump_yaml(obj) for obj in objects]
    assert "&id001" in dump_yaml_each(objects)[1]


def test_an_error_mid_stream_is_dump_yaml_s() -> None:
    with pytest.raises(UnicodeEncodeError):
        dump_yaml({"a": "\ud800"})
    with pytest.raises(UnicodeEncodeError):
        dump_yaml_each([{"ok": 1}, {"a": "\ud800"}])


def _containers_twice(obj: Any, seen: set[int]) -> bool:
    if type(obj) not in (dict, list):
        return False
    if id(obj) in seen:
        return True
    seen.add(id(obj))
    children = list(obj.values()) + list(obj) if type(obj) is dict else obj
    return any(_containers_twice(child, seen) for child in children)


@pytest.mark.parametrize("skeleton", ["", "1"])
def test_rendered_objects_are_trees(
    skeleton: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What ``render`` writes with ``trees=True``: no object holds a container twice.

    The skeleton builds fresh containers, and what templates write is read back
    without aliases (``render/engine.render``), every built-in template either way.
    """
    monkeypatch.setenv("T2GEN_NO_SKELETON", skeleton)
    examples = sorted(str(p) for p in Path(ROOT, "examples").glob("*.yaml"))
    documents = [d for path in examples for d in _rendered(path)]
    assert len(documents) > 50
    for document in documents:
        assert not _containers_twice(document.obj, set()), document.template
        assert dump_yaml_each([document.obj], trees=True) == [dump_yaml(document.obj)]


def _rendered(path: str) -> list[Any]:
    try:
        return generate([path])
    except Exception:  # an example that needs more (a package, a jar)
        return []


def test_dump_yaml_still_tracks_shared_containers() -> None:
    shared = {"app": "twister2"}
    value = {"a": shared, "b": shared}
    assert dump_yaml(value) == yamlio._dump_represented(value)
    assert "&id001" in dump_yaml_each([value])[0]
