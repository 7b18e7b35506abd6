"""The stream's look-ups read what they find, not every object of a batch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from t2gen.checks.stream import Stream, matches


class _Counted(list[int]):
    """A list of template indices that counts the entries read from it."""

    read = 0

    def __iter__(self) -> Iterator[int]:
        for index in super().__iter__():
            _Counted.read += 1
            yield index


def _workload(
    job: str, group: str, labels: dict[str, Any] | None = None
) -> dict[str, Any]:
    labels = {"t2-job": job, "t2-worker-group": group, **(labels or {})}
    return {
        "kind": "StatefulSet",
        "metadata": {"name": f"{job}-{group}"},
        "spec": {"template": {"metadata": {"labels": labels}}},
    }


def _count_index_reads(stream: Stream) -> None:
    """Make every index list of ``stream`` count the entries read from it."""
    for name in ("_by_label", "_by_key", "_by_namespace"):
        index = getattr(stream, name, {})
        setattr(stream, name, {key: _Counted(value) for key, value in index.items()})
    _Counted.read = 0


def test_labelled_reads_the_rarest_required_pair_only() -> None:
    """A pair every job shares (``t2-worker-group: "0"``) does not make each look-up read the batch.

    Every worker StatefulSet of a batch selects by its job and group labels, and
    the group label is the same in every job: reading each pair's templates
    made 800 jobs read 1.3 million index entries (quadratic).
    """
    jobs = [f"job{index}" for index in range(40)]
    stream = Stream([_workload(job, group) for job in jobs for group in ("0", "1")])
    _count_index_reads(stream)
    for job in jobs:
        found = list(stream.labelled("", {"t2-worker-group": "0", "t2-job": job}))
        assert [workload["metadata"]["name"] for workload, _ in found] == [f"{job}-0"]
    # Each look-up reads the job's two templates, not the 40 of group "0".
    assert _Counted.read == 2 * len(jobs)


def test_labelled_keeps_stream_order_and_every_match() -> None:
    """Templates come in stream order; no required pair: every template of the namespace."""
    objects = [_workload(f"job{index % 3}", str(index)) for index in range(9)]
    stream = Stream(objects)
    names = [w["metadata"]["name"] for w, _ in stream.labelled("", {"t2-job": "job1"})]
    assert names == ["job1-1", "job1-4", "job1-7"]
    assert [w for w, _ in stream.labelled("", {})] == objects
    assert list(stream.labelled("other", {})) == []
    assert list(stream.labelled("", {"t2-job": "job1", "t2-worker-group": "0"})) == []


def test_an_expression_with_a_list_for_key_selects_nothing() -> None:
    """A malformed ``matchExpressions`` key (a list, from ``t2gen check``) is no label, not a crash."""
    labels = {"app": "x"}
    for operator in ("In", "NotIn", "Exists", "DoesNotExist"):
        expression = {"key": ["app"], "operator": operator, "values": ["x"]}
        selects = matches({"matchExpressions": [expression]}, labels)
        assert selects is (operator in ("NotIn", "DoesNotExist"))


def test_selected_reads_the_rarest_positive_requirement_only() -> None:
    """Selectors that each pick one template by ``In`` or ``Exists`` read that template, not the stream.

    A hostile ``t2gen check`` stream: every StatefulSet selects ``app: x`` (all
    of them) and its own ``id`` by an expression. Reading every ``app: x``
    template for each selector took 19 s for 4,000 StatefulSets (870 KB).
    """
    count = 40
    stream = Stream(
        [
            _workload(f"j{i}", "0", {"app": "x", "id": f"s{i}", f"k{i}": ""})
            for i in range(count)
        ]
    )
    _count_index_reads(stream)
    for i in range(count):
        for expression in (
            {"key": "id", "operator": "In", "values": [f"s{i}", "none"]},
            {"key": f"k{i}", "operator": "Exists"},
        ):
            selector = {"matchLabels": {"app": "x"}, "matchExpressions": [expression]}
            found = [w["metadata"]["name"] for w, _ in stream.selected("", selector)]
            assert found == [f"j{i}-0"]
    assert _Counted.read == 2 * count


_VALUES = st.sampled_from(["a", "b", 1])  # 1: a label value of the wrong type
_KEYS = st.sampled_from(["x", "y"])
_EXPRESSIONS = st.fixed_dictionaries(
    {
        "key": st.one_of(_KEYS, st.just(["x"])),
        "operator": st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Bad"]),
        "values": st.lists(_VALUES, max_size=3),
    }
)


@settings(max_examples=200, deadline=None)
@example(  # a label value of the wrong type (t2gen check input): compared as matches() does
    labels=[{"x": 1}],
    namespaces=[""] * 8,
    match_labels={},
    expressions=[{"key": "x", "operator": "In", "values": [1]}],
)
@given(
    labels=st.lists(st.dictionaries(_KEYS, _VALUES, max_size=3), max_size=8),
    namespaces=st.lists(st.sampled_from(["", "b"]), min_size=8, max_size=8),
    match_labels=st.dictionaries(_KEYS, _VALUES, max_size=2),
    expressions=st.lists(_EXPRESSIONS, max_size=3),
)
def test_selected_finds_what_matching_every_template_finds(
    labels: list[dict[str, Any]],
    namespaces: list[str],
    match_labels: dict[str, Any],
    expressions: list[dict[str, Any]],
) -> None:
    """The indexed look-up selects exactly the templates, in stream order, that testing each one selects."""
    objects = [
        {**_workload("j", str(i), labels[i]), "metadata": {"namespace": namespaces[i]}}
        for i in range(len(labels))
    ]
    stream = Stream(objects)
    selector = {"matchLabels": match_labels, "matchExpressions": expressions}
    for namespace in ("", "b"):
        expected = [
            index
            for index, obj in enumerate(objects)
            if namespaces[index] == namespace
            and all(isinstance(v, str) for v in match_labels.values())
            and matches(selector, obj["spec"]["template"]["metadata"]["labels"])
        ]
        found = [objects.index(w) for w, _ in stream.selected(namespace, selector)]
        assert found == expected
