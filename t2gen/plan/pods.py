"""Running pods: ``kubectl get pods -A -o json`` into what they hold on their nodes.

``parse_pods`` keeps the pods the scheduler counts against a node: bound
(``spec.nodeName`` set) and not terminated (phase neither ``Succeeded`` nor
``Failed``), as the scheduler cache does (``pkg/scheduler/framework/types.go``,
``NodeInfo.AddPod``, kubernetes/kubernetes). ``usage_by_node`` sums their
requests per node, the numbers NodeResourcesFit subtracts from
``status.allocatable``
(https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.errors import InputError, Problem
from t2gen.inputs.kubelist import (
    MAX_LIST_ITEMS,
    json_path,
    list_items,
    string_map,
)
from t2gen.plan.filters.interpod import PodAffinityTerm, parse_affinity_terms
from t2gen.plan.listproblems import reported
from t2gen.plan.podspec import pod_resources
from t2gen.plan.quantities import PODS, Resources, add_requests, with_quantity_hint
from t2gen.record import Record

__all__ = ["ExistingPod", "NodeUsage", "parse_pods", "usage_by_node"]


class ExistingPod(Record):
    """A pod already bound to a node, as far as scheduling new pods is concerned.

    Attributes:
        namespace: ``metadata.namespace`` (``default`` when absent).
        name: ``metadata.name``.
        node_name: ``spec.nodeName``.
        labels: ``metadata.labels`` (matched by inter-pod affinity terms).
        requests: what it holds on its node (``pods`` is 1): cpu in millicores,
            memory in bytes.
        exclusive_cores: whole cores the static CPU manager pins for it.
        anti_affinity: its required podAntiAffinity terms, which keep new pods
            that they select off its node (the scheduler checks both directions).
    """

    namespace: str
    name: str
    node_name: str
    labels: Mapping[str, str]
    requests: Resources
    exclusive_cores: int = 0
    anti_affinity: tuple[PodAffinityTerm, ...] = ()


class NodeUsage(Record):
    """What the pods bound to one node request in total.

    Attributes:
        requested: summed requests: cpu in millicores, memory in bytes, pods as a
            count, extended resources in whole units.
        exclusive_cores: whole cores pinned by Guaranteed pods with integer cpu.
    """

    requested: Resources
    exclusive_cores: int = 0


def parse_pods(document: object, source: str = "--pods") -> tuple[ExistingPod, ...]:
    """Read ``kubectl get pods -A -o json`` and keep the pods that hold node resources.

    Kept: pods with ``spec.nodeName`` whose phase is neither ``Succeeded`` nor
    ``Failed`` (terminating pods still hold theirs). Pending pods without a node
    hold nothing.

    Args:
        document: the parsed JSON/YAML (see :func:`load_document`).
        source: how the user named the input, for messages.

    Returns:
        The bound, non-terminated pods, in the input's order.

    Raises:
        InputError: not a pod list, or a pod with a malformed quantity.
    """
    command = "kubectl get pods -A -o json"
    items = list_items(document, "Pod", command, source, MAX_LIST_ITEMS)
    problems: list[Problem] = []
    pods: list[ExistingPod] = []
    for path, item in items:
        where = path or "(the Pod)"
        if not isinstance(item, Mapping):
            problems.append(Problem(source, 0, 0, "must be a Pod (a map)", where))
            continue
        kind = item.get("kind", "Pod")
        if kind != "Pod":
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"is a {kind}, not a Pod: pass the output of `{command}`",
                    where,
                )
            )
            continue
        metadata = item.get("metadata") or {}
        metadata = metadata if isinstance(metadata, Mapping) else {}
        spec = item.get("spec") or {}
        spec = spec if isinstance(spec, Mapping) else {}
        status = item.get("status") or {}
        phase = status.get("phase") if isinstance(status, Mapping) else None
        node_name = spec.get("nodeName")
        if (
            not isinstance(node_name, str)
            or not node_name
            or phase in ("Succeeded", "Failed")
        ):
            continue
        try:
            requests, cores, _ = pod_resources(spec)
        except ValueError as err:
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"pod {metadata.get('name')}: {with_quantity_hint(err)}",
                    json_path(path, "spec"),
                )
            )
            continue
        pods.append(
            ExistingPod(
                namespace=str(metadata.get("namespace") or "default"),
                name=str(metadata.get("name") or ""),
                node_name=node_name,
                labels=string_map(metadata.get("labels")),
                requests=requests,
                exclusive_cores=cores,
                anti_affinity=(
                    parse_affinity_terms(spec, "podAntiAffinity")
                    if spec.get("affinity")
                    else ()
                ),
            )
        )
    if problems:
        raise InputError(problems=reported(problems, source, "Pod"))
    return tuple(pods)


def usage_by_node(pods: Sequence[ExistingPod]) -> dict[str, NodeUsage]:
    """Sum the requests of bound pods per node.

    Args:
        pods: pods from :func:`parse_pods`.

    Returns:
        Node name to its pods' total requests (cpu in millicores, memory in
        bytes, ``pods`` their number) and pinned whole cores.
    """
    totals: dict[str, dict[str, int]] = {}
    cores: dict[str, int] = {}
    for pod in pods:
        amounts = totals.setdefault(pod.node_name, {})
        add_requests(amounts, pod.requests)
        amounts[PODS] = amounts.get(PODS, 0) + 1
        cores[pod.node_name] = cores.get(pod.node_name, 0) + pod.exclusive_cores
    return {
        node: NodeUsage(Resources.from_amounts(amounts), cores.get(node, 0))
        for node, amounts in totals.items()
    }
