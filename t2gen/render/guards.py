"""The checks around every call and filter a template makes (see :mod:`t2gen.render.sandbox`).

Before an operation runs, its result's size is bounded from its operands
(:mod:`t2gen.render.estimate`) and refused past the limits of
:mod:`t2gen.render.budget`; its work is charged in proportion to what it
reads (the receiver and every argument, including a generator's items, read
into a list first, at most :data:`~t2gen.render.budget.MAX_ITEMS`) and to what
the filter does per item; its result is checked and charged after it runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

import jinja2
from jinja2.nodes import EvalContext
from jinja2.runtime import Context, Macro
from markupsafe import Markup

from t2gen.render.budget import (
    CALL_UNITS,
    MACRO_CALL_UNITS,
    MAX_ITEMS,
    MAX_VALUE_SIZE,
    TemplateLimitError,
    callable_name,
    charge,
    charge_value,
    check_made,
    length,
    metered_iterator,
    refuse_size,
)
from t2gen.render.estimate import (
    FILTER_GROWTH,
    FILTER_WORK,
    GENERATOR_WORK,
    ITEMIZING_FILTERS,
    format_size,
    json_size,
    per_item,
    sum_work,
    text_size,
    value_shape,
)

__all__ = ["guard_call", "guard_filter", "materialized"]

_WIDTH_METHODS = frozenset({"center", "ljust", "rjust", "zfill"})
_WIDTH_FILTERS = frozenset({"center", "indent", "truncate", "wordwrap"})
_CONTEXTS = (jinja2.Environment, Context, EvalContext)


def materialized(value: Any) -> Any:
    """A generator's items as a list (charged per item, at most :data:`MAX_ITEMS`); anything else as it is."""
    if not isinstance(value, Iterator):
        return value
    items = []
    for item in value:
        items.append(item)
        if len(items) > MAX_ITEMS:
            refuse_size("reading a generator", len(items), items=True)
    charge(len(items))
    return items


