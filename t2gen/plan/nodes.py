"""Node lists: ``kubectl get nodes -o json`` (or ``-o yaml``) into typed records.

``parse_nodes`` reads a ``List`` (or ``NodeList``) of Nodes, or a single Node,
and keeps what the scheduler's filters read: labels, taints, ``unschedulable``,
``status.allocatable`` and the Ready condition
(https://kubernetes.io/docs/concepts/scheduling-eviction/kube-scheduler/).
Every problem in the input is reported at once (:mod:`t2gen.inputs.kubelist`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from t2gen.errors import InputError, Problem
from t2gen.inputs.kubelist import (
    MAX_LIST_ITEMS,
    json_path,
    list_items,
    string_map,
)
from t2gen.kube.validators import (
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)
from t2gen.plan.filters.taints import Taint
from t2gen.plan.listproblems import reported
from t2gen.plan.quantities import Resources, parse_resource_list, with_quantity_hint
from t2gen.record import Record

__all__ = [
    "TAINT_EFFECTS",
    "Node",
    "node_field_problems",
    "parse_nodes",
    "ready_status",
]

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
        ready: ``status`` of the Ready condition in ``status.conditions``
            (``True``, ``False``, ``Unknown``), ``""`` when there is none; a node
            that is not ``True`` is not schedulable
            (:func:`t2gen.plan.filters.taints.reject_not_ready`).
    """

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    unschedulable: bool
    allocatable: Resources
    capacity: Resources | None = None
    ready: str = "True"


def not_ready_note(nodes: Sequence[Node], most: int = 5) -> str | None:
    """The note that names the nodes whose Ready condition is not True, or None if all are Ready.

    Args:
        nodes: the nodes.
        most: how many are named; the rest are counted.
    """
    down = [n for n in nodes if n.ready != "True"]
    if not down:
        return None
    shown = ", ".join(
        f"{n.name} (Ready {n.ready})" if n.ready else f"{n.name} (no Ready condition)"
        for n in down[:most]
    )
    more = f" and {len(down) - most} more" if len(down) > most else ""
    return (
        f"not schedulable, not Ready: {shown}{more}; the node lifecycle controller "
        "taints such a node NoSchedule within seconds, so no pod that does not "
        "tolerate the taint is placed there"
    )


def ready_status(conditions: object) -> str | None:
    """``status`` of the Ready condition in ``status.conditions``; ``""`` if none; None if malformed.

    A node's conditions are a list of maps with string ``type`` and ``status``
    (the Node API); anything else was not printed by ``kubectl get nodes``.
    """
    if conditions is None:
        return ""
    if not isinstance(conditions, list):
        return None
    found = ""
    for condition in conditions:
        if not isinstance(condition, Mapping):
            return None
        kind, status = condition.get("type"), condition.get("status")
        if not isinstance(kind, str) or not isinstance(status, (str, type(None))):
            return None
        if kind == "Ready":
            found = status or ""
    return found


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
        problems.append(
            Problem(source, 0, 0, f"node {node}: {with_quantity_hint(err)}", path)
        )
        return None
    if key is not None:
        seen[key] = resources
    return resources


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def node_field_problems(
    item: Mapping[str, Any], name: str, label_keys: Collection[str] | None = None
) -> list[tuple[str, str]]:
    """What the API server would never write in a Node: ``(field, message)`` for each wrong field.

    A node's name is a DNS subdomain, its labels and taints are qualified
    names and label values, ``metadata``, ``spec`` and ``status`` are maps,
    ``spec.taints`` a list, ``spec.unschedulable`` a boolean (the Node API,
    https://kubernetes.io/docs/reference/kubernetes-api/cluster-resources/node-v1/).
    A list that says otherwise was not printed by ``kubectl get nodes``, and
    what ``plan`` prints of it (names, labels, taints) could carry control
    characters or lines of its own; so it is refused, field by field.

    Args:
        item: one Node of the list.
        name: its ``metadata.name`` (a non-empty string).
        label_keys: the labels read (the rest are never used nor printed);
            None: all of them.
    """
    wrong: list[tuple[str, str]] = []
    if not is_dns1123_subdomain(name):
        wrong.append(
            (
                "metadata.name",
                f"{name!r} is no node name: the API server names nodes with "
                "DNS subdomains (lower-case letters, digits, '-' and '.')",
            )
        )
    for field in ("metadata", "spec", "status"):
        if item.get(field) is not None and not isinstance(item.get(field), Mapping):
            wrong.append((field, f"must be a map, not {type(item[field]).__name__}"))
    metadata = _map(item.get("metadata"))
    labels = metadata.get("labels")
    if labels is not None and not (
        isinstance(labels, Mapping)
        and all(
            is_qualified_name(key) and (value is None or is_label_value(value))
            for key, value in labels.items()
            if label_keys is None or key in label_keys
        )
    ):
        wrong.append(
            (
                "metadata.labels",
                "must map label keys to label values (strings), as the "
                "API server writes them",
            )
        )
    spec = _map(item.get("spec"))
    taints = spec.get("taints")
    if taints is not None and not isinstance(taints, list):
        wrong.append(("spec.taints", f"must be a list, not {type(taints).__name__}"))
    for index, taint in enumerate(taints if isinstance(taints, list) else ()):
        if isinstance(taint, Mapping) and not (
            is_qualified_name(taint.get("key", ""))
            and (taint.get("value") in (None, "") or is_label_value(taint.get("value")))
        ):
            wrong.append(
                (
                    f"spec.taints[{index}]",
                    "a taint's key is a qualified name and its value a label value",
                )
            )
    unschedulable = spec.get("unschedulable")
    if unschedulable is not None and not isinstance(unschedulable, bool):
        wrong.append(
            ("spec.unschedulable", f"must be true or false, not {unschedulable!r}")
        )
    return wrong


def parse_nodes(
    document: object,
    source: str = "--nodes",
    label_keys: Collection[str] | None = None,
) -> tuple[Node, ...]:
    """Read the nodes of ``kubectl get nodes -o json`` (or ``-o yaml``).

    Args:
        document: the parsed JSON/YAML (see :func:`load_document`).
        source: how the user named the input, for messages.
        label_keys: the labels whose values are checked (the others are kept
            as they are, as the typed reader skips them); None: all.

    Returns:
        The nodes, in the input's order.

    Raises:
        InputError: the input is not a node list (another kind, not a map),
            is empty, or a node lacks a name or ``status.allocatable`` or has a
            malformed quantity, taint or duplicate name; every problem at once.
    """
    command = "kubectl get nodes -o json"
    items = list_items(document, "Node", command, source, MAX_LIST_ITEMS)
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
        raise InputError(
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
        wrong = node_field_problems(item, name, label_keys)
        if wrong:
            problems += [
                Problem(source, 0, 0, message, json_path(path, field))
                for field, message in wrong
            ]
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
        ready = ready_status(status.get("conditions"))
        if ready is None:
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"node {name}: conditions must be a list of maps with a string type and "
                    "status, as `kubectl get nodes -o json` prints them",
                    json_path(path, "status.conditions"),
                )
            )
            continue
        nodes.append(
            Node(
                name=name,
                labels=string_map(metadata.get("labels")),
                taints=tuple(taints),
                unschedulable=spec.get("unschedulable") is True,
                allocatable=allocatable,
                capacity=capacity,
                ready=ready,
            )
        )
    if problems:
        raise InputError(problems=reported(problems, source, "Node"))
    return tuple(nodes)
