"""Network: worker ports, the NodePort Service, and port names."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
)
from t2gen.kube.validators import PORT_NAME_MAX
from t2gen.twister2.topology import (
    WORKER_PORT_NAME,
    port_name,
    port_name_suffix,
    worker_ports,
)

_PORT_MAX = 65535
"""The highest TCP port number."""


@rule(
    "worker-ports-range",
    fields=(
        "spec.network.basePort",
        "spec.network.additionalPorts",
        "spec.workers[].perPod",
        "spec.workers[].count",
        "spec.mpi.enabled",
    ),
)
def check_ports(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every worker port stays at or below 65535.

    The ports come from :func:`t2gen.twister2.topology.worker_ports`: container
    ``c`` of a worker pod listens on ``basePort + c * (A + 1)`` and its ``A``
    additional ports follow it (``A = len(additionalPorts)``); OpenMPI workers use
    the rank for ``c``, ranks counting over the whole job. The highest of these must still be a TCP port;
    the message gives the largest ``basePort`` that fits.

    Sources: Twister2's ``RequestObjectBuilder`` and ``KubernetesContext``
    (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``);
    docs/reference.md's description of worker containers.
    """
    spec = as_dict(data.get("spec"))
    network = as_dict(spec.get("network"))
    base = as_int(network.get("basePort"))
    additional = [str(name) for name in as_list(network.get("additionalPorts"))]
    if base is None or not 1 <= base <= _PORT_MAX:
        return  # out of range: the schema check reports it
    if as_dict(spec.get("mpi")).get("enabled") is True:
        # OpenMPI workers use basePort + rank * stride, ranks over the whole job.
        slots = sum(as_int(group.get("count")) or 0 for _, group in groups(data))
        what = f"OpenMPI ranks 0-{slots - 1}" if slots > 1 else "the OpenMPI rank"
    else:
        slots = max(
            (as_int(group.get("perPod")) or 1 for _, group in groups(data)), default=1
        )
        what = f"containers 0-{slots - 1} of a pod" if slots > 1 else "the worker"
    highest = worker_ports(base, additional, slots - 1)[-1][1]
    if highest > _PORT_MAX:
        yield problem(
            doc,
            ("spec", "network", "basePort"),
            f"worker ports for {what} run from {base} to {highest}, past {_PORT_MAX}; "
            f"use a basePort of at most {max(1, base - (highest - _PORT_MAX))}",
        )


