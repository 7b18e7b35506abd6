"""Queue quotas of gang schedulers: a Kueue ClusterQueue, a Volcano Queue.

Both admit the job as one unit, not pod by pod, and after the API server has
created its pods (each pod through the ResourceQuota plugin first).

* Kueue (kubernetes-sigs/kueue): pods labelled ``kueue.x-k8s.io/queue-name``
  name a LocalQueue of their namespace, which names a ClusterQueue. Kueue
  admits the pod group as one Workload when, for every resource group that
  covers a resource it requests, one flavor (tried in order) holds the whole
  request: ``usage + request <= nominalQuota``, plus what it may borrow from
  its cohort (at most ``borrowingLimit``, at most what the cohort's other
  ClusterQueues leave unused, at most their ``lendingLimit``)
  (``pkg/scheduler/flavorassigner/flavorassigner.go:1334``, ``fitsResourceQuota``,
  commit ff69552 of kubernetes-sigs/kueue; the fields: ``apis/kueue/v1beta1/clusterqueue_types.go``
  lines 65-79 resourceGroups and cohort, 235-259 nominalQuota, borrowingLimit and
  lendingLimit, 283-291 flavorsReservation and flavorsUsage).
  A requested resource no group covers makes the workload inadmissible. It
  counts requests, not limits; ``status.flavorsReservation`` is what the
  admitted workloads hold.
* Volcano (volcano-sh/volcano, commit ed72c7c, ``pkg/scheduler/plugins/proportion/proportion.go``):
  a PodGroup's ``spec.queue``; a Queue whose ``status.state`` is not Open takes
  no job (``queueAllocatable``, line 335); each task is allocated only while
  ``allocated + request`` stays within the queue's ``deserved`` share, which is at
  most its ``realCapability``: ``capability``, capped by the cluster's allocatable
  minus the other queues' ``guarantee`` plus its own (lines 120-138); a PodGroup
  without ``minResources`` is always enqueued (``AddJobEnqueueableFn``, line 404).
  The Queue's fields: ``staging/src/volcano.sh/apis/pkg/apis/scheduling/v1beta1/types.go``
  lines 394 (state), 422 (allocated), 469 (capability), 478 (guarantee), 496 (deserved). The gang
  plugin binds nothing until ``minMember`` tasks are allocated. ``plan`` checks
  the gang's minimum against ``realCapability``: beyond it the job never starts;
  within it, the deserved share (which depends on the other queues' demand)
  may still hold it back, which the verdict says.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.plan.quantities import exact_text
from t2gen.plan.quotarecords import ClusterQueue, LocalQueue, QuotaObjects, VolcanoQueue
from t2gen.record import Record

__all__ = ["QUEUE_LABEL", "QueueCheck", "check_kueue", "check_volcano"]

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


class QueueCheck(Record):
    """What one queue does with the job.

    Attributes:
        kind: ``Kueue ClusterQueue`` or ``Volcano Queue``.
        name: the queue's name.
        admitted: it admits the job (now, with the usage recorded).
        reason: in numbers: the flavor and resource that fit, or the one that does not.
    """

    kind: str
    name: str
    admitted: bool
    reason: str


def _amounts(amounts: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {exact_text(k, v)}" for k, v in sorted(amounts.items()) if v)


def _lendable(cq: ClusterQueue, flavor: str, resource: str) -> int:
    """What a ClusterQueue leaves its cohort of one flavor's resource: unused nominal, capped by lendingLimit."""
    for _, flavors in cq.groups:
        for f in flavors:
            if f.name == flavor and resource in f.nominal:
                unused = max(0, f.nominal[resource] - f.used.get(resource, 0))
                cap = f.lending.get(resource)
                return unused if cap is None else min(unused, cap)
    return 0


