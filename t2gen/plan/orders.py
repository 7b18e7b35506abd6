"""The orders in which the job's pods reach kube-scheduler's queue, as the StatefulSet controller makes them.

``kubectl apply`` creates the StatefulSets one after another, but their pods are
created by the StatefulSet controller, whose workers sync different
StatefulSets at the same time (``--concurrent-statefulset-syncs``, 5 by
default; one StatefulSet is never synced by two workers at once, as its key is
in one workqueue). Within one StatefulSet (``pkg/controller/statefulset/stateful_set_control.go``,
kubernetes/kubernetes):

* ``OrderedReady`` (``monotonic``): ``runForAll`` creates pod *k+1* only once pod
  *k* is Running and Ready, so its pods enter the queue one at a time, by
  ordinal, seconds apart, and the other StatefulSets' pods come in between;
* ``Parallel``: ``runForAll`` hands the pods to ``slowStartBatch(1, ...)``:
  batches of 1, 2, 4, ... pods (at most ``MaxBatchSize`` 500), each batch's
  pods created together by goroutines (so in any order within the batch), the
  next batch when the last has returned; the other StatefulSets' workers create
  theirs meanwhile.

The scheduler's queue (``PrioritySort``) takes a higher priority first, and
pods of equal priority in the order they arrived. So any interleaving of the
StatefulSets' pods can reach the queue. A StatefulSet's pods are alike, so an
order is a sequence of StatefulSets (which one's next pod comes next); the
ordinals follow in each StatefulSet's own order (for ``Parallel``, the pods of
one batch may swap names). :func:`queue_orders` lists them all when there are
few, else every order that takes the StatefulSets one after another and a
seeded sample of interleavings, at most ``most``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable, Iterator, Mapping, Sequence

from t2gen.record import Record

__all__ = [
    "QueueOrders",
    "creation_batch",
    "order_text",
    "queue_orders",
    "strands_when",
]

MAX_BATCH_SIZE = 500
"""``MaxBatchSize`` of ``pkg/controller/statefulset/stateful_set_control.go``."""

Order = tuple[tuple[int, int], ...]


class QueueOrders(Record):
    """Orders of the job's pods in the scheduler's queue.

    Attributes:
        orders: each a sequence of (StatefulSet index, ordinal).
        possible: how many distinct orders there are (as sequences of StatefulSets).
        blocks: how many of ``orders`` (the first ones) take the StatefulSets one
            after another, each one's pods together.
    """

    orders: tuple[Order, ...]
    possible: int
    blocks: int


def creation_batch(ordinal: int) -> tuple[int, int]:
    """The ordinals ``slowStartBatch`` creates together with ``ordinal`` (first, last).

    Batches of 1, 2, 4, ... pods, at most :data:`MAX_BATCH_SIZE`.
    """
    first, size = 0, 1
    while ordinal >= first + size:
        first += size
        size = min(2 * size, MAX_BATCH_SIZE)
    return first, first + size - 1


def _levels(replicas: Sequence[int], priorities: Mapping[int, int]) -> list[list[int]]:
    """The StatefulSets grouped by priority, highest first (``PrioritySort``)."""
    by: dict[int, list[int]] = {}
    for a in range(len(replicas)):
        by.setdefault(priorities.get(a, 0), []).append(a)
    return [by[p] for p in sorted(by, reverse=True)]


def _number(members: Sequence[int], replicas: Sequence[int]) -> int:
    """Distinct sequences of one level: the multinomial coefficient."""
    total, out = 0, 1
    for a in members:
        total += replicas[a]
        out *= math.comb(total, replicas[a])
    return out


def _named(sequence: Sequence[int]) -> Order:
    """Ordinals in each StatefulSet's own order."""
    seen: dict[int, int] = {}
    out = []
    for a in sequence:
        out.append((a, seen.get(a, 0)))
        seen[a] = seen.get(a, 0) + 1
    return tuple(out)


def _interleavings(counts: dict[int, int]) -> Iterator[tuple[int, ...]]:
    """Every distinct sequence with ``counts[a]`` times each ``a`` (multiset permutations)."""
    left = sum(counts.values())
    if not left:
        yield ()
        return
    for a in sorted(counts):
        if counts[a]:
            counts[a] -= 1
            for rest in _interleavings(counts):
                yield (a, *rest)
            counts[a] += 1


