"""A rendered pod as the API server admits it: defaulting, then the LimitRanger admission plugin.

A pod's resources are changed before any quota sees them, in the API server's
order (kubernetes/kubernetes):

1. Defaulting at decode: a container with a limit but no request gets the
   limit as its request (``SetDefaults_Pod``, ``pkg/apis/core/v1/defaults.go``).
2. LimitRanger, a mutating admission plugin
   (``plugin/pkg/admission/limitranger/admission.go``): ``PodLimitFunc`` runs
   per LimitRange of the namespace; ``defaultContainerResourceRequirements`` and
   ``mergePodResourceRequirements`` give every container the ``default`` limit
   and ``defaultRequest`` request it lacks (a LimitRange's ``defaultRequest``
   defaults to its ``default``, and ``default`` to ``max``:
   ``SetDefaults_LimitRangeItem``), then ``minConstraint``, ``maxConstraint`` and
   ``limitRequestRatioConstraint`` refuse the pod ("Maximum cpu usage per
   Container is 2, but limit is 4."), per Container and for the Pod's sum.
3. Validation: a request above its limit is invalid
   (``ValidateResourceRequirements``, ``pkg/apis/core/validation/validation.go``),
   which a ``default`` limit below a container's request causes.

Only then does the ResourceQuota plugin count the pod (:mod:`t2gen.plan.resourcequota`).
So a LimitRange ``default`` cpu of 8 makes every container without a CPU limit
count 8 cpu against ``limits.cpu`` (docs/resources.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.plan.quantities import CPU, exact_text, parse_resource_list
from t2gen.plan.queues import QUEUE_LABEL
from t2gen.plan.quotarecords import LimitRange
from t2gen.plan.templates import is_pod_workload, workload_pods
from t2gen.record import Record, replace

__all__ = ["Container", "PodShape", "admit_limits", "pod_shapes"]


class Container(Record):
    """One container's requests and limits (cpu in millicores, the rest in whole units)."""

    name: str
    requests: Mapping[str, int]
    limits: Mapping[str, int]
    sidecar: bool = False


class PodShape(Record):
    """The pods of one StatefulSet (or of the supervisor's Job) as the quota plugins see them.

    Attributes:
        statefulset: its name; the pods are ``<statefulset>-<ordinal>`` (a Job's
            ``<name>-<random>``).
        namespace: where its pods are created ("" when neither the objects nor
            the job name one).
        replicas: how many pods.
        containers: ``spec.containers``, defaulted.
        inits: ``spec.initContainers``, defaulted (sidecars marked).
        priority_class: ``spec.priorityClassName`` ("" when unset).
        terminating: ``spec.activeDeadlineSeconds`` >= 0 (the Terminating scope).
        cross_namespace: a pod (anti-)affinity term names other namespaces.
        labels: the pod template's labels (Kueue reads its queue name there; for a
            Job, Kueue reads the Job's own ``kueue.x-k8s.io/queue-name``, which is
            added here).
        annotations: the pod template's annotations (Volcano's task name).
        scheduler: ``spec.schedulerName``.
        defaulted: what the LimitRanges set on a container that lacked it, as
            ``limits.cpu 8 (LimitRange x default)``.
    """

    statefulset: str
    namespace: str
    replicas: int
    containers: tuple[Container, ...]
    inits: tuple[Container, ...] = ()
    priority_class: str = ""
    terminating: bool = False
    cross_namespace: bool = False
    labels: Mapping[str, str] = {}
    annotations: Mapping[str, str] = {}
    scheduler: str = "default-scheduler"
    defaulted: tuple[str, ...] = ()
    kind: str = "StatefulSet"
    """``StatefulSet``, or ``Job`` (the supervisor's ``batch/v1`` Job)."""


def _containers(raw: object) -> tuple[Container, ...]:
    out = []
    for item in raw if isinstance(raw, list) else ():
        if not isinstance(item, Mapping):
            continue
        resources = item.get("resources") or {}
        requests = parse_resource_list(resources.get("requests"))
        limits = parse_resource_list(resources.get("limits"))
        for name, amount in limits.items():  # SetDefaults_Pod: request = limit
            requests.setdefault(name, amount)
        out.append(
            Container(
                str(item.get("name") or ""),
                requests,
                limits,
                item.get("restartPolicy") == "Always",
            )
        )
    return tuple(out)


