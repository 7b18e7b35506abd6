"""One item of a large node or pod list at a time: decoded, weighed, converted, or judged by the plain reader alone.

:func:`one_by_one` is the loop :mod:`t2gen.plan.largelists` runs over a list's raw
items (views of the mapped file): each is decoded into its typed record
(:mod:`t2gen.plan.typedrecords`, :mod:`t2gen.plan.typedpods`) and turned into a
:class:`~t2gen.plan.nodes.Node` or :class:`~t2gen.plan.pods.ExistingPod`; what it
keeps (taints, resource amounts, labels) counts against :data:`MAX_KEPT_VALUES`; an
item the typed records refuse is read by the plain reader alone, as a list of one,
so its messages are the plain reader's, at the item's own JSON path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import msgspec

from t2gen.errors import InputError, Problem
from t2gen.fastpaths import enabled
from t2gen.inputs.kubelist import load_document
from t2gen.plan.listproblems import MAX_REPORTED_PROBLEMS
from t2gen.plan.typedrecords import Untyped

__all__ = [
    "MAX_KEPT_VALUES",
    "item_problem",
    "node_weight",
    "one_by_one",
    "one_other_kind",
    "pod_weight",
]

_T = TypeVar("_T")

MAX_KEPT_VALUES = 200_000
"""The most taints, resource amounts and labels a large node or pod list may hold in
all (each item counted as it is read; of a pod, every value of its containers'
and its own resources and of its affinity). Reading and placing one costs some 5 µs and
150 bytes, so this keeps a list within the budget of docs/untrusted-input.md; a
cluster of 9,000 cloud nodes (the byte bound) holds about 150,000 (seven resources
in allocatable, seven in capacity, a few taints and selected labels a node)."""


def _size(value: object) -> int:
    """How many entries a decoded map or list holds (0 for anything else or absent)."""
    return len(value) if isinstance(value, (dict, list)) else 0


def node_weight(item: Any) -> int:
    """What a node item keeps: its taints and resource amounts (typed record or plain map).

    The same count either way, so ``T2GEN_NO_TYPED_READER`` changes no verdict.
    (Of the labels, the typed records keep only those the job's pods select on.)
    """
    spec, status = _get(item, "spec"), _get(item, "status")
    return (
        1
        + _size(_get(spec, "taints"))
        + _size(_get(status, "allocatable"))
        + _size(_get(status, "capacity"))
    )


def _leaves(value: object) -> int:
    """How many values a decoded JSON value holds, containers and scalars alike (1 for a scalar)."""
    count, stack = 0, [value]
    while stack:
        top = stack.pop()
        count += 1
        if isinstance(top, dict):
            stack.extend(top.values())
        elif isinstance(top, list):
            stack.extend(top)
    return count


def _get(value: Any, name: str) -> Any:
    """Field ``name`` of a plain map or a typed record (None if absent, or of anything else)."""
    if isinstance(value, dict):
        return value.get(name)
    if not isinstance(value, msgspec.Struct):
        return None
    found = getattr(value, name, None)
    return None if found is msgspec.UNSET else found


def pod_weight(item: Any) -> int:
    """What a pod item keeps (typed record or plain map, counted alike).

    Its labels, and every value of its containers' resources, its own resources
    and overhead, and its affinity.
    """
    meta, spec = _get(item, "metadata"), _get(item, "spec")
    weight = 1 + _size(_get(meta, "labels"))
    for name in ("containers", "initContainers"):
        containers = _get(spec, name)
        if isinstance(containers, list):
            weight += sum(1 + _leaves(_get(c, "resources")) for c in containers)
    for name in ("resources", "overhead", "affinity"):
        part = _get(spec, name)
        if part:
            weight += _leaves(part)
    return weight


def item_problem(source: str, message: str, where: str) -> InputError:
    """One problem of a list, at JSON path ``where``."""
    return InputError(problems=[Problem(source, 0, 0, message, where)])


def one_by_one(
    items: Sequence[Any],
    prefix: str,
    decode: Callable[[Any], Any],
    convert: Callable[[Any], _T | None],
    plain: Callable[[object], tuple[_T, ...]],
    kind: str,
    source: str,
    weigh: Callable[[Any], int],
) -> tuple[list[tuple[int, _T]], list[Problem], tuple[int, int]]:
    """Decode and convert each raw item; an item the typed records cannot take is read by ``plain`` alone.

    ``plain`` gets ``{"kind": "<kind>List", "items": [item]}`` (or the object
    itself, for a document of one) and its problems are moved to the item's own
    path, so they are the plain reader's own messages.

    ``weigh`` counts what every item keeps (taints, resource amounts, labels),
    typed or plain alike; more than :data:`MAX_KEPT_VALUES` in all is refused at
    the item that passes it, before it is converted. Once
    :data:`~t2gen.plan.listproblems.MAX_REPORTED_PROBLEMS` problems are found,
    an item the typed records refuse is counted, not read.

    Returns:
        (index, record) of every item that gives one, in order; the problems
        found, in item order; and (count, first index) of the items counted, not
        read (for :func:`~t2gen.plan.listproblems.reported`).

    Raises:
        InputError: the list keeps too much.
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
            raise item_problem(
                source,
                f"the {kind}s up to this one hold more than {MAX_KEPT_VALUES:,} "
                "taints, resource amounts and labels in all, the most t2gen reads; "
                "pass only the nodes the job can use (`kubectl get nodes -l KEY=VALUE -o json`) "
                "and the pods bound to them",
                where,
            )

    unread = first_unread = 0
    for i, raw in enumerate(items):
        weighed = False
        if typed:
            try:
                decoded = decode(raw)
                keep(decoded, i)
                weighed = True
                record = convert(decoded)
            except (msgspec.DecodeError, RecursionError, Untyped):
                pass
            else:
                if record is not None:
                    out.append((i, record))
                continue
            if len(problems) >= MAX_REPORTED_PROBLEMS:
                # As many problems as are reported are found, and the typed records
                # refused this one: counted, not read (its error is certain).
                unread += 1
                if unread == 1:
                    first_unread = i
                continue
        try:
            text = bytes(raw).decode("utf-8-sig")
            item = load_document(text, source)  # json, or the bounded YAML reader
        except InputError as err:  # placed in the item's own text: moved to the item
            problems += [_moved(p, prefix, i) for p in err.problems]
            continue
        if not weighed:
            keep(item, i)
        try:
            records = plain(
                {"kind": f"{kind}List", "items": [item]} if prefix else item
            )
        except InputError as err:
            problems += [_moved(p, prefix, i) for p in err.problems]
        else:
            out += [(i, r) for r in records]
    return out, problems, (unread, first_unread)


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


def one_other_kind(raws: Sequence[Any], kind: str) -> object:
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
