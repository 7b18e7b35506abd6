"""Resource quantities: precision, range, zero, and the JVM heap they leave."""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from decimal import ROUND_CEILING, Decimal
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_list,
    groups,
    is_quantity_shaped,
    problem,
    rule,
)
from t2gen.jobfile.schema import short_value
from t2gen.kube.quantity import QuantityRangeError, parse_quantity
from t2gen.twister2.names import JVM_MEMORY_FRACTION

_MAX_QUANTITY = Decimal(2**63 - 1)
"""Quantities must stay below 8Ei: Kubernetes keeps them as int64 (2^63 - 1 at most)."""

_SHOWN_MAX = 60
"""The most characters of a value a message echoes (a longer one is cut, as the schema's messages cut it)."""

_HEAP_FRACTION = Decimal(JVM_MEMORY_FRACTION)
"""The workers' heap share unless ``spec.jvmMemoryFraction`` says otherwise; the job master's heap is all of its memory."""

_QUANTITY_FIELDS: tuple[tuple[str, ...], ...] = (
    ("jobMaster", "cpu"),
    ("jobMaster", "memory"),
    ("jobMaster", "cpuLimit"),
    ("jobMaster", "memoryLimit"),
    ("jobMaster", "volatileDisk"),
    ("jobMaster", "persistentDisk"),
    ("jobMaster", "ephemeralStorageLimit"),
    ("jobMaster", "shmSize"),
    ("shmSize",),
    ("storage", "persistent", "perWorker"),
    ("storage", "memoryVolumeSize"),
    ("jobPackage", "maxSize"),
    ("logs", "size"),
)
_LIMIT_WORDS = frozenset({"request", "none"})
"""What ``cpuLimit`` and ``memoryLimit`` may say instead of a quantity."""


def _heap_fraction(data: dict[str, Any], path: JsonPath) -> Decimal:
    """The heap share of the memory at ``path``: 1 for the job master, ``spec.jvmMemoryFraction`` for workers (if valid), else 0.8."""
    if path[1] == "jobMaster":
        return Decimal(1)
    raw = as_dict(data.get("spec")).get("jvmMemoryFraction")
    if (
        path[1] == "workers"
        and isinstance(raw, (int, float))
        and not isinstance(raw, bool)
        and 0 < raw <= 1
    ):
        return Decimal(str(raw))
    return _HEAP_FRACTION


def _quantity_fields(data: dict[str, Any]) -> Iterator[tuple[JsonPath, str, Any]]:
    """Yield (path, field name, raw value) of every quantity in the job."""
    spec = as_dict(data.get("spec"))
    for index, group in groups(data):
        for name in (
            "cpu",
            "memory",
            "cpuLimit",
            "memoryLimit",
            "volatileDisk",
            "ephemeralStorageLimit",
            "shmSize",
        ):
            if name in group and group[name] not in _LIMIT_WORDS:
                yield ("spec", "workers", index, name), name, group[name]
    for parts in _QUANTITY_FIELDS:
        node: Any = spec
        for part in parts:
            node = as_dict(node).get(part)
        if node is not None and node not in _LIMIT_WORDS:
            yield ("spec", *parts), parts[-1], node
    scopes: list[tuple[JsonPath, Any]] = [(("spec",), spec)]
    scopes += [(("spec", "workers", index), group) for index, group in groups(data)]
    scopes.append((("spec", "jobMaster"), spec.get("jobMaster")))
    for scope, holder in scopes:
        for index, volume in enumerate(as_list(as_dict(holder).get("volumes"))):
            empty_dir = as_dict(as_dict(volume).get("emptyDir"))
            if "sizeLimit" in empty_dir:
                path = (*scope, "volumes", index, "emptyDir", "sizeLimit")
                yield path, "sizeLimit", empty_dir["sizeLimit"]
        for index, entry in enumerate(as_list(as_dict(holder).get("env"))):
            field = as_dict(
                as_dict(as_dict(entry).get("valueFrom")).get("resourceFieldRef")
            )
            if "divisor" in field:
                path = (
                    *scope,
                    "env",
                    index,
                    "valueFrom",
                    "resourceFieldRef",
                    "divisor",
                )
                yield path, "divisor", field["divisor"]


