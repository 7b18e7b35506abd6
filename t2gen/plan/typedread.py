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

A list larger than :data:`~t2gen.inputs.kubelist.PLAIN_MAX_BYTES` (2 MiB) is read item
by item, within bounds measured before anything is built (:mod:`t2gen.plan.largelists`).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Collection, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from t2gen.errors import InputError
from t2gen.fastpaths import enabled
from t2gen.inputs.kubelist import (
    PLAIN_MAX_BYTES,
    list_contents,
    plain_document,
    utf8_view,
    with_positions,
)
from t2gen.plan.largelists import large_nodes, large_pods
from t2gen.plan.nodes import Node, parse_nodes
from t2gen.plan.pods import ExistingPod, parse_pods
from t2gen.plan.typedpods import POD_DECODER, typed_pods
from t2gen.plan.typedrecords import node_decoder, typed_nodes

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
                return large_nodes(view, path, keys)
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
                return large_pods(view, path)
            typed = _decode(view, POD_DECODER)
            if typed is None:
                document = plain_document(bytes(view), path)
        if typed is not None:
            pods = typed_pods(typed)
            if pods is not None:
                return pods
            document = msgspec.to_builtins(typed)
        return parse_pods(document, path)