def _check_method(
    owner: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    """Refuse a string method call whose result would be over the limits."""
    limit = MAX_VALUE_SIZE
    markup = isinstance(owner, Markup)
    if name in _WIDTH_METHODS and args and isinstance(args[0], int):
        refuse_size(f"str.{name}", max(args[0], len(owner)))
    elif name == "replace" and len(args) >= 2:
        old, new = str(args[0]), str(args[1])
        count = owner.count(old) if old else len(owner) + 1
        if len(args) > 2 and isinstance(args[2], int) and args[2] >= 0:
            count = min(count, args[2])
        refuse_size("str.replace", len(owner) + count * max(len(new) - len(old), 0))
    elif name == "join" and args:
        items = args[0]
        total = len(owner) * max(length(items) - 1, 0)
        if isinstance(items, str):
            total += len(items)
        else:
            total += sum(text_size(item, limit) for item in items)
        refuse_size("str.join", total * (5 if markup else 1))
    elif name == "format":
        refuse_size(
            "str.format", format_size(owner, args, kwargs, limit) * (5 if markup else 1)
        )
    elif name == "format_map" and args:
        mapping = args[0] if isinstance(args[0], dict) else {}
        refuse_size("str.format_map", format_size(owner, (), mapping, limit))
    elif name in ("split", "rsplit", "splitlines"):
        refuse_size(f"str.{name}", len(owner) // 2 + 1, items=True)
    elif name in ("upper", "lower", "title", "capitalize", "swapcase", "casefold"):
        refuse_size(f"str.{name}", 3 * len(owner))


def guard_call(
    obj: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Any, ...]:
    """Charge a template's call of ``obj`` and refuse it when its result would be over the limits.

    Returns:
        The arguments to call with: a generator given to ``join`` read into a list.

    Raises:
        TemplateLimitError: a limit would be passed, or the budget is spent.
    """
    charge(MACRO_CALL_UNITS if isinstance(obj, Macro) else CALL_UNITS)
    method = getattr(obj, "__wrapped__", obj)  # the sandbox wraps str.format
    owner = getattr(method, "__self__", None)
    name = getattr(method, "__name__", "")
    if isinstance(owner, str):
        charge_value(owner)  # a string method reads its whole receiver (`s.isdigit()`)
        if name == "join" and args:
            args = (materialized(args[0]), *args[1:])
    for value in (*args, *kwargs.values()):
        charge_value(value)
    if isinstance(owner, str):
        _check_method(owner, name, args, kwargs)
    return args


def _input_size(values: list[Any]) -> tuple[int, int]:
    """``(characters, items)`` of a filter's input (its first value)."""
    if not values:
        return 0, 0
    value = values[0]
    if isinstance(value, str):
        return len(value), 0
    chars, items, _ = value_shape(value, 4 * MAX_VALUE_SIZE)
    return chars, items


def _precheck(name: str, values: list[Any]) -> None:
    """Refuse a filter call whose result would be over the limits, before it runs."""
    limit = MAX_VALUE_SIZE
    first = values[0] if values else None
    if name in _WIDTH_FILTERS:
        for value in values[1:]:
            if isinstance(value, int) and not isinstance(value, bool):
                refuse_size(f"the {name} filter", abs(value))
    if isinstance(first, str) and name in ITEMIZING_FILTERS:
        refuse_size(f"the {name} filter on a string", len(first), items=True)
    if name == "indent" and values:
        width = values[1] if len(values) > 1 else 4
        width = abs(width) if isinstance(width, int) else len(str(width))
        text = str(first)
        refuse_size("the indent filter", len(text) + (text.count("\n") + 1) * width)
    elif name == "replace" and len(values) >= 3:
        owner, old, new = (str(v) for v in values[:3])
        count = owner.count(old) if old else len(owner) + 1
        refuse_size(
            "the replace filter", len(owner) + count * max(len(new) - len(old), 0)
        )
    elif name == "format" and isinstance(first, str):
        refuse_size(
            "the format filter", format_size(first, tuple(values[1:]), {}, limit)
        )
    elif name == "join" and isinstance(first, (list, tuple)):
        separator = str(values[1]) if len(values) > 1 else ""
        total = len(separator) * len(first) + sum(text_size(v, limit) for v in first)
        refuse_size("the join filter", total)
    elif name == "tojson":
        indent = values[1] if len(values) > 1 else None
        refuse_size("the tojson filter", json_size(first, indent, limit))
    elif name == "wordwrap" and isinstance(first, str):
        wrap = values[4] if len(values) > 4 and isinstance(values[4], str) else "\n"
        refuse_size("the wordwrap filter", len(first) * (1 + len(wrap)))
    elif name in FILTER_GROWTH:
        refuse_size(f"the {name} filter", FILTER_GROWTH[name] * text_size(first, limit))


def guard_filter(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a filter: read generators given to it, charge its work, refuse over-size results."""

    @functools.wraps(function)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        args = tuple(materialized(a) for a in args)
        kwargs = {key: materialized(value) for key, value in kwargs.items()}
        values = [v for v in (*args, *kwargs.values()) if not isinstance(v, _CONTEXTS)]
        for value in values:
            charge_value(value)
        charge(2)
        if name in FILTER_WORK:
            chars, items = _input_size(values)
            per_char, per_entry = FILTER_WORK[name]
            charge(per_item(per_char, chars) + per_item(per_entry, items))
        if name == "sum":
            start = kwargs.get("start", values[2] if len(values) > 2 else 0)
            if isinstance(values[0] if values else None, (list, tuple)):
                charge(sum_work(list(values[0]), start) // 32)  # ~10 ns an item copied
        _precheck(name, values)
        try:
            result = function(*args, **kwargs)
        except (OverflowError, MemoryError) as err:
            raise TemplateLimitError(
                f"the {name} filter failed: {err or type(err).__name__}"
            ) from None
        if name in GENERATOR_WORK and isinstance(result, Iterator):
            return metered_iterator(result, GENERATOR_WORK[name])
        if isinstance(result, (str, list, tuple, dict)):
            check_made(result, f"the {name} filter")
        return result

    return guarded


def made_by(obj: Any) -> Callable[[], str]:
    """The words for what a call made, for :func:`t2gen.render.budget.check_made`, made when needed."""
    return lambda: f"a call of {callable_name(obj)}"