def check_kueue(
    queue_name: str,
    namespace: str,
    requests: Mapping[str, int],
    objects: QuotaObjects,
    *,
    what: str = "the pod group as one workload",
) -> QueueCheck:
    """Whether Kueue admits the job's pod group (and its supervisor Job) now.

    Args:
        queue_name: the pods' ``kueue.x-k8s.io/queue-name`` (a LocalQueue).
        namespace: the pods' namespace.
        requests: the whole job's requests (cpu in millicores), LimitRanges
            applied, the supervisor's pod included when its Job is in the queue.
        objects: what ``--quota`` holds.
        what: the workloads admitted, for the verdict.
    """
    local: LocalQueue | None = next(
        (
            q
            for q in objects.local_queues
            if q.name == queue_name and q.namespace == namespace
        ),
        None,
    )
    if local is None:
        return QueueCheck(
            "Kueue LocalQueue",
            queue_name,
            False,
            f"no LocalQueue {queue_name} in namespace {namespace or '(none)'} among the --quota objects: "
            "Kueue leaves the workload inadmissible until one exists",
        )
    cq = next(
        (q for q in objects.cluster_queues if q.name == local.cluster_queue), None
    )
    if cq is None:
        return QueueCheck(
            "Kueue ClusterQueue",
            local.cluster_queue,
            False,
            f"LocalQueue {queue_name} points to ClusterQueue {local.cluster_queue}, which is not among "
            "the --quota objects (pass `kubectl get clusterqueue -o json` too)",
        )
    cohort = [
        q
        for q in objects.cluster_queues
        if cq.cohort and q.cohort == cq.cohort and q.name != cq.name
    ]
    wanted = {k: v for k, v in requests.items() if v and k != "pods"} | {
        "pods": requests.get("pods", 0)
    }
    chosen: list[str] = []
    for resource in sorted(k for k, v in wanted.items() if v):
        if not any(resource in covered for covered, _ in cq.groups):
            if resource == "pods":
                continue  # counted only where a group covers it
            return QueueCheck(
                "Kueue ClusterQueue",
                cq.name,
                False,
                f"the job requests {resource}, which no resource group of ClusterQueue {cq.name} covers: "
                "Kueue does not admit the workload",
            )
    for covered, flavors in cq.groups:
        asked = {r: wanted[r] for r in covered if wanted.get(r)}
        if not asked:
            continue
        why = []
        for f in flavors:
            short = []
            for r, amount in sorted(asked.items()):
                nominal = f.nominal.get(r, 0)
                used = f.used.get(r, 0)
                borrow = 0
                if cohort:
                    borrow = sum(_lendable(q, f.name, r) for q in cohort)
                    cap = f.borrowing.get(r)
                    borrow = borrow if cap is None else min(borrow, cap)
                if used + amount > nominal + borrow:
                    extra = (
                        f" + {exact_text(r, borrow)} to borrow from cohort {cq.cohort}"
                        if cohort
                        else ""
                    )
                    short.append(
                        f"{r}: used {exact_text(r, used)} + {exact_text(r, amount)} > nominalQuota "
                        f"{exact_text(r, nominal)}{extra}"
                    )
            if not short:
                chosen.append(f"flavor {f.name} for {', '.join(sorted(asked))}")
                break
            why.append(f"flavor {f.name}: {'; '.join(short)}")
        else:
            return QueueCheck(
                "Kueue ClusterQueue",
                cq.name,
                False,
                f"no flavor holds the job's {_amounts(asked)}: {' | '.join(why)}",
            )
    return QueueCheck(
        "Kueue ClusterQueue",
        cq.name,
        True,
        f"admits {what} ({'; '.join(chosen)})",
    )


def check_volcano(
    queue_name: str,
    gang: Mapping[str, int],
    capacity: Mapping[str, int] | None,
    objects: QuotaObjects,
) -> QueueCheck:
    """Whether a Volcano Queue can hold the gang's minimum.

    Args:
        queue_name: the PodGroup's ``spec.queue`` (``default`` when unset).
        gang: the requests of the pods that must start together (cpu in millicores).
        capacity: the cluster's allocatable, summed over the nodes; None when no
            node list was given: the queue's capability alone is checked, and
            the reason says so.
        objects: what ``--quota`` holds.
    """
    queue: VolcanoQueue | None = next(
        (q for q in objects.volcano_queues if q.name == queue_name), None
    )
    if queue is None:
        return QueueCheck(
            "Volcano Queue",
            queue_name,
            False,
            f"no Queue {queue_name} among the --quota objects: Volcano's admission webhook refuses a "
            "PodGroup of a queue that does not exist (pass `kubectl get queue.scheduling.volcano.sh -o json`)",
        )
    if queue.state != "Open":
        return QueueCheck(
            "Volcano Queue",
            queue.name,
            False,
            f"the queue is {queue.state}, not Open: it takes no new job",
        )
    guarantees: dict[str, int] = {}
    for q in objects.volcano_queues:
        for k, v in q.guarantee.items():
            guarantees[k] = guarantees.get(k, 0) + v
    real: dict[str, int] = {}
    for k, v in (capacity or {}).items():
        real[k] = max(0, v - guarantees.get(k, 0)) + queue.guarantee.get(k, 0)
    for k, v in queue.capability.items():
        real[k] = min(v, real.get(k, v))
    over = [
        f"{k}: allocated {exact_text(k, queue.allocated.get(k, 0))} + {exact_text(k, v)} > "
        f"{exact_text(k, real[k])}"
        for k, v in sorted(gang.items())
        if v and k in real and queue.allocated.get(k, 0) + v > real[k]
    ]
    if over:
        return QueueCheck(
            "Volcano Queue",
            queue.name,
            False,
            f"the gang's minimum does not fit the queue's capability (realCapability): {'; '.join(over)}",
        )
    return QueueCheck(
        "Volcano Queue",
        queue.name,
        True,
        f"the gang's minimum ({_amounts(gang)}) fits the queue's capability; its deserved share, "
        "which depends on the other queues' demand, may still hold it back"
        + (
            ""
            if capacity is not None
            else " (the cluster's total, which caps the capability, was not judged: no --nodes)"
        ),
    )


def cluster_capacity(allocatable: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """The nodes' allocatable summed (Volcano's ``totalResource``)."""
    out: dict[str, int] = {}
    for amounts in allocatable:
        for k, v in amounts.items():
            out[k] = out.get(k, 0) + v
    return out
