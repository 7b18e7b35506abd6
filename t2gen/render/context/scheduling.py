"""Scheduling: the job-wide gang-scheduling group, what each pod needs to join it, and the task topology.

Every mechanism's automatic mode makes one group per pod owner, that is one per
StatefulSet; a Twister2 job has one StatefulSet per worker group plus the job
master's, so t2gen renders one explicit group for the whole job and points every
pod template at it (docs/gang-scheduling.md). Keys and API shapes come from
:mod:`t2gen.kube.gang`.

The task topology (``spec.scheduling.affinity``/``antiAffinity``) becomes, for
Volcano, the PodGroup annotations its task-topology plugin reads (a node score
only) and, for every other mechanism, for no gang, and for Volcano with
``topologyMode: required``, Kubernetes' own inter-pod (anti-)affinity on
``kubernetes.io/hostname``, selecting this job's pods of the named tasks by the
``t2-task`` label.
"""

from __future__ import annotations

from typing import Any

from t2gen.jobfile.model import Job
from t2gen.kube import gang
from t2gen.record import Record
from t2gen.render.context.meta import object_metadata
from t2gen.twister2 import names

__all__ = [
    "PodScheduling",
    "group_objects",
    "pod_scheduling",
    "task_affinity",
    "task_order",
]

_HOSTNAME = "kubernetes.io/hostname"


class PodScheduling(Record):
    """What one pod template gets from ``spec.scheduling``.

    Attributes:
        labels: pod labels (``t2-task``, coscheduling's and Kueue's group labels).
        annotations: pod annotations (Volcano's group, task and preemptable; Kueue's total count).
        spec: PodSpec fields, in order: ``schedulerName``, ``priorityClassName``,
            ``workloadRef`` (Kubernetes 1.35) or ``schedulingGroup`` (1.36 on).
    """

    labels: dict[str, str]
    annotations: dict[str, str]
    spec: dict[str, Any]


def group_size(job: Job) -> int:
    """The group minimum: ``spec.scheduling.minMember``, else every pod of the job."""
    return job.spec.scheduling.min_member or job.spec.job_pods


def task_order(job: Job) -> list[tuple[str, int]]:
    """``(task, pods)`` of every task of the job, in order: the job master (when in the cluster), then each group."""
    tasks = [(names.JOB_MASTER_TASK, 1)] if job.spec.job_master.enabled else []
    return tasks + [(group.name, group.replicas) for group in job.spec.workers]


def _rendered(groups: tuple[tuple[str, ...], ...]) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(names.task_name(task) for task in group) for group in groups)


def _volcano_pod_group(job: Job) -> dict[str, Any]:
    """Volcano's ``scheduling.volcano.sh/v1beta1`` PodGroup ``<job>``."""
    scheduling = job.spec.scheduling
    metadata = object_metadata(job, job.name, "scheduling")
    topology: dict[str, str] = {}
    if scheduling.affinity:
        topology[gang.VOLCANO_AFFINITY_ANNOTATION] = gang.format_task_groups(
            _rendered(scheduling.affinity)
        )
    if scheduling.anti_affinity:
        topology[gang.VOLCANO_ANTI_AFFINITY_ANNOTATION] = gang.format_task_groups(
            _rendered(scheduling.anti_affinity)
        )
    if topology:
        topology[gang.VOLCANO_TASK_ORDER_ANNOTATION] = ",".join(
            task for task, _ in task_order(job)
        )
        metadata["annotations"] = {**topology, **metadata.get("annotations", {})}
    spec: dict[str, Any] = {
        "minMember": group_size(job),
        "minTaskMember": dict(task_order(job)),
    }
    if scheduling.queue:
        spec["queue"] = scheduling.queue
    if scheduling.priority_class_name:
        spec["priorityClassName"] = scheduling.priority_class_name
    return {
        "apiVersion": gang.VOLCANO_API_VERSION,
        "kind": "PodGroup",
        "metadata": metadata,
        "spec": spec,
    }


def _coscheduling_pod_group(job: Job) -> dict[str, Any]:
    """scheduler-plugins' ``scheduling.x-k8s.io/v1alpha1`` PodGroup ``<job>``."""
    spec: dict[str, Any] = {"minMember": group_size(job)}
    if job.spec.scheduling.schedule_timeout_seconds is not None:
        spec["scheduleTimeoutSeconds"] = job.spec.scheduling.schedule_timeout_seconds
    return {
        "apiVersion": gang.COSCHEDULING_API_VERSION,
        "kind": "PodGroup",
        "metadata": object_metadata(job, job.name, "scheduling"),
        "spec": spec,
    }