def queue_orders(
    replicas: Sequence[int], priorities: Mapping[int, int], most: int, seed: int = 0
) -> QueueOrders:
    """The queue orders to simulate, at most ``most``.

    Args:
        replicas: pods per StatefulSet, in creation order.
        priorities: StatefulSet index to its pods' priority (0 when absent).
        most: the bound on orders (at least 1).
        seed: of the sample of interleavings, when not all are listed.

    Returns:
        All orders when there are at most ``most``; else first the orders that take
        the StatefulSets one after another (creation order first), then distinct
        random interleavings, up to ``most``.
    """
    levels = _levels(replicas, priorities)
    possible = math.prod(_number(level, replicas) for level in levels)
    if possible <= most:
        per_level = [
            list(_interleavings({a: replicas[a] for a in level})) for level in levels
        ]
        orders = [
            _named([a for part in parts for a in part])
            for parts in itertools.product(*per_level)
        ]
        unique = list(
            dict.fromkeys(
                _named([a for level in perm for a in level for _ in range(replicas[a])])
                for perm in itertools.product(
                    *(itertools.permutations(x) for x in levels)
                )
            )
        )
        listed = set(unique)
        rest = [o for o in orders if o not in listed]
        return QueueOrders(tuple(unique + rest), possible, len(unique))
    chosen: dict[Order, None] = {}
    for perm in itertools.product(*(itertools.permutations(x) for x in levels)):
        if len(chosen) >= most:
            break
        sequence = [a for level in perm for a in level for _ in range(replicas[a])]
        chosen[_named(sequence)] = None
    block_count = len(chosen)
    rng = random.Random(seed)
    pools = [[a for a in level for _ in range(replicas[a])] for level in levels]
    tries = 0
    while len(chosen) < most and tries < 8 * most:
        tries += 1
        sequence = []
        for pool in pools:
            shuffled = list(pool)
            rng.shuffle(shuffled)
            sequence += shuffled
        chosen.setdefault(_named(sequence), None)
    return QueueOrders(tuple(chosen), possible, block_count)


def order_text(order: Order, names: Sequence[str], most: int = 6) -> str:
    """An order for people: runs of one StatefulSet, ``sim-0 x2, sim-1, sim-0``."""
    runs: list[list[int]] = []
    for a, _ in order:
        if runs and runs[-1][0] == a:
            runs[-1][1] += 1
        else:
            runs.append([a, 1])
    parts = [names[a] + (f" x{n}" if n > 1 else "") for a, n in runs]
    shown = ", ".join(parts[:most])
    return shown + (
        f", ... ({len(parts) - most} more runs)" if len(parts) > most else ""
    )


def _first(order: Order, a: int) -> int:
    return next((i for i, (b, _) in enumerate(order) if b == a), len(order))


def _last(order: Order, a: int) -> int:
    return max((i for i, (b, _) in enumerate(order) if b == a), default=-1)


def strands_when(
    orders: Sequence[Order], strands: Sequence[bool], names: Sequence[str]
) -> str:
    """Under which queue orders a pod is stranded, in words, from the orders simulated.

    Tries, for each pair of StatefulSets A and B, whether the stranding orders are
    exactly those where every pod of A comes before every pod of B, where A's first
    pod comes before B's, or all but those where every pod of B comes before A's;
    else names one order that strands and one that does not.

    Args:
        orders: the orders simulated.
        strands: per order, whether it stranded a pod.
        names: the StatefulSets' names.

    Returns:
        ``in every order``, ``only when ...``, ``unless ...`` or ``in some orders ...``.
    """
    if all(strands):
        return "in every order"
    present = sorted({a for order in orders for a, _ in order})
    tests: tuple[tuple[Callable[[Order, int, int], bool], str], ...] = (
        (
            lambda o, a, b: _last(o, a) < _first(o, b),
            "only when every pod of {a} is queued before every pod of {b}",
        ),
        (
            lambda o, a, b: _first(o, a) < _first(o, b),
            "when the first pod of {a} is queued before the first pod of {b}",
        ),
        (
            lambda o, a, b: not _last(o, b) < _first(o, a),
            "unless every pod of {b} is queued before every pod of {a}",
        ),
    )
    for test, words in tests:
        for a, b in itertools.permutations(present, 2):
            if all(test(o, a, b) == s for o, s in zip(orders, strands, strict=True)):
                return words.format(a=names[a], b=names[b])
    bad = next(o for o, s in zip(orders, strands, strict=True) if s)
    good = next(o for o, s in zip(orders, strands, strict=True) if not s)
    return (
        f"in some orders, not in others: it strands when the pods are queued as "
        f"{order_text(bad, names)}, not as {order_text(good, names)}"
    )
