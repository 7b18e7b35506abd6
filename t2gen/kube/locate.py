"""Where a JSON path points in a YAML or JSON text: its line and column, read as events.

The plan's inputs (``kubectl get nodes|pods -o json``, ``--quota``) are decoded by
readers that keep no positions, so their problems carry a JSON path
(``items[2].status.allocatable``). On the error path, :func:`locate` finds that
path's node in the text with libyaml's event parser (JSON is YAML): constant
memory, and work bounded by :data:`MAX_EVENTS` events, so a problem far into a
huge list keeps its JSON path alone rather than costing a second full parse.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import yaml

__all__ = ["MAX_EVENTS", "locate"]

MAX_EVENTS = 2_000_000
"""Events read at most to find one path: about 8 MB of ``kubectl -o json`` (a second or two)."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_INDEX = re.compile(r"\[(\d+)\]")
_OPEN = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


class _Budget(Exception):
    """The event budget ran out before the path was found."""


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


def _after_key(rest: str, key: str) -> str | None:
    """``rest`` past ``key`` (plain, dotted or quoted as ``["key"]``), or None if it names another key."""
    quoted = '["' + key.replace("\\", "\\\\").replace('"', '\\"') + '"]'
    for written in (key, quoted):
        if rest == written:
            return ""
        if rest.startswith(written) and rest[len(written)] in ".[":
            following = rest[len(written) :]
            return following[1:] if following.startswith(".") else following
    return None


def locate(text: str, path: str, *, budget: int = MAX_EVENTS) -> tuple[int, int] | None:
    """The 1-based (line, column) of the node at ``path`` in the text's first document.

    Args:
        text: YAML or JSON.
        path: a JSON path as t2gen prints it (``items[2].metadata.labels["a.b/c"]``);
            a key holding dots may also be written bare (``spec.hard.limits.cpu``):
            at each mapping the key that the path continues with is taken.
        budget: the most parser events read.

    Returns:
        The node's start, or None: the path is not in the text (a missing field is
        reported at its parent's path by the readers), it passes through an alias,
        the text is not YAML, or the budget ran out.
    """
    events = _events(text, budget)
    try:
        node = next(e for e in events if isinstance(e, (*_OPEN, yaml.ScalarEvent)))
        rest = path
        while rest:
            if isinstance(node, yaml.MappingStartEvent):
                while True:
                    key = next(events)
                    if isinstance(key, yaml.MappingEndEvent):
                        return None
                    if not isinstance(key, yaml.ScalarEvent):
                        _skip(events, key)  # a complex key: no JSON path names it
                    value = next(events)
                    following = (
                        _after_key(rest, key.value)
                        if isinstance(key, yaml.ScalarEvent)
                        else None
                    )
                    if following is not None:
                        rest, node = following, value
                        break
                    _skip(events, value)
            elif isinstance(node, yaml.SequenceStartEvent):
                index = _INDEX.match(rest)
                if index is None:
                    return None
                rest = rest[index.end() :].removeprefix(".")
                for _ in range(int(index.group(1))):
                    item = next(events)
                    if isinstance(item, yaml.SequenceEndEvent):
                        return None
                    _skip(events, item)
                node = next(events)
                if isinstance(node, yaml.SequenceEndEvent):
                    return None
            else:
                return None
    except (StopIteration, _Budget, yaml.YAMLError, RecursionError):
        return None
    mark = node.start_mark
    return mark.line + 1, mark.column + 1
