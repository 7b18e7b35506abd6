"""The limits on a template's work, and the meter that keeps them (see :mod:`t2gen.render.sandbox`).

Every loop iteration, call, filter, include and written expression of a render
is charged to a :class:`Meter` of :data:`WORK_BUDGET` units, in proportion to
what it does (:mod:`t2gen.render.guards` charges calls and filters by their
operands and :mod:`t2gen.render.estimate`'s weights); an operation that would
make a value larger than :data:`MAX_VALUE_SIZE` characters, :data:`MAX_ITEMS`
items or an integer larger than :data:`MAX_INT_BITS` is refused before it
runs. Each limit raises :class:`TemplateLimitError` inside the template, so the
error names the template and line.

One unit is the CPU time of one empty ``{% for %}`` iteration in the sandbox
(0.23 µs on the 2-CPU development machine, 2026-12-07); the other costs were
measured against it in the same process (``bench/units.py``): a written
expression :data:`OUTPUT_UNITS`, a call :data:`CALL_UNITS`, a macro call
:data:`MACRO_CALL_UNITS`, an intercepted operator :data:`BINOP_UNITS` plus,
on integers, one unit per :data:`INT_PRODUCTS_PER_UNIT` products of their
30-bit digits (schoolbook multiplication and division), a slice one unit per
:data:`SLICE_CHARS_PER_UNIT` characters it copies (:data:`STEP_SLICE_CHARS_PER_UNIT`
with a step, :data:`SLICE_ITEMS_PER_UNIT` items of a list), compiling a template
:func:`~t2gen.render.estimate.compile_units`, and a
string operation one unit per 8 characters of the strings it reads or makes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from jinja2.exceptions import SecurityError

__all__ = [
    "BINOP_UNITS",
    "CALL_UNITS",
    "INT_PRODUCTS_PER_UNIT",
    "MACRO_CALL_UNITS",
    "MAX_INT_BITS",
    "MAX_ITEMS",
    "MAX_OUTPUT_CHARS",
    "MAX_RANGE",
    "MAX_VALUE_SIZE",
    "OUTPUT_UNITS",
    "SLICE_CHARS_PER_UNIT",
    "SLICE_ITEMS_PER_UNIT",
    "STEP_SLICE_CHARS_PER_UNIT",
    "WORK_BUDGET",
    "Meter",
    "TemplateLimitError",
    "callable_name",
    "charge",
    "charge_binop",
    "charge_compile",
    "charge_output",
    "charge_slice",
    "charge_value",
    "check_binop",
    "check_made",
    "concat",
    "limited_range",
    "metered",
    "metered_iterator",
    "metered_loop",
    "refuse_size",
    "unmetered",
]

MAX_RANGE = 10_000
"""Most items ``range()`` gives in a template."""

MAX_VALUE_SIZE = 4 * 1024 * 1024
"""Largest string an operation may make, in characters (4 Mi)."""

MAX_ITEMS = 1024 * 1024
"""Largest list, tuple or mapping an operation may make, in items (1 Mi).

Lower than :data:`MAX_VALUE_SIZE`: an item may be a string object of its own
(``('日' * 4_000_000)|list`` is 4 million one-character strings of 80 bytes,
320 MB), so a list of 1 Mi items stays under 100 MB."""

MAX_INT_BITS = 4096
"""Largest integer an operation may make, in bits (``2 ** 4096``)."""

WORK_BUDGET = 2_000_000
"""Work units the overlay's templates may use for one job (see the module docstring):
about 0.5 s of CPU, so the worst accepted overlay stays within 10x a plain render
(``bench/kinds.py``; it was 5,000,000, and 52x). Only the templates an overlay
touches are metered (:meth:`t2gen.render.engine.TemplateSet.metered_templates`):
the other built-in ones render unmetered, bounded by the job file's bounds, so
the largest job ``validate`` accepts (5,100,000 units metered) renders with one."""

MAX_OUTPUT_CHARS = 8 * 1024 * 1024
"""Most characters the metered templates may write for one job (8 Mi; was 32 Mi)."""

OUTPUT_UNITS = 20
"""Units of a written ``{{ expression }}`` (YAML emission, 4-5 µs), besides its value's size (was 8)."""

