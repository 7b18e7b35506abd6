"""Kubernetes' integer formats (``int32``, ``int64``) as the API server decodes them.

The OpenAPI schemas mark integer fields ``format: int32`` or ``int64``; Go
decodes each into an integer of that size and refuses what does not fit
(``replicas`` of 2^31 or 1e308), where JSON Schema's ``integer`` takes them all.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["INTEGER_FORMATS", "has_wide_numbers", "integer_format"]

INTEGER_FORMATS = {"int32": 2**31, "int64": 2**63}
"""Kubernetes' integer formats and the bound of their range: [-bound, bound - 1]."""


def integer_format(bound: int) -> Callable[[object], bool]:
    """A format check: an integer (or an integral float) within ``[-bound, bound)``, as Go decodes it.

    The API server decodes an ``int32`` field into a Go ``int32``, so ``replicas``
    of 2^31, 2^64, 10^100 or 1e308 is refused (``json: cannot unmarshal number
    ... into Go struct field ... of type int32``); jsonschema's ``integer``
    type accepts them all.
    """

    def check(value: object) -> bool:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return True  # the type keyword's to refuse
        if isinstance(value, float) and not value.is_integer():
            return True  # not an integer: the type keyword's to refuse
        return -bound <= value < bound

    return check


def has_wide_numbers(obj: object) -> bool:
    """Whether an object holds a float or an integer outside int32, which the fast validator does not range-check."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float) or (
            isinstance(item, int) and not -(2**31) <= item < 2**31
        ):
            return True
    return False
