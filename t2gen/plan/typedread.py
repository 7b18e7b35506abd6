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
as the plain reader (:func:`t2gen.inputs.kubelist.plain_document`: ``json``, then YAML). Anything it
cannot take as a well-formed list goes to the plain reader, whose messages are
the contract: YAML, a field of another type than ``kubectl`` prints (a
``metadata`` that is not a map, a label list), nesting deeper than the decoder's
recursion limit, an integer beyond 64 bits, text that is not UTF-8.
``T2GEN_NO_TYPED_READER=1`` sends every list to the plain reader
(:mod:`t2gen.fastpaths`). The records and their conversion are in
:mod:`t2gen.plan.typedrecords`.

A list larger than :data:`~t2gen.inputs.kubelist.PLAIN_MAX_BYTES` (2 MiB) is read
item by item, within bounds measured before anything is built: one pass of the
decoder takes the items as raw JSON (:class:`msgspec.Raw`, a view of the file) into
a record of :data:`~t2gen.inputs.kubelist.MAX_LIST_ITEMS` + 1 slots, and skips, without
building them, any items past those (so a list of millions of tiny items is refused
at the cost of reading its bytes); each item of at most
:data:`~t2gen.inputs.kubelist.MAX_OBJECT_BYTES` is then decoded and turned into its
record on its own. An item the typed records cannot take is read by the plain
reader alone (``json``, then YAML), as a list of one, so its messages are the plain
reader's, at the item's own JSON path; a list that is not JSON is read by the bounded
YAML reader (``LIST_BOUNDS``), never by ``json`` whole.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import gc
import re
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec

from t2gen.errors import InputError, Problem, T2genError
from t2gen.fastpaths import enabled
from t2gen.inputs.kubelist import (
    MAX_LIST_ITEMS,
    MAX_OBJECT_BYTES,
    MAX_REPORTED_ITEMS,
    PLAIN_MAX_BYTES,
    list_contents,
    list_items,
    load_document,
    more_items,
    plain_document,
    reported,
    too_many,
    utf8_view,
    with_positions,
)
from t2gen.plan.nodes import Node, parse_nodes
from t2gen.plan.pods import ExistingPod, parse_pods
from t2gen.plan.typedrecords import (
    POD_DECODER,
    POD_ITEM_DECODER,
    NodeReader,
    PodReader,
    Untyped,
    node_decoder,
    node_item_decoder,
    typed_nodes,
    typed_pods,
)

if TYPE_CHECKING:
    from t2gen.plan.templates import WorkloadTemplate

__all__ = ["node_label_keys", "read_nodes", "read_pods"]


