"""How large a template operation's result would be, and how much work it is, judged before it runs.

:mod:`t2gen.render.budget` refuses an operation whose result would pass
:data:`~t2gen.render.budget.MAX_VALUE_SIZE` characters or
:data:`~t2gen.render.budget.MAX_ITEMS` items, and charges the work an
operation does, from these estimates. Each is an upper bound computed from
the operands' sizes (a walk that stops at a limit), never by building the
result: ``('{0}' * 400).format(s)`` with a 4 MB ``s`` is 1.6 G characters
here, refused, where Python would allocate 1.5 GB first.

The per-filter work weights were measured on Jinja2 3.1's filters against an
empty loop iteration (one unit): ``sort`` costs 5-7 units an item, ``map``
8 per item it yields, ``urlize`` 5 per character, ``pprint`` 9 per item
(``bench/floods.py`` measures the overlays of issue 32 against a plain render).
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "COMPILE_TOKEN_UNITS",
    "FILTER_GROWTH",
    "FILTER_WORK",
    "GENERATOR_WORK",
    "ITEMIZING_FILTERS",
    "compile_units",
    "format_size",
    "json_size",
    "per_item",
    "printf_size",
    "sum_work",
    "text_size",
    "value_shape",
]

COMPILE_TOKEN_UNITS = 200
"""Units of compiling one token inside a template's tags (``{{ }}``, ``{% %}``).

