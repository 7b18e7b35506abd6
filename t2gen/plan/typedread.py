"""Node and pod lists read with a typed JSON decoder: only the fields the filters use.

``kubectl get nodes -o json`` of a large cluster is hundreds of megabytes, and
almost all of it is what the scheduler's filters never read: ``managedFields``,
``status.images``, ``status.conditions``, annotations, container specs.
msgspec (https://jcristharif.com/msgspec/structs.html) decodes the JSON bytes
straight into small records that declare only the fields :func:`parse_nodes`
and :func:`parse_pods` read; the decoder skips everything else without making
Python objects of it, and of the node labels it keeps only the keys the job's
pods select on (:func:`node_label_keys`). The reduced document then goes
through the same :func:`parse_nodes`/:func:`parse_pods` as any other, so the
records and every located message are theirs.

What this reader must preserve: the same nodes and pods, and the same messages,
as the plain reader (:func:`plain_document`: ``json``, then YAML). Anything it
cannot take as a well-formed list goes to the plain reader, whose messages are
the contract: YAML, a field of another type than ``kubectl`` prints (a
``metadata`` that is not a map, a label list), nesting deeper than the decoder's
recursion limit, an integer beyond 64 bits, text that is not UTF-8.
``T2GEN_NO_TYPED_READER=1`` sends every list to the plain reader.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import mmap
import os
import stat
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec
from msgspec import UNSET, Struct, UnsetType

from t2gen.errors import ConfigError
from t2gen.jobfile.source import read_source
from t2gen.plan.filters.interpod import parse_affinity_terms
from t2gen.plan.filters.taints import Taint
from t2gen.plan.listio import load_document
from t2gen.plan.nodes import TAINT_EFFECTS, Node, parse_nodes
from t2gen.plan.pods import ExistingPod, parse_pods
from t2gen.plan.podspec import pod_resources
from t2gen.plan.quantities import CPU, MEMORY, PODS, Resources, quantity_amount

if TYPE_CHECKING:
    from t2gen.plan.templates import WorkloadTemplate

__all__ = ["node_label_keys", "plain_document", "read_nodes", "read_pods"]

DISABLED = bool(os.environ.get("T2GEN_NO_TYPED_READER"))
"""``T2GEN_NO_TYPED_READER`` set (to anything but empty): every list takes the plain reader."""

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20


# The records name only what parse_nodes/parse_pods read (nodes.py, pods.py,
# podspec.py); UNSET keeps "absent" apart from null, as the plain reader's dicts do.
class _Meta(Struct, omit_defaults=True):
    name: Any = UNSET
    namespace: Any = UNSET
    labels: dict[str, str] | UnsetType | None = UNSET


class _NodeSpec(Struct, omit_defaults=True):
    taints: Any = UNSET
    unschedulable: Any = UNSET


class _NodeStatus(Struct, omit_defaults=True):
    allocatable: Any = UNSET
    capacity: Any = UNSET


class _Container(Struct, omit_defaults=True):
    resources: Any = UNSET
    restartPolicy: Any = UNSET


class _PodSpec(Struct, omit_defaults=True):
    nodeName: Any = UNSET
    containers: list[_Container] | UnsetType | None = UNSET
    initContainers: list[_Container] | UnsetType | None = UNSET
    resources: Any = UNSET
    overhead: Any = UNSET
    affinity: Any = UNSET


class _PodStatus(Struct, omit_defaults=True):
    phase: Any = UNSET


class _Pod(Struct, omit_defaults=True):
    kind: Any = UNSET
    metadata: _Meta | UnsetType | None = UNSET
    spec: _PodSpec | UnsetType | None = UNSET
    status: _PodStatus | UnsetType | None = UNSET


class _PodList(Struct, omit_defaults=True):
    kind: Any = UNSET
    items: list[_Pod] | UnsetType | None = UNSET
    metadata: _Meta | UnsetType | None = UNSET
    spec: _PodSpec | UnsetType | None = UNSET
    status: _PodStatus | UnsetType | None = UNSET


@functools.lru_cache(maxsize=16)
def _node_decoder(label_keys: tuple[str, ...] | None) -> msgspec.json.Decoder[Any]:
    """A decoder for a Node, NodeList or List that keeps only ``label_keys`` of the labels."""
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
    return msgspec.json.Decoder(document)


_POD_DECODER = msgspec.json.Decoder(_PodList)
_ENCODER = msgspec.json.Encoder()
_DONE = ("Succeeded", "Failed")


class _Requests(Struct, omit_defaults=True):
    """The parts of a pod spec :func:`pod_resources` reads (equal parts, equal requests)."""

    containers: Any = UNSET
    initContainers: Any = UNSET
    resources: Any = UNSET
    overhead: Any = UNSET


def node_label_keys(templates: Sequence[WorkloadTemplate]) -> tuple[str, ...]:
    """The node labels the job's pods select on: ``nodeSelector`` and required node affinity.

    Args:
        templates: the job's pod templates (:func:`t2gen.plan.workload_templates`).

    Returns:
        Label keys, sorted. (Inter-pod terms of topology ``kubernetes.io/hostname``
        need no label: one node is one domain.)
    """
    keys: set[str] = set()
    for t in templates:
        keys.update(key for key, _ in t.node_selector)
        for term in t.node_affinity or ():
            keys.update(r.key for r in term if not r.field)
    return tuple(sorted(keys))


def plain_document(raw: bytes, source: str) -> object:
    """Parse a list as the plain reader does: UTF-8 (a BOM allowed), then JSON or YAML.

    Raises:
        ConfigError: the bytes are not UTF-8.
        PlanInputError: the text is neither JSON nor YAML.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(
            path=source,
            message=f"is not UTF-8 (byte {err.start}): save the kubectl output as UTF-8",
        ) from None
    return load_document(text, source)


