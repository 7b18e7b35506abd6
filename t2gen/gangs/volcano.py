"""Volcano: a ``scheduling.volcano.sh/v1beta1`` PodGroup for the whole job, and the task topology in it.

Every pod carries the PodGroup's name in the ``scheduling.k8s.io/group-name``
annotation (an annotation, not a label), its task in ``volcano.sh/task-spec``
and ``volcano.sh/preemptable``, and runs on the ``volcano`` scheduler. The task
topology (``spec.scheduling.affinity``/``antiAffinity``) becomes the PodGroup
annotations Volcano's task-topology plugin reads, a node score only, so t2gen
renders no preferred inter-pod terms for it.

Sources: volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go`` (PodGroup),
``labels.go`` (``scheduling.k8s.io/group-name``, ``volcano.sh/preemptable``),
``pkg/apis/batch/v1alpha1/labels.go`` (``volcano.sh/task-spec``);
volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/util.go`` (the
topology annotations) and ``cmd/scheduler/app/options/options.go`` (scheduler
name ``volcano``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from t2gen.gangs.base import (
    Finding,
    GangRule,
    GroupCheck,
    GroupObject,
    PodMembership,
    WorkloadCheck,
    as_dict,
    group_named_by,
    group_size,
    owns_kind,
    plan_minimum_of,
    rendered_task_groups,
    spec_min_member,
    task_order,
)
from t2gen.gangs.minresources import PodRequests, min_resources

if TYPE_CHECKING:
    from t2gen.model import Job

__all__ = [
    "AFFINITY_ANNOTATION",
    "ANTI_AFFINITY_ANNOTATION",
    "API_VERSION",
    "DEFAULT_SCHEDULER",
    "GROUP_ANNOTATION",
    "GROUP_CHECKS",
    "GROUP_TOPOLOGY",
    "INSTALL_ORDER",
    "NAME",
    "PREEMPTABLE_ANNOTATION",
    "REQUIRED_SETTINGS",
    "RULES",
    "SETTINGS",
    "TASK_ANNOTATION",
    "TASK_ORDER_ANNOTATION",
    "WORKLOAD_CHECKS",
    "format_task_groups",
    "group_minimum",
    "group_objects",
    "group_reference",
    "owns",
    "parse_task_groups",
    "plan_group",
    "plan_minimum",
    "pod_membership",
    "template_references",
]

NAME: str = "volcano"
API_VERSION = "scheduling.volcano.sh/v1beta1"
GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
"""Pod annotation naming the Volcano PodGroup the pod belongs to (an annotation, not a label)."""
TASK_ANNOTATION = "volcano.sh/task-spec"
"""Pod annotation holding the pod's task name; the task-topology plugin reads only the annotation."""
PREEMPTABLE_ANNOTATION = "volcano.sh/preemptable"
AFFINITY_ANNOTATION = "volcano.sh/task-topology-affinity"
ANTI_AFFINITY_ANNOTATION = "volcano.sh/task-topology-anti-affinity"
TASK_ORDER_ANNOTATION = "volcano.sh/task-topology-task-order"

SETTINGS: frozenset[str] = frozenset(
    {"minMember", "queue", "schedulerName", "preemptable"}
)
REQUIRED_SETTINGS: Mapping[str, str] = {}
DEFAULT_SCHEDULER: str | None = "volcano"
"""The Volcano scheduler's default name (``--scheduler-name``)."""
GROUP_TOPOLOGY: str | None = (
    "its PodGroup carries the task topology, weighted by task-topology.weight "
    "in Volcano's scheduler configuration"
)
INSTALL_ORDER: tuple[str, ...] = ("PodGroup",)
RULES: tuple[GangRule, ...] = ()
WORKLOAD_CHECKS: tuple[WorkloadCheck, ...] = ()


def format_task_groups(groups: tuple[tuple[str, ...], ...]) -> str:
    """Volcano's topology annotation format: tasks joined by ``,``, groups by ``;`` (``jm,0;1``)."""
    return ";".join(",".join(group) for group in groups)


def parse_task_groups(value: str) -> list[list[str]]:
    """Parse a Volcano topology annotation (``jm,0;1``) into task groups, skipping empty parts.

    Source: volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/topology.go`` (``readTopologyFromPgAnnotations``).
    """
    groups = []
    for part in value.split(";"):
        tasks = [task.strip() for task in part.split(",") if task.strip()]
        if tasks:
            groups.append(tasks)
    return groups


