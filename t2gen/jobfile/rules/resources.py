"""Resources: cpu and memory limits, and extended resources such as GPUs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_quantity,
    fmt_decimal,
    groups,
    problem,
    rule,
    warning,
)
from t2gen.kube.validators import is_qualified_name

_LIMITS = (("cpuLimit", "cpu"), ("memoryLimit", "memory"))
"""The limits that decide the QoS class (and so the binding rule)."""
_ALL_LIMITS = (*_LIMITS, ("ephemeralStorageLimit", "volatileDisk"))
"""Every limit with its request, for ``limit-below-request``."""
_REQUESTS_PREFIX = "requests."


def _holders(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, mapping) of every worker group and of the job master."""
    for index, group in groups(data):
        yield ("spec", "workers", index), group
    master = as_dict(as_dict(data.get("spec")).get("jobMaster"))
    yield ("spec", "jobMaster"), master


@rule(
    "limit-below-request",
    fields=(
        "spec.workers[].cpuLimit",
        "spec.workers[].memoryLimit",
        "spec.workers[].ephemeralStorageLimit",
        "spec.jobMaster.cpuLimit",
        "spec.jobMaster.memoryLimit",
        "spec.jobMaster.ephemeralStorageLimit",
    ),
)
def check_limit_below_request(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """A ``cpuLimit``, ``memoryLimit`` or ``ephemeralStorageLimit`` is at least its request.

    The request of ``ephemeral-storage`` is ``volatileDisk``.

    The API server rejects a container whose limit is below its request
    ("must be greater than or equal to cpu request"), so the StatefulSet would
    be refused after the other objects were applied.

    Source: Kubernetes, "Resource Management for Pods and Containers"
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#requests-and-limits).
    """
    for path, holder in _holders(data):
        for key, request_key in _ALL_LIMITS:
            raw = holder.get(key)
            if raw in ("request", "none", None):
                continue
            limit, request = as_quantity(raw), as_quantity(holder.get(request_key))
            if limit is None or request is None:
                continue
            if limit.value < request.value:
                yield problem(
                    doc,
                    (*path, key),
                    f"{key} {raw} is below the {request_key} request {holder.get(request_key)}; Kubernetes "
                    f"refuses a limit below the request: use at least {holder.get(request_key)}, or `request`",
                )


@rule(
    "limit-bound-equal",
    fields=(
        "spec.bindWorkersToCpu",
        "spec.workers[].cpuLimit",
        "spec.workers[].memoryLimit",
    ),
)
def check_limit_bound(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """With ``bindWorkersToCpu``, every worker's limits equal its requests.

    The static CPU manager gives exclusive cores only to Guaranteed pods, whose
    containers have cpu and memory limits equal to their requests; a different
    limit, or none, would silently leave the workers on shared cores.

    Source: Kubernetes, "Control CPU Management Policies on the Node"
    (https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/#static-policy).
    """
    if as_dict(data.get("spec")).get("bindWorkersToCpu") is not True:
        return
    for index, group in groups(data):
        for key, request_key in _LIMITS:
            raw = group.get(key)
            if raw in ("request", None):
                continue
            limit, request = as_quantity(raw), as_quantity(group.get(request_key))
            if raw != "none" and (
                limit is None or request is None or limit.value == request.value
            ):
                continue
            yield problem(
                doc,
                ("spec", "workers", index, key),
                f"{key} {raw} differs from the {request_key} request {group.get(request_key)}; with "
                "bindWorkersToCpu limits must equal requests (Guaranteed QoS, or no exclusive cores): "
                "remove it or write `request`",
            )


def extended_resource_name_error(name: str) -> str | None:
    """Why ``name`` is not a valid extended resource name, or None if it is.

    Kubernetes' ``IsExtendedResourceName``: a ``<domain>/<name>`` outside the
    ``kubernetes.io`` domain, not starting with ``requests.``, such that
    ``requests.<name>`` is a qualified name (kubernetes/kubernetes
    ``pkg/apis/core/helper/helpers.go``).
    """
    if name in ("cpu", "memory", "ephemeral-storage") or name.startswith("hugepages-"):
        return (
            "is a native resource, not an extended one: use the group's cpu and memory fields "
            "(scratch disk: volatileDisk)"
        )
    if "/" not in name:
        return "is not a <domain>/<name> resource name, e.g. nvidia.com/gpu"
    if "kubernetes.io/" in name:
        return (
            "is in the kubernetes.io domain, which holds only Kubernetes' own resources"
        )
    if name.startswith(_REQUESTS_PREFIX) or not is_qualified_name(
        _REQUESTS_PREFIX + name
    ):
        return (
            "is not a valid resource name: a DNS subdomain, '/', and at most 63 letters, digits, "
            "'-', '_' and '.', e.g. nvidia.com/gpu"
        )
    return None


@rule("extended-resource-name", fields=("spec.workers[].extendedResources",))
def check_extended_name(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each extended resource is named ``<domain>/<name>``, outside ``kubernetes.io``.

    Device plugins advertise extended resources such as ``nvidia.com/gpu``;
    the API server refuses any other name in a container's resources.

    Sources: Kubernetes, "Extended resources"
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources);
    kubernetes/kubernetes ``pkg/apis/core/helper/helpers.go`` (``IsExtendedResourceName``).
    """
    for index, group in groups(data):
        for name in as_dict(group.get("extendedResources")):
            why = extended_resource_name_error(str(name))
            if why:
                yield problem(
                    doc,
                    ("spec", "workers", index, "extendedResources", name),
                    f"{name!r} {why}",
                    key=True,
                )


@rule("extended-resource-count", fields=("spec.workers[].extendedResources",))
def check_extended_count(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each extended resource count is a whole number, at least 1.

    Extended resources cannot be overcommitted or shared: Kubernetes refuses
    fractional amounts ("must be an integer") and t2gen writes the count as both
    request and limit. A count of 0 asks for nothing: leave the entry out.

    Source: Kubernetes, "Extended resources"
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources).
    """
    for index, group in groups(data):
        for name, count in as_dict(group.get("extendedResources")).items():
            where = ("spec", "workers", index, "extendedResources", name)
            if isinstance(count, int) and not isinstance(count, bool) and count >= 1:
                if count >= 2**63:  # Kubernetes keeps quantities as int64
                    yield problem(
                        doc,
                        where,
                        f"{name} count {count} is too large; quantities must stay below 2^63 "
                        "(9223372036854775808)",
                    )
                continue
            if isinstance(count, str):
                quantity = as_quantity(count)
                hint = (
                    f"write {fmt_decimal(quantity.value)} without quotes"
                    if quantity is not None
                    and quantity.is_whole()
                    and quantity.value >= 1
                    else "e.g. 1"
                )
                yield problem(
                    doc,
                    where,
                    f"{name} count {count!r} is a string; write a whole number of at least 1 per "
                    f"worker: {hint}",
                )
                continue
            hint = (
                f"write {int(count)}"
                if isinstance(count, float) and count.is_integer() and 1 <= count < 1e15
                else "e.g. 1"
            )
            yield problem(
                doc,
                where,
                f"{name} count {count!r} is not a whole number of at least 1; extended resources are "
                f"allocated whole, per worker: {hint}",
            )


def _equal_limit(raw: Any, request: Any) -> bool:
    """Whether a limit as written (``request`` or a quantity) equals the request as written."""
    if raw == "request":
        return True
    limit, amount = as_quantity(raw), as_quantity(request)
    return limit is not None and amount is not None and limit.value == amount.value


@rule(
    "cpu-limit-pins-unbound",
    fields=(
        "spec.bindWorkersToCpu",
        "spec.mpi.enabled",
        "spec.workers[].cpu",
        "spec.workers[].perPod",
        "spec.workers[].cpuLimit",
        "spec.workers[].memoryLimit",
    ),
)
def check_limit_pins(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Without ``bindWorkersToCpu``, a CPU limit that pins containers to whole cores is a warning.

    Binding means pinning, and only binding: the Twister2 launcher sets limits
    only when ``kubernetes.bind.worker.to.cpu`` is true and requests otherwise
    (DSC-SPIDAL/twister2 ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java:319-326``;
    the job master gets requests only, ``master/JobMasterRequestObject.java:171-174``),
    so t2gen sets no CPU limit on unbound workers (nor on the job master)
    unless the job file asks. A ``cpuLimit`` equal to a whole-number CPU
    request, with the memory limit equal to its request too, makes the pod
    Guaranteed, and a kubelet running the static CPU manager policy then gives
    each such container exclusive cores: the workers are pinned although
    ``bindWorkersToCpu`` is false. The job is rendered as asked, with this
    warning. With OpenMPI the container's CPU is perPod x ``cpu``. The job
    master is never Guaranteed: its memory limit holds the memory volume
    beyond its request (:mod:`t2gen.render.context.memory`), so its
    ``cpuLimit`` pins nothing.

    Sources: Kubernetes, "Control CPU Management Policies on the Node"
    (https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/#static-policy);
    kubernetes/kubernetes ``pkg/kubelet/cm/cpumanager/policy_static.go``
    (``guaranteedCPUs``) and ``pkg/apis/core/helper/qos/qos.go``.
    """
    spec = as_dict(data.get("spec"))
    if spec.get("bindWorkersToCpu") is True:
        return
    mpi = as_dict(spec.get("mpi")).get("enabled") is True
    holders: list[tuple[JsonPath, dict[str, Any], int]] = [
        (
            ("spec", "workers", index),
            group,
            per_pod if mpi and isinstance(per_pod := group.get("perPod"), int) else 1,
        )
        for index, group in groups(data)
    ]
    for path, holder, share in holders:
        raw = holder.get("cpuLimit")
        cpu = as_quantity(holder.get("cpu"))
        if (
            raw in (None, "none")
            or cpu is None
            or not _equal_limit(raw, holder.get("cpu"))
        ):
            continue
        cores = cpu.value * share
        if cores != cores.to_integral_value() or cores < 1:
            continue
        if not _equal_limit(holder.get("memoryLimit", "request"), holder.get("memory")):
            continue
        yield warning(
            doc,
            (*path, "cpuLimit"),
            f"cpuLimit {raw} equals the whole-number cpu request and the memory limit equals its request, "
            "so the worker pod is Guaranteed and the kubelet's static CPU manager pins each container to "
            f"{fmt_decimal(cores)} exclusive core{'' if cores == 1 else 's'} although bindWorkersToCpu is false; "
            "set bindWorkersToCpu: true if that is meant, else remove cpuLimit (no CPU limit, as the "
            "Twister2 launcher) or set it above the request",
        )


RULES: tuple[Rule, ...] = (
    check_limit_below_request,
    check_limit_bound,
    check_extended_name,
    check_extended_count,
    check_limit_pins,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
