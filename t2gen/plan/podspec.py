"""A pod's requests, QoS class and exclusive cores, read from its spec as Kubernetes does.

Shared by the running pods (:mod:`t2gen.plan.pods`), the rendered templates
(:mod:`t2gen.plan.templates`) and the worker map's totals. Each helper follows
the Kubernetes code it names:

* requests: ``k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``),
  which ``computePodResourceRequest`` in
  ``pkg/scheduler/framework/types.go`` (kubernetes/kubernetes) calls: the sum of
  the containers, the maximum with each init container (sidecars, init
  containers with ``restartPolicy: Always``, add to the sum), plus
  ``spec.overhead``. A limit without a request counts as the request, as the API
  server's defaulting writes it (``pkg/apis/core/v1/defaults.go``).
* QoS and exclusive cores: ``pkg/apis/core/helper/qos/qos.go`` (Guaranteed) and
  ``pkg/kubelet/cm/cpumanager/policy_static.go`` (``guaranteedCPUs``: only
  containers of Guaranteed pods with a whole number of cores get exclusive ones).

Amounts are those of :mod:`t2gen.plan.quantities` (cpu in millicores, the rest
in whole units).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from t2gen.plan.quantities import (
    CPU,
    MEMORY,
    PODS,
    Resources,
    parse_resource_list,
)
from t2gen.record import Record

__all__ = [
    "exclusive_cores",
    "is_guaranteed",
    "pod_requests",
    "pod_resources",
]


class _Container(Record):
    """One container's requests (limits copied in where unset) and limits."""

    requests: dict[str, int]
    limits: dict[str, int]
    sidecar: bool


def _read_containers(spec: Mapping[str, Any], key: str) -> list[_Container]:
    out = []
    listed = spec.get(key) or ()
    if not isinstance(listed, (list, tuple)):
        raise ValueError(f"{key} must be a list of containers")
    for container in listed:
        if not isinstance(container, dict) and not isinstance(container, Mapping):
            continue
        resources = container.get("resources") or {}
        if not isinstance(resources, Mapping):
            raise ValueError(
                "a container's resources must be a map of requests and limits"
            )
        requests = parse_resource_list(resources.get("requests"))
        limits = parse_resource_list(resources.get("limits"))
        for name, amount in limits.items():
            requests.setdefault(name, amount)
        out.append(
            _Container(requests, limits, container.get("restartPolicy") == "Always")
        )
    return out


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        into[name] = into.get(name, 0) + amount


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        if amount > into.get(name, 0):
            into[name] = amount


def pod_resources(spec: Mapping[str, Any]) -> tuple[Resources, int, bool]:
    """Return a pod's requests, its exclusive whole cores and whether it is Guaranteed.

    One pass over the containers; :func:`pod_requests`, :func:`exclusive_cores`
    and :func:`is_guaranteed` return its parts.

    Args:
        spec: a pod spec (``spec`` of a Pod, ``spec.template.spec`` of a StatefulSet).

    Returns:
        (requests, exclusive cores, Guaranteed). Requests (``pods`` 1; cpu in
        millicores, memory in bytes) are the containers summed, the maximum
        taken with each init container (sidecars, ``restartPolicy: Always``, add
        to the sum and to every later init container), pod-level
        ``resources.requests`` for cpu and memory when set, plus ``overhead``.

    Raises:
        ValueError: a request, limit or overhead that is not a quantity, or
            containers or resources of another type than the API's.
    """
    containers = _read_containers(spec, "containers")
    inits = (
        _read_containers(spec, "initContainers") if spec.get("initContainers") else []
    )
    total: dict[str, int] = {}
    for c in containers:
        _add(total, c.requests)
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in inits:
        if c.sidecar:
            _add(total, c.requests)
            _add(sidecars, c.requests)
            effective = dict(sidecars)
        else:
            effective = dict(c.requests)
            _add(effective, sidecars)
        _max(init_max, effective)
    _max(total, init_max)
    pod_level = spec.get("resources")
    if isinstance(pod_level, Mapping):
        level = parse_resource_list(pod_level.get("requests"))
        for name, amount in parse_resource_list(pod_level.get("limits")).items():
            level.setdefault(name, amount)
        for name in (CPU, MEMORY):
            if name in level:
                total[name] = level[name]
    overhead = spec.get("overhead")
    if overhead:
        _add(total, parse_resource_list(overhead))
    total.pop(PODS, None)
    requests = Resources.from_amounts(total, pods=1)

    everything = containers + inits
    guaranteed = bool(everything) and all(
        name in c.limits and c.requests[name] == c.limits[name]
        for c in everything
        for name in (CPU, MEMORY)
    )
    if not guaranteed:
        return requests, 0, False

    def whole(c: _Container) -> int:
        millis = c.requests.get(CPU, 0)
        return millis // 1000 if millis % 1000 == 0 else 0

    running = sum(whole(c) for c in containers) + sum(
        whole(c) for c in inits if c.sidecar
    )
    init = max((whole(c) for c in inits if not c.sidecar), default=0)
    return requests, max(running, init), True


def pod_requests(spec: Mapping[str, Any]) -> Resources:
    """Return the resources the scheduler reserves for one pod (``PodRequests``).

    Args:
        spec: a pod spec.

    Returns:
        The pod's requests; see :func:`pod_resources`.

    Raises:
        ValueError: a request, limit or overhead that is not a quantity.
    """
    return pod_resources(spec)[0]


def is_guaranteed(spec: Mapping[str, Any]) -> bool:
    """Return True if the pod has Guaranteed QoS (``GetPodQOS``).

    Every container, init containers included, must set cpu and memory limits,
    with requests (defaulted from the limits) equal to them.
    """
    return pod_resources(spec)[2]


def exclusive_cores(spec: Mapping[str, Any]) -> int:
    """Return the whole cores the static CPU manager pins for this pod at once.

    Only a Guaranteed pod's containers whose cpu request is a whole number of
    cores get exclusive cores (``guaranteedCPUs`` in ``policy_static.go``).
    App containers and sidecars hold theirs together; an init container's
    cores are handed on to the app containers, so the pod needs the larger of
    the two.

    Returns:
        Whole cores, 0 for a pod that gets none (not Guaranteed, or fractional cpu).
    """
    return pod_resources(spec)[1]
