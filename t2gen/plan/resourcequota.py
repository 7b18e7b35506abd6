"""The ResourceQuota admission plugin over the job's pods, one pod at a time as they are created.

The API server checks quota per object at creation
(``plugin/pkg/admission/resourcequota/controller.go``, ``checkRequest``): for
every ResourceQuota of the namespace that ``Matches`` the pod (it tracks one
of the pod's resources and every scope matches), ``Constraints`` first (a
quota on cpu or memory, requests or limits, needs that value on every
container: "must specify limits.cpu for: ..."), then ``used + requested <=
hard`` for every resource it tracks, or the pod is refused ("exceeded quota:
NAME, requested: ..., used: ..., limited: ..."); an admitted pod adds to
``used`` before the next is checked. A StatefulSet's refused pod is no Pending
pod: the controller records a FailedCreate event and retries it.

What a pod counts (``pkg/quota/v1/evaluator/core/pods.go``): ``podResources``
and ``podComputeUsageHelper``: ``pods`` and ``count/pods`` 1; ``cpu``,
``memory``, ``ephemeral-storage`` and their ``requests.`` names from the pod's
requests (``PodRequests``: containers summed, the maximum with each init
container, sidecars added), ``limits.`` from its limits (``PodLimits``, alike);
``hugepages-*``, ``requests.hugepages-*``, and ``requests.<name>`` of extended
resources. Scopes (``podMatchesScopeFunc``): Terminating
(``activeDeadlineSeconds`` >= 0), NotTerminating, BestEffort (no cpu or memory
request or limit in any container), NotBestEffort, PriorityClass (In, NotIn,
Exists, DoesNotExist on ``priorityClassName``), CrossNamespacePodAffinity.
The pods are checked after :mod:`t2gen.plan.limitranger` has applied the
LimitRanges, as the API server runs LimitRanger (mutating) before ResourceQuota.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.plan.limitranger import Container, PodShape
from t2gen.plan.quantities import CPU, MEMORY, exact_text, exact_texts
from t2gen.plan.quotarecords import ResourceQuota, base_resource
from t2gen.record import Record

__all__ = [
    "QuotaRefusal",
    "QuotaRun",
    "check_pods",
    "pod_requests",
    "pod_usage",
    "text",
]

_POD_RESOURCES = frozenset(
    {
        "count/pods",
        "cpu",
        "memory",
        "ephemeral-storage",
        "requests.cpu",
        "requests.memory",
        "requests.ephemeral-storage",
        "limits.cpu",
        "limits.memory",
        "limits.ephemeral-storage",
        "pods",
    }
)
# pods.go: "if a quota tracks cpu or memory related resources, the incoming pod
# is required to have those values set" (validationSet)
_VALIDATION_SET = frozenset(
    {"cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"}
)
_COMPUTE = ("cpu", "memory", "ephemeral-storage")


def _native(name: str) -> bool:
    return (
        "/" not in name
        or name.startswith("kubernetes.io/")
        or ".kubernetes.io/" in name
    )


def _matching(names: Sequence[str]) -> set[str]:
    """``MatchingResources``: the quota's resources a pod can count."""
    return {
        n
        for n in names
        if n in _POD_RESOURCES
        or n.startswith(("hugepages-", "requests.hugepages-"))
        or (n.startswith("requests.") and not _native(n[len("requests.") :]))
    }


def _usage(requests: Mapping[str, int], limits: Mapping[str, int]) -> dict[str, int]:
    """``podComputeUsageHelper``."""
    out = {"pods": 1}
    for name in _COMPUTE:
        if name in requests:
            out[name] = out[f"requests.{name}"] = requests[name]
        if name in limits:
            out[f"limits.{name}"] = limits[name]
    for name, amount in requests.items():
        if name.startswith("hugepages-"):
            out[name] = out[f"requests.{name}"] = amount
        elif not _native(name):
            out[f"requests.{name}"] = amount
    return out


def _combine(shape: PodShape, field: str) -> dict[str, int]:
    """``PodRequests``/``PodLimits``: containers and sidecars summed, the maximum with each init."""
    total: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for c in shape.containers:
        for k, v in getattr(c, field).items():
            total[k] = total.get(k, 0) + v
    highest: dict[str, int] = {}
    for c in shape.inits:
        amounts: Mapping[str, int] = getattr(c, field)
        if c.sidecar:
            for k, v in amounts.items():
                total[k] = total.get(k, 0) + v
                sidecars[k] = sidecars.get(k, 0) + v
            effective = dict(sidecars)
        else:
            effective = {k: v + sidecars.get(k, 0) for k, v in amounts.items()}
        for k, v in effective.items():
            highest[k] = max(highest.get(k, 0), v)
    for k, v in highest.items():
        total[k] = max(total.get(k, 0), v)
    return total


