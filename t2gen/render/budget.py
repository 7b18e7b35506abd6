"""The limits on a template's work, and the meter that keeps them (see :mod:`t2gen.render.sandbox`).

Every loop iteration, call, filter, include and written expression of a render
is charged to a :class:`Meter` of :data:`WORK_BUDGET` units; an operation that
would make a value larger than :data:`MAX_VALUE_SIZE` or an integer larger than
:data:`MAX_INT_BITS` is refused before it runs. Each limit raises
:class:`TemplateLimitError` inside the template, so the error names the
template and line.
"""

from __future__ import annotations

import contextlib
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError
from jinja2.nodes import EvalContext
from jinja2.runtime import Context

__all__ = [
    "MAX_INT_BITS",
    "MAX_OUTPUT_CHARS",
    "MAX_RANGE",
    "MAX_VALUE_SIZE",
    "WORK_BUDGET",
    "Meter",
    "TemplateLimitError",
    "callable_name",
    "charge",
    "charge_output",
    "charge_value",
    "check_binop",
    "check_call",
    "check_made",
    "concat",
    "guard_filter",
    "limited_range",
    "metered",
    "metered_loop",
]

MAX_RANGE = 10_000
"""Most items ``range()`` gives in a template."""

MAX_VALUE_SIZE = 4 * 1024 * 1024
"""Largest value an operation may make: characters of a string, items of a list (4 Mi)."""

MAX_INT_BITS = 4096
"""Largest integer an operation may make, in bits (``2 ** 4096``)."""

WORK_BUDGET = 5_000_000
"""Work units one job's render may use: a loop iteration, call or filter is 1
plus the size of the values it reads and makes (a string of n characters is
n/8 + 1); a written expression is the size of its value. The largest jobs
t2gen renders (50 worker groups of 64 workers per pod, about 14 MB of YAML)
use about a third of it with the built-in templates."""

MAX_OUTPUT_CHARS = 32 * 1024 * 1024
"""Most characters one job's templates may write (32 Mi)."""

_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
_WIDTH_FILTERS = frozenset(
    {"center", "indent", "batch", "slice", "truncate", "wordwrap"}
)


class TemplateLimitError(SecurityError):
    """A template tried something the sandbox refuses (a limit or a forbidden name)."""


class Meter:
    """The work and output a render has used (see :data:`WORK_BUDGET`, :data:`MAX_OUTPUT_CHARS`)."""

    def __init__(self, budget: int = WORK_BUDGET) -> None:
        """A meter with ``budget`` work units left."""
        self.left = budget
        self.budget = budget

    def charge(self, units: int) -> None:
        """Use ``units`` of work; raise when the budget is spent."""
        self.left -= units
        if self.left < 0:
            raise TemplateLimitError(
                f"the templates did more than {self.budget:,} units of work "
                "(loop iterations, calls and the sizes of the values they handle); "
                "loop over less"
            )

    def charge_value(self, value: Any) -> None:
        """Charge the size of ``value`` (a walk that stops when the budget is spent)."""
        self.charge(_size(value, max(self.left, 0) + 1))


_meter: Meter | None = None


@contextlib.contextmanager
def metered(budget: int = WORK_BUDGET) -> Iterator[Meter]:
    """Meter every template rendered inside the block with one fresh budget."""
    global _meter
    previous, _meter = _meter, Meter(budget)
    try:
        yield _meter
    finally:
        _meter = previous


def charge(units: int) -> None:
    """Charge ``units`` of work to the current meter (none outside :func:`metered`)."""
    if _meter is not None:
        _meter.charge(units)


def charge_value(value: Any) -> None:
    """Charge the size of ``value`` to the current meter (none outside :func:`metered`)."""
    if _meter is not None:
        _meter.charge_value(value)


def charge_output(value: Any) -> None:
    """Charge a value a ``{{ expression }}`` writes (called by the environment's finalize)."""
    charge_value(value)


def _size(value: Any, limit: int) -> int:
    """The size of a value (characters, items, counted at every reach), or more than ``limit``.

    Shared items count each time they are reached (``[a, a]`` is twice ``a``),
    as a writer would write them; the walk stops once the count passes ``limit``.
    """
    total = 0
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) // 8 + 1
        elif isinstance(item, dict):
            total += 1
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 1
            stack.extend(item)
        elif isinstance(item, int) and not isinstance(item, bool):
            total += item.bit_length() // 64 + 1
        else:
            total += 1
        if total > limit:
            break
    return total


def _length(value: Any) -> int:
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def _refuse_value(what: str, size: int) -> None:
    if size > MAX_VALUE_SIZE:
        raise TemplateLimitError(
            f"{what} would make a value of {size:,} characters or items, "
            f"more than the {MAX_VALUE_SIZE:,} a template may make"
        )


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TemplateLimitError(
            f"{what} would make an integer of {value.bit_length():,} bits, "
            f"more than the {MAX_INT_BITS:,} a template may make"
        )


def check_made(value: Any, what: str) -> None:
    """Refuse a value an operation made that is over the limits, and charge it."""
    _refuse_value(what, _length(value))
    _check_int(value, what)
    charge_value(value)


_PRINTF_WIDTH = r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?"
_FORMAT_FIELD = r"\{[^{}]*\}"
_DIGITS = r"\d+"


