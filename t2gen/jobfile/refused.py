"""What the schema refused in a job file, so that no rule reads it; and numbers no schema keyword catches.

JSON Schema's ``minimum`` and ``maximum`` let NaN and infinity through (every
comparison with NaN is false); :func:`non_finite` finds them.
:func:`without_rejected` takes the values the schema refused out of the
document the rules read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.inputs.yaml import JsonPath

__all__ = ["first_non_finite", "non_finite", "unknown_keys", "without_rejected"]


def unknown_keys(errors: list[Any]) -> set[JsonPath]:
    """The paths of the keys ``additionalProperties`` errors report as unknown."""
    unknown: set[JsonPath] = set()
    for error in errors:
        if error.validator == "additionalProperties" and isinstance(
            error.instance, dict
        ):
            where = tuple(error.absolute_path)
            known = (
                error.schema.get("properties", {})
                if isinstance(error.schema, dict)
                else {}
            )
            unknown.update((*where, key) for key in error.instance if key not in known)
    return unknown


def non_finite(data: Any, path: JsonPath) -> Iterator[tuple[JsonPath, str]]:
    """Yield ``(path, value)`` of every NaN or infinite float in a document."""
    stack = [(path, data)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, float) and (value != value or value in (_INF, -_INF)):
            yield (
                where,
                ".nan" if value != value else ("-.inf" if value < 0 else ".inf"),
            )
        elif isinstance(value, dict):
            stack.extend(((*where, key), item) for key, item in value.items())
        elif isinstance(value, list):
            stack.extend(((*where, index), item) for index, item in enumerate(value))


_INF = float("inf")


def first_non_finite(data: Any) -> JsonPath | None:
    """The path of the first NaN or infinite number in a document, or None."""
    return next((path for path, _ in non_finite(data, ())), None)


def without_rejected(data: Any, rejected: list[JsonPath]) -> Any:
    """A document without the values the schema refused, for the rules.

    A rule then never iterates over or allocates by a value the schema did not
    accept (a ``perPod`` of 2^31 would make a rule loop two billion times): a
    refused key of a mapping is removed, as if not written, and a refused list
    item becomes ``null``, a wrong type, which every rule skips. Refused values
    deeper than a refused one are covered by it.

    Args:
        data: the document with defaults applied (changed in place).
        rejected: JSON paths from :func:`schema_findings`.

    Returns:
        ``data`` (or None when the document itself was refused).
    """
    for path in sorted(rejected, key=len):
        if not path:
            return None
        parent = _child(data, path[:-1])
        last = path[-1]
        if isinstance(parent, dict) and last in parent:
            del parent[last]
        elif isinstance(parent, list) and isinstance(last, int) and last < len(parent):
            parent[last] = None
    return data


def _child(data: Any, path: JsonPath) -> Any:
    """The node at ``path`` in ``data``, or None if there is none."""
    node = data
    for part in path:
        if isinstance(node, dict):
            node = node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            node = node[part]
        else:
            return None
    return node
