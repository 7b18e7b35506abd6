"""Can the default scheduler strand a pod of a job that fits? The verdict of ``t2gen plan``.

:mod:`t2gen.plan.placement` asks whether one placement of every pod exists. The
default scheduler does not search for one: it places the pods one at a time and
never revisits a choice (:mod:`t2gen.plan.kubescheduler`, which cites the
kube-scheduler code it follows). A pod that takes the only node another pod
could use strands that pod even though a placement exists. :func:`simulate`
runs that loop several times with different tie-breaks (the scheduler breaks
ties between equal nodes at random), which is what "may strand" means: some of
the runs stranded a pod; then it looks for ways out. The work is bounded
(:data:`MAX_EVALUATIONS`); a job too large for it is reported as not simulated.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from t2gen.plan.filters.interpod import JobRelations
from t2gen.plan.kubescheduler import SchedulerLoop, Stranding, names, nodes_to_find
from t2gen.plan.nodes import Node
from t2gen.plan.pods import ExistingPod
from t2gen.plan.templates import DEFAULT_SCHEDULER, WorkloadTemplate
from t2gen.record import Record, replace

__all__ = [
    "MAX_EVALUATIONS",
    "SIMULATED_RUNS",
    "SchedulerVerdict",
    "Stranding",
    "scheduler_verdict",
    "simulate",
]

SIMULATED_RUNS = 4
"""Runs of the loop: the first takes the first of equal nodes, the others choose at random."""

MAX_EVALUATIONS = 30_000
"""Nodes scored for one pod, summed over the pods and the runs: the simulation's bound.

It keeps ``t2gen plan`` of 20,000 nodes within its budget (``make bench``): a job
of about fifty pods is simulated on clusters up to about 5,000 nodes (more runs on
smaller ones), a job of a few hundred pods on a few hundred nodes."""


class SchedulerVerdict(Record):
    """What the default scheduler's one-pod-at-a-time loop did with the job.

    Attributes:
        simulated: False when the loop was not run (see ``note``).
        runs: runs of the loop (different tie-breaks).
        stranded_runs: runs that left at least one pod without a node.
        stranded: the first stranded pod of the first such run.
        ways_out: what avoids it, each a sentence.
        note: why the loop was not run, or what it could not model.
    """

    simulated: bool
    runs: int = 0
    stranded_runs: int = 0
    stranded: Stranding | None = None
    ways_out: tuple[str, ...] = ()
    note: str = ""

    @property
    def may_strand(self) -> bool:
        """True if some run stranded a pod."""
        return self.stranded_runs > 0


def simulate(
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod],
    passing: Sequence[Sequence[int]],
    relations: JobRelations,
    priorities: Mapping[int, int] | None = None,
) -> SchedulerVerdict:
    """Run kube-scheduler's one-pod-at-a-time loop over the job's pods.

    Args:
        templates: the job's templates (namespaces filled in), in creation order.
        nodes: the nodes.
        pods: the running pods.
        passing: per template, the nodes that pass the node-level filters and the
            running pods' inter-pod terms (:func:`t2gen.plan.placement.plan_templates`).
        relations: the inter-pod relations among the templates.
        priorities: template index to its pods' priority (0 when absent).

    Returns:
        The verdict; ``simulated`` False when the work would exceed :data:`MAX_EVALUATIONS`.
    """
    n = len(nodes)
    find = nodes_to_find(n)
    # Scoring dominates: each pod scores at most `find` of the nodes that pass its filters.
    per_run = sum(
        t.replicas * min(find, len(passing[a])) for a, t in enumerate(templates)
    )
    runs = min(SIMULATED_RUNS, MAX_EVALUATIONS // max(per_run, 1))
    if runs < 1:
        return SchedulerVerdict(
            simulated=False,
            note=(
                f"the default scheduler's one-pod-at-a-time placement was not simulated: "
                f"{sum(t.replicas for t in templates):,} pods on {n:,} nodes means scoring "
                f"about {per_run:,} nodes, more than the {MAX_EVALUATIONS:,} it is allowed"
            ),
        )
    loop = SchedulerLoop(templates, nodes, pods, passing, relations, priorities or {})
    first: Stranding | None = None
    stranded_runs = 0
    for run in range(runs):
        chooser = None if run == 0 else random.Random(run)
        stranded, why = loop.run(chooser)
        if stranded:
            stranded_runs += 1
            first = first or why
    ways: list[str] = []
    if first is not None:
        ways = _ways_out(loop, first)
    return SchedulerVerdict(
        simulated=True,
        runs=runs,
        stranded_runs=stranded_runs,
        stranded=first,
        ways_out=tuple(ways),
    )


def _ways_out(loop: SchedulerLoop, stranding: Stranding) -> list[str]:
    """What avoids the stranding: another creation order, keeping the others off, a gang."""
    templates = loop.templates
    index = {t.name: a for a, t in enumerate(templates)}
    a = index[stranding.statefulset]
    ways = []
    # Its StatefulSet first in the queue (equal priorities keep creation order).
    reordered = sorted(loop.queue, key=lambda x: (x[0] != a,))
    if not loop.run(None, reordered)[0]:
        ways.append(
            f"create {stranding.statefulset} first: the scheduler queues pods of equal "
            "priority in creation order, and with its pods placed first every pod finds "
            "a node (put its worker group first in spec.workers, as t2gen creates the "
            "StatefulSets in that order, or give its pods a higher priorityClassName)"
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
