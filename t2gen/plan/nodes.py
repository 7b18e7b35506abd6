"""Node lists: ``kubectl get nodes -o json`` (or ``-o yaml``) into typed records.

``parse_nodes`` reads a ``List`` (or ``NodeList``) of Nodes, or a single Node,
and keeps what the scheduler's filters read: labels, taints, ``unschedulable``
and ``status.allocatable``
(https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/).
Every problem in the input is reported at once (:mod:`t2gen.plan.listio`).
"""

from __future__ import annotations

from collections.abc import Mapping

from t2gen.errors import Problem
from t2gen.plan.filters.taints import Taint
from t2gen.plan.listio import PlanInputError, json_path, list_items, string_map
from t2gen.plan.quantities import Resources, parse_resource_list
from t2gen.record import Record

__all__ = ["TAINT_EFFECTS", "Node", "parse_nodes"]

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


class Node(Record):
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


def _resources(
    raw: Mapping[str, object],
    node: str,
    path: str,
    source: str,
    problems: list[Problem],
    seen: dict[tuple[tuple[str, object], ...], Resources],
) -> Resources | None:
    # Nodes of one instance type list the same amounts: each distinct list is parsed once.
    try:
        key = tuple(raw.items())
        found = seen.get(key)
    except TypeError:  # an unhashable value: parse_resource_list reports it
        key, found = None, None
    if found is not None:
        return found
    try:
        resources = Resources.from_amounts(parse_resource_list(raw))
    except ValueError as err:
        problems.append(Problem(source, 0, 0, f"node {node}: {err}", path))
        return None
    if key is not None:
        seen[key] = resources
    return resources


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
    items = list_items(document, "Node", command, source)
    problems: list[Problem] = []
    nodes: list[Node] = []
    seen: set[str] = set()
    amounts: dict[tuple[tuple[str, object], ...], Resources] = {}
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
                Problem(source, 0, 0, "has no name", json_path(path, "metadata.name"))
            )
            continue
        if name in seen:
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"node {name} is listed twice",
                    json_path(path, "metadata.name"),
                )
            )
        seen.add(name)
        spec = item.get("spec") or {}
        status = item.get("status") or {}
        spec = spec if isinstance(spec, Mapping) else {}
        status = status if isinstance(status, Mapping) else {}
        taints = []
        for t_index, raw in enumerate(spec.get("taints") or []):
            t_path = json_path(path, f"spec.taints[{t_index}]")
            if (
                not isinstance(raw, Mapping)
                or not raw.get("key")
                or raw.get("effect") not in TAINT_EFFECTS
            ):
                problems.append(
                    Problem(
                        source,
                        0,
                        0,
                        f"node {name}: a taint needs a key and an effect ({', '.join(TAINT_EFFECTS)})",
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
                    json_path(path, "status.allocatable"),
                )
            )
            continue
        allocatable = _resources(
            status["allocatable"],
            name,
            json_path(path, "status.allocatable"),
            source,
            problems,
            amounts,
        )
        capacity = (
            _resources(
                status["capacity"],
                name,
                json_path(path, "status.capacity"),
                source,
                problems,
                amounts,
            )
            if isinstance(status.get("capacity"), Mapping)
            else None
        )
        if allocatable is None:
            continue
        nodes.append(
            Node(
                name=name,
                labels=string_map(metadata.get("labels")),
                taints=tuple(taints),
                unschedulable=spec.get("unschedulable") is True,
                allocatable=allocatable,
                capacity=capacity,
            )
        )
    if problems:
        raise PlanInputError(problems=problems)
    return tuple(nodes)
