"""Checks of a pod template's spec and its containers (every workload kind's ``spec.template.spec``).

Pod checks take ``(path, pod, owner, stream)``; container checks take
``(path, container, state)`` and run once per container, in order, before
the pod checks: each container's findings stay together, in container order.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks import affinity, security
from t2gen.checks.base import (
    WORKER_POD_LABEL,
    Check,
    Finding,
    PodState,
    as_dict,
    as_list,
    as_value,
    check,
    hashable,
    quantity_findings,
)
from t2gen.checks.fused import containers_clean, overcommit_allowed
from t2gen.checks.stream import Stream
from t2gen.kube import validators
from t2gen.twister2.names import BIND_WORKERS_ANNOTATION

__all__ = [
    "CONTAINER_CHECKS",
    "POD_CHECKS",
    "PodState",
    "is_bound_worker",
    "pod_findings",
]

_PORT_MAX = 65535
_BOUND_RESOURCES = ("cpu", "memory")
"""What a bound worker's limits equal its requests in (Guaranteed QoS)."""


@check("container-name-unique", "container")
def container_name_unique(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """Container names are unique within a pod.

    The API server rejects a pod template whose containers share a name.
    Source: kubernetes/kubernetes ``pkg/apis/core/validation`` (``validateContainers``).
    """
    name = container.get("name")
    if not hashable(name):
        return
    if name in state.container_names:
        yield f"{path}.name", f"duplicate container name {name!r}"
    state.container_names.add(name)


@check("container-ports", "container")
def container_ports(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """Container ports are 1-65535, unique per pod and protocol, with valid, unique names.

    The containers of a pod share one network namespace, so two containers may
    not open the same port and protocol (Twister2 gives container ``c`` the
    worker port ``basePort + c x (additional ports + 1)`` for exactly this
    reason: cylondata/twister2 ``K8sWorkerUtils``). A port name is an IANA
    service name: at most 15 lower-case letters, digits and '-', with a letter.
    Source: kubernetes/kubernetes ``pkg/apis/core/validation`` (``validateContainerPorts``).
    """
    name = container.get("name")
    names: set[str] = set()
    for index, port in enumerate(as_list(container.get("ports"))):
        port = as_dict(port)
        number, protocol = port.get("containerPort"), port.get("protocol", "TCP")
        ppath = f"{path}.ports[{index}]"
        if not isinstance(number, int) or not 1 <= number <= _PORT_MAX:
            yield f"{ppath}.containerPort", f"{number!r} is not a port (1-65535)"
        key = (number, protocol)
        if hashable(key) and key in state.ports:
            yield (
                f"{ppath}.containerPort",
                f"{number}/{protocol} is also used by container {state.ports[key]}",
            )
        if hashable(key):
            state.ports[key] = str(name)
        port_name = port.get("name")
        if port_name is not None:
            if not validators.is_port_name(port_name):
                yield (
                    f"{ppath}.name",
                    f"{port_name!r} is not an IANA service name (<= 15 lower-case letters, digits, '-')",
                )
            if not hashable(port_name):
                continue
            if port_name in names:
                yield f"{ppath}.name", f"duplicate port name {port_name!r}"
            names.add(port_name)


@check("pod-port-name-unique", "container")
def pod_port_name_unique(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """A port name is used by one container of a pod only.

    Within one container the API server refuses a repeated name (see
    ``container-ports``); across the containers of a pod it accepts the pod
    but warns (``duplicate port name "worker" with ...containers[0].ports[0]``),
    because a named ``targetPort`` would then be ambiguous. t2gen suffixes the
    names of container ``c >= 1`` with ``-<c>``
    (:func:`t2gen.twister2.topology.port_name`). Source: Kubernetes API,
    ``ContainerPort.name``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports).
    """
    own: set[Any] = set()
    for index, port in enumerate(as_list(container.get("ports"))):
        port_name = as_dict(port).get("name")
        if port_name is None or not hashable(port_name):
            continue
        ppath = f"{path}.ports[{index}]"
        first = state.port_names.get(port_name)
        if first is not None and port_name not in own:
            yield (
                f"{ppath}.name",
                f"duplicate port name {port_name!r} with {first}; port names must be unique in a pod",
            )
        else:
            state.port_names.setdefault(port_name, ppath)
        own.add(port_name)


@check("container-quantities", "container")
def container_quantities(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """Resource requests and limits are valid, canonical, 1m-precise quantities.

    Source: kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go``;
    https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/
    """
    resources = as_dict(container.get("resources"))
    for kind_name in ("requests", "limits"):
        for resource, amount in as_dict(resources.get(kind_name)).items():
            yield from quantity_findings(
                f"{path}.resources.{kind_name}.{resource}", amount
            )


@check("container-request-within-limit", "container")
def container_request_within_limit(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """A container's request of a resource is at most its limit of it.

    Source: kubernetes/kubernetes ``pkg/apis/core/validation``
    (``ValidateResourceRequirements``: "must be less than or equal to ... limit").
    """
    resources = as_dict(container.get("resources"))
    limits = as_dict(resources.get("limits"))
    for resource, amount in as_dict(resources.get("requests")).items():
        request, limit = as_value(amount), as_value(limits.get(resource))
        if request is not None and limit is not None and request > limit:
            yield f"{path}.resources.requests.{resource}", "exceeds its limit"


@check("container-extended-resource-limit", "container")
def container_extended_resource_limit(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """A container's request of an extended resource (or of huge pages) equals its limit of it.

    Extended resources such as ``nvidia.com/gpu`` cannot be overcommitted: a
    request needs a limit of the same amount (a limit alone is fine, the
    request then defaults to it). The API server refuses the pod otherwise
    ("Limit must be set for non overcommitable resources", "must be equal to
    ... limit of ...").

    Sources: Kubernetes, "Resource Management for Pods and Containers",
    extended resources
    (https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/#extended-resources);
    kubernetes/kubernetes ``pkg/apis/core/validation/validation.go``
    (``ValidateResourceRequirements``).
    """
    resources = as_dict(container.get("resources"))
    limits = as_dict(resources.get("limits"))
    for resource, amount in as_dict(resources.get("requests")).items():
        if overcommit_allowed(str(resource)):
            continue
        where = f"{path}.resources.requests.{resource}"
        if resource not in limits:
            yield (
                where,
                f"{resource} cannot be overcommitted, so its request needs a limit: set "
                f"resources.limits.{resource} to the same amount",
            )
            continue
        request, limit = as_value(amount), as_value(limits[resource])
        # above the limit: container-request-within-limit reports it
        if request is not None and limit is not None and request < limit:
            yield (
                where,
                f"must be equal to its limit ({limits[resource]}): {resource} cannot be "
                "overcommitted",
            )


@check("container-env-unique", "container")
def container_env_unique(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """Each environment variable is set once per container.

    Kubernetes accepts duplicates and the last one silently wins, so a variable
    the Twister2 runtime reads (``K8sEnvVariables``) could be overridden unseen.
    Source: https://kubernetes.io/docs/tasks/inject-data-application/define-environment-variable-container/
    """
    env = as_list(container.get("env"))
    given = [
        variable.get("name") if isinstance(variable, dict) else None for variable in env
    ]
    try:
        if len(set(given)) == len(given):
            return  # every name once (the usual case): nothing to find
    except TypeError:
        pass  # a name YAML made a list or a mapping: skipped below
    names: set[Any] = set()
    for index, variable in enumerate(env):
        name = as_dict(variable).get("name")
        if not hashable(name):
            continue
        if name in names:
            yield (
                f"{path}.env[{index}].name",
                f"duplicate variable {name!r}; the last one wins silently",
            )
        names.add(name)


@check("container-volume-mounts", "container")
def container_volume_mounts(
    path: str, container: dict[str, Any], state: PodState
) -> Iterator[Finding]:
    """Every volume mount names a volume of the pod.

    A StatefulSet's ``volumeClaimTemplates`` are volumes of its pods too (the
    controller adds one per claim). Source: kubernetes/kubernetes
    ``pkg/apis/core/validation`` (``ValidateVolumeMounts``: "not found");
    ``pkg/apis/apps/validation`` (``ValidateStatefulSetSpec`` validates the
    template with the claims as volumes).
    """
    for index, mount in enumerate(as_list(container.get("volumeMounts"))):
        name = as_dict(mount).get("name")
        if not hashable(name) or name not in state.volumes:
            yield (
                f"{path}.volumeMounts[{index}].name",
                f"no volume named {name!r} in the pod",
            )


@check("pod-emptydir-size", "pod")
def pod_emptydir_size(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """An emptyDir's ``sizeLimit`` is a valid, canonical quantity.

    Twister2's volatile disk is an emptyDir limited to ``perPod x volatileDisk``.
    Source: https://kubernetes.io/docs/concepts/storage/volumes/#emptydir
    """
    for index, volume in enumerate(as_list(pod.get("volumes"))):
        size = as_dict(as_dict(volume).get("emptyDir")).get("sizeLimit")
        if size is not None:
            yield from quantity_findings(
                f"{path}.volumes[{index}].emptyDir.sizeLimit", size
            )


def is_bound_worker(template_labels: dict[str, Any], pod: dict[str, Any]) -> bool:
    """Whether a pod template is a t2gen worker pod bound to CPUs (``bindWorkersToCpu``).

    A worker pod carries :data:`~t2gen.checks.base.WORKER_POD_LABEL`; t2gen
    marks a bound one with the pod annotation ``t2gen.dev/bind-workers-to-cpu:
    "true"`` (limits alone say nothing: every container has limits by default).

    Args:
        template_labels: the pod template's labels.
        pod: the pod template (``{metadata, spec}``) or, for older callers, its spec.

    Returns:
        True for a bound worker pod.
    """
    if WORKER_POD_LABEL not in template_labels:
        return False
    annotations = as_dict(as_dict(pod.get("metadata")).get("annotations"))
    return annotations.get(BIND_WORKERS_ANNOTATION) == "true"


@check("bound-worker-guaranteed", "pod")
def bound_worker_guaranteed(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """A bound t2gen worker pod is Guaranteed with whole cores, or binding silently does nothing.

    The kubelet's static CPU manager gives exclusive cores only to containers
    with a whole-number CPU request in Guaranteed pods, where every container
    has cpu and memory limits equal to its requests (Twister2's
    ``kubernetes.bind.worker.to.cpu``). Which pods are bound: see
    :func:`is_bound_worker`. Source:
    https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/#static-policy
    """
    template = as_dict(as_dict(owner.get("spec")).get("template"))
    labels = as_dict(as_dict(template.get("metadata")).get("labels"))
    if not is_bound_worker(labels, template):
        return
    for index, container in enumerate(as_list(pod.get("containers"))):
        resources = as_dict(as_dict(container).get("resources"))
        requests = as_dict(resources.get("requests"))
        limits = as_dict(resources.get("limits"))
        cpath = f"{path}.containers[{index}].resources"
        for resource in _BOUND_RESOURCES:
            request = as_value(requests.get(resource))
            limit = as_value(limits.get(resource))
            if request is None or limit is None or request != limit:
                yield (
                    f"{cpath}.limits.{resource}",
                    "a bound worker pod needs cpu and memory limits equal to requests in "
                    "every container (Guaranteed QoS), or the static CPU manager gives it "
                    "no exclusive cores",
                )
        cpu = as_value(requests.get("cpu"))
        if cpu is not None and cpu != cpu.to_integral_value():
            yield (
                f"{cpath}.requests.cpu",
                f"{requests.get('cpu')!r} is not a whole number of cores; a bound worker "
                "gets exclusive cores only for whole CPUs",
            )


CONTAINER_CHECKS: tuple[Check, ...] = (
    container_name_unique,
    container_ports,
    pod_port_name_unique,
    container_quantities,
    container_request_within_limit,
    container_extended_resource_limit,
    container_env_unique,
    container_volume_mounts,
)
"""Checks run on each container of a pod, in this order."""

POD_CHECKS: tuple[Check, ...] = (
    pod_emptydir_size,
    affinity.node_affinity,
    affinity.pod_affinity,
    bound_worker_guaranteed,
    security.pod_security_restricted,
    security.read_only_root_writable,
)
"""Checks run on a pod spec after its containers, in this order."""


def pod_findings(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """Run the container checks on each container, then the pod checks.

    Args:
        path: JSON path of the pod spec, e.g. ``spec.template.spec``.
        pod: the pod spec.
        owner: the workload whose template it is.
        stream: every object being checked; only the checks it
            :meth:`~t2gen.checks.stream.Stream.runs` are run.

    Yields:
        Findings, container by container, then pod-wide.
    """
    container_checks = stream.running(CONTAINER_CHECKS)
    if container_checks:  # none in a batch's cross-object run
        state = PodState.of(pod, owner)
        every = stream.fused and len(container_checks) == len(CONTAINER_CHECKS)
        if not (every and containers_clean(pod, state.volumes)):  # else none finds
            for index, container in enumerate(as_list(pod.get("containers"))):
                path_of, container = f"{path}.containers[{index}]", as_dict(container)
                for container_check in container_checks:
                    yield from container_check.run(path_of, container, state)
    for pod_check in stream.running(POD_CHECKS):
        yield from pod_check.run(path, pod, owner, stream)
