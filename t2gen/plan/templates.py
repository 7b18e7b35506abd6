"""Rendered objects into what the scheduler's filters read: one template per StatefulSet.

The engine plans the objects t2gen prints (``t2gen render``): each StatefulSet's
pod template is reduced once to its requests (:mod:`t2gen.plan.podspec`), node
selection (:mod:`t2gen.plan.filters.node_affinity`), tolerations
(:mod:`t2gen.plan.filters.taints`) and required inter-pod terms
(:mod:`t2gen.plan.filters.interpod`), and to the gang its pods join (as each
mechanism of :mod:`t2gen.gangs` recognises it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from t2gen.errors import InputError, Problem
from t2gen.gangs import group_owner, plan_group
from t2gen.plan.filters.interpod import PodAffinityTerm, parse_affinity_terms
from t2gen.plan.filters.node_affinity import (
    NodeSelectorRequirement,
    parse_node_selector_terms,
)
from t2gen.plan.filters.taints import Toleration, parse_tolerations
from t2gen.plan.podspec import pod_resources
from t2gen.plan.quantities import Resources
from t2gen.record import Record

__all__ = [
    "DEFAULT_SCHEDULER",
    "WorkloadTemplate",
    "is_pod_workload",
    "job_pods",
    "min_members",
    "priority_values",
    "workload_pods",
    "workload_templates",
]

DEFAULT_SCHEDULER = "default-scheduler"
"""``spec.schedulerName`` when unset: kube-scheduler's default profile."""


class WorkloadTemplate(Record):
    """One StatefulSet's pod template (or the supervisor Job's), reduced to what the filters read.

    Attributes:
        name: the StatefulSet's name; its pods are ``<name>-<ordinal>`` (a Job's
            pods are ``<name>-<random>``: the plan calls its one pod ``<name>-0``).
        namespace: ``metadata.namespace``; None when the manifests leave it to
            ``kubectl apply -n``.
        replicas: ``spec.replicas`` (1 when unset).
        labels: the pod template's labels.
        requests: per pod: cpu in millicores, memory in bytes, ``pods`` 1.
        exclusive_cores: whole cores per pod the static CPU manager pins (bound workers).
        guaranteed: the pod has Guaranteed QoS.
        node_name: ``spec.nodeName``, if set.
        node_selector: ``spec.nodeSelector`` as sorted (key, value) pairs.
        node_affinity: required ``nodeSelectorTerms`` (ORed tuples of ANDed
            requirements); None when there is no required node affinity.
        tolerations: ``spec.tolerations``.
        pod_affinity: required podAffinity terms.
        pod_anti_affinity: required podAntiAffinity terms.
        gang: the gang (pod group) the template's pods belong to, if any.
        preferred_node_affinity: preferred node affinity as (weight, ANDed
            requirements) pairs (the NodeAffinity score).
        preferred_pod_affinity: preferred podAffinity as (weight, term) pairs.
        preferred_pod_anti_affinity: preferred podAntiAffinity as (weight, term)
            pairs (both: the InterPodAffinity score).
        priority: ``spec.priority``, if set (the API server sets it from the PriorityClass).
        priority_class: ``spec.priorityClassName``, if set.
        scheduler_name: ``spec.schedulerName`` (``default-scheduler`` when unset).
        runtime_class: ``spec.runtimeClassName``, if set; plan cannot read the
            RuntimeClass's ``overhead`` or ``scheduling`` (see the plan's notes).
        claims: ``claimName`` of the pod's PersistentVolumeClaim volumes; plan
            does not read the PersistentVolumes' node affinity (see the notes).
        pod_management: ``spec.podManagementPolicy`` (``OrderedReady`` when unset,
            as the API server defaults it; t2gen renders ``Parallel``).
        kind: ``StatefulSet``, or ``Job`` for the supervisor's ``batch/v1`` Job
            (``spec.lifecycle.supervise``), whose one pod is not of the job's gang.
    """

    name: str
    namespace: str | None
    replicas: int
    labels: Mapping[str, str]
    requests: Resources
    exclusive_cores: int = 0
    guaranteed: bool = False
    node_name: str | None = None
    node_selector: tuple[tuple[str, str], ...] = ()
    node_affinity: tuple[tuple[NodeSelectorRequirement, ...], ...] | None = None
    tolerations: tuple[Toleration, ...] = ()
    pod_affinity: tuple[PodAffinityTerm, ...] = ()
    pod_anti_affinity: tuple[PodAffinityTerm, ...] = ()
    gang: str | None = None
    preferred_node_affinity: tuple[
        tuple[int, tuple[NodeSelectorRequirement, ...]], ...
    ] = ()
    preferred_pod_affinity: tuple[tuple[int, PodAffinityTerm], ...] = ()
    preferred_pod_anti_affinity: tuple[tuple[int, PodAffinityTerm], ...] = ()
    priority: int | None = None
    priority_class: str | None = None
    scheduler_name: str = DEFAULT_SCHEDULER
    runtime_class: str | None = None
    claims: tuple[str, ...] = ()
    pod_management: str = "OrderedReady"
    kind: str = "StatefulSet"