def node_label_keys(templates: Sequence[WorkloadTemplate]) -> tuple[str, ...]:
    """The node labels the job's pods select on: ``nodeSelector`` and node affinity.

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
        for _, term in t.preferred_node_affinity:
            keys.update(r.key for r in term if not r.field)
    return tuple(sorted(keys))


@contextlib.contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Pause the cyclic garbage collector while a list is decoded and converted.

    Decoding makes millions of objects; each of the collector's passes walks the
    growing heap, and none can find a cycle (JSON values hold none).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _decode(view: memoryview, decoder: msgspec.json.Decoder[Any]) -> Any:
    """The typed document, or None when the plain reader must judge the input."""
    if not enabled("TYPED_READER"):
        return None
    text = utf8_view(view)
    if text is None:
        return None
    try:
        return decoder.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return None


_T = TypeVar("_T")

MAX_KEPT_VALUES = 200_000
"""The most taints, resource amounts and labels a large node or pod list may hold in
all (each item counted as it is read). Reading and placing one costs some 5 µs and
150 bytes, so this keeps a list within the budget of docs/untrusted-input.md; a
cluster of 9,000 cloud nodes (the byte bound) holds about 150,000 (seven resources
in allocatable, seven in capacity, a few taints and selected labels a node)."""


def _size(value: object) -> int:
    """How many entries a decoded map or list holds (0 for anything else or absent)."""
    return len(value) if isinstance(value, (dict, list)) else 0


def _node_weight(item: Any) -> int:
    """What a node item keeps: its taints, resource amounts and labels (typed record or plain map)."""
    if isinstance(item, dict):
        spec, status, meta = (
            item.get("spec"),
            item.get("status"),
            item.get("metadata"),
        )
        spec = spec if isinstance(spec, dict) else {}
        status = status if isinstance(status, dict) else {}
        meta = meta if isinstance(meta, dict) else {}
        return (
            1
            + _size(spec.get("taints"))
            + _size(status.get("allocatable"))
            + _size(status.get("capacity"))
            + _size(meta.get("labels"))
        )
    weight = 1
    if item.spec:
        weight += _size(item.spec.taints)
    if item.status:
        weight += _size(item.status.allocatable) + _size(item.status.capacity)
    return weight


def _pod_weight(item: Any) -> int:
    """What a pod item keeps: its labels and containers (typed record or plain map)."""
    if isinstance(item, dict):
        spec, meta = item.get("spec"), item.get("metadata")
        spec = spec if isinstance(spec, dict) else {}
        meta = meta if isinstance(meta, dict) else {}
        return (
            1
            + _size(meta.get("labels"))
            + _size(spec.get("containers"))
            + _size(spec.get("initContainers"))
        )
    weight = 1
    if item.metadata:
        weight += _size(item.metadata.labels)
    if item.spec:
        weight += _size(item.spec.containers) + _size(item.spec.initContainers)
    return weight


_NODES = "kubectl get nodes -o json"
_PODS = "kubectl get pods -A -o json"


@functools.cache
def _counted_decoder() -> msgspec.json.Decoder[Any]:
    """A decoder of a list whose items stay raw JSON, in at most ``MAX_LIST_ITEMS + 1`` slots.

    An array-like record (https://jcristharif.com/msgspec/structs.html#encoding-decoding-as-arrays)
    decodes a JSON array's first elements into its fields and skips the rest
    without building them; one slot more than the bound tells a list that is over
    it. Built once, on the first list larger than ``PLAIN_MAX_BYTES`` (about 0.1 s).
    """
    slots = msgspec.defstruct(
        "ListItems",
        [(f"i{k}", msgspec.Raw, msgspec.UNSET) for k in range(MAX_LIST_ITEMS + 1)],
        array_like=True,
        gc=False,
    )
    document = msgspec.defstruct(
        "CountedList",
        [
            ("kind", msgspec.Raw, msgspec.UNSET),
            ("items", slots | None | msgspec.UnsetType, msgspec.UNSET),
        ],
        gc=False,
    )
    return msgspec.json.Decoder(document)


def _problem(source: str, message: str, where: str) -> InputError:
    return InputError(problems=[Problem(source, 0, 0, message, where)])


_AT = re.compile(r" - at `\$(.*)`$")


def _raw_items(
    view: memoryview, source: str, kind: str, command: str
) -> tuple[str, list[Any]]:
    """The items of a large list as raw JSON: (path prefix of item ``i``, items), counted before any is decoded.

    Returns:
        ``("items", raws)`` for a list, ``("", [the document])`` for one object.

    Raises:
        InputError: not JSON (at the decoder's byte), not a list of ``kind``, more
            than ``MAX_LIST_ITEMS`` items, or an item larger than ``MAX_OBJECT_BYTES``.
    """
    try:
        document = _counted_decoder().decode(view)
    except msgspec.ValidationError as err:  # JSON, but not a map, or items not a list
        where = _AT.search(str(err))
        standin: object = (
            []
            if where is None or not where.group(1)
            else {"kind": "List", "items": None}
        )
        list_items(standin, kind, command, source)
        raise AssertionError("unreachable: list_items refused the stand-in") from None
    except (msgspec.DecodeError, RecursionError) as err:  # not JSON: refused, located
        raise _not_json(view, source, err) from None
    found: object = msgspec.UNSET
    if document.kind is not msgspec.UNSET:
        found = (
            msgspec.json.decode(document.kind)
            if len(document.kind) <= MAX_OBJECT_BYTES
            else []  # no kind of that size is a name: "is a map without `kind`"
        )
    if found == kind:
        if len(view) > MAX_OBJECT_BYTES:
            raise _problem(source, _too_big(len(view), kind), "(the " + kind + ")")
        return "", [view]
    if found in ("List", f"{kind}List") or (
        found in (None, msgspec.UNSET) and document.items is not msgspec.UNSET
    ):
        if document.items is None:
            list_items({"kind": "List", "items": None}, kind, command, source)
        raws = msgspec.structs.astuple(document.items)
        count = raws.index(msgspec.UNSET) if raws[-1] is msgspec.UNSET else len(raws)
        if count > MAX_LIST_ITEMS:
            raise too_many(source, kind, MAX_LIST_ITEMS)
        for i, raw in enumerate(raws[:count]):
            if len(raw) > MAX_OBJECT_BYTES:
                raise _problem(source, _too_big(len(raw), kind), f"items[{i}]")
        return "items", list(raws[:count])
    list_items({"kind": "" if found is msgspec.UNSET else found}, kind, command, source)
    raise AssertionError("unreachable: list_items refused the stand-in")


def _too_big(size: int, kind: str) -> str:
    return (
        f"is a {kind} of {size:,} bytes; the API server stores no object over "
        f"{MAX_OBJECT_BYTES // 1024} KiB (etcd's request limit), so this is not what "
        "kubectl printed"
    )


def _one_by_one(
    items: Sequence[Any],
    prefix: str,
    decode: Callable[[Any], Any],
    convert: Callable[[Any], _T | None],
    plain: Callable[[object], tuple[_T, ...]],
    kind: str,
    source: str,
    weigh: Callable[[Any], int],
) -> list[tuple[int, _T]]:
    """Decode and convert each raw item; an item the typed records cannot take is read by ``plain`` alone.

    ``plain`` gets ``{"kind": "<kind>List", "items": [item]}`` (or the object
    itself, for a document of one) and its problems are moved to the item's own
    path, so they are the plain reader's own messages.

    ``weigh`` counts what an item keeps (taints, resource amounts, labels), typed
    or plain; more than :data:`MAX_KEPT_VALUES` in all is refused at the item
    that passes it, before it is converted.

    Returns:
        (index, record) of every item that gives one, in order.

    Raises:
        InputError: every problem the plain reader finds, in the items' order,
            or the list keeps too much.
    """
    typed = enabled("TYPED_READER")
    out: list[tuple[int, _T]] = []
    problems: list[Problem] = []
    kept = 0

    def keep(value: object, i: int) -> None:
        nonlocal kept
        kept += weigh(value)
        if kept > MAX_KEPT_VALUES:
            where = f"{prefix}[{i}]" if prefix else f"(the {kind})"
            raise _problem(
                source,
                f"the {kind}s up to this one hold more than {MAX_KEPT_VALUES:,} "
                "taints, resource amounts and labels in all, the most t2gen reads; "
                "pass only the nodes the job can use (`kubectl get nodes -l KEY=VALUE -o json`) "
                "and the pods bound to them",
                where,
            )

    judged = unjudged = first_unjudged = 0
    for i, raw in enumerate(items):
        if typed:
            try:
                decoded = decode(raw)
                keep(decoded, i)
                record = convert(decoded)
            except (msgspec.DecodeError, RecursionError, Untyped):
                pass
            else:
                if record is not None:
                    out.append((i, record))
                continue
        if judged >= MAX_REPORTED_ITEMS:
            unjudged += 1  # counted, not read: the error is certain, its messages many
            if unjudged == 1:
                first_unjudged = i
            continue
        judged += 1
        text = bytes(raw).decode("utf-8-sig")
        item = load_document(text, source)  # json, or the bounded YAML reader
        if not typed:
            keep(item, i)
        try:
            records = plain(
                {"kind": f"{kind}List", "items": [item]} if prefix else item
            )
        except InputError as err:
            problems += [_moved(p, prefix, i) for p in err.problems]
        else:
            out += [(i, r) for r in records]
    if unjudged:  # the judged items are at most MAX_REPORTED_ITEMS: none dropped here
        problems.append(more_items(source, kind, unjudged, first_unjudged))
    if problems:
        raise InputError(problems=problems)
    return out


def _moved(problem: Problem, prefix: str, index: int) -> Problem:
    """``problem`` of a list of one, at item ``index`` of the whole list.

    A problem the YAML reader placed by line and column in the item's own text
    is placed at the item instead (the item's offset in the file is not known).
    """
    where = problem.json_path
    if prefix and where.startswith("items[0]"):
        where = f"items[{index}]" + where[len("items[0]") :]
    elif problem.line and prefix:
        return Problem(problem.path, 0, 0, problem.message, f"items[{index}]")
    return Problem(problem.path, problem.line, problem.col, problem.message, where)


class _Kind(msgspec.Struct, gc=False):
    kind: Any = msgspec.UNSET


_KIND = msgspec.json.Decoder(_Kind)


def _one_other_kind(raws: Sequence[Any], kind: str) -> object:
    """The one kind every item of a list names, if it is not ``kind`` (as ``parse_nodes`` judges a list); else None."""
    kinds = set()
    for raw in raws:
        try:
            found = _KIND.decode(raw).kind
        except (msgspec.DecodeError, RecursionError):
            continue  # not a map: the plain reader counts only maps
        found = kind if found is msgspec.UNSET else found
        try:
            kinds.add(found)
        except TypeError:  # an unhashable kind is no name
            return None
        if len(kinds) > 1:
            return None
    if len(raws) > 1 and len(kinds) == 1 and kind not in kinds:
        return next(iter(kinds))
    return None


_BYTE = re.compile(r"\(byte (\d+)\)")


def _not_json(view: memoryview, source: str, err: BaseException) -> InputError:
    """The problem of a large list that is not JSON, at the ``line:col`` msgspec names."""
    if isinstance(err, RecursionError):
        return InputError(
            problems=[
                Problem(
                    source,
                    0,
                    0,
                    "lists or mappings nested deeper than the JSON reader reads "
                    "(kubectl writes a node or pod list about 15 levels deep)",
                )
            ]
        )
    message = str(err)
    line = col = 0
    at = _BYTE.search(message)
    if at is not None:
        offset = min(int(at.group(1)), len(view))
        before = bytes(view[:offset])
        line = before.count(b"\n") + 1
        col = len(before) - (before.rfind(b"\n") + 1) + 1
    return InputError(
        problems=[
            Problem(
                source,
                line,
                col,
                f"not JSON ({message}); a list over {PLAIN_MAX_BYTES // (1024 * 1024)} MiB "
                "is read as JSON only: pass the output of `kubectl get ... -o json`",
            )
        ]
    )


def _large(
    view: memoryview, source: str, kind: str, command: str
) -> tuple[str, list[Any]]:
    """:func:`_raw_items` of a large list, which must be UTF-8 JSON."""
    text = utf8_view(view)
    if text is None:
        plain_document(bytes(view[: _utf8_end(view)]) + b"\xff", source)
        raise AssertionError("unreachable: plain_document refused the bytes")
    return _raw_items(text, source, kind, command)


def _utf8_end(view: memoryview) -> int:
    """The offset of the first byte of ``view`` that is not UTF-8 (``len(view)`` if none), read in 1 MiB pieces."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    piece = 1 << 20
    for start in range(0, len(view), piece):
        pending = len(decoder.getstate()[0])
        try:
            decoder.decode(view[start : start + piece])
        except UnicodeDecodeError as err:
            return start - pending + err.start
    return len(view)


def _large_nodes(
    view: memoryview, source: str, keys: tuple[str, ...] | None
) -> tuple[Node, ...]:
    """The nodes of a list over ``PLAIN_MAX_BYTES``, read item by item within its bounds."""
    prefix, raws = _large(view, source, "Node", _NODES)
    if not raws:
        parse_nodes({"kind": "NodeList", "items": []}, source, keys)
    reader = NodeReader(keys)
    decoder = node_item_decoder(keys)
    try:
        found = _one_by_one(
            raws,
            prefix,
            decoder.decode,
            reader.node,
            lambda document: parse_nodes(document, source, keys),
            "Node",
            source,
            _node_weight,
        )
    except InputError:
        other = _one_other_kind(raws, "Node") if prefix else None
        if other is None:
            raise
        # parse_nodes' one message for a whole list of another kind
        parse_nodes({"kind": "List", "items": [{"kind": other}] * 2}, source, keys)
        raise
    first: dict[str, int] = {}
    problems = []
    for i, node in found:
        if node.name in first:
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    f"node {node.name} is listed twice",
                    f"{prefix}[{i}].metadata.name" if prefix else "metadata.name",
                )
            )
        first.setdefault(node.name, i)
    if problems:
        raise InputError(problems=reported(problems, source, "Node"))
    return tuple(node for _, node in found)


def _large_pods(view: memoryview, source: str) -> tuple[ExistingPod, ...]:
    """The bound pods of a list over ``PLAIN_MAX_BYTES``, read item by item within its bounds."""
    prefix, raws = _large(view, source, "Pod", _PODS)
    reader = PodReader()
    found = _one_by_one(
        raws,
        prefix,
        POD_ITEM_DECODER.decode,
        reader.pod,
        lambda document: parse_pods(document, source),
        "Pod",
        source,
        _pod_weight,
    )
    return tuple(pod for _, pod in found)


def _unmapped(read: Callable[..., _T], view: memoryview, *args: Any) -> _T:
    """``read(view, *args)``; an error it raises keeps no frame of it alive.

    Raw items are views of the mapped file, and the file cannot be unmapped while
    one lives: an error's traceback would hold them in its frames.
    """
    error: T2genError | None = None
    try:
        return read(view, *args)
    except T2genError as err:
        error = err.with_traceback(None)
        error.__context__ = None
    raise error


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
        InputError: not a node list, or malformed nodes; every problem at once.
    """
    try:
        return _read_nodes(path, label_keys)
    except InputError as err:
        raise with_positions(err, path) from None


def _read_nodes(path: str, label_keys: Collection[str] | None) -> tuple[Node, ...]:
    keys = None if label_keys is None else tuple(sorted(set(label_keys)))
    document: object = None
    with _no_cycle_collection():
        with list_contents(path) as view:
            if len(view) > PLAIN_MAX_BYTES:
                return _unmapped(_large_nodes, view, path, keys)
            typed = _decode(view, node_decoder(keys))
            if typed is None:
                document = plain_document(bytes(view), path)
        if typed is not None:  # the file is unmapped: only the typed records remain
            nodes = typed_nodes(typed, keys)
            if nodes is not None:
                return nodes
            document = msgspec.to_builtins(typed)
        return parse_nodes(document, path, keys)


def read_pods(path: str) -> tuple[ExistingPod, ...]:
    """Read ``kubectl get pods -A -o json`` (or ``-o yaml``) from a file.

    Args:
        path: the file, as the user named it (``--pods FILE``; ``-``: stdin).

    Returns:
        The pods that hold node resources, as :func:`parse_pods` makes them.

    Raises:
        ConfigError: missing, unreadable or not UTF-8.
        InputError: not a pod list, or a pod with a malformed quantity.
    """
    try:
        return _read_pods(path)
    except InputError as err:
        raise with_positions(err, path) from None


def _read_pods(path: str) -> tuple[ExistingPod, ...]:
    document: object = None
    with _no_cycle_collection():
        with list_contents(path) as view:
            if len(view) > PLAIN_MAX_BYTES:
                return _unmapped(_large_pods, view, path)
            typed = _decode(view, POD_DECODER)
            if typed is None:
                document = plain_document(bytes(view), path)
        if typed is not None:
            pods = typed_pods(typed)
            if pods is not None:
                return pods
            document = msgspec.to_builtins(typed)
        return parse_pods(document, path)