def pod_requests(shape: PodShape) -> dict[str, int]:
    """One pod's requests (``PodRequests``), what Kueue and Volcano count."""
    return {**_combine(shape, "requests"), "pods": 1}


def pod_usage(shape: PodShape) -> dict[str, int]:
    """What one pod counts against a quota (``PodUsageFunc``), cpu names in millicores."""
    return {
        **_usage(_combine(shape, "requests"), _combine(shape, "limits")),
        "count/pods": 1,
    }


def _best_effort(shape: PodShape) -> bool:
    return not any(
        name in (CPU, MEMORY)
        for c in (*shape.containers, *shape.inits)
        for name in (*c.requests, *c.limits)
    )


def _scope(scope: str, operator: str, values: Sequence[str], shape: PodShape) -> bool:
    """``podMatchesScopeFunc``; an unknown scope matches nothing, as there."""
    if scope == "Terminating":
        return shape.terminating
    if scope == "NotTerminating":
        return not shape.terminating
    if scope == "BestEffort":
        return _best_effort(shape)
    if scope == "NotBestEffort":
        return not _best_effort(shape)
    if scope == "CrossNamespacePodAffinity":
        return shape.cross_namespace
    if scope == "PriorityClass":
        name = shape.priority_class
        if operator == "Exists":
            return bool(name)
        if operator == "DoesNotExist":
            return not name
        if operator == "In":
            return bool(name) and name in values
        if operator == "NotIn":
            return not name or name not in values
    return False


def _missing(c: Container, required: set[str]) -> set[str]:
    """``enforcePodContainerConstraints``: what a container lacks of the required resources."""
    return required - set(_usage(c.requests, c.limits))


def text(name: str, amount: int) -> str:
    """An amount of a quota resource: cpu names in cores, byte names in Ki/Mi/Gi, counts."""
    return exact_text(base_resource(name), amount)


def texts(name: str, *amounts: int) -> tuple[str, ...]:
    """Amounts of one quota resource side by side, in one unit (:func:`exact_texts`)."""
    return exact_texts(base_resource(name), *amounts)


def _exceeded(name: str, used: int, pod: int, hard: int) -> str:
    """``requests.memory: used 3Gi + 2Gi > hard 4Gi``, every amount in one unit."""
    shown = texts(name, used, pod, hard)
    return f"{name}: used {shown[0]} + {shown[1]} > hard {shown[2]}"


class QuotaRefusal(Record):
    """Why the API server refuses a pod: the quota and the limit it exceeds, in numbers.

    Attributes:
        quota: the ResourceQuota's name.
        namespace: its namespace.
        reason: ``requests.memory: used 3Gi + 2Gi > hard 4Gi`` (each resource
            exceeded), or ``must specify limits.cpu for: c0,c1``.
        message: the API server's own message.
    """

    quota: str
    namespace: str
    reason: str
    message: str


class QuotaRun(Record):
    """The quotas over every pod of the job, in creation order.

    Attributes:
        pods: the job's pods.
        before: pods admitted before the first refusal.
        admitted: pods admitted in all (a refused pod's StatefulSet goes on
            with other pods; smaller pods may still fit).
        refused_pod: the first refused pod (``<statefulset>-<ordinal>``), or "";
            for the supervisor Job's pod, whose name the API server makes
            (``<job>-<random>``), "".
        refused_owner: the refused pod's controller, ``StatefulSet <name>`` or
            ``Job <name>`` (it records the ``FailedCreate`` event), or "".
        refusal: why.
        matched: the quotas that counted the job's pods.
        after: per matched quota, ``used/hard`` of its tightest resource after the
            admitted pods (``requests.cpu 6.2/10``).
        whole_job: the whole job exceeds a quota (then some pod is refused in
            every creation order, not only in this one).
        unsynced: matched quotas whose status lacks ``hard`` or a tracked
            ``used`` (just created): until the quota controller fills it, within
            seconds, the API server refuses every pod they count ("status unknown
            for quota", ``hasUsageStats`` in ``controller.go``); checked here against
            ``spec.hard`` and a ``used`` of 0.
    """

    pods: int
    before: int
    admitted: int
    refused_pod: str
    refusal: QuotaRefusal | None
    matched: tuple[str, ...]
    after: tuple[str, ...]
    whole_job: bool
    unsynced: tuple[str, ...] = ()
    refused_owner: str = ""

    @property
    def refused_text(self) -> str:
        """The first refused pod for people: ``pod wordcount-0-2``, or ``the pod of Job wordcount-supervisor``."""
        return (
            f"pod {self.refused_pod}"
            if self.refused_pod
            else f"the pod of {self.refused_owner}"
        )


