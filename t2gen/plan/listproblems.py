"""The problems of a node or pod list: those of at most :data:`MAX_REPORTED_ITEMS` items, the rest counted.

Both readers of ``plan --nodes`` and ``--pods`` (the plain one,
:func:`t2gen.plan.nodes.parse_nodes` and :func:`t2gen.plan.pods.parse_pods`, and the
item-by-item one of large lists, :mod:`t2gen.plan.largelists`) report through
:func:`reported`, so they say the same of the same list.
"""

from __future__ import annotations

import re

from t2gen.errors import Problem

__all__ = ["MAX_REPORTED_ITEMS", "more_items", "reported"]

MAX_REPORTED_ITEMS = 1_000
"""The most items of a node or pod list whose problems are reported one by one; the
items with problems past them are counted in one last problem. Each reported problem
is placed in the file (:func:`with_positions`, up to 250,000 events of reading) and a
list of 20,000 malformed nodes took 10-16x a render; ``plan`` prints the first 100
problems in any case."""

_ITEM = re.compile(r"items\[(\d+)\]")


def more_items(source: str, kind: str, count: int, index: int) -> Problem:
    """The one problem that counts ``count`` items with problems from item ``index`` on."""
    return Problem(
        source,
        0,
        0,
        f"and {count:,} more {kind}s from this one on that t2gen cannot read, not "
        f"each reported (t2gen reports the first {MAX_REPORTED_ITEMS:,})",
        f"items[{index}]",
    )


def reported(problems: list[Problem], source: str, kind: str) -> list[Problem]:
    """The problems of at most :data:`MAX_REPORTED_ITEMS` items, and one that counts the rest.

    Args:
        problems: a list's problems, in item order (paths ``items[N]...``).
        source: the file, for the counting problem (:func:`more_items`).
        kind: ``Node`` or ``Pod``.
    """
    seen: set[int] = set()
    kept: list[Problem] = []
    rest: set[int] = set()
    first = 0
    for problem in problems:
        found = _ITEM.match(problem.json_path)
        if found is None:
            kept.append(problem)
            continue
        index = int(found.group(1))
        if index in seen or len(seen) < MAX_REPORTED_ITEMS:
            seen.add(index)
            kept.append(problem)
        else:
            if not rest:
                first = index
            rest.add(index)
    if rest:
        kept.append(more_items(source, kind, len(rest), first))
    return kept