def _cross_namespace(spec: Mapping[str, Any]) -> bool:
    """``usesCrossNamespacePodAffinity`` (``pkg/quota/v1/evaluator/core/pods.go``)."""
    affinity = spec.get("affinity") or {}
    for kind in ("podAffinity", "podAntiAffinity"):
        section = affinity.get(kind) if isinstance(affinity, Mapping) else None
        if not isinstance(section, Mapping):
            continue
        terms = list(
            section.get("requiredDuringSchedulingIgnoredDuringExecution") or ()
        )
        terms += [
            x.get("podAffinityTerm") or {}
            for x in section.get("preferredDuringSchedulingIgnoredDuringExecution")
            or ()
            if isinstance(x, Mapping)
        ]
        if any(
            isinstance(t, Mapping)
            and (t.get("namespaces") or t.get("namespaceSelector") is not None)
            for t in terms
        ):
            return True
    return False


def pod_shapes(
    objects: Sequence[Mapping[str, Any]], namespace: str | None
) -> tuple[PodShape, ...]:
    """The StatefulSets (and the supervisor's Job) among rendered objects as pods the quota plugins admit, in creation order.

    The supervisor's pod (``spec.lifecycle.supervise``) is one more pod of the
    namespace, created after the StatefulSets' (``kubectl apply`` creates the Job
    last, :mod:`t2gen.kube.order`), so it counts against every quota that counts
    them, and, with ``gang: kueue``, against the queue as a workload of its own
    (the Job's label ``kueue.x-k8s.io/queue-name``).

    Args:
        objects: the rendered objects.
        namespace: the namespace for objects that name none (None: "").

    Raises:
        ValueError: a request or limit that is not a quantity.
    """
    out = []
    for obj in objects:
        if not is_pod_workload(obj):
            continue
        metadata = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        template = spec.get("template") or {}
        pod = template.get("spec") or {}
        deadline = pod.get("activeDeadlineSeconds")
        labels = {
            str(k): str(v)
            for k, v in ((template.get("metadata") or {}).get("labels") or {}).items()
        }
        queue = (metadata.get("labels") or {}).get(QUEUE_LABEL)
        if obj.get("kind") == "Job" and queue:
            labels[QUEUE_LABEL] = str(queue)
        out.append(
            PodShape(
                statefulset=str(metadata.get("name") or ""),
                namespace=str(metadata.get("namespace") or namespace or ""),
                replicas=workload_pods(obj),
                containers=_containers(pod.get("containers")),
                inits=_containers(pod.get("initContainers")),
                priority_class=str(pod.get("priorityClassName") or ""),
                terminating=isinstance(deadline, int) and deadline >= 0,
                cross_namespace=_cross_namespace(pod),
                labels=labels,
                annotations={
                    str(k): str(v)
                    for k, v in (
                        (template.get("metadata") or {}).get("annotations") or {}
                    ).items()
                },
                scheduler=str(pod.get("schedulerName") or "default-scheduler"),
                kind=str(obj.get("kind")),
            )
        )
    return tuple(out)


def _text(name: str, amount: int) -> str:
    return exact_text(name, amount)


