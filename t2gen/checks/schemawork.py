"""What checking objects with jsonschema alone costs, bounded, and how its errors read.

Kinds t2gen renders have Kubernetes' schema compiled to plain Python
(:mod:`t2gen._generated.kubeschema`); every other kind a stream holds (a Pod, a
Deployment, an Ingress) is checked by ``jsonschema``, which costs some 10 µs
a value and 0.25 ms an object: 25,000 one-line Pods, within the stream's
bounds, took 50 plain renders' CPU (issue 41). :class:`SchemaWork` charges
each such object its values plus :data:`PER_OBJECT` and, for ``t2gen check``, refuses the run past
:data:`MAX_SCHEMA_WORK`, about four plain renders; :func:`describe` turns a
jsonschema error into a finding.
"""

from __future__ import annotations

from typing import Any

from t2gen.errors import T2genError
from t2gen.record import Record

__all__ = ["MAX_SCHEMA_WORK", "PER_OBJECT", "Finding", "SchemaWork", "describe"]

PER_OBJECT = 25
"""Work charged per object on top of its values: jsonschema's fixed cost of an object, in values."""

MAX_SCHEMA_WORK = 60_000
"""Most work (values, plus :data:`PER_OBJECT` per object) jsonschema does in one run: about
1,700 one-line Pods or 130 Pods of 20 containers, some 0.7 s."""


class SchemaWork:
    """The work jsonschema has done in one run, refused past ``limit``.

    Attributes:
        done: the work so far.
        limit: the most allowed: None (t2gen's own objects, ``render
            --kube-validate``), or :data:`MAX_SCHEMA_WORK` (``t2gen check``).
    """

    def __init__(self) -> None:
        """Start at no work, unbounded."""
        self.done = 0
        self.limit: int | None = None

    def charge(self, obj: dict[str, Any]) -> None:
        """Count ``obj``'s values (scalars, lists, mappings; keys too) before jsonschema reads it.

        Raises:
            T2genError: past ``limit``, naming the object (``Kind/name``).
        """
        if self.limit is None:
            return
        values = 0
        stack: list[Any] = [obj]
        while stack:
            item = stack.pop()
            values += 1
            if isinstance(item, dict):
                values += len(item)
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
        self.done += values + PER_OBJECT
        if self.done > self.limit:
            metadata = obj.get("metadata")
            name = metadata.get("name", "?") if isinstance(metadata, dict) else "?"
            raise T2genError(
                f"{obj.get('kind')}/{name}: more than {self.limit:,} values in objects whose "
                "kind t2gen checks with jsonschema alone (kinds it does not render: Pod, "
                "Deployment...); t2gen check reads at most that many in one run: split the "
                "stream into several files"
            )


class Finding(Record):
    """One jsonschema error: the field's path (``.`` for the object) and what is wrong."""

    path: str
    message: str


def describe(error: Any) -> Finding:
    """A readable finding from a jsonschema error, without dumping huge instances."""
    from t2gen.kube.intformats import INTEGER_FORMATS

    path = ".".join(
        str(part) if not isinstance(part, int) else f"[{part}]"
        for part in error.absolute_path
    )
    path = path.replace(".[", "[") or "."
    if error.validator == "additionalProperties":
        known = set(error.schema.get("properties", {}))
        extra = (
            sorted(set(error.instance) - known)
            if isinstance(error.instance, dict)
            else []
        )
        return Finding(
            path,
            f"unknown field{'s' if len(extra) != 1 else ''} {', '.join(map(repr, extra))}",
        )
    if error.validator == "type":
        shown = repr(error.instance)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        return Finding(path, f"{shown} is not of type {error.validator_value!r}")
    if error.validator == "format" and error.validator_value in INTEGER_FORMATS:
        bound = INTEGER_FORMATS[error.validator_value]
        shown = repr(error.instance)
        shown = shown if len(shown) <= 30 else shown[:27] + "..."
        return Finding(
            path,
            f"{shown} is out of range for {error.validator_value} ({-bound} to {bound - 1}); "
            "the API server refuses it",
        )
    if error.validator == "format":
        return Finding(path, f"not valid {error.validator_value} (base64 expected)")
    message = error.message
    return Finding(path, message if len(message) <= 200 else message[:197] + "...")
