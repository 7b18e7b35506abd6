"""Node lists and running pods: ``kubectl get nodes|pods -o json`` into typed records.

``parse_nodes`` reads what ``kubectl get nodes -o json`` (or ``-o yaml``) prints:
a ``List`` (or ``NodeList``) of Nodes, or a single Node. ``parse_pods`` reads
``kubectl get pods -A -o json`` and keeps the pods the scheduler counts against
a node: bound (``spec.nodeName`` set) and not terminated (phase neither
``Succeeded`` nor ``Failed``), as the scheduler cache does
(``pkg/scheduler/framework/types.go``, ``NodeInfo.AddPod``). ``usage_by_node``
sums their requests per node, the numbers NodeResourcesFit subtracts from
``status.allocatable``
(https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/).

Every problem in an input is reported at once, as ``--nodes: items[3].status.allocatable: ...``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from t2gen.errors import T2genError
from t2gen.plan.podspec import (
    PodAffinityTerm,
    Resources,
    Taint,
    parse_affinity_terms,
    parse_resource_list,
    pod_resources,
)
from t2gen.problems import Problem

__all__ = [
    "ExistingPod",
    "Node",
    "NodeUsage",
    "PlanInputError",
    "Resources",
    "Taint",
    "load_document",
    "parse_nodes",
    "parse_pods",
    "usage_by_node",
]

_TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


class PlanInputError(T2genError):
    """A node or pod list that cannot be used: not a list of Nodes/Pods, or fields missing."""

    def __init__(self, *, problems: Iterable[Problem]) -> None:
        """Create the error from located problems (at least one)."""
        items = sorted(problems)
        source = items[0].path if items else "input"
        super().__init__(f"{len(items)} problem(s) in {source}", problems=items)


@dataclass(frozen=True)
class Node:
    """One node as the scheduler's filters see it.

    Attributes:
        name: ``metadata.name``.
        labels: ``metadata.labels`` (e.g. ``kubernetes.io/hostname``).
        taints: ``spec.taints``.
        unschedulable: ``spec.unschedulable`` (cordoned).
        allocatable: ``status.allocatable``: cpu in millicores, memory in bytes,
            pods as a count, extended resources as whole units.
        capacity: ``status.capacity`` in the same units, None when absent.
    """

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Resources
    capacity: Resources | None = None


@dataclass(frozen=True)
class ExistingPod:
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


@dataclass(frozen=True)
class NodeUsage:
    """What the pods bound to one node request in total.

    Attributes:
        requested: summed requests: cpu in millicores, memory in bytes, pods as a
            count, extended resources in whole units.
        exclusive_cores: whole cores pinned by Guaranteed pods with integer cpu.
    """

    requested: Resources
    exclusive_cores: int = 0


def load_document(text: str, source: str) -> object:
    """Parse JSON or YAML text (``kubectl ... -o json`` or ``-o yaml``).

    Args:
        text: the file's contents.
        source: how the user named it (``--nodes FILE``), for messages.

    Returns:
        The document; several YAML documents become a ``List`` of them.

    Raises:
        PlanInputError: the text is neither JSON nor YAML, or is empty.
    """
    try:
        return json.loads(text)
    except ValueError:
        pass
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        docs = [d for d in yaml.load_all(text, Loader=loader) if d is not None]
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        col = mark.column + 1 if mark is not None else 0
        problem = getattr(err, "problem", None) or str(err)
        raise PlanInputError(
            problems=[Problem(source, line, col, f"not JSON or YAML: {problem}")]
        ) from None
    if not docs:
        raise PlanInputError(problems=[Problem(source, 0, 0, "is empty")])
    if len(docs) == 1:
        return docs[0]
    return {"apiVersion": "v1", "kind": "List", "items": docs}


def _items(
    document: object, kind: str, command: str, source: str
) -> list[tuple[str, Any]]:
    """Return (json path, item) of a List/<kind>List or a single <kind>, or raise."""

    def fail(message: str) -> PlanInputError:
        return PlanInputError(problems=[Problem(source, 0, 0, message)])

    if not isinstance(document, Mapping):
        raise fail(
            f"is not a {kind} list (a JSON or YAML map): pass the output of `{command}`"
        )
    found = document.get("kind")
    if found == kind:
        return [("", document)]
    if found in ("List", f"{kind}List") or (found is None and "items" in document):
        items = document.get("items")
        if not isinstance(items, list):
            raise fail(f"items: must be a list of {kind}s, from `{command}`")
        return [(f"items[{i}]", item) for i, item in enumerate(items)]
    shown = f"a {found}" if isinstance(found, str) and found else "a map without `kind`"
    raise fail(f"is {shown}, not a {kind} list: pass the output of `{command}`")


def _labels(raw: object) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def _resources(
    raw: object, node: str, path: str, source: str, problems: list[Problem]
) -> Resources | None:
    try:
        return Resources.from_amounts(parse_resource_list(raw))
    except ValueError as err:
        problems.append(Problem(source, 0, 0, f"node {node}: {err}", path))
        return None


def _at(prefix: str, suffix: str) -> str:
    return f"{prefix}.{suffix}" if prefix else suffix


def parse_nodes(document: object, source: str = "--nodes") -> tuple[Node, ...]:
    """Read the nodes of ``kubectl get nodes -o json`` (or ``-o yaml``).

    Args:
        document: the parsed JSON/YAML (see :func:`load_document`).
        source: how the user named the input, for messages.

    Returns:
        The nodes, in the input's order.

    Raises:
        PlanInputError: the input is not a node list (another kind, not a map),
            is empty, or a node lacks a name or ``status.allocatable`` or has a
            malformed quantity, taint or duplicate name; every problem at once.
    """
    command = "kubectl get nodes -o json"
    items = _items(document, "Node", command, source)
    problems: list[Problem] = []
    nodes: list[Node] = []
    seen: set[str] = set()
    if not items:
        problems.append(
            Problem(source, 0, 0, f"has no nodes: pass the output of `{command}`")
        )
    kinds = {item.get("kind", "Node") for _, item in items if isinstance(item, Mapping)}
    if len(items) > 1 and len(kinds) == 1 and "Node" not in kinds:
        (kind,) = kinds
        raise PlanInputError(
            problems=[
                Problem(
                    source,
                    0,
                    0,
                    f"is a list of {kind}s, not of Nodes: pass the output of `{command}`",
                )
            ]
        )
    for path, item in items:
        where = path or "(the Node)"
        if not isinstance(item, Mapping):
            problems.append(Problem(source, 0, 0, "must be a Node (a map)", where))
            continue
        kind = item.get("kind", "Node")
        if kind != "Node":
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"is a {kind}, not a Node: pass the output of `{command}`",
                    where,
                )
            )
            continue
        metadata = item.get("metadata") or {}
        name = metadata.get("name") if isinstance(metadata, Mapping) else None
        if not isinstance(name, str) or not name:
            problems.append(
                Problem(source, 0, 0, "has no name", _at(path, "metadata.name"))
            )
            continue
        if name in seen:
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"node {name} is listed twice",
                    _at(path, "metadata.name"),
                )
            )
        seen.add(name)
        spec = item.get("spec") or {}
        status = item.get("status") or {}
        spec = spec if isinstance(spec, Mapping) else {}
        status = status if isinstance(status, Mapping) else {}
        taints = []
        for t_index, raw in enumerate(spec.get("taints") or []):
            t_path = _at(path, f"spec.taints[{t_index}]")
            if (
                not isinstance(raw, Mapping)
                or not raw.get("key")
                or raw.get("effect") not in _TAINT_EFFECTS
            ):
                problems.append(
                    Problem(
                        source,
                        0,
                        0,
                        f"node {name}: a taint needs a key and an effect ({', '.join(_TAINT_EFFECTS)})",
                        t_path,
                    )
                )
                continue
            taints.append(
                Taint(str(raw["key"]), str(raw.get("value") or ""), str(raw["effect"]))
            )
        if "allocatable" not in status or not isinstance(
            status.get("allocatable"), Mapping
        ):
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"node {name} has no allocatable resources: use the node list the API server "
                    f"reports (`{command}`), which has them for every registered node",
                    _at(path, "status.allocatable"),
                )
            )
            continue
        allocatable = _resources(
            status["allocatable"],
            name,
            _at(path, "status.allocatable"),
            source,
            problems,
        )
        capacity = (
            _resources(
                status["capacity"], name, _at(path, "status.capacity"), source, problems
            )
            if isinstance(status.get("capacity"), Mapping)
            else None
        )
        if allocatable is None:
            continue
        nodes.append(
            Node(
                name=name,
                labels=_labels(metadata.get("labels")),
                taints=tuple(taints),
                unschedulable=spec.get("unschedulable") is True,
                allocatable=allocatable,
                capacity=capacity,
            )
        )
    if problems:
        raise PlanInputError(problems=problems)
    return tuple(nodes)


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
        PlanInputError: not a pod list, or a pod with a malformed quantity.
    """
    command = "kubectl get pods -A -o json"
    items = _items(document, "Pod", command, source)
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
                    f"pod {metadata.get('name')}: {err}",
                    _at(path, "spec"),
                )
            )
            continue
        pods.append(
            ExistingPod(
                namespace=str(metadata.get("namespace") or "default"),
                name=str(metadata.get("name") or ""),
                node_name=node_name,
                labels=_labels(metadata.get("labels")),
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
        raise PlanInputError(problems=problems)
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
        r = pod.requests
        amounts["cpu"] = amounts.get("cpu", 0) + r.cpu_millis
        amounts["memory"] = amounts.get("memory", 0) + r.memory_bytes
        amounts["pods"] = amounts.get("pods", 0) + 1
        for name, value in r.extended:
            amounts[name] = amounts.get(name, 0) + value
        cores[pod.node_name] = cores.get(pod.node_name, 0) + pod.exclusive_cores
    return {
        node: NodeUsage(Resources.from_amounts(amounts), cores.get(node, 0))
        for node, amounts in totals.items()
    }
