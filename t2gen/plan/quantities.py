"""Resource amounts as the scheduler counts them: quantities, resource lists, totals, text.

Quantities are exact (:func:`t2gen.kube.quantity.parse_quantity`) and rounded up as
``Quantity.MilliValue`` (cpu, millicores) and ``Quantity.Value`` (everything
else: bytes or counts) round them
(``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go``, kubernetes/kubernetes).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping
from typing import Any

from t2gen.kube.quantity import parse_quantity
from t2gen.record import Record

__all__ = [
    "BINARY_SUFFIXES",
    "CPU",
    "MEMORY",
    "PODS",
    "Resources",
    "add_requests",
    "exact_text",
    "format_cpu",
    "format_resource",
    "is_byte_resource",
    "parse_resource_list",
    "quantity_amount",
]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
BINARY_SUFFIXES = (("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10))
"""Binary suffixes and their powers of two, largest first."""


class Resources(Record):
    """An amount of every resource the scheduler's NodeResourcesFit filter checks.

    Attributes:
        cpu_millis: CPU in millicores (1 core = 1000).
        memory_bytes: memory in bytes.
        pods: a number of pods (allocatable: how many the node runs; a request: 1).
        extended: every other resource as (name, whole units), sorted by name:
            extended resources such as ``nvidia.com/gpu`` (a count),
            ``ephemeral-storage`` and ``hugepages-2Mi`` (bytes).
    """

    cpu_millis: int = 0
    memory_bytes: int = 0
    pods: int = 0
    extended: tuple[tuple[str, int], ...] = ()

    def get(self, name: str) -> int:
        """Return the amount of resource ``name`` (``cpu`` in millicores), 0 if absent."""
        if name == CPU:
            return self.cpu_millis
        if name == MEMORY:
            return self.memory_bytes
        if name == PODS:
            return self.pods
        for key, value in self.extended:
            if key == name:
                return value
        return 0

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict: ``cpuMillis``, ``memoryBytes``, ``pods``, ``extended``."""
        return {
            "cpuMillis": self.cpu_millis,
            "memoryBytes": self.memory_bytes,
            "pods": self.pods,
            "extended": dict(self.extended),
        }

    @staticmethod
    def from_amounts(
        amounts: Mapping[str, int], *, pods: int | None = None
    ) -> Resources:
        """Build from a resource map (``cpu`` in millicores, the rest in whole units)."""
        extended: tuple[tuple[str, int], ...] = ()
        if len(amounts) > (CPU in amounts) + (MEMORY in amounts) + (PODS in amounts):
            extended = tuple(
                sorted(
                    (k, v) for k, v in amounts.items() if k not in (CPU, MEMORY, PODS)
                )
            )
        return Resources(
            cpu_millis=amounts.get(CPU, 0),
            memory_bytes=amounts.get(MEMORY, 0),
            pods=amounts.get(PODS, 0) if pods is None else pods,
            extended=extended,
        )


_FAST_QUANTITY = re.compile(r"([0-9]{1,15})(m|k|M|G|T|Ki|Mi|Gi|Ti)?")
_FAST_FACTOR = {
    None: 1,
    "k": 10**3,
    "M": 10**6,
    "G": 10**9,
    "T": 10**12,
    "Ki": 1 << 10,
    "Mi": 1 << 20,
    "Gi": 1 << 30,
    "Ti": 1 << 40,
}


@functools.lru_cache(maxsize=8192)
def _milli_value(text: str | int | float) -> int:
    """Return a quantity in thousandths, rounded up (``Quantity.MilliValue``)."""
    return math.ceil(parse_quantity(text).value * 1000)


@functools.lru_cache(maxsize=8192)
def _whole_value(text: str | int | float) -> int:
    """Return a quantity in whole units, rounded up (``Quantity.Value``)."""
    return math.ceil(parse_quantity(text).value)


def quantity_amount(name: str, raw: object) -> int:
    """Return the amount of resource ``name`` as the scheduler counts it.

    Whole numbers with a common suffix (``16``, ``7910m``, ``65049656Ki``) are
    read by integer arithmetic; everything else goes through the exact parser,
    :func:`t2gen.kube.quantity.parse_quantity`.

    Args:
        name: the resource name; ``cpu`` is counted in millicores, every other
            resource in whole units (bytes for memory and storage, a count for
            ``pods`` and extended resources).
        raw: the quantity as the API prints it: a string such as ``3920m`` or
            ``16Gi``, or a JSON number.

    Returns:
        The amount, rounded up as Kubernetes rounds it.

    Raises:
        ValueError: ``raw`` is not a Kubernetes quantity.
    """
    if type(raw) is str:
        return _string_amount(name == CPU, raw)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ValueError(f"{raw!r} is not a quantity")
    return _milli_value(raw) if name == CPU else _whole_value(raw)