@rule(
    "quantities",
    fields=(
        "spec.workers[].cpu",
        "spec.workers[].memory",
        "spec.workers[].cpuLimit",
        "spec.workers[].memoryLimit",
        "spec.workers[].volatileDisk",
        "spec.workers[].ephemeralStorageLimit",
        "spec.workers[].shmSize",
        "spec.shmSize",
        "spec.jobMaster.ephemeralStorageLimit",
        "spec.jobMaster.shmSize",
        "spec.jobMaster.cpu",
        "spec.jobMaster.memory",
        "spec.jobMaster.cpuLimit",
        "spec.jobMaster.memoryLimit",
        "spec.jobMaster.volatileDisk",
        "spec.jobMaster.persistentDisk",
        "spec.storage.persistent.perWorker",
        "spec.storage.memoryVolumeSize",
        "spec.jobPackage.maxSize",
        "spec.logs.size",
        "spec.jvmMemoryFraction",
        "spec.env[].valueFrom.resourceFieldRef.divisor",
        "spec.workers[].env[].valueFrom.resourceFieldRef.divisor",
        "spec.jobMaster.env[].valueFrom.resourceFieldRef.divisor",
        "spec.volumes[].emptyDir.sizeLimit",
        "spec.workers[].volumes[].emptyDir.sizeLimit",
        "spec.jobMaster.volumes[].emptyDir.sizeLimit",
    ),
)
def check_quantities(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Quantities are no finer than 1m, below 8Ei, positive where needed, and leave a JVM heap.

    The schema checks a quantity's spelling; this rule checks its value, as the
    API server would:

    * no finer than ``1m`` (a milli-unit): Kubernetes rounds finer values up, so
      the manifest would not say what the job file says;
    * below ``8Ei`` (2^63): Kubernetes keeps quantities as 64-bit integers;
    * ``cpu`` and ``memory`` greater than 0 (a ``cpu`` of 0 written as a number
      is the schema's ``exclusiveMinimum`` to report);
    * ``memory`` large enough that the JVM heap, ``spec.jvmMemoryFraction`` of
      a worker's (default 0.8, Twister2's default heap share) and all of the
      job master's, is at least 1 MiB: the runtime passes the heap in whole MiB
      (``JVM_MEMORY_MB``).

    Sources: Kubernetes, "Resource Management for Pods and Containers"
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/)
    and ``k8s.io/apimachinery/pkg/api/resource/quantity.go`` (kubernetes/kubernetes,
    ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go``); Twister2's
    ``K8sEnvVariables`` and ``KubernetesContext`` (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).
    """
    for path, name, raw in _quantity_fields(data):
        if not is_quantity_shaped(raw):
            continue  # a wrong type or a string too long: the schema check reports it
        fraction = _heap_fraction(data, path) if name == "memory" else None
        # 0.0 equals -0.0, which a message may show: judged afresh
        judge = _judged.__wrapped__ if raw == 0 and type(raw) is float else _judged
        message = judge(raw, name, fraction)
        if message is not None:
            yield problem(doc, path, message)


@functools.lru_cache(maxsize=1024, typed=True)
def _judged(raw: str | int | float, name: str, fraction: Decimal | None) -> str | None:
    """What is wrong with quantity ``raw`` of field ``name`` (``fraction``: a memory's heap share), or None.

    It depends on these alone, so a batch's jobs, which repeat their
    quantities, judge each once: remembered for the last 1024 (``raw`` is
    what :func:`is_quantity_shaped` admits: at most 64 characters; by type,
    so that ``1`` and ``1.0`` stay apart; ``0.0`` and ``-0.0``, equal, are
    judged afresh by the caller).
    """
    shown = raw if len(str(raw)) <= _SHOWN_MAX else short_value(raw, _SHOWN_MAX)
    try:
        quantity = parse_quantity(raw)
    except QuantityRangeError as err:
        return f"{shown} is out of range ({err}); use a quantity below 8Ei (2^63)"
    except ValueError:
        return None  # malformed: the schema check reports it
    if quantity.value < 0:
        return None  # negative: the schema check reports it
    if not quantity.is_milli_precise():
        unit = "1m (0.001 core)" if name == "cpu" else "1m"
        rounded = (quantity.value * 1000).to_integral_value(rounding=ROUND_CEILING)
        return (
            f"{shown} is finer than {unit}; Kubernetes keeps quantities to 1m precision, "
            f"so round it (e.g. {parse_quantity(f'{rounded}m')})"
        )
    if quantity.value >= _MAX_QUANTITY:
        return f"{shown} is too large; quantities must stay below 8Ei (2^63)"
    if (
        # a cpu of 0 as a number is the schema's (exclusiveMinimum)
        quantity.is_zero()
        and (name == "memory" or (name == "cpu" and isinstance(raw, str)))
    ):
        return f"{name} must be greater than 0"
    if (
        name == "memory"
        and fraction is not None
        and int(quantity.mebibytes() * fraction) < 1
    ):
        if isinstance(raw, (int, float)) and not isinstance(raw, bool):
            # Twister2's ram is megabytes (twister2.worker.ram); Kubernetes reads a
            # bare number as bytes.
            return (
                f"{shown} is {shown} bytes: a bare number is bytes in Kubernetes (Twister2's "
                f"ram is MB); write {shown}Mi for {shown} MiB"
            )
        percent = format((fraction * 100).normalize(), "f")
        return (
            f"{shown} leaves a JVM heap of 0 MiB (the heap is {percent}% of the memory); "
            f"use at least {math.ceil(1 / fraction)}Mi"
        )
    return None


RULES: tuple[Rule, ...] = (check_quantities,)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