@rule(
    "node-port-per-pod", fields=("spec.network.service.type", "spec.workers[].perPod")
)
def check_node_port_per_pod(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A NodePort Service needs ``perPod: 1`` in every worker group.

    A NodePort Service forwards one node port to one port of the selected pods,
    so with several workers per pod only the first container would be
    reachable. Twister2 has the same one-port-per-pod limitation.

    Sources: Kubernetes, "Service", type NodePort
    (https://kubernetes.io/docs/concepts/services-networking/service/#type-nodeport);
    docs/reference.md's "Storage, services, OpenMPI and the job package" section.
    """
    service = as_dict(as_dict(as_dict(data.get("spec")).get("network")).get("service"))
    if service.get("type") != "NodePort":
        return
    for index, group in groups(data):
        per_pod = as_int(group.get("perPod"))
        if per_pod is not None and per_pod != 1:
            yield problem(
                doc,
                ("spec", "workers", index, "perPod"),
                f"perPod {per_pod} with a NodePort Service: a NodePort exposes one port per pod, so only one "
                "worker per pod is reachable (Twister2's one-port-per-pod limitation); use perPod: 1",
            )


@rule(
    "node-port-unused",
    fields=("spec.network.service.type", "spec.network.service.nodePort"),
)
def check_node_port_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``nodePort`` is set only with ``type: NodePort``.

    A headless Service has no node port, so a ``nodePort`` beside
    ``type: Headless`` would be ignored: most likely the type was meant to be
    NodePort. A setting that changes nothing is reported rather than dropped.
    """
    service = as_dict(as_dict(as_dict(data.get("spec")).get("network")).get("service"))
    if "nodePort" in service and service.get("type") == "Headless":
        yield problem(
            doc,
            ("spec", "network", "service", "nodePort"),
            "nodePort is only used with type: NodePort; remove it or set type: NodePort",
            key=True,
        )


@rule("port-name-reserved", fields=("spec.network.additionalPorts",))
def check_port_names(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """No additional port is named ``worker``.

    ``worker`` names each worker container's own port. Port names must be
    unique within a container, so Kubernetes would refuse the pod template.

    Sources: Kubernetes API, ``ContainerPort.name``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports).
    """
    ports = as_list(
        as_dict(as_dict(data.get("spec")).get("network")).get("additionalPorts")
    )
    for index, name in enumerate(ports):
        if name == "worker":
            yield problem(
                doc,
                ("spec", "network", "additionalPorts", index),
                "'worker' is the name of each worker's own port; give the additional port another name",
            )


def _containers_per_pod(data: dict[str, Any]) -> int:
    """The most worker containers any pod of the job has (1 with OpenMPI)."""
    spec = as_dict(data.get("spec"))
    if as_dict(spec.get("mpi")).get("enabled") is True:
        return 1  # one container, declaring only the worker port
    return max(
        (as_int(group.get("perPod")) or 1 for _, group in groups(data)), default=1
    )


@rule(
    "port-name-length",
    fields=(
        "spec.network.additionalPorts",
        "spec.workers[].perPod",
        "spec.mpi.enabled",
    ),
)
def check_port_name_length(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each additional port name still fits 15 characters in the pod's last container.

    Port names must be unique within a pod, so container ``c >= 1`` of a
    worker pod names its ports ``<name>-<c>`` (``worker-1``, ``metrics-1``; see
    :func:`t2gen.twister2.topology.port_name`), and a port name is an IANA
    service name of at most 15 characters. With ``perPod: P`` the longest
    suffix is ``-<P-1>``; the message gives the longest name that fits. With
    OpenMPI the one container declares only the worker port, so nothing is
    appended.

    Sources: kubernetes/kubernetes
    ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go``
    (``IsValidPortName``); Kubernetes API, ``ContainerPort.name``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports).
    """
    last = _containers_per_pod(data) - 1
    suffix = port_name_suffix(last)
    if not suffix:
        return
    longest = PORT_NAME_MAX - len(suffix)
    ports = as_list(
        as_dict(as_dict(data.get("spec")).get("network")).get("additionalPorts")
    )
    for index, name in enumerate(ports):
        if isinstance(name, str) and longest < len(name) <= PORT_NAME_MAX:
            yield problem(
                doc,
                ("spec", "network", "additionalPorts", index),
                f"{name!r} is {len(name)} characters; with {last + 1} workers per pod, container {last} "
                f"names this port {port_name(name, last)!r}, past the {PORT_NAME_MAX}-character limit "
                f"of a port name: use at most {longest} characters",
            )


@rule(
    "port-name-collision",
    fields=(
        "spec.network.additionalPorts",
        "spec.workers[].perPod",
        "spec.mpi.enabled",
    ),
)
def check_port_name_collision(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """No additional port name equals a name another container of the pod derives.

    Container ``c >= 1`` of a worker pod names its ports ``<name>-<c>``
    (:func:`t2gen.twister2.topology.port_name`), so with ``perPod`` above 1 an
    additional port named, say, ``worker-1`` or ``metrics-1`` beside
    ``metrics`` would repeat a name in the pod. Kubernetes warns on a port name
    repeated across a pod's containers; port names are meant to identify one
    port of the pod (a Service's ``targetPort`` may name it).

    Sources: Kubernetes API, ``ContainerPort.name``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#ports).
    """
    containers = _containers_per_pod(data)
    if containers < 2:
        return
    ports = as_list(
        as_dict(as_dict(data.get("spec")).get("network")).get("additionalPorts")
    )
    given = [WORKER_PORT_NAME, *(str(name) for name in ports)]
    derived: dict[str, tuple[str, int]] = {}
    for container in range(1, containers):
        for name in given:
            derived.setdefault(port_name(name, container), (name, container))
    for index, name in enumerate(ports):
        if name in derived:
            origin, container = derived[name]
            yield problem(
                doc,
                ("spec", "network", "additionalPorts", index),
                f"{name!r} is also the name container {container} of each worker pod gives its "
                f"{origin!r} port (container c >= 1 appends -<c>), and port names must be unique "
                "in a pod; choose a name that does not end in -<number>",
            )


RULES: tuple[Rule, ...] = (
    check_ports,
    check_node_port_per_pod,
    check_node_port_unused,
    check_port_names,
    check_port_name_length,
    check_port_name_collision,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
