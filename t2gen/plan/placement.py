"""Can a rendered job be scheduled on these nodes? One placement of every pod at once.

For every StatefulSet of the rendered job (:mod:`t2gen.plan.templates`) the
engine evaluates, once per node, the kube-scheduler filter plugins that t2gen's
output relies on, in the scheduler's order (:mod:`t2gen.plan.filters`), and
keeps the first that rejects each node.

Then it looks for one placement of every pod at once, which is what a gang
scheduler needs and what a Twister2 job needs anyway (the job master waits for
every worker). Pods of one StatefulSet are identical, so the search counts how
many fit on a node instead of trying pods one by one: the work is
O(StatefulSets x nodes), not O(pods x nodes). Inter-pod terms between the job's
own StatefulSets are handled as t2gen renders them
(:mod:`t2gen.plan.filters.interpod`): a self-selecting anti-affinity term allows
one selected pod per node, and an affinity term puts every pod it links on one node.

The search is greedy (most constrained StatefulSet first, nodes wanted by the
fewest StatefulSets first). An "infeasible" caused by one StatefulSet alone is
certain; one that arises only from StatefulSets competing for the same nodes
says so (:mod:`t2gen.plan.report` words the reasons).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.plan.components import place_component
from t2gen.plan.filters import node_rejection
from t2gen.plan.filters.interpod import (
    blocked_by_running,
    constraint,
    job_relations,
)
from t2gen.plan.filters.resources import (
    free_resources,
    lacking,
    room_for,
    take,
)
from t2gen.plan.nodes import Node, not_ready_note
from t2gen.plan.pods import ExistingPod
from t2gen.plan.report import count_noun, shortfall
from t2gen.plan.result import (
    FilterRejection,
    GangReport,
    GroupReport,
    NodeAssignment,
    PlanResult,
)
from t2gen.plan.simulate import scheduler_verdict
from t2gen.plan.templates import (
    WorkloadTemplate,
    min_members,
    priority_values,
    workload_templates,
)
from t2gen.record import replace

__all__ = ["plan", "plan_templates"]


def plan(
    objects: Sequence[Mapping[str, Any]],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod] = (),
    *,
    namespace: str | None = None,
    gang: bool = False,
    simulate_scheduler: bool = True,
) -> PlanResult:
    """Predict whether the rendered job's pods can all be scheduled on ``nodes`` at once.

    Args:
        objects: the rendered objects (``t2gen render`` output, parsed); the
            StatefulSets are planned, PodGroups give gangs their ``minMember``.
        nodes: from :func:`t2gen.plan.nodes.parse_nodes`.
        pods: running pods (:func:`t2gen.plan.pods.parse_pods`); their requests
            are subtracted from allocatable and their labels meet inter-pod terms.
        namespace: the namespace the job will run in, for StatefulSets without
            one; None matches running pods of every namespace.
        gang: treat the whole job as one gang (all pods or none).
        simulate_scheduler: when the job fits, also run kube-scheduler's
            one-pod-at-a-time loop (:mod:`t2gen.plan.simulate`).

    Returns:
        The verdict, the per-StatefulSet filter reports and one placement.

    Raises:
        InputError: the objects hold no StatefulSet, or malformed requests.
    """
    templates = workload_templates(objects)
    return plan_templates(
        templates,
        nodes,
        pods,
        namespace=namespace,
        gang=gang,
        min_members=min_members(objects),
        priority_classes=priority_values(objects),
        simulate_scheduler=simulate_scheduler,
    )


def plan_templates(
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod] = (),
    *,
    namespace: str | None = None,
    gang: bool = False,
    min_members: Mapping[str, int] | None = None,
    priority_classes: Mapping[str, int] | None = None,
    simulate_scheduler: bool = True,
) -> PlanResult:
    """Plan already-reduced templates (see :func:`plan`, which reads rendered objects).

    Args:
        templates: from :func:`workload_templates`.
        nodes: the nodes.
        pods: running pods.
        namespace: namespace for templates without one (None: any).
        gang: treat every template as one gang.
        min_members: ``minMember`` per gang name, where a PodGroup sets it.
        priority_classes: ``value`` per PriorityClass name, where the objects hold one.
        simulate_scheduler: when the job fits, also run kube-scheduler's loop.

    Returns:
        The plan.
    """
    if namespace is not None:
        templates = [
            t if t.namespace else replace(t, namespace=namespace) for t in templates
        ]
    n = len(nodes)
    state = free_resources(nodes, pods)
    notes: list[str] = [x for x in (not_ready_note(nodes),) if x]
    by_node = {node.name: i for i, node in enumerate(nodes)}
    pods_on: dict[int, list[ExistingPod]] = {}
    for pod in pods:
        if pod.node_name in by_node:
            pods_on.setdefault(by_node[pod.node_name], []).append(pod)

    # Inter-pod relations among the job's own templates (hostname topology only).
    count = len(templates)
    relations = job_relations(templates, pods_on)
    conflicts = relations.conflicts
    linked = relations.linked()
    if relations.other_keys:
        notes.append(
            "inter-pod terms with topology keys other than kubernetes.io/hostname are not evaluated: "
            + ", ".join(sorted(relations.other_keys))
        )

    # Filters per template, once per node. The node-level filters read only a node's
    # labels, taints, cordon and Ready condition (and its name, for nodeName and
    # matchFields): nodes alike in those get one verdict per template.
    # The key is of plain tuples: a Taint record hashes and compares by building
    # its fields' tuple on every call (20,000 tainted nodes: 320,000 calls, issue 41).
    kinds = [
        (
            node.unschedulable,
            tuple((t.key, t.value, t.effect) for t in node.taints),
            node.ready,
            tuple(sorted(node.labels.items())),
        )
        for node in nodes
    ]
    reports_passing: list[list[int]] = []
    reports_rejections: list[list[FilterRejection]] = []
    alone_room: list[int] = []
    for a, t in enumerate(templates):
        passing: list[int] = []
        rejections: list[FilterRejection] = []
        blocked = blocked_by_running(t, pods_on)
        only = relations.required_nodes.get(a)
        cap = 1 if a in conflicts[a] else t.replicas
        room = 0
        by_name = t.node_name is not None or any(
            r.field for term in t.node_affinity or () for r in term
        )
        verdicts: dict[object, tuple[str, str] | None] = {}
        for i, node in enumerate(nodes):
            if by_name:
                verdict = node_rejection(t, node)
            else:
                kind = kinds[i]
                if kind in verdicts:
                    verdict = verdicts[kind]
                else:
                    verdict = verdicts[kind] = node_rejection(t, node)
            if verdict is None:
                k = room_for(t, state, i, cap)
                if k < 1:
                    verdict = lacking(t, state, i)
            if verdict is None and a in relations.impossible:
                verdict = ("InterPodAffinity", relations.impossible[a])
            if verdict is None and only is not None and i not in only:
                verdict = (
                    "InterPodAffinity",
                    "no running pod here matches the pod's podAffinity",
                )
            if verdict is None and i in blocked:
                verdict = ("InterPodAffinity", blocked[i])
            if verdict is None:
                passing.append(i)
                room += k
            else:
                rejections.append(FilterRejection(node.name, verdict[0], verdict[1]))
        reports_passing.append(passing)
        reports_rejections.append(rejections)
        alone_room.append(room)

    demand = [0] * n
    for passing in reports_passing:
        for i in passing:
            demand[i] += 1

    placed = [0] * count
    assignments: list[tuple[int, int, NodeAssignment]] = []
    reasons: list[str] = []

    def put(a: int, i: int, k: int) -> None:
        t = templates[a]
        take(state, t, a, i, k)
        assignments.append((i, a, NodeAssignment(nodes[i].name, t.name, placed[a], k)))
        placed[a] += k

    # 1. podAffinity components: every pod of the component on one node.
    for members in relations.components:
        reasons.extend(
            place_component(
                members, templates, nodes, state, reports_passing, conflicts, put
            )
        )

    # 2. The other templates, most constrained first.
    order = sorted(
        (a for a in range(count) if a not in linked),
        key=lambda a: (len(reports_passing[a]), -templates[a].requests.cpu_millis, a),
    )
    competed = False
    for a in order:
        t = templates[a]
        self_anti = a in conflicts[a]
        others = conflicts[a] - {a}
        remaining = t.replicas
        skipped_for_others = 0
        for i in sorted(reports_passing[a], key=lambda i: (demand[i], i)):
            if remaining == 0:
                break
            hosted = state.hosted[i]
            if others and hosted is not None and hosted & others:
                skipped_for_others += 1
                continue
            k = room_for(t, state, i, 1 if self_anti else remaining)
            if k:
                put(a, i, k)
                remaining -= k
        if remaining:
            reasons.append(
                shortfall(
                    t,
                    placed[a],
                    reports_passing[a],
                    reports_rejections[a],
                    alone_room[a],
                    self_anti,
                    skipped_for_others,
                    templates,
                    others,
                    nodes,
                )
            )
            if alone_room[a] >= t.replicas:
                competed = True
    if competed:
        notes.append(
            "the placement is a greedy search: where StatefulSets compete for the same nodes, "
            "another arrangement may still fit"
        )

    # Gangs.
    gang_members: dict[str, list[int]] = {}
    for a, t in enumerate(templates):
        # --gang: every pod of the job, not the supervisor's (its Job is no member)
        key = ("job" if t.kind == "StatefulSet" else None) if gang else t.gang
        if key is not None:
            gang_members.setdefault(key, []).append(a)
    gang_reports = []
    for name, members in gang_members.items():
        total = sum(templates[a].replicas for a in members)
        fit = sum(placed[a] for a in members)
        minimum = (min_members or {}).get(name, total)
        gang_reports.append(
            GangReport(
                name, tuple(templates[a].name for a in members), total, minimum, fit
            )
        )
        if fit < minimum:
            reasons.append(
                f"gang {name}: only {fit} of the {minimum} pods that must start together fit at once, "
                f"so the gang scheduler starts none of them ({', '.join(templates[a].name for a in members)})"
            )

    total_pods = sum(t.replicas for t in templates)
    feasible = sum(placed) == total_pods
    if not feasible and not gang_reports:
        reasons.append(
            f"without a gang scheduler the pods that fit start and "
            f"{count_noun(total_pods - sum(placed), 'pod')} "
            f"{'stays' if total_pods - sum(placed) == 1 else 'stay'} Pending; "
            "the Twister2 job master waits for every worker"
        )
    if any(t.exclusive_cores for t in templates):
        notes.append(
            "bound workers get exclusive cores only on nodes whose kubelet runs "
            "--cpu-manager-policy=static, which a node list does not show"
        )
    if any(
        t.guaranteed and not t.exclusive_cores and t.requests.cpu_millis
        for t in templates
    ):
        notes.append(
            "Guaranteed pods with fractional cpu run in the shared pool (no exclusive cores)"
        )

    notes += _unread_constraints(templates)

    scheduler = None
    if feasible and simulate_scheduler and not gang_reports:
        scheduler = scheduler_verdict(
            templates, nodes, pods, reports_passing, relations, priority_classes or {}
        )
        if scheduler.note:
            notes.append(scheduler.note)

    assignments.sort(key=lambda x: (x[0], x[1], x[2].first_ordinal))
    reports = tuple(
        GroupReport(
            statefulset=t.name,
            replicas=t.replicas,
            per_pod=t.requests,
            exclusive_cores=t.exclusive_cores,
            constraint=constraint(t),
            passing=tuple(nodes[i].name for i in reports_passing[a]),
            rejections=tuple(reports_rejections[a]),
            room=alone_room[a],
            placed=placed[a],
        )
        for a, t in enumerate(templates)
    )
    return PlanResult(
        feasible=feasible,
        reasons=() if feasible else tuple(reasons),
        groups=reports,
        placement=tuple(x[2] for x in assignments),
        gangs=tuple(gang_reports),
        nodes=n,
        pods=total_pods,
        notes=tuple(notes),
        scheduler=scheduler,
    )


def _unread_constraints(templates: Sequence[WorkloadTemplate]) -> list[str]:
    """Notes on what changes scheduling but lies in objects a node list does not hold.

    A RuntimeClass adds its ``overhead`` to the pod's requests and its
    ``scheduling.nodeSelector`` and tolerations to the pod at admission
    (https://kubernetes.io/docs/concepts/containers/runtime-class/#scheduling);
    a PersistentVolumeClaim bound to a PersistentVolume with node affinity (a
    zonal disk, a local volume) restricts the pod to those nodes
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#node-affinity).
    ``plan`` reads neither object, so it says so.
    """
    notes = []
    classes = sorted({t.runtime_class for t in templates if t.runtime_class})
    if classes:
        notes.append(
            f"RuntimeClass {', '.join(classes)}: its overhead and node selector are added at admission "
            "and are not counted here; give the group a nodeSelector matching the RuntimeClass's"
        )
    claims = sorted({c for t in templates for c in t.claims})
    if claims:
        notes.append(
            f"PersistentVolumeClaim {', '.join(claims)}: a volume with node affinity (zonal or local) "
            "restricts the pods to its nodes, which a node list does not show"
        )
    return notes