BINOP_UNITS = 16
"""Units of an operator the sandbox intercepts (``*``, ``**``, ``+``, ``%``, ``//``, ``/``): its checks."""

INT_PRODUCTS_PER_UNIT = 128
"""Products of 30-bit digits a unit pays for in ``*``, ``//``, ``%`` and ``/`` of integers.

CPython multiplies and divides integers digit by digit: a 4,096-bit integer
divided by a 2,048-bit one is 137 x 69 digit products, 9-13 µs (40-57 units)."""

SLICE_CHARS_PER_UNIT = 512
"""Characters a slice of a string without a step copies per unit (``s[1:]`` of 4 M: 0.6 ms, 2,300 a unit)."""

STEP_SLICE_CHARS_PER_UNIT = 64
"""Characters a slice of a string with a step copies per unit (``s[::-1]`` of 4 M: 3.5 ms, 430 a unit)."""

SLICE_ITEMS_PER_UNIT = 16
"""Items a slice of a list or tuple copies per unit (``l[1:]`` of 1 M items: 12 ms, 32 a unit)."""

CALL_UNITS = 8
"""Units of a call from a template (a method, a global), besides its operands' sizes."""

MACRO_CALL_UNITS = 40
"""Units of a macro call (Jinja2 builds a frame and a caller for each), besides its operands."""


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
                "(loop iterations, calls, compiling and the sizes of the values they "
                "handle); loop over less, or replace fewer built-in templates and "
                "partials (only what an overlay touches is metered)"
            )

    def charge_value(self, value: Any) -> None:
        """Charge the size of ``value`` (a walk that stops when the budget is spent)."""
        kind = type(value)
        if kind is str:
            self.charge(len(value) // 8 + 1)
        elif kind is int or kind is bool or value is None or kind is float:
            self.charge(1)
        else:
            self.charge(_size(value, max(self.left, 0) + 1))


_meter: Meter | None = None


@contextlib.contextmanager
def unmetered() -> Iterator[None]:
    """Meter nothing inside the block (a built-in template that reads no overlay file)."""
    global _meter
    previous, _meter = _meter, None
    try:
        yield
    finally:
        _meter = previous


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


def charge_compile(source: str) -> None:
    """Charge compiling ``source`` (:func:`~t2gen.render.estimate.compile_units`) before it is parsed."""
    from t2gen.render.estimate import compile_units

    if _meter is not None:
        for units in compile_units(source):
            _meter.charge(units)


def charge_binop(operator: str, left: Any, right: Any) -> None:
    """Charge an intercepted operator, and on two integers the products of their digits it computes."""
    if _meter is None:
        return
    units = BINOP_UNITS
    if type(left) is int and type(right) is int and operator != "+":
        left_digits = left.bit_length() // 30 + 1
        if operator == "**":
            # squarings of the result, at most MAX_INT_BITS (check_binop)
            result = min(left.bit_length() * max(right, 0), MAX_INT_BITS) // 30 + 1
            products = result * result * max(right.bit_length(), 1)
        else:
            products = left_digits * (right.bit_length() // 30 + 1)
        units += products // INT_PRODUCTS_PER_UNIT
    _meter.charge(units)


def charge_slice(obj: Any, part: slice) -> None:
    """Charge a slice of a string or sequence by what it copies."""
    if _meter is None or not isinstance(obj, (str, bytes, list, tuple)):
        return
    copied = len(range(*part.indices(len(obj))))
    if not isinstance(obj, (str, bytes)):
        per_unit = SLICE_ITEMS_PER_UNIT
    elif part.step in (None, 1):
        per_unit = SLICE_CHARS_PER_UNIT
    else:
        per_unit = STEP_SLICE_CHARS_PER_UNIT
    _meter.charge(copied // per_unit + 1)


def charge_output(value: Any) -> None:
    """Charge a value a ``{{ expression }}`` writes (called by the environment's finalize)."""
    if _meter is not None:
        _meter.charge(OUTPUT_UNITS)
        _meter.charge_value(value)


def _size(value: Any, limit: int) -> int:
    """The size of a value (characters, items, counted at every reach), or more than ``limit``.

    Shared items count each time they are reached (``[a, a]`` is twice ``a``),
    as a writer would write them; the walk stops once the count passes ``limit``.
    """
    total = 0
    stack = [value]
    pop, extend = stack.pop, stack.extend
    while stack and total <= limit:
        item = pop()
        kind = type(item)
        if kind is str:
            total += len(item) // 8 + 1
        elif kind is list or kind is tuple:
            total += 1
            extend(item)
        elif kind is dict:
            total += 1
            extend(item.keys())
            extend(item.values())
        elif kind is int:
            total += item.bit_length() // 64 + 1
        elif isinstance(item, (str, bytes)):
            total += len(item) // 8 + 1
        elif isinstance(item, dict):
            total += 1
            extend(item.keys())
            extend(item.values())
        elif isinstance(item, (list, tuple, set, frozenset)):
            total += 1
            extend(item)
        else:
            total += 1
    return total


def length(value: Any) -> int:
    """Characters of a string, items of a container; 0 for anything else."""
    if isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        return len(value)
    return 0


def refuse_size(what: str, size: int, *, items: bool = False) -> None:
    """Refuse an operation that would make a string of ``size`` characters (or a container of ``size`` items)."""
    limit = MAX_ITEMS if items else MAX_VALUE_SIZE
    if size > limit:
        unit = "items" if items else "characters"
        raise TemplateLimitError(
            f"{what} would make a value of {size:,} {unit}, "
            f"more than the {limit:,} a template may make"
        )


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise TemplateLimitError(
            f"{what} would make an integer of {value.bit_length():,} bits, "
            f"more than the {MAX_INT_BITS:,} a template may make"
        )


def check_made(value: Any, what: str | Callable[[], str]) -> None:
    """Refuse a value an operation made that is over the limits, and charge it.

    Args:
        value: what the operation returned.
        what: the operation, for the message (a function making it, called only then).
    """
    kind = type(value)
    if kind is str:
        if len(value) > MAX_VALUE_SIZE:
            refuse_size(what if isinstance(what, str) else what(), len(value))
    elif kind is not int and kind is not bool:
        size = length(value)
        if size > (MAX_VALUE_SIZE if isinstance(value, (str, bytes)) else MAX_ITEMS):
            refuse_size(
                what if isinstance(what, str) else what(),
                size,
                items=not isinstance(value, (str, bytes)),
            )
    elif kind is int and value.bit_length() > MAX_INT_BITS:
        _check_int(value, what if isinstance(what, str) else what())
    charge_value(value)


def check_binop(operator: str, left: Any, right: Any) -> None:
    """Refuse ``*``, ``**``, ``+`` and ``%`` that would make a value over the limits."""
    from t2gen.render.estimate import printf_size

    if operator == "*":
        for seq, times in ((left, right), (right, left)):
            if isinstance(times, int) and length(seq):
                refuse_size(
                    "'*'",
                    length(seq) * max(times, 0),
                    items=not isinstance(seq, str),
                )
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
        refuse_size(
            "'+'", length(left) + length(right), items=not isinstance(left, str)
        )
    elif operator == "%" and isinstance(left, str):
        refuse_size("'%' formatting", printf_size(left, right, MAX_VALUE_SIZE))


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


def metered_iterator(iterable: Any, units: int) -> Iterator[Any]:
    """Charge ``units`` for each item a filter's generator yields (``map`` calls a filter per item)."""
    for item in iterable:
        charge(units)
        yield item


def concat(parts: tuple[Any, ...]) -> str:
    """The ``~`` operator, refused when the joined string would be over :data:`MAX_VALUE_SIZE`."""
    from t2gen.render.estimate import text_size

    refuse_size("'~'", sum(text_size(part, MAX_VALUE_SIZE) for part in parts))
    texts = [str(part) for part in parts]
    total = sum(len(text) for text in texts)
    refuse_size("'~'", total)
    charge(BINOP_UNITS + len(parts) + total // 8)
    return "".join(texts)


def callable_name(obj: Any) -> str:
    """What a template called, for messages (``f`` for a macro ``f``)."""
    name = getattr(obj, "name", None) or getattr(obj, "__name__", None)
    return str(name) if name else type(obj).__name__
