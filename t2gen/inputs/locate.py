"""Where JSON paths point in a YAML or JSON text: their lines and columns, read as events.

The plan's inputs (``kubectl get nodes|pods -o json``, ``--quota``) are decoded by
readers that keep no positions, so their problems carry a JSON path
(``items[2].status.allocatable``). On the error path, :func:`locate_all` finds
every such path in one pass over the text with libyaml's event parser (JSON is
YAML): constant memory, subtrees no path enters skipped, and at most
:data:`MAX_EVENTS` events however many problems there are (a thousand forged
node names cost one pass, not a thousand), so a problem far into a huge list
keeps its JSON path alone. The pass ends where the last wanted path is found.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

import yaml

from t2gen.errors import format_json_path

__all__ = ["MAX_EVENTS", "locate", "locate_all", "parent_path"]

MAX_EVENTS = 250_000
"""Events read at most in one pass: about 1 MB of ``kubectl -o json``, some 0.7 s, four plain
renders (issue 41: 2,000,000 events, the bound until then, cost 33 renders on the error path
alone, over the budget of ten); a problem further in keeps its JSON path alone."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_LAST_STEP = re.compile(r'(?:\.[^.\[]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])$')
_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class _Budget(Exception):
    """The event budget ran out."""


class _Done(Exception):
    """Every wanted path is found: the rest of the text is not read."""


def parent_path(path: str) -> str:
    """``path`` without its last step (``a.b[2]`` -> ``a.b``); ``""`` for a first step."""
    parent = _LAST_STEP.sub("", path)
    return parent if parent != path else ""


def _events(text: str, budget: int) -> Iterator[Any]:
    for count, event in enumerate(yaml.parse(text, Loader=_Loader)):
        if count >= budget:
            raise _Budget
        yield event


def _skip(events: Iterator[Any], event: Any) -> None:
    """Read past the node that ``event`` starts (a scalar or alias is one event)."""
    depth = 1 if isinstance(event, _OPEN) else 0
    while depth:
        following = next(events)
        depth += isinstance(following, _OPEN)
        depth -= isinstance(following, _CLOSE)


def _walk(
    events: Iterator[Any],
    node: Any,
    written: tuple[str, str],
    wanted: set[str],
    found: dict[str, tuple[int, int]],
) -> None:
    """Record the wanted paths under ``node`` (whose paths are ``written``), reading past it.

    A child has two written forms: as t2gen prints it (a key holding dots
    quoted, ``hard["limits.cpu"]``) and bare (``hard.limits.cpu``), as a reader
    joining a prefix and a field writes it; either may be wanted.
    """
    quoted, bare = written
    index = 0
    while True:
        child = next(events)
        if isinstance(child, _CLOSE):
            return
        if isinstance(node, yaml.SequenceStartEvent):
            step: tuple[str, str] | None = (f"{quoted}[{index}]", f"{bare}[{index}]")
            index += 1
        else:  # a mapping: child is the key, the value follows
            key = child
            if isinstance(key, yaml.ScalarEvent):
                one = format_json_path((key.value,))
                step = (
                    quoted + (one if one.startswith("[") or not quoted else "." + one),
                    f"{bare}.{key.value}" if bare else key.value,
                )
            else:
                _skip(events, key)  # a complex key: no JSON path names it
                step = None
            child = next(events)
        hits = [p for p in step or () if p in wanted]
        if step is None or not hits:
            _skip(events, child)
            continue
        mark = child.start_mark
        for path in hits:
            found.setdefault(path, (mark.line + 1, mark.column + 1))
        if len(found) == len(wanted):
            raise _Done
        if isinstance(child, _OPEN):
            _walk(events, child, step, wanted, found)


def locate_all(
    text: str, paths: Iterable[str], *, budget: int = MAX_EVENTS
) -> dict[str, tuple[int, int]]:
    """The 1-based (line, column) of each path, and of each of its parents, in the text.

    Args:
        text: YAML or JSON; its first document is read.
        paths: JSON paths as t2gen prints them (``items[2].metadata.labels["a.b/c"]``);
            a key holding dots may also be written bare (``spec.hard.limits.cpu``).
        budget: the most parser events read in all.

    Returns:
        ``{path: (line, column)}`` for every path, or parent of one, that is in the
        text and was reached within the budget (nothing through an alias; nothing
        when the text is not YAML before the path).
    """
    wanted: set[str] = set()
    for path in paths:
        while path:
            wanted.add(path)
            path = parent_path(path)
    found: dict[str, tuple[int, int]] = {}
    events = _events(text, budget)
    try:
        root = next(e for e in events if isinstance(e, (*_OPEN, yaml.ScalarEvent)))
        if isinstance(root, _OPEN):
            _walk(events, root, ("", ""), wanted, found)
    except (StopIteration, _Budget, _Done, yaml.YAMLError, RecursionError):
        pass
    return found


def locate(text: str, path: str, *, budget: int = MAX_EVENTS) -> tuple[int, int] | None:
    """The 1-based (line, column) of the node at ``path``, or None (see :func:`locate_all`)."""
    return locate_all(text, [path], budget=budget).get(path)