def _check(
    kind: str,
    name: str,
    enforced: int,
    request: Mapping[str, int],
    limit: Mapping[str, int],
    how: str,
) -> str | None:
    """``minConstraint``, ``maxConstraint``, ``limitRequestRatioConstraint``, in their words."""
    req, lim = request.get(name), limit.get(name)
    if how == "min":
        if req is None:
            return f"Minimum {name} usage per {kind} is {_text(name, enforced)}.  No request is specified."
        if req < enforced:
            return f"Minimum {name} usage per {kind} is {_text(name, enforced)}, but request is {_text(name, req)}."
        if lim is not None and lim < enforced:
            return f"Minimum {name} usage per {kind} is {_text(name, enforced)}, but limit is {_text(name, lim)}."
        return None
    if how == "max":
        if lim is None:
            return f"Maximum {name} usage per {kind} is {_text(name, enforced)}.  No limit is specified."
        if lim > enforced:
            return f"Maximum {name} usage per {kind} is {_text(name, enforced)}, but limit is {_text(name, lim)}."
        if req is not None and req > enforced:
            return f"Maximum {name} usage per {kind} is {_text(name, enforced)}, but request is {_text(name, req)}."
        return None
    ratio = _text(CPU, enforced)
    if not req:
        return f"{name} max limit to request ratio per {kind} is {ratio}, but no request is specified or request is 0."
    if not lim:
        return f"{name} max limit to request ratio per {kind} is {ratio}, but no limit is specified or limit is 0."
    if lim * 1000 > enforced * req:
        return f"{name} max limit to request ratio per {kind} is {ratio}, but provided ratio is {lim / req:f}."
    return None


def _sum(lists: Sequence[Mapping[str, int]]) -> dict[str, int]:
    """``sum`` of admission.go: a resource only when every container has it."""
    keys = set().union(*lists) if lists else set()
    return {k: sum(x[k] for x in lists) for k in keys if all(k in x for x in lists)}


def admit_limits(
    shape: PodShape, ranges: Sequence[LimitRange]
) -> tuple[PodShape, list[str]]:
    """Apply the namespace's LimitRanges to one StatefulSet's pods, as ``PodLimitFunc`` does.

    Args:
        shape: the pods, from :func:`pod_shapes`.
        ranges: LimitRanges of any namespace (those of the pods' namespace apply,
            in the file's order, as the plugin lists them).

    Returns:
        The pods with defaults applied (``defaulted`` says which), and the
        reasons the API server refuses them (LimitRanger's messages, or a
        request above its limit); empty when admitted.
    """
    errors: list[str] = []
    defaulted: list[str] = []
    containers = list(shape.containers)
    inits = list(shape.inits)
    for limit_range in (x for x in ranges if x.namespace == shape.namespace):
        for item in (i for i in limit_range.items if i.type == "Container"):
            for group in (containers, inits):
                for k, c in enumerate(group):
                    limits = {**item.default, **c.limits}
                    requests = {**item.default_request, **c.requests}
                    for key in sorted(set(limits) - set(c.limits)):
                        defaulted.append(
                            f"limits.{key} {_text(key, limits[key])} (LimitRange {limit_range.name} default)"
                        )
                    for key in sorted(set(requests) - set(c.requests)):
                        defaulted.append(
                            f"requests.{key} {_text(key, requests[key])} (LimitRange {limit_range.name} defaultRequest)"
                        )
                    group[k] = replace(c, requests=requests, limits=limits)
        for item in limit_range.items:
            if item.type == "Container":
                targets = [(c.requests, c.limits) for c in containers]
            elif item.type == "Pod":
                targets = [
                    (
                        _sum([c.requests for c in containers]),
                        _sum([c.limits for c in containers]),
                    )
                ]
            else:
                continue
            for wanted, capped in targets:
                for how, bounds in (
                    ("min", item.min),
                    ("max", item.max),
                    ("ratio", item.max_ratio),
                ):
                    for name, enforced in sorted(bounds.items()):
                        why = _check(item.type, name, enforced, wanted, capped, how)
                        if why is not None:
                            errors.append(f"LimitRange {limit_range.name}: {why}")
    for c in (*containers, *inits):
        for name, request in sorted(c.requests.items()):
            if name in c.limits and request > c.limits[name]:
                errors.append(
                    f"container {c.name}: its {name} request {_text(name, request)} is above its limit "
                    f"{_text(name, c.limits[name])} (a LimitRange default limit below the request), "
                    "which the API server refuses as invalid"
                )
    result = replace(
        shape,
        containers=tuple(containers),
        inits=tuple(inits),
        defaulted=tuple(dict.fromkeys(defaulted)),
    )
    return result, list(dict.fromkeys(errors))
