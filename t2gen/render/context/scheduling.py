"""Scheduling: the job-wide gang-scheduling group, what each pod needs to join it, and the task topology.

Every mechanism's automatic mode makes one group per pod owner, that is one per
StatefulSet; a Twister2 job has one StatefulSet per worker group plus the job
master's, so t2gen renders one explicit group for the whole job and points every
pod template at it (docs/gang-scheduling.md). What each mechanism adds comes
from its module in :mod:`t2gen.gangs`; this module adds what all share (the
scheduler name, the priority class, the ``t2-task`` label and the job's metadata).

The task topology (``spec.scheduling.affinity``/``antiAffinity``) becomes, for
a mechanism whose group carries it (Volcano's PodGroup annotations, which its
task-topology plugin reads as a node score only: ``GROUP_TOPOLOGY``), nothing
here and, for every other mechanism, for no gang, and for any mechanism with
``topologyMode: required``, Kubernetes' own inter-pod (anti-)affinity on
``kubernetes.io/hostname``, selecting this job's pods of the named tasks by the
``t2-task`` label.
"""

from __future__ import annotations

from typing import Any

from t2gen.gangs import REGISTRY, Gang
from t2gen.gangs.base import rendered_task_groups
from t2gen.gangs.minresources import PodRequests
from t2gen.model import Job
from t2gen.record import Record
from t2gen.render.context.meta import object_metadata
from t2gen.twister2 import names

__all__ = [
    "PodScheduling",
    "group_objects",
    "pod_scheduling",
    "task_affinity",
]

_HOSTNAME = "kubernetes.io/hostname"


class PodScheduling(Record):
    """What one pod template gets from ``spec.scheduling``.

    Attributes:
        labels: pod labels (``t2-task``, then the mechanism's: coscheduling's and Kueue's group labels).
        annotations: pod annotations (the mechanism's: Volcano's group, task and preemptable; Kueue's total count).
        spec: PodSpec fields, in order: ``schedulerName``, ``priorityClassName``,
            then the mechanism's (the Workload API's ``workloadRef`` or ``schedulingGroup``).
    """

    labels: dict[str, str]
    annotations: dict[str, str]
    spec: dict[str, Any]


def _gang(job: Job) -> Gang | None:
    return REGISTRY.get(job.spec.scheduling.gang or "")


def group_objects(
    job: Job, kube_version: tuple[int, int], pod_requests: PodRequests
) -> list[dict[str, Any]]:
    """The job-wide group objects of ``spec.scheduling.gang`` (none for Kueue and for no gang).

    Args:
        job: the job.
        kube_version: ``(major, minor)`` rendered for; chooses the Workload API's shape.
        pod_requests: one pod's requests by task (``jm``, each worker group's
            name), for the group's ``minResources``.

    Returns:
        ``[{apiVersion, kind, metadata, spec}]``, each named after the job and
        labelled like every object of it (``kubectl delete -l t2-job=<job>`` removes them).

    Raises:
        ValueError: the mechanism has no objects for ``kube_version`` (``gang:
            kubernetes`` before 1.35; the rules report it first).
    """
    gang = _gang(job)
    objects = []
    for group in gang.group_objects(job, kube_version, pod_requests) if gang else ():
        metadata = object_metadata(job, job.name, "scheduling")
        if group.annotations:
            metadata["annotations"] = {
                **group.annotations,
                **metadata.get("annotations", {}),
            }
        objects.append(
            {
                "apiVersion": group.api_version,
                "kind": group.kind,
                "metadata": metadata,
                "spec": group.spec,
            }
        )
    return objects


def pod_scheduling(job: Job, task: str, kube_version: tuple[int, int]) -> PodScheduling:
    """What the pods of one task need: scheduler, priority, the group they join, their task.

    Args:
        job: the job.
        task: the rendered task name (``jm`` or a worker group's name).
        kube_version: ``(major, minor)`` rendered for.

    Returns:
        The pod template's additions; empty for a job without ``spec.scheduling``.
    """
    scheduling = job.spec.scheduling
    result = PodScheduling({}, {}, {})
    gang = _gang(job)
    scheduler = scheduling.scheduler_name or (gang.DEFAULT_SCHEDULER if gang else None)
    if scheduler:
        result.spec["schedulerName"] = scheduler
    if scheduling.priority_class_name:
        result.spec["priorityClassName"] = scheduling.priority_class_name
    if scheduling.has_topology:
        result.labels[names.TASK_LABEL] = task
    if gang:
        membership = gang.pod_membership(job, task, kube_version)
        result.labels.update(membership.labels)
        result.annotations.update(membership.annotations)
        result.spec.update(membership.spec)
    return result


def _term(job: Job, tasks: list[str]) -> dict[str, Any]:
    """A pod affinity term: this job's pods of ``tasks`` on the same node (``kubernetes.io/hostname``)."""
    selector: dict[str, Any] = {"matchLabels": {names.JOB_LABEL: job.name}}
    if len(tasks) == 1:
        selector["matchLabels"][names.TASK_LABEL] = tasks[0]
    else:
        selector["matchExpressions"] = [
            {"key": names.TASK_LABEL, "operator": "In", "values": tasks}
        ]
    return {"labelSelector": selector, "topologyKey": _HOSTNAME}


def _selected(group: tuple[str, ...], task: str, *, whole: bool) -> list[str]:
    """The tasks a member of ``group`` relates to: the others, or itself in a one-task group (all with ``whole``)."""
    others = [member for member in group if member != task]
    return list(group) if whole or not others else others


def task_affinity(
    job: Job, task: str, base: dict[str, Any] | None
) -> dict[str, Any] | None:
    """A pod's affinity with the task topology's native inter-pod (anti-)affinity added.

    Rendered unless the job's mechanism carries the topology in its group object
    (Volcano's PodGroup, ``GROUP_TOPOLOGY``) with ``topologyMode: preferred``. Each affinity or anti-affinity group
    holding ``task`` adds one term selecting the group's other tasks (the task
    itself in a one-task group), as Volcano's design defines it. A required
    affinity term selects the whole group, the task included: Kubernetes lets a
    pod that matches its own required term start anywhere when no such pod runs
    yet, so the first pod is not stuck (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity).

    Args:
        job: the job.
        task: the rendered task name of the pod.
        base: the affinity the pod has without the topology (node affinity, uniform mapping), or None.

    Returns:
        The merged affinity, or None when there is none.
    """
    scheduling = job.spec.scheduling
    required = scheduling.topology_mode == "required"
    gang = _gang(job)
    if not scheduling.has_topology or (gang and gang.GROUP_TOPOLOGY and not required):
        return base
    import copy  # only a job with a task topology gets here

    result = copy.deepcopy(base) if base else {}
    for kind, groups in (
        ("podAffinity", scheduling.affinity),
        ("podAntiAffinity", scheduling.anti_affinity),
    ):
        for group in rendered_task_groups(groups):
            if task not in group:
                continue
            term = _term(
                job, _selected(group, task, whole=required and kind == "podAffinity")
            )
            rules = result.setdefault(kind, {})
            if required:
                rules.setdefault(
                    "requiredDuringSchedulingIgnoredDuringExecution", []
                ).append(term)
            else:
                rules.setdefault(
                    "preferredDuringSchedulingIgnoredDuringExecution", []
                ).append(
                    {"weight": scheduling.topology_weight, "podAffinityTerm": term}
                )
    return result or None