@functools.lru_cache(maxsize=65536)
def _string_amount(milli: bool, text: str) -> int:
    """:func:`quantity_amount` of a string, remembered (node lists repeat their quantities)."""
    match = _FAST_QUANTITY.fullmatch(text)
    if match is not None:
        number, suffix = int(match.group(1)), match.group(2)
        if suffix == "m":
            return number if milli else -(-number // 1000)
        amount = number * _FAST_FACTOR[suffix]
        return amount * 1000 if milli else amount
    return _milli_value(text) if milli else _whole_value(text)


def parse_resource_list(raw: object) -> dict[str, int]:
    """Parse a ResourceList (``requests``, ``limits``, ``allocatable``) into amounts.

    Args:
        raw: a mapping of resource name to quantity, or None.

    Returns:
        Resource name to amount: ``cpu`` in millicores, the rest in whole units.

    Raises:
        ValueError: not a mapping, or a value that is not a quantity or is
            negative (``ValidateResourceQuantityValue`` in kubernetes/kubernetes,
            ``pkg/apis/core/validation/validation.go``, refuses it); the message
            names the resource.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) and not isinstance(raw, Mapping):
        raise ValueError("must be a map of resource names to quantities")
    out: dict[str, int] = {}
    for name, value in raw.items():
        try:
            amount = quantity_amount(str(name), value)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
        if amount < 0:  # the API server refuses negative capacities and requests
            raise ValueError(
                f"{name}: {value} is negative; a capacity or request is at least 0"
            )
        out[str(name)] = amount
    return out


QUANTITY_HINT = "a Kubernetes quantity such as 4, 500m or 8Gi"
"""What a plan input's quantity should look like, for messages."""


def with_quantity_hint(err: ValueError) -> str:
    """``err`` as a message, with :data:`QUANTITY_HINT` when the value was no quantity."""
    text = str(err)
    return f"{text}: {QUANTITY_HINT}" if text.endswith("is not a quantity") else text


def format_cpu(millis: int) -> str:
    """Return millicores as Kubernetes prints cpu: ``4`` for 4000, ``1500m`` for 1500."""
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def format_resource(name: str, amount: int) -> str:
    """Return an amount of resource ``name`` for a message: cpu, bytes as Gi/Mi, counts."""
    if name == CPU:
        return format_cpu(amount)
    if is_byte_resource(name):
        return _format_bytes(amount)
    return str(amount)


def _format_bytes(amount: int) -> str:
    for suffix, power in BINARY_SUFFIXES:
        unit = 1 << power
        if abs(amount) >= unit:
            if amount % unit == 0:
                return f"{amount // unit}{suffix}"
            return f"{amount / unit:.1f}{suffix}"
    return str(amount)


def is_byte_resource(name: str) -> bool:
    """Return True for a resource counted in bytes: memory, ``ephemeral-storage``, hugepages."""
    return (
        name == MEMORY or name == "ephemeral-storage" or name.startswith("hugepages-")
    )


def add_requests(into: dict[str, int], requests: Resources, times: int = 1) -> None:
    """Add ``times`` x ``requests`` (cpu, memory, extended; not ``pods``) to an amount map.

    Args:
        into: resource name to amount (``cpu`` in millicores), updated in place.
        requests: one pod's requests.
        times: how many such pods.
    """
    into[CPU] = into.get(CPU, 0) + times * requests.cpu_millis
    into[MEMORY] = into.get(MEMORY, 0) + times * requests.memory_bytes
    for name, amount in requests.extended:
        into[name] = into.get(name, 0) + times * amount


def exact_texts(name: str, *amounts: int) -> tuple[str, ...]:
    """Amounts of one resource exactly, in one unit: the largest that divides them all.

    ``plan`` prints amounts side by side (``used/hard``, ``used + pod > hard``);
    each in its own unit (``83201152Mi/100000Gi``) makes the reader convert to
    compare, so bytes share the largest binary unit dividing every one
    (``83201152Mi/102400000Mi``), and cpu is always in cores.

    Args:
        name: the resource (``cpu``, ``memory``, ``requests.memory`` with its prefix removed).
        amounts: in millicores for cpu, bytes for byte resources, else counts.

    Returns:
        One text per amount, in the order given.
    """
    if is_byte_resource(name) and any(amounts):
        for suffix, power in BINARY_SUFFIXES:
            if all(amount % (1 << power) == 0 for amount in amounts):
                return tuple(f"{amount >> power}{suffix}" for amount in amounts)
        return tuple(str(amount) for amount in amounts)
    return tuple(exact_text(name, amount) for amount in amounts)


def exact_text(name: str, amount: int) -> str:
    """An amount exactly: cpu in cores (``25000.2``), bytes in the largest unit that divides them."""
    if name == CPU:
        whole, millis = divmod(amount, 1000)
        return f"{whole}" + (f".{millis:03d}".rstrip("0") if millis else "")
    if is_byte_resource(name):
        for suffix, power in BINARY_SUFFIXES:
            if amount and amount % (1 << power) == 0:
                return f"{amount >> power}{suffix}"
    return str(amount)
