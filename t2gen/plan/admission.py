"""Will the job be admitted? ``plan --quota``: LimitRanges, ResourceQuotas, Kueue and Volcano queues.

``plan --nodes`` answers whether the pods fit on the nodes; before that, the
API server must create them and a gang scheduler's queue must let them in.
This module runs, over the rendered job's pods:

1. :mod:`t2gen.plan.limitranger`: defaults and LimitRange limits, per StatefulSet
   (its pods are alike: one refused, all refused);
2. :mod:`t2gen.plan.resourcequota`: every ResourceQuota of the namespace, pod by
   pod in the order ``kubectl apply`` creates them (the StatefulSets in the
   order t2gen prints them, each pod by ordinal);
3. :mod:`t2gen.plan.queues`: the Kueue ClusterQueue behind the pods'
   LocalQueue, or the Volcano Queue of their PodGroup, for the job as one unit.

Quota admission does not depend on the creation order as a yes or no: each
pod adds to ``used``, so the whole job fits a quota in every order or no
order. Which pod is refused first does depend on it (the StatefulSet
controller syncs StatefulSets concurrently), so the verdict names the
first refused pod of the creation order, and says when the job as a whole
exceeds the quota.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.plan.limitranger import PodShape, admit_limits, pod_shapes
from t2gen.plan.queues import (
    QUEUE_LABEL,
    QueueCheck,
    check_kueue,
    check_volcano,
    cluster_capacity,
)
from t2gen.plan.quotarecords import QuotaObjects
from t2gen.plan.resourcequota import QuotaRun, check_pods, pod_requests
from t2gen.record import Record

__all__ = [
    "NOT_PLACED",
    "AdmissionVerdict",
    "admission",
    "admission_dict",
    "admission_lines",
    "admission_only_dict",
    "format_admission_only",
]

_VOLCANO_GROUP = "scheduling.k8s.io/group-name"
_VOLCANO_TASK = "volcano.sh/task-spec"


class AdmissionVerdict(Record):
    """Whether the API server creates every pod of the job, and its queue admits it.

    Attributes:
        admitted: every pod is created and every queue admits the job.
        namespace: the namespace whose LimitRanges and ResourceQuotas apply.
        pods: the job's pods.
        refused: per StatefulSet the LimitRange (or validation) refuses: (name, reasons).
        quota: the ResourceQuotas over the pods LimitRanger admits.
        queues: the Kueue and Volcano queue checks.
        defaulted: what LimitRanges set on containers that lacked it.
    """

    admitted: bool
    namespace: str
    pods: int
    refused: tuple[tuple[str, tuple[str, ...]], ...]
    quota: QuotaRun
    queues: tuple[QueueCheck, ...]
    defaulted: tuple[str, ...] = ()


def _add(into: dict[str, int], amounts: Mapping[str, int], times: int = 1) -> None:
    for k, v in amounts.items():
        into[k] = into.get(k, 0) + v * times


def _volcano_gang(
    shapes: Sequence[PodShape], group: Mapping[str, Any]
) -> dict[str, int]:
    """The requests of the pods a Volcano PodGroup needs at once (``minTaskMember``, else ``minMember``)."""
    raw = group.get("spec")
    spec: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    raw = spec.get("minTaskMember")
    tasks: Mapping[str, Any] = raw if isinstance(raw, Mapping) else {}
    total: dict[str, int] = {}
    if tasks:
        for shape in shapes:
            wanted = tasks.get(shape.annotations.get(_VOLCANO_TASK, ""), 0)
            if isinstance(wanted, int):
                _add(total, pod_requests(shape), min(wanted, shape.replicas))
        return total
    pods = sorted(
        (pod_requests(s) for s in shapes for _ in range(s.replicas)),
        key=lambda r: (r.get("cpu", 0), r.get("memory", 0)),
    )
    minimum = spec.get("minMember")
    count = (
        minimum if isinstance(minimum, int) and 0 < minimum < len(pods) else len(pods)
    )
    for r in pods[:count]:  # the cheapest that make the minimum: a lower bound
        _add(total, r)
    return total


def admission(
    objects: Sequence[Mapping[str, Any]],
    quota: QuotaObjects,
    namespace: str,
    allocatable: Sequence[Mapping[str, int]] = (),
    *,
    nodes_known: bool = True,
) -> AdmissionVerdict:
    """Check the rendered job against the quota objects.

    Args:
        objects: the rendered objects.
        quota: from :func:`t2gen.plan.quotaread.read_quota`.
        namespace: where the job runs (StatefulSets that name one keep theirs).
        allocatable: each node's allocatable (for a Volcano queue's realCapability).
        nodes_known: False when no node list was given (``plan --quota`` without
            ``--nodes``): a Volcano queue is then judged by its capability alone.

    Returns:
        The verdict.

    Raises:
        ValueError: a request or limit that is not a quantity.
    """
    shapes = []
    refused = []
    defaulted: dict[str, None] = {}
    for shape in pod_shapes(objects, namespace):
        limited, errors = admit_limits(shape, quota.limit_ranges)
        defaulted.update(dict.fromkeys(limited.defaulted))
        if errors:
            refused.append((shape.statefulset, tuple(errors)))
        else:
            shapes.append(limited)
    run = check_pods(shapes, quota.resource_quotas)
    queues = []
    kueue = {s.labels[QUEUE_LABEL] for s in shapes if s.labels.get(QUEUE_LABEL)}
    for name in sorted(kueue):
        total: dict[str, int] = {}
        members = [s for s in shapes if s.labels.get(QUEUE_LABEL) == name]
        for s in members:
            _add(total, pod_requests(s), s.replicas)
        # The supervisor Job is a workload of its own in the queue (Kueue makes one
        # Workload per batch/v1 Job): both must be admitted for a supervised run.
        jobs = [s.statefulset for s in members if s.kind == "Job" and s.replicas]
        what = "the pod group as one workload" + (
            f" and Job {', '.join(jobs)} as another" if jobs else ""
        )
        queues.append(check_kueue(name, members[0].namespace, total, quota, what=what))
    for obj in objects:
        if obj.get("kind") != "PodGroup" or not str(
            obj.get("apiVersion", "")
        ).startswith("scheduling.volcano.sh/"):
            continue
        name = str((obj.get("metadata") or {}).get("name") or "")
        members = [
            s
            for s in shapes
            if name in (s.labels.get(_VOLCANO_GROUP), s.annotations.get(_VOLCANO_GROUP))
            and s.scheduler == "volcano"
        ]
        if members:
            queue = str((obj.get("spec") or {}).get("queue") or "default")
            queues.append(
                check_volcano(
                    queue,
                    _volcano_gang(members, obj),
                    cluster_capacity(allocatable) if nodes_known else None,
                    quota,
                )
            )
    total_pods = sum(s.replicas for s in pod_shapes(objects, namespace))
    return AdmissionVerdict(
        admitted=not refused
        and run.refusal is None
        and all(q.admitted for q in queues),
        namespace=namespace,
        pods=total_pods,
        refused=tuple(refused),
        quota=run,
        queues=tuple(queues),
        defaulted=tuple(defaulted),
    )


def _where(v: AdmissionVerdict) -> str:
    return (
        f"namespace {v.namespace}"
        if v.namespace
        else "the namespace kubectl applies to"
    )


def admission_lines(v: AdmissionVerdict) -> list[str]:
    """The verdict for people: ``admitted: ...`` or ``not admitted: ...`` and its details."""
    run = v.quota
    lines = []
    if v.refused:
        name, reasons = v.refused[0]
        lines.append(
            f"not admitted: the API server refuses every pod of {name} in {_where(v)}: {reasons[0]}"
        )
        lines += [f"  also: {r}" for r in reasons[1:]]
        lines += [f"  also {other}: {rs[0]}" for other, rs in v.refused[1:]]
    if run.refusal is not None:
        r = run.refusal
        lines.append(
            f"{'not admitted' if not lines else '  and'}: ResourceQuota {r.quota} ({_where(v)}) admits "
            f"{run.before} of the job's {v.pods} pods, then refuses {run.refused_text}: {r.reason}"
        )
        lines.append(f"  the API server says: {r.message}")
        waits = (
            "the Twister2 job master waits for the rest"
            if run.refused_pod
            else "the job runs without its supervisor until the Job controller's retry "
            "finds room (no deadline, no outcome kept)"
        )
        lines.append(
            f"  a refused pod is no Pending pod: it shows only as a FailedCreate event on "
            f"{run.refused_owner}, which retries it; {run.admitted} of the {v.pods} pods are "
            f"admitted in all, and {waits}"
        )
        if run.whole_job:
            lines.append(
                "  in every order the StatefulSet controller creates the pods: together they exceed the "
                "quota (which pod is refused first depends on that order; this is kubectl's creation order)"
            )
    for q in v.queues:
        if not q.admitted:
            head = "not admitted" if not lines else "  and"
            lines.append(f"{head}: {q.kind} {q.name}: {q.reason}")
    if not lines:
        matched = (
            f"ResourceQuota {', '.join(run.matched)} ({_where(v)}) admits all {v.pods} pods"
            + (f" ({'; '.join(run.after)} after them)" if run.after else "")
            if run.matched
            else f"no ResourceQuota of {_where(v)} counts the job's pods"
        )
        lines.append(f"admitted: {matched}")
        lines += [f"  {q.kind} {q.name}: {q.reason}" for q in v.queues]
    elif v.queues:
        lines += [f"  {q.kind} {q.name}: {q.reason}" for q in v.queues if q.admitted]
    if run.unsynced:
        lines.append(
            f"  ResourceQuota {', '.join(run.unsynced)} has no status for every resource it "
            "tracks yet: until the quota controller computes it (seconds after it is created "
            "or changed) the API server refuses the pods it counts (status unknown for "
            "quota); checked against spec.hard, with nothing used"
        )
    if v.defaulted:
        lines.append(
            "  LimitRange defaults counted on containers that set none: "
            + ", ".join(v.defaulted)
        )
    return lines


def admission_dict(v: AdmissionVerdict) -> dict[str, Any]:
    """The verdict for ``-o json``."""
    run = v.quota
    return {
        "admitted": v.admitted,
        "namespace": v.namespace,
        "pods": v.pods,
        "limitRangeRefusals": [
            {"statefulSet": n, "reasons": list(r)} for n, r in v.refused
        ],
        "resourceQuota": {
            "matched": list(run.matched),
            "admittedBeforeRefusal": run.before,
            "admitted": run.admitted,
            "refused": None
            if run.refusal is None
            else {
                "pod": run.refused_pod or None,
                "owner": run.refused_owner,
                "quota": run.refusal.quota,
                "namespace": run.refusal.namespace,
                "reason": run.refusal.reason,
                "message": run.refusal.message,
                "inEveryOrder": run.whole_job,
            },
        },
        "queues": [
            {"kind": q.kind, "name": q.name, "admitted": q.admitted, "reason": q.reason}
            for q in v.queues
        ],
        "limitRangeDefaults": list(v.defaulted),
    }


NOT_PLACED = (
    "placement not judged: no --nodes, so whether the pods fit the nodes (their free cpu, "
    "memory and pods, taints, affinity, the job's uniform mapping) and whether the scheduler "
    "finds that fit were not checked; give --nodes (kubectl get nodes -o json) to judge them"
)
"""What ``plan --quota`` without ``--nodes`` says it did not do."""


def format_admission_only(v: AdmissionVerdict) -> str:
    """``plan --quota`` without ``--nodes``, for people: the admission verdict and :data:`NOT_PLACED`."""
    return "\n".join([*admission_lines(v), NOT_PLACED]) + "\n"


def admission_only_dict(v: AdmissionVerdict) -> dict[str, Any]:
    """``plan --quota`` without ``--nodes`` for ``-o json``: the keys of ``--nodes``'s output.

    ``feasible`` and ``nodes`` are null (not judged), the placement's lists
    empty, ``admission`` the verdict (:func:`admission_dict`), and ``notes``
    :data:`NOT_PLACED`, so a script reads ``.admission.admitted`` either way.
    """
    return {
        "feasible": None,
        "reasons": [],
        "nodes": None,
        "pods": v.pods,
        "statefulSets": [],
        "placement": [],
        "gangs": [],
        "scheduler": None,
        "admission": admission_dict(v),
        "notes": [NOT_PLACED],
    }