def _is_ascii(view: memoryview) -> bool:
    """True if every byte is ASCII (then it is UTF-8), checked in 1 MiB pieces."""
    return all(
        bytes(view[start : start + _CHUNK]).isascii()
        for start in range(0, len(view), _CHUNK)
    )


def _is_utf8(view: memoryview) -> bool:
    """True if the bytes are UTF-8: ASCII quickly, else decoded in pieces (no copy of the whole)."""
    if _is_ascii(view):
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(view), _CHUNK):
            decoder.decode(view[start : start + _CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


@contextlib.contextmanager
def _contents(path: str) -> Iterator[memoryview]:
    """The bytes of ``path``: a regular file mapped into memory, else read (``-``: stdin).

    Mapping saves copying hundreds of megabytes; anything else (a missing file,
    a FIFO, standard input) goes through :func:`read_source`, whose messages
    name what is wrong.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if path != "-" else -1
    except OSError:
        descriptor = -1
    if descriptor < 0:
        with memoryview(read_source(path, limit=None, what="file")) as view:
            yield view
        return
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            os.close(descriptor)
            descriptor = -1
            with memoryview(read_source(path, limit=None, what="file")) as view:
                yield view
            return
        flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0)
        mapped = mmap.mmap(descriptor, 0, flags=flags, prot=mmap.PROT_READ)
    finally:
        if descriptor >= 0:
            os.close(descriptor)
    try:
        with memoryview(mapped) as view:
            yield view
    finally:
        mapped.close()


def _decode(view: memoryview, decoder: msgspec.json.Decoder[Any]) -> Any:
    """The typed document, or None when the plain reader must judge the input."""
    if DISABLED:
        return None
    if view[:3] == _BOM:
        view = view[3:]
    if not _is_utf8(view):
        return None
    try:
        return decoder.decode(view)
    except (msgspec.DecodeError, RecursionError):
        return None


def _items(document: Any, kind: str) -> list[Any] | None:
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
    # Resources.from_amounts(parse_resource_list(raw)), without the intermediate map.
    cpu = memory = pods = 0
    extended = []
    try:
        for name, value in raw.items():
            amount = quantity_amount(name, value)
            if name == CPU:
                cpu = amount
            elif name == MEMORY:
                memory = amount
            elif name == PODS:
                pods = amount
            else:
                extended.append((name, amount))
    except ValueError:
        return None
    extended.sort()
    resources = Resources(cpu, memory, pods, tuple(extended))
    if key is not None:
        seen[key] = resources
    return resources


def _nodes(document: Any, keys: tuple[str, ...] | None) -> tuple[Node, ...] | None:
    """The nodes of a well-formed typed list, or None where :func:`parse_nodes` must judge."""
    items = _items(document, "Node")
    if not items:
        return None
    fields = None if keys is None else [(f"k{i}", key) for i, key in enumerate(keys)]
    amounts: dict[tuple[tuple[str, Any], ...], Resources] = {}
    seen: set[str] = set()
    out = []
    for item in items:
        if item.kind is not UNSET and item.kind != "Node":
            return None
        metadata, spec, status = item.metadata, item.spec, item.status
        if not metadata or not status:
            return None
        name = metadata.name
        if type(name) is not str or not name or name in seen:
            return None
        seen.add(name)
        taints: list[Taint] = []
        unschedulable = False
        if spec:
            if spec.taints and type(spec.taints) is not list:
                return None
            for raw in spec.taints or ():
                if (
                    type(raw) is not dict
                    or not raw.get("key")
                    or raw.get("effect") not in TAINT_EFFECTS
                ):
                    return None
                taints.append(
                    Taint(
                        str(raw["key"]), str(raw.get("value") or ""), str(raw["effect"])
                    )
                )
            unschedulable = spec.unschedulable is True
        if type(status.allocatable) is not dict:
            return None
        allocatable = _amounts(status.allocatable, amounts)
        capacity = None
        if type(status.capacity) is dict:
            capacity = _amounts(status.capacity, amounts)
            if capacity is None:
                return None
        if allocatable is None:
            return None
        out.append(
            Node(
                name=name,
                labels=_labels(metadata.labels, fields),
                taints=tuple(taints),
                unschedulable=unschedulable,
                allocatable=allocatable,
                capacity=capacity,
            )
        )
    return tuple(out)


def _pods(document: Any) -> tuple[ExistingPod, ...] | None:
    """The bound pods of a well-formed typed list, or None where :func:`parse_pods` must judge."""
    items = _items(document, "Pod")
    if items is None:
        return None
    resources: dict[bytes, tuple[Resources, int, bool]] = {}
    out = []
    for item in items:
        if item.kind is not UNSET and item.kind != "Pod":
            return None
        spec = item.spec
        if not spec:
            continue
        phase = item.status.phase if item.status else None
        node_name = spec.nodeName
        if type(node_name) is not str or not node_name or phase in _DONE:
            continue
        needs = _Requests(
            spec.containers, spec.initContainers, spec.resources, spec.overhead
        )
        try:
            key = _ENCODER.encode(needs)
        except (TypeError, ValueError, OverflowError):
            return None
        found = resources.get(key)
        if found is None:
            try:
                found = resources[key] = pod_resources(msgspec.to_builtins(needs))
            except ValueError:
                return None
        metadata = item.metadata or _Meta()
        out.append(
            ExistingPod(
                namespace=str(metadata.namespace or "default"),
                name=str(metadata.name or ""),
                node_name=node_name,
                labels=metadata.labels or {},
                requests=found[0],
                exclusive_cores=found[1],
                anti_affinity=(
                    parse_affinity_terms({"affinity": spec.affinity}, "podAntiAffinity")
                    if spec.affinity
                    else ()
                ),
            )
        )
    return tuple(out)


def read_nodes(
    path: str, label_keys: Collection[str] | None = None
) -> tuple[Node, ...]:
    """Read ``kubectl get nodes -o json`` (or ``-o yaml``) from a file.

    Args:
        path: the file, as the user named it (``--nodes FILE``; ``-``: stdin).
        label_keys: the node labels to keep (:func:`node_label_keys`); None keeps all.

    Returns:
        The nodes, as :func:`parse_nodes` makes them (labels: only ``label_keys``).

    Raises:
        ConfigError: missing, unreadable or not UTF-8.
        PlanInputError: not a node list, or malformed nodes; every problem at once.
    """
    keys = None if label_keys is None else tuple(sorted(set(label_keys)))
    document: object = None
    with _contents(path) as view:
        typed = _decode(view, _node_decoder(keys))
        if typed is None:
            document = plain_document(bytes(view), path)
    if typed is not None:  # the file is unmapped: only the typed records remain
        nodes = _nodes(typed, keys)
        if nodes is not None:
            return nodes
        document = msgspec.to_builtins(typed)
    return parse_nodes(document, path)


def read_pods(path: str) -> tuple[ExistingPod, ...]:
    """Read ``kubectl get pods -A -o json`` (or ``-o yaml``) from a file.

    Args:
        path: the file, as the user named it (``--pods FILE``; ``-``: stdin).

    Returns:
        The pods that hold node resources, as :func:`parse_pods` makes them.

    Raises:
        ConfigError: missing, unreadable or not UTF-8.
        PlanInputError: not a pod list, or a pod with a malformed quantity.
    """
    document: object = None
    with _contents(path) as view:
        typed = _decode(view, _POD_DECODER)
        if typed is None:
            document = plain_document(bytes(view), path)
    if typed is not None:
        pods = _pods(typed)
        if pods is not None:
            return pods
        document = msgspec.to_builtins(typed)
    return parse_pods(document, path)