def _check_format(template: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse printf and ``str.format`` widths or precisions over :data:`MAX_VALUE_SIZE`."""
    numbers: list[int] = []
    if "%" in template:
        for match in re.finditer(_PRINTF_WIDTH, template):
            numbers += [int(g[:13]) for g in match.groups() if g and g != "*"]
    if "{" in template:
        for match in re.finditer(_FORMAT_FIELD, template):
            numbers += [
                int(d.group()[:13]) for d in re.finditer(_DIGITS, match.group())
            ]
    numbers += [
        value
        for value in (*args, *kwargs.values())
        if isinstance(value, int) and not isinstance(value, bool)
    ]
    for number in numbers:
        _refuse_value("a format width or precision", abs(number))


def check_call(obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    """Refuse a call of a string method that would make a value over the limits."""
    method = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    owner = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if not isinstance(owner, str):
        return
    if name in _WIDTH_METHODS and args and isinstance(args[0], int):
        _refuse_value(f"str.{name}", args[0])
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = owner.count(old) if old else len(owner) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        _refuse_value("str.replace", len(owner) + count * max(len(new) - len(old), 0))
    elif name == "join" and args:
        items = args[0]
        if isinstance(items, (list, tuple, str)):
            total = len(owner) * len(items) + sum(_length(item) for item in items)
            _refuse_value("str.join", total)
    elif name in {"format", "format_map"}:
        _check_format(owner, args, kwargs)


def check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``*``, ``**``, ``+`` and ``%`` that would make a value over the limits."""
    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(times, int) and _length(seq):
                _refuse_value("'*'", _length(seq) * max(times, 0))
        if isinstance(left, int) and isinstance(right, int):
            bits = left.bit_length() + right.bit_length()
            if bits > MAX_INT_BITS + 1:
                _check_int(1 << bits, "'*'")
    elif operator == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0:
            bits = max(left.bit_length() - 1, 0) * right
            if abs(left) > 1 and (right > MAX_INT_BITS or bits > MAX_INT_BITS):
                raise TemplateLimitError(
                    f"'**' would make an integer of more than {MAX_INT_BITS:,} bits"
                )
    elif operator == "+":
        _refuse_value("'+'", _length(left) + _length(right))
    elif operator == "%" and isinstance(left, str):
        args = right if isinstance(right, tuple) else (right,)
        _check_format(left, args, {})


def limited_range(*args: int) -> range:
    """``range`` of at most :data:`MAX_RANGE` items."""
    numbers = range(*args)
    if len(numbers) > MAX_RANGE:
        raise TemplateLimitError(
            f"range() of {len(numbers):,} items; a template may loop over at most {MAX_RANGE:,}"
        )
    return numbers


def metered_loop(iterable: Any, weight: int = 1) -> Iterator[Any]:
    """The filter every ``{% for %}`` loop is wrapped in: charge ``weight`` per iteration."""
    for item in iterable:
        charge(weight)
        yield item


def concat(parts: tuple[Any, ...]) -> str:
    """The ``~`` operator, refused when the joined string would be over :data:`MAX_VALUE_SIZE`."""
    texts = [str(part) for part in parts]
    total = sum(len(text) for text in texts)
    _refuse_value("'~'", total)
    charge(total // 8 + 1)
    return "".join(texts)


def guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a filter: charge its arguments and result, refuse over-size results."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        values = [
            value
            for value in (*args, *kwargs.values())
            if not isinstance(value, (jinja2.Environment, Context, EvalContext))
        ]
        for value in values:
            charge_value(value)
        charge(1)
        if name in _WIDTH_FILTERS:
            for value in values[1:]:
                if isinstance(value, int) and not isinstance(value, bool):
                    _refuse_value(f"the {name} filter", abs(value))
        if name == "indent" and values:
            width = values[1] if len(values) > 1 else 4
            lines = str(values[0]).count("\n") + 1
            _refuse_value(
                "the indent filter", len(str(values[0])) + lines * _length_or(width)
            )
        elif name == "replace" and len(values) >= 3:
            owner, old, new = (str(v) for v in values[:3])
            count = owner.count(old) if old else len(owner) + 1
            _refuse_value(
                "the replace filter", len(owner) + count * max(len(new) - len(old), 0)
            )
        elif name == "format" and values and isinstance(values[0], str):
            _check_format(values[0], tuple(values[1:]), {})
        elif name == "join" and values and isinstance(values[0], (list, tuple)):
            separator = str(values[1]) if len(values) > 1 else ""
            total = len(separator) * len(values[0]) + sum(_length(v) for v in values[0])
            _refuse_value("the join filter", total)
        result = function(*args, **kwargs)
        if isinstance(result, (str, list, tuple, dict)):
            check_made(result, f"the {name} filter")
        return result

    return guarded


def _length_or(width: Any) -> int:
    if isinstance(width, int) and not isinstance(width, bool):
        return abs(width)
    return len(str(width))


def callable_name(obj: Any) -> str:
    """What a template called, for messages (``f`` for a macro ``f``)."""
    name = getattr(obj, "name", None) or getattr(obj, "__name__", None)
    return str(name) if name else type(obj).__name__
