"""Can the default scheduler strand a pod of a job that fits? Under which queue orders?

:mod:`t2gen.plan.placement` asks whether one placement of every pod exists. The
default scheduler does not search for one: it places the pods one at a time and
never revisits a choice (:mod:`t2gen.plan.kubescheduler`, which cites the
kube-scheduler code it follows). A pod that takes the only node another pod
could use strands that pod even though a placement exists.

Which pod goes first is not fixed: the StatefulSet controller syncs the job's
StatefulSets concurrently, so their pods reach the scheduler's queue in any
interleaving (:mod:`t2gen.plan.orders`, which cites the controller).
:func:`simulate` runs the loop for each queue order (all of them when there
are few, else a bounded set), each with two tie-breaks (the first of equal
nodes, and a seeded random choice, as ``selectHost`` breaks ties at random),
and says under which orders a pod is stranded (``in every order``, ``only
when every pod of A is queued before every pod of B``, ...), not how often:
how often depends on timing the node list does not show. Then it looks for
ways out. The work is bounded (:data:`MAX_EVALUATIONS`, :data:`MAX_ORDERS`); a
job too large for it is reported as not simulated, and a bound that cut the
orders short is stated.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from t2gen.plan.filters.interpod import JobRelations
from t2gen.plan.kubescheduler import SchedulerLoop, Stranding, names, nodes_to_find
from t2gen.plan.nodes import Node
from t2gen.plan.orders import creation_batch, queue_orders, strands_when
from t2gen.plan.pods import ExistingPod
from t2gen.plan.templates import DEFAULT_SCHEDULER, WorkloadTemplate
from t2gen.record import Record, replace

__all__ = [
    "MAX_EVALUATIONS",
    "MAX_ORDERS",
    "TIE_BREAKS",
    "SchedulerVerdict",
    "Stranding",
    "scheduler_verdict",
    "simulate",
]

MAX_ORDERS = 48
"""Queue orders simulated at most; beyond, the orders that take the StatefulSets one
after another and a seeded sample of interleavings, and the verdict says so."""

TIE_BREAKS = 2
"""Runs per order: the first of equal nodes, then a seeded random choice."""

MAX_EVALUATIONS = 30_000
"""Nodes scored for one pod, summed over the pods and the runs: the simulation's bound.

