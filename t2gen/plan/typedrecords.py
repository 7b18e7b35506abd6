"""The records a node or pod list is decoded into, and those records into nodes and pods.

The records (msgspec ``Struct`` types, https://jcristharif.com/msgspec/structs.html)
name only the fields :func:`t2gen.plan.nodes.parse_nodes` and
:func:`t2gen.plan.pods.parse_pods` read; the decoder skips every other field
without making Python objects of it. :func:`typed_nodes` and :func:`typed_pods`
turn a decoded list into the same :class:`Node` and :class:`ExistingPod` records
as those functions, or return None for anything they would report as a problem,
so that the plain reader judges it (:mod:`t2gen.plan.typedread`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Literal

import msgspec
from msgspec import UNSET, Struct, UnsetType

from t2gen.inputs.kubelist import MAX_LIST_ITEMS
from t2gen.kube.validators import (
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)
from t2gen.plan.filters.taints import Taint
from t2gen.plan.nodes import TAINT_EFFECTS, Node
from t2gen.plan.quantities import Resources, parse_resource_list

__all__ = [
    "NodeReader",
    "Untyped",
    "list_of",
    "node_decoder",
    "node_item_decoder",
    "typed_nodes",
]


# The records name only what parse_nodes/parse_pods read (nodes.py, pods.py,
# podspec.py); UNSET keeps "absent" apart from null, as the plain reader's dicts do.
class _NodeSpec(Struct, omit_defaults=True):
    taints: Any = UNSET
    unschedulable: Any = UNSET


class _Condition(Struct, omit_defaults=True, gc=False):
    """A node condition's ``type`` and ``status``; not tracked by the cycle collector (it holds no cycle)."""

    type: Any = UNSET
    # The API's three values (ConditionStatus, kubernetes
    # staging/src/k8s.io/api/core/v1/types.go), decoded to one shared string each;
    # any other value leaves the list to the plain reader, which judges it.
    status: Literal["True", "False", "Unknown"] | UnsetType | None = UNSET


class _NodeStatus(Struct, omit_defaults=True):
    allocatable: Any = UNSET
    capacity: Any = UNSET
    conditions: list[_Condition] | UnsetType | None = UNSET


@functools.lru_cache(maxsize=16)
def _node_types(label_keys: tuple[str, ...] | None) -> tuple[Any, Any]:
    """The record of a Node, NodeList or List and of one Node, keeping only ``label_keys`` of the labels."""
    labels: Any = dict[str, str] | None
    if label_keys is not None:
        fields = [(f"k{i}", str, UNSET) for i in range(len(label_keys))]
        labels = (
            msgspec.defstruct(
                "NodeLabels",
                fields,
                rename={f"k{i}": key for i, key in enumerate(label_keys)},
                omit_defaults=True,
            )
            | None
        )
    meta = msgspec.defstruct(
        "NodeMeta",
        [("name", Any, UNSET), ("labels", labels | UnsetType, UNSET)],
        omit_defaults=True,
    )
    parts: list[tuple[str, Any, Any]] = [
        ("kind", Any, UNSET),
        ("metadata", meta | UnsetType | None, UNSET),
        ("spec", _NodeSpec | UnsetType | None, UNSET),
        ("status", _NodeStatus | UnsetType | None, UNSET),
    ]
    item = msgspec.defstruct("NodeItem", parts, omit_defaults=True)
    document = msgspec.defstruct(
        "NodeDocument",
        [*parts, ("items", list[item] | UnsetType | None, UNSET)],  # type: ignore[valid-type]
        omit_defaults=True,
    )
    return document, item


@functools.lru_cache(maxsize=16)
def node_decoder(label_keys: tuple[str, ...] | None) -> msgspec.json.Decoder[Any]:
    """A decoder for a Node, NodeList or List that keeps only ``label_keys`` of the labels."""
    return msgspec.json.Decoder(_node_types(label_keys)[0])


@functools.lru_cache(maxsize=16)
def node_item_decoder(label_keys: tuple[str, ...] | None) -> msgspec.json.Decoder[Any]:
    """A decoder for one Node (an item of a list) that keeps only ``label_keys`` of the labels."""
    return msgspec.json.Decoder(_node_types(label_keys)[1])


def list_of(document: Any, kind: str) -> list[Any] | None:
    """The items of a list of ``kind`` (or the one object), as :func:`list_items` takes them."""
    found = document.kind
    if found == kind:
        return [document]
    if found in ("List", f"{kind}List") or (
        (found is UNSET or found is None) and document.items is not UNSET
    ):
        items = document.items
        return items if type(items) is list else None
    return None


def _labels(raw: Any, fields: Sequence[tuple[str, str]] | None) -> dict[str, str]:
    """``metadata.labels`` of the kept keys (all string values: others took the plain reader)."""
    if not raw:
        return {}
    if fields is None:
        return dict(raw)
    out = {}
    for field, key in fields:
        value = getattr(raw, field)
        if value is not UNSET:
            out[key] = value
    return out