Jinja2 parses a template and Python compiles the code made of it: 10-60 µs a
token, the most for operators (``{{a+b*c}}``: 47 µs a token as :func:`compile_units`
counts them, 2026-12-07), so a
template of 100,000 ``~`` or chained filters, or 20,000 blocks (2-4 s and up to
180 MB to compile), is refused before it is parsed."""

_TAG = re.compile(r"\{[{%#].*?(?:[}%#]\}|\Z)", re.S)
_TOKEN = re.compile(r"\w+|[^\w\s]")


def compile_units(source: str) -> Iterator[int]:
    """Work units of compiling ``source``, in parts: one a character, :data:`COMPILE_TOKEN_UNITS` a token in its tags.

    A token is a word or one other non-blank character inside ``{{ }}``,
    ``{% %}`` or ``{# #}`` (an upper bound on what Jinja2's lexer makes of it).
    Yields the characters first, then each tag's tokens, so a meter stops the
    count as soon as the budget is spent.
    """
    yield len(source)
    for tag in _TAG.finditer(source):
        yield sum(1 for _ in _TOKEN.finditer(tag.group(0))) * COMPILE_TOKEN_UNITS


_ESCAPE_GROWTH = 5
"""HTML escaping writes at most 5 characters for 1 (``&#34;``, ``&amp;``)."""

FILTER_GROWTH: dict[str, int] = {
    "e": _ESCAPE_GROWTH,
    "escape": _ESCAPE_GROWTH,
    "forceescape": _ESCAPE_GROWTH,
    "xmlattr": _ESCAPE_GROWTH + 1,
    "urlencode": 12,  # %XX for each of up to 4 UTF-8 bytes
    "urlize": 12,  # `a.io ` becomes a 47-character link
    "title": 3,  # Unicode case mappings write up to 3 characters ('ﬃ' -> 'Ffi')
    "upper": 3,
    "lower": 3,
    "capitalize": 3,
    "pprint": 10,  # repr: '\U0001f600'-style escapes, plus indentation per item
    "string": 10,
}
"""Filters whose result may be longer than their input: at most this many times its text."""

FILTER_WORK: dict[str, tuple[float, float]] = {
    "title": (1.0, 0.0),
    "urlize": (5.0, 0.0),
    "wordwrap": (2.5, 0.0),
    "striptags": (0.25, 0.0),
    "urlencode": (0.5, 0.0),
    "wordcount": (0.5, 0.0),
    "pprint": (0.6, 9.0),
    "string": (0.1, 1.0),
    "tojson": (0.2, 1.0),
    "xmlattr": (0.0, 8.0),
    "sort": (0.0, 7.0),
    "dictsort": (0.0, 3.0),
    "unique": (0.0, 4.0),
    "groupby": (0.0, 16.0),
    "batch": (0.0, 1.0),
    "join": (0.0, 1.0),
    "min": (0.0, 1.0),
    "max": (0.0, 1.0),
    "items": (0.0, 0.5),
}
"""Work units a filter does per character and per item of its input, over what every call is charged."""

GENERATOR_WORK: dict[str, int] = {
    "map": 8,
    "select": 7,
    "reject": 7,
    "selectattr": 7,
    "rejectattr": 7,
    "unique": 4,
    "batch": 1,
    "slice": 1,
    "items": 1,
}
"""Filters that return a generator: the work units of each item it yields, charged as it is read."""

ITEMIZING_FILTERS = frozenset(
    {
        "list",
        "sort",
        "unique",
        "slice",
        "batch",
        "groupby",
        "map",
        "select",
        "reject",
        "selectattr",
        "rejectattr",
        "join",
    }
)
"""Filters that make a list of a string's characters (a 4 Mi-character string: 4 Mi items)."""


def value_shape(value: Any, limit: int) -> tuple[int, int, int]:
    """``(characters, items, depth)`` of a value: its strings' characters, its scalars and containers, its nesting.

    Shared items count each time they are reached; the walk stops once
    characters plus items pass ``limit`` (then the counts are over it).
    """
    chars = items = depth = 0
    level = 1
    stack: list[Any] = [value]
    pop, append, extend = stack.pop, stack.append, stack.extend
    while stack and chars + items <= limit:
        item = pop()
        kind = type(item)
        if kind is _Up:
            level -= 1
            continue
        items += 1
        if kind is str:
            chars += len(item)
        elif (
            kind is list
            or kind is tuple
            or kind is dict
            or isinstance(item, (Mapping, list, tuple, set, frozenset))
        ):
            level += 1
            depth = max(depth, level)
            append(_UP)
            if isinstance(item, Mapping):
                extend(item.keys())
                extend(item.values())
            else:
                extend(item)
        elif isinstance(item, str):
            chars += len(item)
        elif kind is int:
            chars += item.bit_length() // 3 + 2  # decimal digits and a sign
        else:
            chars += 24  # a float, a bool, None, an object's short repr
    return chars, items, max(depth, 1)


class _Up:
    """Marks, on :func:`value_shape`'s stack, the end of a container's items."""


_UP = _Up()


def text_size(value: Any, limit: int) -> int:
    """An upper bound of ``len(str(value))`` (a container's ``repr``), or more than ``limit``."""
    if isinstance(value, str):
        return len(value)
    chars, items, _ = value_shape(value, limit)
    return 4 * chars + 4 * items  # repr escapes, quotes, commas and spaces


def _field_width(spec: str) -> int:
    """The width and precision written in a format spec (``>20.5``), added up."""
    total = 0
    digits = ""
    for character in spec + " ":
        if character.isdigit():
            digits += character
        elif digits:
            total += int(digits[:13])
            digits = ""
    return total


def format_size(
    template: str, args: tuple[Any, ...], kwargs: dict[str, Any], limit: int
) -> int:
    """An upper bound of ``len(template.format(*args, **kwargs))`` (``format_map``: the mapping in ``kwargs``).

    Every replacement field counts as the longest argument's text, plus its
    width and precision; nested fields (``{0:{1}}``) count their widths again.
    """
    widest = max(
        (text_size(value, limit) for value in (*args, *kwargs.values())), default=0
    )
    total = 0
    try:  # read lazily: a 4 Mi-character template holds up to 2 Mi fields
        for literal, name, spec, _ in string.Formatter().parse(template):
            total += len(literal)
            if name is not None:
                total += widest + _field_width(spec or "")
                if "{" in (spec or ""):
                    total += widest
    except (
        ValueError
    ):  # malformed: str.format raises at the same place, having written nothing
        return min(total, len(template))
    return total


_PRINTF = r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[diouxXeEfFgGcrsa%]"


def printf_size(template: str, args: Any, limit: int) -> int:
    """An upper bound of ``len(template % args)``: each conversion as the longest argument plus its widths."""
    import re

    values = args if isinstance(args, tuple) else (args,)
    if isinstance(args, Mapping):
        values = tuple(args.values())
    widest = max((text_size(value, limit) for value in values), default=0)
    stars = max(
        (abs(v) for v in values if isinstance(v, int) and not isinstance(v, bool)),
        default=0,
    )
    total = len(template)
    for match in re.finditer(_PRINTF, template):
        if match[0] == "%%":
            continue
        widths = [stars if g == "*" else int(g[:13]) for g in match.groups() if g]
        total += widest + sum(widths)
    return total


def json_size(value: Any, indent: Any, limit: int) -> int:
    r"""An upper bound of ``len(tojson(value, indent))``: escapes, and a line per item indented by depth.

    Jinja2's ``tojson`` writes ASCII only: a non-ASCII or control character
    may take 12 characters (a surrogate pair of ``\\uXXXX``), and ``<``,
    ``>``, ``&``, ``'``, ``"`` and ``\\`` take up to 6.
    """
    chars, items, depth = value_shape(value, limit)
    if chars + items > limit:
        return chars + items
    escaped = 0
    stack = [value]
    while stack and escaped <= limit:
        item = stack.pop()
        if isinstance(item, str):
            if item.isascii() and item.isprintable():
                escaped += len(item) + 5 * sum(map(item.count, "\"\\<>&'"))
            else:
                escaped += 12 * len(item)
        elif isinstance(item, Mapping):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    width = indent if isinstance(indent, int) and not isinstance(indent, bool) else 0
    if isinstance(indent, str):
        width = len(indent)
    return escaped + 4 * items + items * (1 + max(width, 0) * depth)


def sum_work(values: list[Any], start: Any) -> int:
    """The items copied by ``sum(values, start)`` of lists, tuples or strings: each partial sum is copied again.

    ``[[0] * 1000] * 2000`` summed from ``[]`` copies 2 G items (quadratic).
    """
    if not isinstance(start, (list, tuple, str)):
        return len(values)
    total = len(start)
    copied = 0
    for value in values:
        total += len(value) if isinstance(value, (list, tuple, str)) else 1
        copied += total
    return copied


def per_item(units: float, count: int) -> int:
    """``units`` per item for ``count`` items, rounded up."""
    return math.ceil(units * count)
