"""Kubernetes resource quantities: exact parsing and canonical formatting.

A port of ``k8s.io/apimachinery/pkg/api/resource`` (``quantity.go``,
``amount.go``, ``suffix.go``) onto :class:`decimal.Decimal`, so that sizes are
exact (3 x 0.1Gi is 0.3Gi, never 0.30000000000000004Gi) and printed the way the
API server prints them (``kubectl get -o yaml``): ``0.5`` is ``500m``,
``1024Mi`` is ``1Gi``, and ``0.3Gi`` (not a whole number of bytes) is
``322122547200m``. The tests compare this module with a real kubectl.
"""

from __future__ import annotations

import enum
import re
from decimal import ROUND_CEILING, ROUND_UP, Decimal, localcontext

from t2gen.record import Record

__all__ = ["Quantity", "QuantityFormat", "QuantityRangeError", "parse_quantity"]

# Go: the number part is [+-]?[0-9]*(\.[0-9]*)?, the suffix a run of
# [eEinumkKMGTP] then [-+]?[0-9]* (parseQuantityString).
_QUANTITY = r"^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$"

_DECIMAL_SUFFIXES = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_BY_EXPONENT = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_BY_POWER = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
_NANO = Decimal("1e-9")
_INT64_MAX = 2**63 - 1
_MAX_DIGITS = (
    40  # no resource comes near 10^40; larger values are refused, not computed
)
_PRECISION = 100  # enough digits for any value below 10^40 at 1n resolution


class QuantityRangeError(ValueError):
    """A well-formed quantity out of range: 10^40 or more, an exponent beyond int32, or not finite.

    The message says which, without repeating the value.
    """


class QuantityFormat(enum.Enum):
    """How a quantity prints: the family of its suffix (``resource.Format``)."""

    DECIMAL_SI = "DecimalSI"
    BINARY_SI = "BinarySI"
    DECIMAL_EXPONENT = "DecimalExponent"


class Quantity(Record):
    """An exact resource amount and the suffix family it prints in.

    Attributes:
        value: the amount in base units: cores for CPU, bytes for memory and
            storage. Always a multiple of 1n (10^-9), as Kubernetes keeps it.
        format: the suffix family; products and sums keep the left operand's.
    """

    value: Decimal
    format: QuantityFormat = QuantityFormat.DECIMAL_SI

    def __mul__(self, factor: int) -> Quantity:
        """Return this quantity times a whole number, exactly."""
        return Quantity(self.value * factor, self.format)

    __rmul__ = __mul__

    def __add__(self, other: Quantity) -> Quantity:
        """Return the exact sum, in this quantity's format (``Quantity.Add``)."""
        return Quantity(self.value + other.value, self.format)

    def is_zero(self) -> bool:
        """Return True for a zero amount."""
        return self.value == 0

    def is_whole(self) -> bool:
        """Return True if the amount is a whole number of base units (cores, bytes)."""
        return self.value == self.value.to_integral_value()

    def is_milli_precise(self) -> bool:
        """Return True if the amount is a multiple of 1m (what the API server keeps)."""
        return (self.value * 1000) == (self.value * 1000).to_integral_value()

    def rounded_up(self) -> Quantity:
        """Return the amount rounded up to a whole number of base units (bytes), same format.

        The API server warns that a fractional byte value "is invalid, must be
        an integer" (``pkg/api/pod/warnings.go``), so memory and storage sizes are
        written whole: 0.1Gi (107374182.4 bytes) becomes 107374183.
        """
        return Quantity(
            self.value.to_integral_value(rounding=ROUND_CEILING), self.format
        )

    def mebibytes(self) -> Decimal:
        """Return the amount divided by 2^20 (bytes to MiB), exactly."""
        return self.value / Decimal(2**20)

    def __str__(self) -> str:
        """Return the canonical form, as ``Quantity.String()`` prints it.

        Zero is ``0``. BinarySI amounts below 1024 or not a whole number of
        bytes print as DecimalSI (``CanonicalizeBytes``). Decimal amounts print
        as an integer mantissa with an exponent that is a multiple of 3
        (``AsCanonicalBytes``); exponents outside n..E use ``e`` notation.
        """
        # The text depends on the amount and format, not on how the amount is written.
        key = (self.value, self.format)
        text = _TEXTS.get(key)
        if text is None:
            text = self._canonical()
            if len(_TEXTS) >= 4096:  # bounded, whatever the input
                _TEXTS.clear()
            _TEXTS[key] = text
        return text

    def _canonical(self) -> str:
        value = self.value
        if value == 0:
            return "0"
        fmt = self.format
        if fmt is QuantityFormat.BINARY_SI and (
            -1024 < value < 1024 or not self.is_whole()
        ):
            fmt = QuantityFormat.DECIMAL_SI
        if fmt is QuantityFormat.BINARY_SI:
            number, power = int(value), 0
            while abs(number) >= 1024 and number % 1024 == 0 and power < 6:
                number //= 1024
                power += 1
            return f"{number}{_BINARY_SUFFIX_BY_POWER[power]}"
        mantissa, exponent = _integer_mantissa(value)
        while exponent % 3:
            mantissa *= 10
            exponent -= 1
        if fmt is QuantityFormat.DECIMAL_SI and exponent in _DECIMAL_SUFFIX_BY_EXPONENT:
            return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXPONENT[exponent]}"
        return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def _integer_mantissa(value: Decimal) -> tuple[int, int]:
    """Split ``value`` into an integer mantissa without trailing zeros and a power of 10."""
    sign, digits, exponent = value.normalize().as_tuple()
    assert isinstance(exponent, int)  # finite by construction
    mantissa = int("".join(map(str, digits)) or "0")
    while mantissa and mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    return (-mantissa if sign else mantissa), exponent


