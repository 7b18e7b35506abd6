"""Node and pod lists over 2 MiB, read item by item within bounds measured before anything is built.

A list larger than :data:`~t2gen.inputs.kubelist.PLAIN_MAX_BYTES` (2 MiB) is read
item by item, within bounds measured before anything is built: one pass of the
decoder takes the items as raw JSON (:class:`msgspec.Raw`, a view of the file) into
a record of :data:`~t2gen.inputs.kubelist.MAX_LIST_ITEMS` + 1 slots, and skips, without
building them, any items past those (so a list of millions of tiny items is refused
at the cost of reading its bytes); each item of at most
:data:`~t2gen.inputs.kubelist.MAX_OBJECT_BYTES` is then decoded and turned into its
record on its own. An item the typed records cannot take is read by the plain
reader alone (``json``, then YAML), as a list of one, so its messages are the plain
reader's, at the item's own JSON path. A large list must be JSON: one that is not is
refused at the decoder's ``line:col`` (``json`` of the whole would build some 20 times
its bytes in objects, and the YAML reader reads 4 µs a value).

Bounds (:mod:`t2gen.inputs.kubelist`): :data:`~t2gen.inputs.kubelist.MAX_LIST_ITEMS`
items, :data:`~t2gen.inputs.kubelist.MAX_OBJECT_BYTES` an item,
:data:`~t2gen.plan.itemreader.MAX_KEPT_VALUES` taints, resource amounts and labels in all, and the problems of
:data:`~t2gen.plan.listproblems.MAX_REPORTED_PROBLEMS` problems reported. Errors:
:class:`~t2gen.errors.InputError` (a list that is not UTF-8:
:class:`~t2gen.errors.ConfigError`, as the plain reader says it).
"""

from __future__ import annotations

import codecs
import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar

import msgspec

from t2gen.errors import InputError, Problem, T2genError
from t2gen.inputs.kubelist import (
    MAX_LIST_ITEMS,
    MAX_OBJECT_BYTES,
    PLAIN_MAX_BYTES,
    list_items,
    plain_document,
    too_many,
    utf8_view,
)
from t2gen.plan.itemreader import (
    item_problem,
    node_weight,
    one_by_one,
    one_other_kind,
    pod_weight,
)
from t2gen.plan.listproblems import item_index, reported
from t2gen.plan.nodes import Node, parse_nodes
from t2gen.plan.pods import ExistingPod, parse_pods
from t2gen.plan.typedpods import POD_ITEM_DECODER, PodReader
from t2gen.plan.typedrecords import NodeReader, node_item_decoder

__all__ = ["large_nodes", "large_pods"]

_T = TypeVar("_T")

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
            raise item_problem(source, _too_big(len(view), kind), "(the " + kind + ")")
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
                raise item_problem(source, _too_big(len(raw), kind), f"items[{i}]")
        return "items", list(raws[:count])
    list_items({"kind": "" if found is msgspec.UNSET else found}, kind, command, source)
    raise AssertionError("unreachable: list_items refused the stand-in")


def _too_big(size: int, kind: str) -> str:
    return (
        f"is a {kind} of {size:,} bytes; the API server stores no object over "
        f"{MAX_OBJECT_BYTES // 1024} KiB (etcd's request limit), so this is not what "
        "kubectl printed"
    )


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
        line, col = _line_col(view, min(int(at.group(1)), len(view)))
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


def _line_col(view: memoryview, offset: int) -> tuple[int, int]:
    """The 1-based line and column (in bytes) of byte ``offset``, read in 1 MiB pieces (no copy of the whole)."""
    piece = 1 << 20
    lines, start = 0, 0  # start: the offset where the line of ``offset`` begins
    for begin in range(0, offset, piece):
        chunk = bytes(view[begin : min(offset, begin + piece)])
        found = chunk.count(b"\n")
        if found:
            lines += found
            start = begin + chunk.rfind(b"\n") + 1
    return lines + 1, offset - start + 1


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
    found, problems, unread = one_by_one(
        raws,
        prefix,
        decoder.decode,
        reader.node,
        lambda document: parse_nodes(document, source, keys),
        "Node",
        source,
        node_weight,
    )
    if problems or unread[0]:
        other = one_other_kind(raws, "Node") if prefix else None
        if (
            other is not None
        ):  # parse_nodes' one message for a whole list of another kind
            parse_nodes({"kind": "List", "items": [{"kind": other}] * 2}, source, keys)
    first: set[str] = set()
    for (
        i,
        node,
    ) in found:  # as parse_nodes: a name seen before, beside the other problems
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
        first.add(node.name)
    if problems or unread[0]:
        problems.sort(key=lambda p: item_index(p) or 0)  # stable: each item's in order
        raise InputError(problems=reported(problems, source, "Node", unread))
    return tuple(node for _, node in found)


def _large_pods(view: memoryview, source: str) -> tuple[ExistingPod, ...]:
    """The bound pods of a list over ``PLAIN_MAX_BYTES``, read item by item within its bounds."""
    prefix, raws = _large(view, source, "Pod", _PODS)
    reader = PodReader()
    found, problems, unread = one_by_one(
        raws,
        prefix,
        POD_ITEM_DECODER.decode,
        reader.pod,
        lambda document: parse_pods(document, source),
        "Pod",
        source,
        pod_weight,
    )
    if problems or unread[0]:
        raise InputError(problems=reported(problems, source, "Pod", unread))
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


def large_nodes(
    view: memoryview, source: str, keys: tuple[str, ...] | None
) -> tuple[Node, ...]:
    """The nodes of a list over ``PLAIN_MAX_BYTES`` (``view``: the mapped file), read item by item.

    Args:
        view: the list's bytes.
        source: the file as the user named it, for messages.
        keys: the node labels to keep (None: all).

    Raises:
        InputError: a bound passed, not JSON, or the plain reader's problems of its items.
        ConfigError: not UTF-8.
    """
    return _unmapped(_large_nodes, view, source, keys)


def large_pods(view: memoryview, source: str) -> tuple[ExistingPod, ...]:
    """The bound pods of a list over ``PLAIN_MAX_BYTES`` (``view``: the mapped file), read item by item.

    Raises:
        InputError: a bound passed, not JSON, or the plain reader's problems of its items.
        ConfigError: not UTF-8.
    """
    return _unmapped(_large_pods, view, source)
