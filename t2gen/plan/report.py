"""The verdict of ``t2gen plan --nodes`` for people and scripts: reasons, table, JSON.

Reasons name nodes and numbers; the table has one row per StatefulSet, the
rejected nodes grouped by filter, the placement and the notes; ``-o json`` has
the same facts with integer amounts (cpu in millicores, memory in bytes).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from t2gen.plan.admission import admission_dict, admission_lines
from t2gen.plan.filters.interpod import anti_affinity_name
from t2gen.plan.nodes import Node
from t2gen.plan.quantities import MEMORY, Resources, format_cpu, format_resource
from t2gen.plan.result import FilterRejection, NodeAssignment, PlanResult
from t2gen.plan.simulate import SchedulerVerdict
from t2gen.plan.templates import WorkloadTemplate
from t2gen.plan.text import aligned

__all__ = ["SHOWN_REJECTIONS", "count_noun", "format_plan", "plan_to_dict", "shortfall"]

SHOWN_REJECTIONS = 12
"""Rejected nodes listed per StatefulSet in the table; the rest are counted by filter."""
# Which rejections a one-line reason shows first: nodes that failed only on room
# (they passed every node-level filter), then taints, cordons, and last the nodes
# the pod does not select at all.
_EXAMPLE_ORDER = {
    "TaintToleration": 1,
    "NodeUnschedulable": 2,
    "NodeName": 3,
    "NodeAffinity": 3,
}


def count_noun(number: int, noun: str) -> str:
    """Return ``1 pod`` or ``3 pods``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _by_filter(rejections: Sequence[FilterRejection]) -> str:
    counts: dict[str, int] = {}
    for r in rejections:
        counts[r.filter] = counts.get(r.filter, 0) + 1
    return ", ".join(
        f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def shortfall(
    t: WorkloadTemplate,
    placed: int,
    passing: list[int],
    rejections: list[FilterRejection],
    alone: int,
    self_anti: bool,
    skipped: int,
    templates: Sequence[WorkloadTemplate],
    others: set[int],
    nodes: Sequence[Node],
) -> str:
    """The reason a template's pods do not all fit, with nodes and numbers.

    Args:
        t: the template.
        placed: its pods the placement holds.
        passing: indices of the nodes that pass every filter for it.
        rejections: the other nodes, with the first filter that fails.
        alone: how many of its pods the passing nodes hold on their own.
        self_anti: its anti-affinity allows one of its pods per node.
        skipped: passing nodes left out because they hold a pod it excludes.
        templates: the job's templates.
        others: indices of the other templates its anti-affinity excludes.
        nodes: the nodes.
    """
    if not passing:
        telling = sorted(rejections, key=lambda r: _EXAMPLE_ORDER.get(r.filter, 0))
        examples = "; ".join(str(r) for r in telling[:3])
        more = f" (rejected by {_by_filter(rejections)})" if rejections else ""
        return f"{t.name}: no node passes every filter for its {t.replicas} pods{more}: {examples}"
    if self_anti:
        text = (
            f"{t.name}: {anti_affinity_name(t)} needs {t.replicas} nodes (one pod each), "
            f"but only {len(passing)} pass every filter"
        )
        if len(passing) <= 8:
            text += f" ({', '.join(nodes[i].name for i in passing)})"
        if skipped:
            shared = ", ".join(sorted(templates[b].name for b in others))
            text += f"; {skipped} of them already hold a pod of {shared}"
        return text + f"; {placed} placed"
    if alone >= t.replicas:
        return (
            f"{t.name}: {placed} of {t.replicas} pods placed; the {len(passing)} nodes that pass "
            f"every filter hold {alone} on their own, but other StatefulSets of the job took the room"
        )
    return (
        f"{t.name}: room for only {alone} of {t.replicas} pods on the {len(passing)} nodes "
        f"that pass every filter (each pod needs {_per_pod(t)})"
    )


def _per_pod(t: WorkloadTemplate) -> str:
    return _amounts(
        t.requests, t.exclusive_cores, memory=" memory", cores_noun="exclusive cores"
    )


def _amounts(r: Resources, cores: int, *, memory: str, cores_noun: str) -> str:
    """One pod's requests for a message: cpu, memory, extended resources, pinned cores."""
    parts = [
        f"{format_cpu(r.cpu_millis)} cpu",
        f"{format_resource(MEMORY, r.memory_bytes)}{memory}",
    ]
    parts += [f"{format_resource(k, v)} {k}" for k, v in r.extended if v]
    if cores:
        parts.append(f"{cores} {cores_noun}")
    return ", ".join(parts)


def _pods_text(r: Resources, cores: int) -> str:
    return _amounts(r, cores, memory="", cores_noun="pinned")


def _ranges(assignments: Sequence[NodeAssignment]) -> str:
    out = []
    for x in assignments:
        if x.pods == 1:
            out.append(f"{x.statefulset}-{x.first_ordinal}")
        else:
            out.append(
                f"{x.statefulset}-{x.first_ordinal}..{x.first_ordinal + x.pods - 1}"
            )
    return ", ".join(out)


_BOUND = (
    "the bound on the simulation's work: the StatefulSets one after another, then a "
    "seeded sample of interleavings"
)


def _possible(verdict: SchedulerVerdict) -> str:
    return f"{verdict.possible:,}" if verdict.possible < 10**12 else "more than 10^12"


def _scheduler_lines(result: PlanResult) -> list[str]:
    """The verdict of kube-scheduler's one-pod-at-a-time loop, per queue order."""
    verdict = result.scheduler
    if verdict is None or not verdict.simulated:
        return []
    stranded = verdict.stranded
    capped = verdict.orders < verdict.possible
    if stranded is None:
        if capped:
            each = (
                "the one queue order"
                if verdict.orders == 1
                else f"each of the {verdict.orders} queue orders"
            )
            return [
                "the default scheduler, placing one pod at a time, placed every pod in "
                f"{each} simulated, of the "
                f"{_possible(verdict)} the StatefulSet controller can produce ({_BOUND})"
            ]
        return [
            "the default scheduler, placing one pod at a time, placed every pod in "
            "every queue order the StatefulSet controller can produce (all "
            f"{verdict.possible} simulated)"
        ]
    simulated = (
        f"in the {verdict.orders} of {_possible(verdict)} queue orders simulated; {_BOUND}"
        if capped
        else f"all {verdict.possible} queue orders simulated"
    )
    lines = [
        f"fits, but the default scheduler strands pod {stranded.pod} {verdict.when} "
        f"({simulated}): {stranded.reason}"
    ]
    if verdict.tie_orders:
        lines.append(
            f"  in {verdict.tie_orders} of those orders only with some tie-breaks "
            "between equal nodes (the scheduler breaks ties at random)"
        )
    lines += [f"  way out: {way}" for way in verdict.ways_out]
    return lines


def format_plan(result: PlanResult, *, max_rejections: int = SHOWN_REJECTIONS) -> str:
    """Return the plan as a table for people.

    Args:
        result: from :func:`plan`.
        max_rejections: rejected nodes listed per StatefulSet; the rest are counted by filter.

    Returns:
        The text, ending in a newline: verdict and reasons, one row per
        StatefulSet, the rejected nodes, the placement and the notes.
    """
    lines = admission_lines(result.admission) if result.admission else []
    if result.feasible:
        used = len({x.node for x in result.placement})
        lines.append(
            f"feasible: all {result.pods} pods fit at once, on {used} of {result.nodes} nodes"
        )
        lines += _scheduler_lines(result)
    else:
        placed = sum(x.pods for x in result.placement)
        lines.append(
            f"infeasible: {placed} of {result.pods} pods fit at once on {result.nodes} nodes"
        )
        lines += [f"  - {reason}" for reason in result.reasons]
    lines.append("")
    header = (
        "STATEFULSET",
        "PODS",
        "PER POD",
        "CONSTRAINT",
        "NODES PASSING",
        "ROOM",
        "PLACED",
    )
    rows = [
        (
            g.statefulset,
            str(g.replicas),
            _pods_text(g.per_pod, g.exclusive_cores),
            g.constraint,
            f"{len(g.passing)}/{result.nodes}",
            str(g.room),
            str(g.placed),
        )
        for g in result.groups
    ]
    lines += aligned([header, *rows])
    for g in result.groups:
        if not g.rejections:
            continue
        lines.append("")
        lines.append(
            f"{g.statefulset}: {len(g.rejections)} nodes rejected ({_by_filter(g.rejections)})"
        )
        for r in g.rejections[:max_rejections]:
            lines.append(f"  {r}")
        if len(g.rejections) > max_rejections:
            lines.append(f"  ... and {len(g.rejections) - max_rejections} more")
    if result.placement:
        lines.append("")
        lines.append(
            "placement (one that passes every filter; the scheduler may choose other nodes):"
        )
        per_node: dict[str, list[NodeAssignment]] = {}
        for x in result.placement:
            per_node.setdefault(x.node, []).append(x)
        width = max(len(name) for name in per_node)
        for name, items in per_node.items():
            lines.append(f"  {name.ljust(width)}  {_ranges(items)}")
    if result.gangs:
        lines.append("")
        for gang in result.gangs:
            lines.append(
                f"gang {gang.name}: {gang.placed} of {gang.pods} pods fit at once "
                f"(minimum {gang.min_member}): {', '.join(gang.statefulsets)}"
            )
    if result.notes:
        lines.append("")
        lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def plan_to_dict(result: PlanResult) -> dict[str, Any]:
    """Return the plan as a JSON-able dict (for ``-o json``).

    Amounts are integers: cpu in millicores, memory in bytes. The placement
    lists, per node, pod name ranges by StatefulSet.
    """
    return {
        "feasible": result.feasible,
        "reasons": list(result.reasons),
        "nodes": result.nodes,
        "pods": result.pods,
        "statefulSets": [
            {
                "name": g.statefulset,
                "replicas": g.replicas,
                "perPod": g.per_pod.to_dict(),
                "exclusiveCores": g.exclusive_cores,
                "constraint": g.constraint,
                "passing": list(g.passing),
                "rejected": [
                    {"node": r.node, "filter": r.filter, "message": r.message}
                    for r in g.rejections
                ],
                "room": g.room,
                "placed": g.placed,
            }
            for g in result.groups
        ],
        "placement": [
            {
                "node": x.node,
                "statefulSet": x.statefulset,
                "firstOrdinal": x.first_ordinal,
                "pods": x.pods,
            }
            for x in result.placement
        ],
        "gangs": [
            {
                "name": g.name,
                "statefulSets": list(g.statefulsets),
                "pods": g.pods,
                "minMember": g.min_member,
                "placed": g.placed,
            }
            for g in result.gangs
        ],
        "scheduler": _scheduler_dict(result),
        "admission": admission_dict(result.admission) if result.admission else None,
        "notes": list(result.notes),
    }


def _scheduler_dict(result: PlanResult) -> dict[str, Any] | None:
    """The one-pod-at-a-time verdict for ``-o json`` (null when not simulated)."""
    verdict = result.scheduler
    if verdict is None or not verdict.simulated:
        return None
    stranded = verdict.stranded
    return {
        "mayStrand": verdict.may_strand,
        "orders": verdict.orders,
        "possibleOrders": verdict.possible,
        "strandingOrders": verdict.stranding_orders,
        "tieDependentOrders": verdict.tie_orders,
        "strandsWhen": verdict.when or None,
        "stranded": None
        if stranded is None
        else {
            "pod": stranded.pod,
            "statefulSet": stranded.statefulset,
            "reason": stranded.reason,
            "blockedBy": list(stranded.blockers),
        },
        "waysOut": list(verdict.ways_out),
    }