_TEXTS: dict[tuple[Decimal, QuantityFormat], str] = {}
"""Canonical texts of quantities already printed (see :meth:`Quantity.__str__`)."""

_PARSED: dict[tuple[type, str | int], Quantity] = {}
"""Quantities already parsed, by type and text: a render repeats a few of them
thousands of times, and a :class:`Quantity` is immutable."""


def parse_quantity(text: str | int | float) -> Quantity:
    """Parse a Kubernetes quantity exactly (``resource.ParseQuantity``).

    Args:
        text: a quantity string such as ``500m``, ``1.5Gi`` or ``1e3``; or a
            YAML number (``2``, ``0.5``), read as DecimalSI. A float is read
            through its shortest repr, so ``0.1`` is exactly one tenth.

    Returns:
        The quantity, rounded up (away from zero) to a multiple of 1n as
        Kubernetes does; a BinarySI amount above int64 is capped as Go caps it.

    Raises:
        ValueError: the text is not a quantity (empty, whitespace, an unknown
            suffix such as ``GB``, or a bool).
        QuantityRangeError: the amount is 10^40 or more, or not finite (YAML ``.inf``).
    """
    key = (type(text), repr(text) if isinstance(text, float) else text)  # -0.0 != 0.0
    try:
        return _PARSED[key]
    except (KeyError, TypeError):  # not parsed yet, or not hashable (not a quantity)
        pass
    quantity = _parse(text)
    if len(_PARSED) >= 4096:  # bounded, whatever the input
        _PARSED.clear()
    _PARSED[key] = quantity
    return quantity


def _parse(text: str | int | float) -> Quantity:
    """:func:`parse_quantity` without the memo."""
    if isinstance(text, bool):
        raise ValueError(f"{text!r} is not a quantity")
    if isinstance(text, int):
        return _round_to_nano(Decimal(text), QuantityFormat.DECIMAL_SI)
    if isinstance(text, float):
        if text != text or text in (float("inf"), float("-inf")):
            raise QuantityRangeError("not a finite number")
        return _round_to_nano(Decimal(repr(text)), QuantityFormat.DECIMAL_SI)
    match = re.match(_QUANTITY, text)
    if not text or match is None:
        raise ValueError(f"{text!r} is not a quantity")
    sign, whole, fraction, suffix = match.groups()
    number = Decimal(f"{sign}{whole or '0'}.{fraction or '0'}")
    if suffix in _DECIMAL_SUFFIXES:
        fmt = QuantityFormat.DECIMAL_SI
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            value = number.scaleb(_DECIMAL_SUFFIXES[suffix])
    elif suffix in _BINARY_SUFFIXES:
        fmt = QuantityFormat.BINARY_SI
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            value = number * (2 ** _BINARY_SUFFIXES[suffix])
    elif (
        len(suffix) > 1
        and suffix[0] in "eE"
        and re.fullmatch(r"[+-]?[0-9]+", suffix[1:])
    ):
        exponent = int(suffix[1:])
        if abs(exponent) > 2**31 - 1:
            raise QuantityRangeError("its exponent is out of range")
        fmt = QuantityFormat.DECIMAL_EXPONENT
        if number == 0:
            value = number
        elif number.adjusted() + exponent >= _MAX_DIGITS:
            raise QuantityRangeError(f"10^{_MAX_DIGITS} or more")
        elif number.adjusted() + exponent < -_MAX_DIGITS:
            value = _NANO.copy_sign(number)  # rounds up to 1n, as Go rounds it
        else:
            with localcontext() as ctx:
                ctx.prec = _PRECISION
                value = number.scaleb(exponent)
    else:
        raise ValueError(f"{text!r} has an unknown suffix {suffix!r}")
    return _round_to_nano(value, fmt)


def _round_to_nano(value: Decimal, fmt: QuantityFormat) -> Quantity:
    """Round away from zero to 1n, cap BinarySI at int64, and demote tiny BinarySI."""
    if value != 0:
        if value.adjusted() >= _MAX_DIGITS:
            raise QuantityRangeError(f"10^{_MAX_DIGITS} or more")
        with localcontext() as ctx:
            ctx.prec = _PRECISION
            value = value.quantize(_NANO, rounding=ROUND_UP)
    if fmt is QuantityFormat.BINARY_SI:
        if abs(value) > _INT64_MAX:
            value = Decimal(_INT64_MAX).copy_sign(value)
        if 0 < abs(value) < 1:
            fmt = QuantityFormat.DECIMAL_SI
    return Quantity(value, fmt)
