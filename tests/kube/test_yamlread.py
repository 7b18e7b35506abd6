"""The bounded reader (:mod:`t2gen.kube.yamlread`): kubectl's reading, within bounds judged per event."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from t2gen.kube.yamlbounds import MANIFEST_BOUNDS, ReadBounds, YamlLimitError
from t2gen.kube.yamlio import dump_yaml, load_all_yaml
from t2gen.kube.yamlread import BoundedReader, TooManyObjects, load_all_bounded
from tests.conftest import GOLDEN, ROOT
from tests.kube.test_yamlio import TRICKY

SMALL = ReadBounds(what="a test", advice="make it smaller", depth=5, nodes=20)

# What kubectl's YAML 1.1 reading gives for each, or the error PyYAML raises:
# the bounded reader must give the same.
SAME = [
    "a: {<<: {b: 1}, c: 2}", "a: <<", "? [a]\n: 1", "? {a: 1}\n: 1", "!!set {a, b}",
    "a: !foo 1", "!foo {a: 1}", "a: !foo [1]", "a: 0x1F", "a: 1:30", "a: 017", "a: 0o17",
    "a: +12_3", "a: -.5", "a: 1e3", "a: .inf", "a: !!binary aGVsbG8=", "a: 2024-01-01",
    "---\n---\n", "", "# only\n", "a: !!int \"12\"", "a: !!str 5", "a: !!seq [1]",
    "a: !!map {x: !!set {q}}", "!!omap [a: 1]", "!!pairs [a: 1, a: 2]", "{a: 1, a: 2}",
    "{a: 1, a: 2}\n---\n[", "a: [1, {b: [c, d]}]\n---\nx: y\n", "a: y\nb: n\nc: on",
    "a: &x 1\nb: 2", "[", "a: b: c", "- a\nb: c", "a: '\\x'", 'a: "\\x"', "a: !!float 1e400",
    "{a: {x: 1, x: 2}}", "a:\n  - b\n  -\n", "? |\n  k\n: v", "!!str {a: 1}",
]  # fmt: skip


def _outcome(read: Any, text: str) -> str:
    try:
        return repr(read(text))
    except yaml.YAMLError as err:
        return f"{type(err).__name__}: {err}"


def _check_reads(text: str) -> list[Any]:
    """What ``t2gen check`` reads: the bounded reader, or the alias path for anchors and merge keys."""
    from t2gen.inputs.manifests import load_all_yaml_located

    return [document.data for document in load_all_yaml_located(text)]


@pytest.mark.parametrize("text", SAME)
def test_reads_as_kubectls_loader_does(text: str) -> None:
    expected = _outcome(load_all_yaml, text)
    assert _outcome(_check_reads, text) == expected


def test_a_merge_key_is_left_to_the_alias_path() -> None:
    with pytest.raises(YamlLimitError) as info:
        load_all_bounded("a: {<<: {b: 1}, c: 2}", MANIFEST_BOUNDS)
    assert info.value.alias
    assert _check_reads("a: {<<: {b: 1}, c: 2}") == [{"a": {"b": 1, "c": 2}}]


def test_reads_every_golden_manifest_and_tricky_string_alike() -> None:
    for path in sorted(GOLDEN.glob("*/expected*.yaml")):
        text = path.read_text(encoding="utf-8")
        assert load_all_bounded(text, MANIFEST_BOUNDS) == load_all_yaml(text), path
    text = dump_yaml({"list": TRICKY, "map": {v: i for i, v in enumerate(TRICKY)}})
    assert load_all_bounded(text, MANIFEST_BOUNDS) == load_all_yaml(text)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=4), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_json, min_size=1, max_size=3), st.booleans())
def test_generated_streams_read_alike(documents: list[Any], flow: bool) -> None:
    text = "---\n".join(
        yaml.safe_dump(d, default_flow_style=flow, allow_unicode=True)
        for d in documents
    )
    assert _outcome(lambda t: load_all_bounded(t, MANIFEST_BOUNDS), text) == (
        _outcome(load_all_yaml, text)
    )


def _limit(text: str, bounds: ReadBounds = SMALL) -> tuple[int, int, str]:
    with pytest.raises(YamlLimitError) as raised:
        load_all_bounded(text, bounds)
    mark = raised.value.problem_mark
    assert mark is not None
    return mark.line + 1, mark.column + 1, str(raised.value.problem)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("a: [[[[[1]]]]]", (1, 8)),  # the sixth level: a, then five
        ("- - - - - - x", (1, 11)),
        ("a:\n b:\n  c:\n   d:\n    e:\n     f: 1\n", (6, 6)),
        ("{a: {a: {a: {a: {a: {a: 1}}}}}}", (1, 21)),
        ("a: !!set {b: !!set {c: !!set {d: !!set {e: !!set {f}}}}}", (1, 44)),
    ],
)
def test_depth_is_refused_at_the_level_that_passes_it(
    text: str, where: tuple[int, int]
) -> None:
    line, col, message = _limit(text)
    assert (line, col) == where
    assert message == (
        "lists or mappings nested more than 5 deep; t2gen reads a test at most 5 levels deep"
    )


@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000 + "]" * 100_000,
        "- " * 100_000 + "x",
        "{a: " * 100_000 + "1" + "}" * 100_000,
    ],
    ids=["flow lists", "block lists", "flow mappings"],
)
def test_100000_levels_are_a_located_error_not_a_crash(text: str) -> None:
    line, col, message = _limit(text, MANIFEST_BOUNDS)
    assert line == 1 and col <= 1024 * 4 + 1
    assert message.startswith("lists or mappings nested more than 100 deep")


def test_nodes_are_counted_over_the_stream_before_they_are_built() -> None:
    text = "---\n".join(f"a: {i}\n" for i in range(15))  # three values a document
    line, col, message = _limit(text)
    assert (line, col) == (13, 4)  # the seventh document holds values 19 to 21
    assert message == (
        "more than 20 values (scalars, lists and mappings) in a test; "
        "t2gen reads at most that many: make it smaller"
    )


def test_an_alias_is_refused_at_its_anchored_node() -> None:
    line, col, message = _limit("a: &x [1]\nb: *x\n", MANIFEST_BOUNDS)
    assert (line, col) == (1, 4) and "found an alias (*name)" in message


def test_an_integer_over_4300_digits_is_located() -> None:
    text = "a: 1\nb: " + "9" * 5_000 + "\n"
    assert _limit(text, MANIFEST_BOUNDS) == (
        2, 4, "a number of more than 4,300 digits; no Kubernetes field takes one"
    )  # fmt: skip


def test_list_items_are_counted_as_read() -> None:
    items = "".join(
        f"- {{kind: ConfigMap, metadata: {{name: c{i}}}}}\n" for i in range(9)
    )
    text = f"kind: List\nitems:\n{items}"
    documents = list(BoundedReader(text, MANIFEST_BOUNDS).documents(max_objects=9))
    assert [d.item_lines for d in documents] == [tuple(range(3, 12))]
    with pytest.raises(TooManyObjects) as raised:
        list(BoundedReader(text, MANIFEST_BOUNDS).documents(max_objects=4))
    assert raised.value.line == 7  # the fifth item


def test_a_long_list_is_read_without_composing_it() -> None:
    # 20 MiB of List once cost 1.7-1.9 GB (composed whole before its items were
    # counted: about 90 bytes per byte); read as events, its peak is the data, about
    # 7 bytes per byte here. 4,000 items (0.29 MB) tell the two apart under
    # tracemalloc in about a second: composed, they would peak near 26 MB.
    item = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {k: v}}\n"
    code = (
        "import sys, tracemalloc\n"
        "from t2gen.kube.yamlread import BoundedReader\n"
        "from t2gen.kube.yamlbounds import MANIFEST_BOUNDS\n"
        f"text = 'apiVersion: v1\\nkind: List\\nitems:\\n' + {item!r} * 4_000\n"
        "tracemalloc.start()\n"
        "(d,) = BoundedReader(text, MANIFEST_BOUNDS).documents(max_objects=50_000)\n"
        "print(len(d.data['items']), tracemalloc.get_traced_memory()[1])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    count, peak = (int(x) for x in done.stdout.split())
    assert count == 4_000
    assert peak < 8 * 1024 * 1024, peak  # 0.29 MB of text