def job_pods(spec: Mapping[str, Any]) -> int:
    """The pods a ``batch/v1`` Job runs at once: ``parallelism`` (default 1), none while ``suspend``.

    The supervisor Job of ``spec.lifecycle.supervise`` sets neither
    ``parallelism`` nor ``completions`` and ``backoffLimit: 0``: one pod. A Job
    Kueue suspends until admission (``kueue.x-k8s.io/queue-name``) still runs
    that pod once admitted, so it counts
    (https://kubernetes.io/docs/concepts/workloads/controllers/job/#parallel-jobs).
    """
    if spec.get("suspend") is True:
        return 0
    parallelism = spec.get("parallelism")
    if isinstance(parallelism, int) and not isinstance(parallelism, bool):
        return max(parallelism, 0)
    return 1


def is_pod_workload(obj: Any) -> bool:
    """A StatefulSet, or a ``batch/v1`` Job (t2gen renders only the supervisor's): what ``plan`` counts pods of."""
    if not isinstance(obj, Mapping):
        return False
    kind = obj.get("kind")
    return kind == "StatefulSet" or (
        kind == "Job" and obj.get("apiVersion") == "batch/v1"
    )


def workload_pods(obj: Mapping[str, Any]) -> int:
    """Pods of a :func:`is_pod_workload` object: a StatefulSet's ``replicas`` (1 when unset), a Job's :func:`job_pods`."""
    spec = obj.get("spec") or {}
    if obj.get("kind") == "Job":
        return job_pods(spec)
    replicas = spec.get("replicas")
    return (
        replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    )


def _claims(raw: object) -> tuple[str, ...]:
    """``claimName`` of every ``persistentVolumeClaim`` volume in ``spec.volumes``."""
    if not isinstance(raw, list):
        return ()
    names = []
    for volume in raw:
        claim = (
            volume.get("persistentVolumeClaim") if isinstance(volume, Mapping) else None
        )
        if isinstance(claim, Mapping) and claim.get("claimName"):
            names.append(str(claim["claimName"]))
    return tuple(names)


def _preferred_node_terms(
    raw: object,
) -> tuple[tuple[int, tuple[NodeSelectorRequirement, ...]], ...]:
    """``preferredDuringSchedulingIgnoredDuringExecution`` of node affinity: (weight, term)."""
    if not isinstance(raw, list):
        return ()
    out = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        weight = item.get("weight")
        terms = parse_node_selector_terms([item.get("preference") or {}])
        if isinstance(weight, int) and not isinstance(weight, bool) and terms:
            out.append((weight, terms[0]))
    return tuple(out)


