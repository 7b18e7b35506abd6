"""Queue orders as the StatefulSet controller makes them, and the verdict in words (issue 34, item 6).

On a recorded cluster ``plan`` said "may strand pod X (4 of 4 simulated runs)"
where a real kube-scheduler stranded it in 11 of 20 runs: the runs differ in
which StatefulSet's pods reach the queue first. The verdict now says under
which orders the pod strands, not how often.
"""

from __future__ import annotations

from t2gen.plan import Node, Resources, format_plan
from t2gen.plan.orders import creation_batch, order_text, queue_orders, strands_when
from t2gen.plan.placement import plan_templates
from t2gen.plan.simulate import MAX_ORDERS
from t2gen.plan.templates import WorkloadTemplate

GIB = 1 << 30


def test_every_interleaving_when_there_are_few() -> None:
    orders = queue_orders([2, 2, 1], {}, most=100)
    assert orders.possible == len(orders.orders) == 30  # 5! / (2! 2! 1!)
    assert orders.blocks == 6  # the StatefulSets one after another: 3!
    assert orders.orders[0] == (
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (2, 0),
    )  # creation order
    assert len(set(orders.orders)) == 30
    for order in orders.orders:  # each StatefulSet's own pods keep their ordinal order
        for a in range(3):
            assert [k for b, k in order if b == a] == list(range([2, 2, 1][a]))


def test_a_higher_priority_goes_first() -> None:
    orders = queue_orders([2, 2], {1: 100}, most=100)
    assert orders.possible == 1
    assert orders.orders == (((1, 0), (1, 1), (0, 0), (0, 1)),)


def test_a_bound_keeps_the_block_orders_and_samples_the_rest() -> None:
    orders = queue_orders([4, 4, 4, 1], {}, most=MAX_ORDERS)
    assert orders.possible == 450450  # 13! / (4! 4! 4! 1!)
    assert len(orders.orders) == MAX_ORDERS and orders.blocks == 24
    assert len(set(orders.orders)) == MAX_ORDERS
    assert orders == queue_orders(
        [4, 4, 4, 1], {}, most=MAX_ORDERS
    )  # seeded: stable output


def test_parallel_creation_batches() -> None:
    # slowStartBatch(1, ...): 1, 2, 4, 8 ... pods created together
    assert [creation_batch(k) for k in (0, 1, 2, 3, 6, 7)] == [
        (0, 0), (1, 2), (1, 2), (3, 6), (3, 6), (7, 14)
    ]  # fmt: skip
    assert creation_batch(1000) == (511, 1010)  # MaxBatchSize 500


def test_the_verdict_in_words() -> None:
    names = ["a", "b"]
    orders = queue_orders([1, 1], {}, most=10).orders  # (a, b), (b, a)
    assert strands_when(orders, [True, True], names) == "in every order"
    assert strands_when(orders, [True, False], names) == (
        "only when every pod of a is queued before every pod of b"
    )
    three = queue_orders([1, 1, 1], {}, most=10).orders
    odd = [k % 2 == 0 for k in range(len(three))]
    text = strands_when(three, odd, ["a", "b", "c"])
    assert text.startswith(
        "in some orders, not in others: it strands when the pods are queued as a, b, c"
    )
    assert order_text(((0, 0), (0, 1), (1, 0), (0, 2)), ["a", "b"]) == "a x2, b, a"


def _node(name: str, cpu: int, memory_gib: int) -> Node:
    return Node(
        name,
        {"kubernetes.io/hostname": name},
        (),
        False,
        Resources(cpu * 1000, memory_gib * GIB, 110),
    )


def test_a_large_pod_strands_only_when_both_small_ones_come_first() -> None:
    # No anti-affinity: three 3-cpu pods and one 6-cpu pod on two 6-cpu nodes. A
    # placement exists (the big pod alone on one node), but LeastAllocated spreads
    # the small pods: once one sits on each node the big pod has no room. With the
    # big pod between the two small ones, it takes the empty node.
    templates = [
        WorkloadTemplate(
            "job-0",
            "default",
            2,
            {"g": "0"},
            Resources(3000, GIB, 1),
            pod_management="Parallel",
        ),
        WorkloadTemplate(
            "job-1",
            "default",
            1,
            {"g": "1"},
            Resources(6000, GIB, 1),
            pod_management="Parallel",
        ),
    ]
    result = plan_templates(templates, [_node("n1", 6, 16), _node("n2", 6, 16)])
    verdict = result.scheduler
    assert result.feasible and verdict is not None
    assert (verdict.orders, verdict.possible) == (3, 3)
    assert (
        verdict.when
        == "only when every pod of job-0 is queued before every pod of job-1"
    )
    assert verdict.stranded is not None and verdict.stranded.pod == "job-1-0"
    assert (
        "strands pod job-1-0 only when every pod of job-0 is queued before every pod of job-1 (all 3 queue orders simulated)"
        in format_plan(result)
    )
