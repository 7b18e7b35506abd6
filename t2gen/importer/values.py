"""Twister2 values as t2gen writes them: typed as Twister2 reads them, in Kubernetes units.

Twister2 converts configuration values with ``TypeUtils``
(``twister2/api/src/java/edu/iu/dsc/tws/api/config/TypeUtils.java``); memory is
MB and disk GB, both binary, and cores are numbers.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from t2gen.importer.keys import Kind

__all__ = [
    "BadValue",
    "cpu",
    "decimal_text",
    "gib",
    "java_literal",
    "mib",
    "shown",
    "typed",
]


class BadValue(Exception):
    """A value of the wrong type; the message says what was expected."""


def _number(kind: Kind, value: Any) -> int | float:
    """An integer or a finite number, as TypeUtils reads it.

    Raises:
        BadValue: ``value`` is not one.
    """
    expected = f"must be {'an integer' if kind is Kind.INT else 'a number'}"
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise BadValue(expected)
    try:
        number = (
            (int(value) if isinstance(value, int) else int(str(value).strip()))
            if kind is Kind.INT
            else float(value)
        )
    except ValueError:
        raise BadValue(expected) from None
    if isinstance(number, float) and not math.isfinite(number):
        raise BadValue("must be a finite number")
    if abs(number) >= _LARGEST:
        raise BadValue("must be below 10^15 (a Kubernetes quantity stays below 8Ei)")
    return number


_LARGEST = 10**15
"""Numbers read from a Twister2 file stay below this: sizes in MB or GB and counts far
smaller still, so that every quantity made from them stays below Kubernetes' 8Ei (2^63)."""


def typed(kind: Kind, value: Any) -> Any:
    """Convert a value as Twister2's TypeUtils does, refusing what it would not read.

    Args:
        kind: the type the key holds.
        value: the value as YAML loaded it.

    Returns:
        The value as ``kind`` (``"true"`` -> True, ``"8"`` -> 8 for an integer).

    Raises:
        BadValue: the value is not of ``kind``.
    """
    if kind is Kind.ANY:
        return value
    if kind is Kind.BOOL:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise BadValue("must be true or false")
    if kind in (Kind.INT, Kind.NUMBER):
        return _number(kind, value)
    if kind is Kind.STRING:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise BadValue("must be a string")
        return str(value)
    if kind is Kind.STRING_LIST:
        if not isinstance(value, list) or not all(
            isinstance(item, (str, int)) and not isinstance(item, bool)
            for item in value
        ):
            raise BadValue("must be a list of strings, e.g. ['a', 'b']")
        return list(value)
    if not isinstance(value, list) or not all(isinstance(i, dict) for i in value):
        raise BadValue(
            "must be a list of compute resources (mappings with cpu, ram, disk and instances)"
        )
    return value


def decimal_text(number: float) -> str:
    """A float as the shortest exact decimal: 1.0 -> "1", 0.5 -> "0.5"."""
    return format(Decimal(repr(number)).normalize(), "f")


def gib(number: float) -> str:
    """GB (Twister2's unit, binary) as a quantity: 2.0 -> "2Gi", 0.5 -> "512Mi"."""
    mib_ = Decimal(repr(number)) * 1024
    if mib_ == mib_.to_integral_value() and mib_ % 1024:
        return f"{int(mib_)}Mi"
    return f"{decimal_text(number)}Gi"


def mib(megabytes: int) -> str:
    """MB (Twister2's unit, binary) as a quantity: 4096 -> "4Gi", 200 -> "200Mi"."""
    if megabytes and megabytes % 1024 == 0:
        return f"{megabytes // 1024}Gi"
    return f"{megabytes}Mi"


def cpu(number: float) -> int | float:
    """Cores as the job file writes them: 2.0 -> 2, 0.2 -> 0.2."""
    return int(number) if float(number).is_integer() else number


def java_literal(value: Any, kind: type) -> str:
    """A number written so that SnakeYAML loads it as Double (``2.0``) or Integer (``2``)."""
    if kind is float:
        return repr(float(value))
    return str(int(value))


def shown(value: Any) -> str:
    """A value as a message shows it."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)
