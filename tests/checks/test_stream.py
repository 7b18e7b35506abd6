"""The stream's look-ups read what they find, not every object of a batch."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.stream import Stream


class _Counted(list[int]):
    """A list of template indices that counts the entries read from it."""

    read = 0

    def __iter__(self) -> Iterator[int]:
        for index in super().__iter__():
            _Counted.read += 1
            yield index


def _workload(job: str, group: str) -> dict[str, Any]:
    labels = {"t2-job": job, "t2-worker-group": group}
    return {
        "kind": "StatefulSet",
        "metadata": {"name": f"{job}-{group}"},
        "spec": {"template": {"metadata": {"labels": labels}}},
    }


def test_labelled_reads_the_rarest_required_pair_only() -> None:
    """A pair every job shares (``t2-worker-group: "0"``) does not make each look-up read the batch.

    Every worker StatefulSet of a batch selects by its job and group labels, and
    the group label is the same in every job: reading each pair's templates
    made 800 jobs read 1.3 million index entries (quadratic).
    """
    jobs = [f"job{index}" for index in range(40)]
    stream = Stream([_workload(job, group) for job in jobs for group in ("0", "1")])
    stream._by_label = {key: _Counted(value) for key, value in stream._by_label.items()}
    _Counted.read = 0
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