def group_objects(
    job: Job, kube_version: tuple[int, int], pod_requests: PodRequests
) -> list[GroupObject]:
    """Volcano's ``scheduling.volcano.sh/v1beta1`` PodGroup ``<job>``, with the task topology annotations.

    ``minResources`` is what its first ``minMember`` pods request
    (:func:`~t2gen.gangs.minresources.min_resources`): with it Volcano's
    ``enqueue`` checks the queue's capacity before the pods are created.
    """
    scheduling = job.spec.scheduling
    topology: dict[str, str] = {}
    if scheduling.affinity:
        topology[AFFINITY_ANNOTATION] = format_task_groups(
            rendered_task_groups(scheduling.affinity)
        )
    if scheduling.anti_affinity:
        topology[ANTI_AFFINITY_ANNOTATION] = format_task_groups(
            rendered_task_groups(scheduling.anti_affinity)
        )
    if topology:
        topology[TASK_ORDER_ANNOTATION] = ",".join(task for task, _ in task_order(job))
    spec: dict[str, Any] = {
        "minMember": group_size(job),
        "minTaskMember": dict(task_order(job)),
    }
    if requests := min_resources(job, pod_requests):
        spec["minResources"] = requests
    if scheduling.queue:
        spec["queue"] = scheduling.queue
    if scheduling.priority_class_name:
        spec["priorityClassName"] = scheduling.priority_class_name
    return [GroupObject(API_VERSION, "PodGroup", spec, topology)]


def pod_membership(job: Job, task: str, kube_version: tuple[int, int]) -> PodMembership:
    """The group, task and preemptable annotations."""
    return PodMembership(
        {},
        {
            GROUP_ANNOTATION: job.name,
            TASK_ANNOTATION: task,
            PREEMPTABLE_ANNOTATION: str(job.spec.scheduling.preemptable).lower(),
        },
        {},
    )


owns = owns_kind(API_VERSION, "PodGroup")
group_minimum = spec_min_member
group_reference, template_references, plan_group = group_named_by(
    "annotations", GROUP_ANNOTATION, "PodGroup"
)
plan_minimum = plan_minimum_of(
    group_minimum, "The PodGroup's name and ``spec.minMember``."
)


def _task_topology_tasks(
    group: dict[str, Any], members: list[dict[str, Any]]
) -> Iterator[Finding]:
    """Every task a Volcano PodGroup names (topology annotations, ``minTaskMember``) is the task of some member pod.

    Volcano's task-topology plugin reads ``volcano.sh/task-topology-affinity``,
    ``-anti-affinity`` and ``-task-order`` from the PodGroup and a pod's task
    from its ``volcano.sh/task-spec`` annotation; a task no pod has makes it skip
    the whole topology, and a ``minTaskMember`` key no pod has is never met.
    Checked only when some pod template of the stream joins the group. Sources:
    volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/topology.go`` and ``util.go``.
    """
    if not members:
        return
    tasks = {
        task
        for w in members
        if isinstance(
            task := as_dict(
                as_dict(
                    as_dict(as_dict(w.get("spec")).get("template")).get("metadata")
                ).get("annotations")
            ).get(TASK_ANNOTATION),
            str,
        )
    }
    annotations = as_dict(as_dict(group.get("metadata")).get("annotations"))
    for key in (AFFINITY_ANNOTATION, ANTI_AFFINITY_ANNOTATION, TASK_ORDER_ANNOTATION):
        value = annotations.get(key)
        if not isinstance(value, str):
            continue
        for task_group in parse_task_groups(value):
            for task in task_group:
                if task not in tasks:
                    yield (
                        f"metadata.annotations[{key}]",
                        f"task {task!r} is the {TASK_ANNOTATION} of no member pod "
                        f"(tasks: {', '.join(sorted(t for t in tasks if isinstance(t, str)))})",
                    )
    for task in as_dict(as_dict(group.get("spec")).get("minTaskMember")):
        if task not in tasks:
            yield (
                f"spec.minTaskMember[{task}]",
                f"task {task!r} is the {TASK_ANNOTATION} of no member pod",
            )


GROUP_CHECKS: tuple[GroupCheck, ...] = (
    GroupCheck("task-topology-tasks", _task_topology_tasks),
)