It keeps ``t2gen plan`` of 20,000 nodes within its budget (``make bench``): a job
of about fifty pods is simulated on clusters up to about 5,000 nodes (more runs on
smaller ones), a job of a few hundred pods on a few hundred nodes."""


class SchedulerVerdict(Record):
    """What the default scheduler's one-pod-at-a-time loop did with the job, per queue order.

    Attributes:
        simulated: False when the loop was not run (see ``note``).
        orders: queue orders simulated.
        possible: queue orders the StatefulSet controller can produce (as
            sequences of StatefulSets); more than ``orders`` when the bound cut it.
        stranding_orders: orders in which some run stranded a pod.
        tie_orders: of those, orders in which only some tie-breaks stranded it.
        when: under which orders it strands, in words (:func:`strands_when`).
        stranded: the first stranded pod of the first such order.
        ways_out: what avoids it, each a sentence.
        note: why the loop was not run, or what it could not model.
    """

    simulated: bool
    orders: int = 0
    possible: int = 0
    stranding_orders: int = 0
    tie_orders: int = 0
    when: str = ""
    stranded: Stranding | None = None
    ways_out: tuple[str, ...] = ()
    note: str = ""

    @property
    def may_strand(self) -> bool:
        """True if some order stranded a pod."""
        return self.stranding_orders > 0


def simulate(
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod],
    passing: Sequence[Sequence[int]],
    relations: JobRelations,
    priorities: Mapping[int, int] | None = None,
) -> SchedulerVerdict:
    """Run kube-scheduler's one-pod-at-a-time loop over the job's pods, in every queue order.

    Args:
        templates: the job's templates (namespaces filled in), in creation order.
        nodes: the nodes.
        pods: the running pods.
        passing: per template, the nodes that pass the node-level filters and the
            running pods' inter-pod terms (:func:`t2gen.plan.placement.plan_templates`).
        relations: the inter-pod relations among the templates.
        priorities: template index to its pods' priority (0 when absent).

    Returns:
        The verdict; ``simulated`` False when not even one order fits
        :data:`MAX_EVALUATIONS`.
    """
    n = len(nodes)
    find = nodes_to_find(n)
    # Scoring dominates: each pod scores at most `find` of the nodes that pass its filters.
    per_run = sum(
        t.replicas * min(find, len(passing[a])) for a, t in enumerate(templates)
    )
    runs = MAX_EVALUATIONS // max(per_run, 1)
    if runs < 1:
        return SchedulerVerdict(
            simulated=False,
            note=(
                f"the default scheduler's one-pod-at-a-time placement was not simulated: "
                f"{sum(t.replicas for t in templates):,} pods on {n:,} nodes means scoring "
                f"about {per_run:,} nodes, more than the {MAX_EVALUATIONS:,} it is allowed"
            ),
        )
    ties = min(TIE_BREAKS, runs)
    priorities = priorities or {}
    plan = queue_orders(
        [t.replicas for t in templates],
        priorities,
        max(1, min(MAX_ORDERS, runs // ties)),
    )
    loop = SchedulerLoop(templates, nodes, pods, passing, relations, priorities)
    first: Stranding | None = None
    strands: list[bool] = []
    tie_orders = 0
    for k, order in enumerate(plan.orders):
        outcomes = []
        for run in range(ties):
            chooser = None if run == 0 else random.Random(k * TIE_BREAKS + run)
            stranded, why = loop.run(chooser, order)
            outcomes.append(bool(stranded))
            if stranded and first is None:
                first = _batch_note(templates, why)
        strands.append(any(outcomes))
        tie_orders += any(outcomes) and not all(outcomes)
    names = [t.name for t in templates]
    when = strands_when(plan.orders, strands, names) if any(strands) else ""
    ways = _ways_out(loop, first) if first is not None else []
    return SchedulerVerdict(
        simulated=True,
        orders=len(plan.orders),
        possible=plan.possible,
        stranding_orders=sum(strands),
        tie_orders=tie_orders,
        when=when,
        stranded=first,
        ways_out=tuple(ways),
    )


def _batch_note(
    templates: Sequence[WorkloadTemplate], why: Stranding | None
) -> Stranding | None:
    """Which pods a Parallel StatefulSet creates with the stranded one (they may swap names)."""
    if why is None:
        return None
    t = next(t for t in templates if t.name == why.statefulset)
    ordinal = int(why.pod.rsplit("-", 1)[1])
    low, high = creation_batch(ordinal)
    high = min(high, t.replicas - 1)
    if t.pod_management != "Parallel" or low == high:
        return why
    return replace(
        why,
        reason=f"{why.reason} (Parallel creates ordinals {low}-{high} of "
        f"{t.name} together, so the stranded pod may be another of them)",
    )


def _ways_out(loop: SchedulerLoop, stranding: Stranding) -> list[str]:
    """What avoids the stranding: another creation order, keeping the others off, a gang."""
    templates = loop.templates
    index = {t.name: a for a, t in enumerate(templates)}
    a = index[stranding.statefulset]
    ways = []
    # Its StatefulSet's pods first in the queue.
    reordered = sorted(loop.queue, key=lambda x: (x[0] != a,))
    if not loop.run(None, reordered)[0]:
        ways.append(
            f"{stranding.statefulset}'s pods first: with them queued before the others "
            "every pod finds a node; putting its worker group first in spec.workers (t2gen "
            "creates the StatefulSets in that order) makes that likelier, not certain, as "
            "the StatefulSet controller creates the StatefulSets' pods concurrently"
        )
    if stranding.blockers:
        needed = sorted(loop.allowed[a])
        shown = names([loop.nodes[i].name for i in needed])
        ways.append(
            f"keep {', '.join(stranding.blockers)} off the nodes "
            f"{stranding.statefulset} needs ({shown}): a nodeSelector or node affinity "
            "on their worker groups that those nodes do not match"
        )
    ways.append(
        "a gang scheduler (spec.scheduling.gang) binds no pod of the job until every pod "
        "has a node, so no pod holds a node while another is stranded"
    )
    return ways


def scheduler_verdict(
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod],
    passing: list[list[int]],
    relations: JobRelations,
    priority_classes: Mapping[str, int],
) -> SchedulerVerdict:
    """Simulate the default scheduler, when it is the one that places every pod.

    Args:
        templates: the job's templates (namespaces filled in), in creation order.
        nodes: the nodes.
        pods: the running pods.
        passing: per template, the nodes that pass its filters.
        relations: the inter-pod relations among the templates.
        priority_classes: ``value`` per PriorityClass name among the rendered objects.

    Returns:
        The verdict, with a note when it was not simulated or a priority is unknown.
    """
    others = sorted({t.scheduler_name for t in templates} - {DEFAULT_SCHEDULER})
    if others:
        return SchedulerVerdict(
            simulated=False,
            note=f"the pods go to {', '.join(others)}, not to the default scheduler: "
            "its one-pod-at-a-time placement was not simulated",
        )
    priorities = {}
    unknown = set()
    for a, t in enumerate(templates):
        if t.priority is not None:
            priorities[a] = t.priority
        elif t.priority_class is not None:
            if t.priority_class in priority_classes:
                priorities[a] = priority_classes[t.priority_class]
            else:
                unknown.add(t.priority_class)
    verdict = simulate(templates, nodes, pods, passing, relations, priorities)
    if unknown and len({t.priority_class for t in templates}) > 1:
        return replace(
            verdict,
            note=(
                f"PriorityClass {', '.join(sorted(unknown))} is not among the objects: "
                "the simulation took its pods' priority as 0"
            ),
        )
    return verdict
