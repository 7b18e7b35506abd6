"""What a YAML input may hold, and the errors when it holds more (read by :mod:`t2gen.kube.yamlread`)."""

from __future__ import annotations

from typing import Any

import yaml

from t2gen.record import Record

__all__ = [
    "ALIAS_MESSAGE",
    "MANIFEST_BOUNDS",
    "LocatedDocument",
    "ReadBounds",
    "TooManyObjects",
    "YamlLimitError",
]

ALIAS_MESSAGE = (
    "found an alias (*name) of this anchored node; t2gen reads no YAML anchors "
    "or aliases, as a few hundred bytes of them can expand to gigabytes: "
    "write the value out"
)


class ReadBounds(Record):
    """What one YAML input may hold (see the module docstring).

    Attributes:
        what: what the input is, for messages (``one manifest stream``).
        advice: what to do about too many values (``split it into several files``).
        depth: deepest nesting of lists and mappings.
        nodes: most values (scalars, lists, mappings) in one stream; None: no bound.
        int_digits: longest integer, in digits.
    """

    what: str
    advice: str
    depth: int
    nodes: int | None
    int_digits: int = 4300


MANIFEST_BOUNDS = ReadBounds(
    what="a manifest stream",
    advice="split it into several files",
    depth=100,
    nodes=300_000,
)
"""Bounds of a Kubernetes manifest stream (``t2gen check``).

Depth 100: t2gen's deepest object (a pod's affinity term) is 14 levels deep, and
a CustomResourceDefinition's schema of 40 nested properties about 90. 300,000
values: some 2,000 objects of t2gen's own output (a Twister2 job's 11 objects
hold about 1,400), read and checked in about six plain renders' CPU. Two
million, the bound until issue 41, took 22 renders (500,000 one-character
strings: 1,000,000 values) where the budget is ten."""


class YamlLimitError(yaml.MarkedYAMLError):
    """An input passed one of its :class:`ReadBounds` (or used an alias), located.

    Attributes:
        problem: what is wrong, and what would be right.
        problem_mark: where (``line`` and ``column`` from 0).
        alias: whether it is an alias (YAML t2gen does not read) rather than a size.
    """

    def __init__(self, mark: Any, message: str, *, alias: bool = False) -> None:
        """The error at ``mark`` (a libyaml mark) with ``message``."""
        super().__init__(problem=message, problem_mark=mark)
        self.alias = alias


class TooManyObjects(Exception):
    """A stream holds more objects than it was allowed to (see :meth:`BoundedReader.documents`).

    Attributes:
        line: 1-based line of the first document (or ``List`` item) past the limit.
    """

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


class LocatedDocument(Record):
    """One document of a YAML stream with where it starts.

    Attributes:
        data: the parsed document (None when empty).
        line: 1-based line of the document's first node (its first key).
        item_lines: for a mapping with an ``items`` list (a ``List`` kind), the
            1-based line where each item starts; else empty.
    """

    data: Any
    line: int
    item_lines: tuple[int, ...]
