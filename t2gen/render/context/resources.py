"""Container resources: requests and limits of cpu, memory, extended resources and scratch space.

Part of the one pod builder (:mod:`t2gen.render.context.pod`), for workers and
the job master alike.
"""

from __future__ import annotations

from typing import Any

from t2gen.kube.quantity import Quantity, parse_quantity

__all__ = ["pod_requests", "resources"]


def resources(
    cpu: Quantity,
    memory: Quantity,
    *,
    cpu_limit: Quantity | None,
    memory_limit: Quantity | None,
    extended: tuple[tuple[str, int], ...] = (),
    ephemeral_storage: Quantity | None = None,
    ephemeral_storage_limit: Quantity | None = None,
) -> dict[str, Any]:
    """Container resources: requests and limits of cpu, memory and extended resources.

    The default limits equal the requests (``cpuLimit``/``memoryLimit: request``
    in the schema): a namespace whose ResourceQuota covers ``limits.cpu`` or
    ``limits.memory`` rejects every pod without them, and a LimitRange's default
    limit could otherwise fall below the request
    (https://kubernetes.io/docs/concepts/policy/resource-quotas/#requests-vs-limits).
    Bound workers keep requests == limits, which the static CPU manager needs
    (https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/).
    Extended resources (``nvidia.com/gpu``) cannot be overcommitted: request and
    limit are always equal (https://kubernetes.io/docs/tasks/configure-pod-container/extended-resource/).
    Scratch space is requested as ``ephemeral-storage`` so the scheduler places
    the pod where its volatile emptyDir fits.

    Args:
        cpu: cores requested.
        memory: bytes requested; written rounded up to a whole byte.
        cpu_limit: the cpu limit, or None for none.
        memory_limit: the memory limit, or None for none.
        extended: ``(name, count)`` of extended resources, requested and limited.
        ephemeral_storage: bytes of scratch space requested; None or zero for none.
        ephemeral_storage_limit: bytes of ``ephemeral-storage`` the container may
            use at most (scratch emptyDir, writable layer, logs; the kubelet
            evicts the pod beyond it); None for no limit. A ResourceQuota on
            ``limits.ephemeral-storage`` admits only pods that set it
            (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#local-ephemeral-storage).

    Returns:
        ``{requests, limits?}`` with canonical quantity strings, cpu and memory first.
    """
    requests: dict[str, str] = {"cpu": str(cpu), "memory": str(memory.rounded_up())}
    if ephemeral_storage is not None and not ephemeral_storage.is_zero():
        requests["ephemeral-storage"] = str(ephemeral_storage.rounded_up())
    limits: dict[str, str] = {}
    if cpu_limit is not None:
        limits["cpu"] = str(cpu_limit)
    if memory_limit is not None:
        limits["memory"] = str(memory_limit.rounded_up())
    if ephemeral_storage_limit is not None and not ephemeral_storage_limit.is_zero():
        limits["ephemeral-storage"] = str(ephemeral_storage_limit.rounded_up())
    for name, count in extended:
        requests[name] = str(count)
        limits[name] = str(count)
    return (
        {"requests": requests, "limits": limits} if limits else {"requests": requests}
    )


def pod_requests(template: dict[str, Any]) -> dict[str, Quantity]:
    """One pod's requests as the scheduler reserves them, exactly.

    The containers' ``resources.requests`` summed, then for each resource the
    larger of that and any init container's (``PodRequests``,
    kubernetes/kubernetes ``staging/src/k8s.io/component-helpers/resource/helpers.go``:
    init containers run one at a time before the app containers; t2gen's
    package init container is no sidecar and the pods have no ``overhead``).
    The gang's ``minResources`` is summed from it
    (:func:`t2gen.gangs.minresources.min_resources`).

    Args:
        template: a pod template ``{metadata, spec}`` as the pod builder returns it.

    Returns:
        ``{resource: amount}`` in the order the resources first appear.
    """
    total: dict[str, Quantity] = {}
    for container in template["spec"]["containers"]:
        for name, text in container.get("resources", {}).get("requests", {}).items():
            amount = parse_quantity(text)
            total[name] = total[name] + amount if name in total else amount
    for container in template["spec"].get("initContainers", ()):
        for name, text in container.get("resources", {}).get("requests", {}).items():
            amount = parse_quantity(text)
            if name not in total or total[name].value < amount.value:
                total[name] = amount
    return total
