"""The problems of a node or pod list: at most :data:`MAX_REPORTED_PROBLEMS`, the items past them counted.

Both readers of ``plan --nodes`` and ``--pods`` (the plain one,
:func:`t2gen.plan.nodes.parse_nodes` and :func:`t2gen.plan.pods.parse_pods`, and the
item-by-item one of large lists, :mod:`t2gen.plan.largelists`) report through
:func:`reported`, so they say the same of the same list.
"""

from __future__ import annotations

import re

from t2gen.errors import Problem

__all__ = ["MAX_REPORTED_PROBLEMS", "item_index", "more_items", "reported"]

MAX_REPORTED_PROBLEMS = 1_000
"""The most problems of a node or pod list reported one by one, in item order; the
items with problems past them are counted in one last problem. Each reported problem
is placed in the file (:func:`~t2gen.inputs.kubelist.with_positions`, up to 250,000
events of reading) and sorted: 20,000 malformed nodes took 10-16x a render, 100 nodes
of 1,900 malformed taints each 22x; ``plan`` prints the first 100 problems in any case."""

_ITEM = re.compile(r"items\[(\d+)\]")


def item_index(problem: Problem) -> int | None:
    """The index of the item a problem is about (``items[N]...``), None for the whole list."""
    found = _ITEM.match(problem.json_path)
    return None if found is None else int(found.group(1))


def more_items(source: str, kind: str, count: int, index: int) -> Problem:
    """The one problem that counts ``count`` items with problems from item ``index`` on."""
    return Problem(
        source,
        0,
        0,
        f"and {count:,} more {kind}s from this one on that t2gen cannot read, not "
        f"each reported (t2gen reports at most {MAX_REPORTED_PROBLEMS:,} problems)",
        f"items[{index}]",
    )


def reported(
    problems: list[Problem], source: str, kind: str, unread: tuple[int, int] = (0, 0)
) -> list[Problem]:
    """At most :data:`MAX_REPORTED_PROBLEMS` of a list's problems, and one that counts the rest.

    Args:
        problems: a list's problems, in item order (paths ``items[N]...``).
        source: the file, for the counting problem (:func:`more_items`).
        kind: ``Node`` or ``Pod``.
        unread: (count, first index) of items not read, known to have problems
            (:func:`t2gen.plan.itemreader.one_by_one`); counted with the rest.

    Returns:
        The problems kept, then, if any were dropped, the counting problem at the
        first item none of whose problems is kept.
    """
    kept: list[Problem] = []
    rest: set[int] = set()
    first: int | None = None
    for problem in problems:
        index = item_index(problem)
        if len(kept) < MAX_REPORTED_PROBLEMS:
            kept.append(problem)
        elif index is not None and (not kept or index != item_index(kept[-1])):
            # an item cut in the middle keeps the problems reported of it
            first = index if first is None else first
            rest.add(index)
    count, index = unread
    if count:
        first = index if first is None else min(first, index)
    if rest or count:
        assert first is not None
        kept.append(more_items(source, kind, len(rest) + count, first))
    return kept