def _workload_objects(job: Job, api: gang.WorkloadApi) -> list[dict[str, Any]]:
    """The Workload API's objects: a Workload ``<job>`` and, from 1.36, a PodGroup ``<job>``."""
    policy = {"gang": {"minCount": group_size(job)}}
    template = gang.WORKLOAD_POD_GROUP_TEMPLATE
    if not api.pod_group_object:
        workload_spec: dict[str, Any] = {
            "podGroups": [{"name": template, "policy": policy}]
        }
    else:
        workload_spec = {
            "podGroupTemplates": [{"name": template, "schedulingPolicy": policy}]
        }
    objects = [
        {
            "apiVersion": api.api_version,
            "kind": "Workload",
            "metadata": object_metadata(job, job.name, "scheduling"),
            "spec": workload_spec,
        }
    ]
    if api.pod_group_object:
        reference = (
            {"workload": {"workloadName": job.name, "podGroupTemplateName": template}}
            if api.template_ref == "podGroupTemplateRef"
            else {"workloadName": job.name, "templateName": template}
        )
        objects.append(
            {
                "apiVersion": api.api_version,
                "kind": "PodGroup",
                "metadata": object_metadata(job, job.name, "scheduling"),
                "spec": {str(api.template_ref): reference, "schedulingPolicy": policy},
            }
        )
    return objects


def _workload_api(kube_version: tuple[int, int]) -> gang.WorkloadApi:
    api = gang.workload_api(kube_version)
    if api is None:  # the pipeline refuses this first, located in the job file
        raise ValueError(f"Kubernetes {kube_version} has no Workload API")
    return api


def group_objects(job: Job, kube_version: tuple[int, int]) -> list[dict[str, Any]]:
    """The job-wide group objects of ``spec.scheduling.gang`` (none for Kueue and for no gang).

    Args:
        job: the job.
        kube_version: ``(major, minor)`` rendered for; chooses the Workload API's shape.

    Returns:
        ``[{apiVersion, kind, metadata, spec}]``, each named after the job and
        labelled like every object of it (``kubectl delete -l t2-job=<job>`` removes them).

    Raises:
        ValueError: ``gang: kubernetes`` for a version before 1.35 (the pipeline reports it first).
    """
    mechanism = job.spec.scheduling.gang
    if mechanism == "volcano":
        return [_volcano_pod_group(job)]
    if mechanism == "coscheduling":
        return [_coscheduling_pod_group(job)]
    if mechanism == "kubernetes":
        return _workload_objects(job, _workload_api(kube_version))
    return []


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
    mechanism = scheduling.gang
    scheduler = scheduling.scheduler_name or gang.DEFAULT_SCHEDULER_NAMES.get(
        mechanism or ""
    )
    if scheduler:
        result.spec["schedulerName"] = scheduler
    if scheduling.priority_class_name:
        result.spec["priorityClassName"] = scheduling.priority_class_name
    if scheduling.has_topology:
        result.labels[names.TASK_LABEL] = task
    if mechanism == "volcano":
        result.annotations[gang.VOLCANO_GROUP_ANNOTATION] = job.name
        result.annotations[gang.VOLCANO_TASK_ANNOTATION] = task
        result.annotations[gang.VOLCANO_PREEMPTABLE_ANNOTATION] = str(
            scheduling.preemptable
        ).lower()
    elif mechanism == "coscheduling":
        result.labels[gang.COSCHEDULING_POD_GROUP_LABEL] = job.name
    elif mechanism == "kueue":
        result.labels[gang.KUEUE_QUEUE_LABEL] = str(scheduling.queue)
        result.labels[gang.KUEUE_POD_GROUP_LABEL] = job.name
        result.annotations[gang.KUEUE_TOTAL_COUNT_ANNOTATION] = str(job.spec.job_pods)
    elif mechanism == "kubernetes":
        api = _workload_api(kube_version)
        if api.pod_field == "workloadRef":
            result.spec["workloadRef"] = {
                "name": job.name,
                "podGroup": gang.WORKLOAD_POD_GROUP_TEMPLATE,
            }
        else:
            result.spec["schedulingGroup"] = {"podGroupName": job.name}
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

    Rendered unless the job uses Volcano with ``topologyMode: preferred`` (Volcano
    expresses the topology in its PodGroup). Each affinity or anti-affinity group
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
    if not scheduling.has_topology or (scheduling.gang == "volcano" and not required):
        return base
    import copy  # only a job with a task topology gets here

    result = copy.deepcopy(base) if base else {}
    for kind, groups in (
        ("podAffinity", scheduling.affinity),
        ("podAntiAffinity", scheduling.anti_affinity),
    ):
        for group in _rendered(groups):
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