def _amounts(
    raw: dict[str, Any], seen: dict[tuple[tuple[str, Any], ...], Resources]
) -> Resources | None:
    """A resource list (each distinct one parsed once), or None if it is malformed."""
    try:
        key: tuple[tuple[str, Any], ...] | None = tuple(raw.items())
        found = seen.get(key)  # type: ignore[arg-type]
    except TypeError:  # an unhashable value
        key, found = None, None
    if found is not None:
        return found
    try:  # the plain reader's own parser, with its checks
        resources = Resources.from_amounts(parse_resource_list(raw))
    except ValueError:
        return None
    if key is not None:
        seen[key] = resources
    return resources


def _ready(conditions: list[_Condition] | UnsetType | None) -> str | None:
    """What :func:`~t2gen.plan.nodes.ready_status` says of the typed conditions, without building a map per condition.

    ``status`` of the Ready condition; ``""`` if there is none; None if a
    condition's ``type`` is no string or its ``status`` neither a string nor
    null (then the plain reader says what is wrong).
    """
    if conditions is UNSET or conditions is None:
        return ""
    found = ""
    for condition in conditions:
        kind, status = condition.type, condition.status
        if status is UNSET:
            status = None
        if type(kind) is not str or (status is not None and type(status) is not str):
            return None
        if kind == "Ready":
            found = status or ""
    return found


class Untyped(Exception):
    """An item the typed reader does not take: the plain reader says what is wrong with it."""


class NodeReader:
    """Turns typed node items into :class:`Node` records, one at a time.

    Each distinct resource list is parsed once for all the nodes this reader
    sees. :meth:`node` raises :class:`Untyped` for anything
    :func:`~t2gen.plan.nodes.parse_nodes` would report as a problem; a name seen
    before is the caller's to judge (:func:`typed_nodes`,
    :mod:`t2gen.plan.largelists`). Alike taints and kept labels are checked once.
    """

    def __init__(self, keys: tuple[str, ...] | None) -> None:
        self.fields = (
            None if keys is None else [(f"k{i}", key) for i, key in enumerate(keys)]
        )
        self.amounts: dict[tuple[tuple[str, Any], ...], Resources] = {}
        self.taints: dict[tuple[Any, Any, Any], Taint] = {}
        self.labels: set[tuple[str, str]] = set()

    def _taint(self, raw: dict[str, Any]) -> Taint:
        """The taint of a ``spec.taints`` entry, checked once per distinct entry.

        Alike entries (the same key, value and effect on many nodes) share one record.

        Raises:
            Untyped: a key, value or effect the API server would refuse.
        """
        key, value, effect = raw.get("key"), raw.get("value"), raw.get("effect")
        try:
            found = self.taints.get((key, value, effect))
        except TypeError:  # an unhashable field: no taint the API writes
            raise Untyped from None
        if found is not None:
            return found
        if (
            not is_qualified_name(key)
            or effect not in TAINT_EFFECTS
            or (value not in (None, "") and not is_label_value(value))
        ):
            raise Untyped
        found = self.taints[key, value, effect] = Taint(
            str(key), str(value or ""), str(effect)
        )
        return found

    def node(self, item: Any) -> Node:
        """The node of one typed item (``node_item_decoder``'s record).

        Raises:
            Untyped: the item is not a well-formed Node.
        """
        if item.kind is not UNSET and item.kind != "Node":
            raise Untyped
        metadata, spec, status = item.metadata, item.spec, item.status
        if not metadata or not status:
            raise Untyped
        name = metadata.name
        if type(name) is not str or not is_dns1123_subdomain(name):
            raise Untyped  # parse_nodes says what is wrong
        taints: list[Taint] = []
        unschedulable = False
        if spec:
            if spec.taints and type(spec.taints) is not list:
                raise Untyped
            for raw in spec.taints or ():
                if type(raw) is not dict:
                    raise Untyped
                taints.append(self._taint(raw))
            if spec.unschedulable not in (UNSET, None, True, False):
                raise Untyped
            unschedulable = spec.unschedulable is True
        if type(status.allocatable) is not dict:
            raise Untyped
        allocatable = _amounts(status.allocatable, self.amounts)
        capacity = None
        if type(status.capacity) is dict:
            capacity = _amounts(status.capacity, self.amounts)
            if capacity is None:
                raise Untyped
        if allocatable is None:
            raise Untyped
        ready = _ready(status.conditions)
        if ready is None:
            raise Untyped  # parse_nodes says what is wrong
        labels = _labels(metadata.labels, self.fields)
        for pair in labels.items():
            if pair not in self.labels:
                if not (is_qualified_name(pair[0]) and is_label_value(pair[1])):
                    raise Untyped  # parse_nodes says what is wrong
                self.labels.add(pair)
        return Node(
            name, labels, tuple(taints), unschedulable, allocatable, capacity, ready
        )


def typed_nodes(document: Any, keys: tuple[str, ...] | None) -> tuple[Node, ...] | None:
    """The nodes of a well-formed typed list, or None where :func:`parse_nodes` must judge."""
    items = list_of(document, "Node")
    if not items or len(items) > MAX_LIST_ITEMS:
        return None
    reader = NodeReader(keys)
    seen: set[str] = set()
    out = []
    try:
        for item in items:
            node = reader.node(item)
            if node.name in seen:
                return None  # parse_nodes says what is wrong
            seen.add(node.name)
            out.append(node)
    except Untyped:
        return None
    return tuple(out)