def _preferred_pod_terms(
    spec: Mapping[str, Any], kind: str
) -> tuple[tuple[int, PodAffinityTerm], ...]:
    """Preferred terms of ``affinity.<kind>`` as (weight, term)."""
    affinity = spec.get("affinity") or {}
    section = affinity.get(kind) if isinstance(affinity, Mapping) else None
    raw = (
        section.get("preferredDuringSchedulingIgnoredDuringExecution")
        if isinstance(section, Mapping)
        else None
    )
    if not isinstance(raw, list):
        return ()
    out = []
    for item in raw:
        if not isinstance(item, Mapping):
            continue
        weight = item.get("weight")
        term = item.get("podAffinityTerm")
        if isinstance(weight, int) and not isinstance(weight, bool) and term:
            wrapped = {kind: {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
            out += [
                (weight, x) for x in parse_affinity_terms({"affinity": wrapped}, kind)
            ]
    return tuple(out)


def workload_templates(
    objects: Iterable[Mapping[str, Any]], source: str = "job"
) -> tuple[WorkloadTemplate, ...]:
    """Reduce the StatefulSets (and the supervisor's Job) among rendered objects to their pod templates.

    Args:
        objects: rendered Kubernetes objects (any kinds; StatefulSets and
            ``batch/v1`` Jobs are read: the supervisor's pod needs a node and
            counts against the quotas as the job's do).
        source: how to name the input in errors.

    Returns:
        One template per StatefulSet or Job, in the input's order.

    Raises:
        InputError: no StatefulSet, or a request that is not a quantity.
    """
    templates = []
    problems = []
    for index, obj in enumerate(objects):
        if not is_pod_workload(obj):
            continue
        kind = str(obj.get("kind"))
        metadata = obj.get("metadata") or {}
        name = str(metadata.get("name") or f"{kind.lower()}-{index}")
        sts_spec = obj.get("spec") or {}
        template = sts_spec.get("template") or {}
        t_meta = template.get("metadata") or {}
        spec = template.get("spec") or {}
        try:
            requests, cores, guaranteed = pod_resources(spec)
        except ValueError as err:
            problems.append(Problem(source, 0, 0, f"{kind} {name}: {err}"))
            continue
        affinity = spec.get("affinity") or {}
        node_affinity = (
            (affinity.get("nodeAffinity") or {})
            if isinstance(affinity, Mapping)
            else {}
        )
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        selector = spec.get("nodeSelector") or {}
        templates.append(
            WorkloadTemplate(
                name=name,
                namespace=str(metadata["namespace"])
                if metadata.get("namespace")
                else None,
                replicas=workload_pods(obj),
                labels={
                    str(k): str(v) for k, v in (t_meta.get("labels") or {}).items()
                },
                requests=requests,
                exclusive_cores=cores,
                guaranteed=guaranteed,
                node_name=str(spec["nodeName"]) if spec.get("nodeName") else None,
                node_selector=tuple(
                    sorted((str(k), str(v)) for k, v in selector.items())
                ),
                node_affinity=(
                    parse_node_selector_terms(required.get("nodeSelectorTerms"))
                    if isinstance(required, Mapping)
                    else None
                ),
                tolerations=parse_tolerations(spec.get("tolerations")),
                pod_affinity=parse_affinity_terms(spec, "podAffinity"),
                pod_anti_affinity=parse_affinity_terms(spec, "podAntiAffinity"),
                gang=plan_group(t_meta, spec),
                preferred_node_affinity=_preferred_node_terms(
                    node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
                ),
                preferred_pod_affinity=_preferred_pod_terms(spec, "podAffinity"),
                preferred_pod_anti_affinity=_preferred_pod_terms(
                    spec, "podAntiAffinity"
                ),
                priority=spec["priority"]
                if isinstance(spec.get("priority"), int)
                and not isinstance(spec.get("priority"), bool)
                else None,
                priority_class=str(spec["priorityClassName"])
                if spec.get("priorityClassName")
                else None,
                scheduler_name=str(spec.get("schedulerName") or DEFAULT_SCHEDULER),
                runtime_class=str(spec["runtimeClassName"])
                if spec.get("runtimeClassName")
                else None,
                claims=_claims(spec.get("volumes")),
                pod_management=str(
                    sts_spec.get("podManagementPolicy")
                    or ("Parallel" if kind == "Job" else "OrderedReady")
                ),
                kind=kind,
            )
        )
    if problems:
        raise InputError(problems=problems)
    if not templates:
        raise InputError(
            problems=[
                Problem(
                    source,
                    0,
                    0,
                    "has no StatefulSet: pass the objects `t2gen render` prints",
                )
            ]
        )
    return tuple(templates)


def priority_values(objects: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """``value`` of PriorityClass objects among the rendered ones, by name."""
    out = {}
    for obj in objects:
        if isinstance(obj, Mapping) and obj.get("kind") == "PriorityClass":
            name = (obj.get("metadata") or {}).get("name")
            value = obj.get("value")
            if isinstance(name, str) and isinstance(value, int):
                out[name] = value
    return out


def min_members(objects: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The minimum of every gang-scheduling group object, by the gang name its pods have.

    Each mechanism says where its minimum is (:meth:`t2gen.gangs.base.Gang.plan_minimum`):
    a Volcano or coscheduling PodGroup's ``minMember``, the Workload API's ``minCount``.
    """
    out = {}
    for obj in objects:
        gang = group_owner(obj) if isinstance(obj, Mapping) else None
        found = gang.plan_minimum(obj) if gang else None
        if found is not None:
            out[found[0]] = found[1]
    return out