def _refuse(
    q: ResourceQuota, pod: Mapping[str, int], used: Mapping[str, int], shape: PodShape
) -> QuotaRefusal | None:
    tracked = _matching(list(q.hard))
    required = tracked & _VALIDATION_SET
    missing: dict[str, list[str]] = {}
    for c in (*shape.containers, *shape.inits):
        for name in _missing(c, required):
            missing.setdefault(name, []).append(c.name)
    if missing:
        what = "; ".join(
            f"{k} for: {','.join(sorted(v))}" for k, v in sorted(missing.items())
        )
        return QuotaRefusal(
            q.name,
            q.namespace,
            f"must specify {what}",
            f"failed quota: {q.name}: must specify {what}",
        )
    over = [
        k for k in sorted(tracked) if pod.get(k) and used.get(k, 0) + pod[k] > q.hard[k]
    ]
    if not over:
        return None
    reason = "; ".join(_exceeded(k, used.get(k, 0), pod[k], q.hard[k]) for k in over)

    def listed(amounts: Mapping[str, int]) -> str:
        return ",".join(f"{k}={text(k, amounts.get(k, 0))}" for k in over)

    return QuotaRefusal(
        q.name,
        q.namespace,
        reason,
        f"exceeded quota: {q.name}, requested: {listed(pod)}, used: {listed(used)}, limited: {listed(q.hard)}",
    )


def _matches(q: ResourceQuota, shape: PodShape) -> bool:
    return (
        q.namespace == shape.namespace
        and bool(_matching(list(q.hard)))
        and all(_scope(s, op, values, shape) for s, op, values in q.scopes)
    )


def check_pods(shapes: Sequence[PodShape], quotas: Sequence[ResourceQuota]) -> QuotaRun:
    """Admit the job's pods one at a time against the quotas, as ``checkRequest`` does.

    Args:
        shapes: one per StatefulSet, in creation order, LimitRanges applied.
        quotas: the ResourceQuotas (those of each pod's namespace apply).

    Returns:
        How many pods are admitted, which is refused first and why.
    """
    used = {q.name + "\0" + q.namespace: dict(q.used) for q in quotas}
    total = sum(s.replicas for s in shapes)
    before = admitted = 0
    first: tuple[str, QuotaRefusal, str] | None = None
    matched: dict[str, ResourceQuota] = {}
    whole: dict[str, dict[str, int]] = {}
    for shape in shapes:
        usage = pod_usage(shape)
        mine = [q for q in quotas if _matches(q, shape)]
        for q in mine:
            key = q.name + "\0" + q.namespace
            matched[key] = q
            for k, v in usage.items():
                whole.setdefault(key, {})[k] = (
                    whole.get(key, {}).get(k, 0) + v * shape.replicas
                )
        for ordinal in range(shape.replicas):
            refusal = None
            for q in mine:
                refusal = _refuse(q, usage, used[q.name + "\0" + q.namespace], shape)
                if refusal is not None:
                    break
            if refusal is not None:
                if first is None:
                    pod = (
                        "" if shape.kind == "Job" else f"{shape.statefulset}-{ordinal}"
                    )
                    first = (pod, refusal, f"{shape.kind} {shape.statefulset}")
                continue
            for q in mine:
                bucket = used[q.name + "\0" + q.namespace]
                for k in q.hard:
                    if usage.get(k):
                        bucket[k] = bucket.get(k, 0) + usage[k]
            admitted += 1
            if first is None:
                before += 1
    after = []
    for key, q in matched.items():
        bucket = used[key]
        tight = max(
            (k for k in q.hard if q.hard[k]),
            key=lambda k: (bucket.get(k, 0) / q.hard[k], k),
            default=None,
        )
        if tight is not None:
            after.append(
                f"{tight} {'/'.join(texts(tight, bucket.get(tight, 0), q.hard[tight]))}"
            )
    over_whole = any(
        q.used.get(k, 0) + whole[key].get(k, 0) > q.hard[k]
        for key, q in matched.items()
        for k in q.hard
    )
    unsynced = tuple(
        q.name
        for q in matched.values()
        if q.hard_from_spec or any(k not in q.used for k in _matching(list(q.hard)))
    )
    return QuotaRun(
        unsynced=unsynced,
        pods=total,
        before=before,
        admitted=admitted,
        refused_pod=first[0] if first else "",
        refusal=first[1] if first else None,
        refused_owner=first[2] if first else "",
        matched=tuple(f"{q.name}" for q in matched.values()),
        after=tuple(after),
        whole_job=over_whole,
    )
