"""Checks of gang-scheduling groups: Volcano and coscheduling PodGroups, the Workload API, Kueue pod groups.

A group is only as good as the pods that join it: a minimum above the pods that
point at the group is never met, a pod of the job that does not point at it is
scheduled alone, and a task-topology annotation naming no task is ignored.
Keys come from :mod:`t2gen.kube.gang` (sources there).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import JOB_LABEL, Check, Finding, as_dict, check
from t2gen.checks.stream import Stream, namespace_of
from t2gen.kube import gang

__all__ = ["GROUP_CHECKS", "WORKLOAD_CHECKS"]

_DEFAULT_SCHEDULER = "default-scheduler"


def _mechanism(obj: dict[str, Any]) -> str | None:
    """``volcano``, ``coscheduling``, ``workload`` (1.35 Workload), ``podgroup`` (1.36+ PodGroup), or None."""
    api_version = str(obj.get("apiVersion", ""))
    group = api_version.rpartition("/")[0]
    kind = obj.get("kind")
    if group == gang.VOLCANO_API_VERSION.rpartition("/")[0] and kind == "PodGroup":
        return "volcano"
    if group == gang.COSCHEDULING_API_VERSION.rpartition("/")[0] and kind == "PodGroup":
        return "coscheduling"
    if group == "scheduling.k8s.io" and kind == "PodGroup":
        return "podgroup"
    if api_version == "scheduling.k8s.io/v1alpha1" and kind == "Workload":
        return "workload"
    return None


def _minimum(obj: dict[str, Any], mechanism: str) -> tuple[str, Any]:
    """``(path, value)`` of a group's minimum number of pods."""
    spec = as_dict(obj.get("spec"))
    if mechanism in ("volcano", "coscheduling"):
        return "spec.minMember", spec.get("minMember")
    if mechanism == "podgroup":
        return "spec.schedulingPolicy.gang.minCount", as_dict(
            as_dict(spec.get("schedulingPolicy")).get("gang")
        ).get("minCount")
    groups = spec.get("podGroups")
    first = as_dict(groups[0]) if isinstance(groups, list) and groups else {}
    return "spec.podGroups[0].policy.gang.minCount", as_dict(
        as_dict(first.get("policy")).get("gang")
    ).get("minCount")


def _template(workload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    template = as_dict(as_dict(workload.get("spec")).get("template"))
    return as_dict(template.get("metadata")), as_dict(template.get("spec"))


def _joins(workload: dict[str, Any], mechanism: str, name: Any) -> bool:
    """Whether a workload's pod template points at the group ``name`` of ``mechanism``."""
    metadata, spec = _template(workload)
    pointer: Any
    if mechanism == "volcano":
        pointer = as_dict(metadata.get("annotations")).get(
            gang.VOLCANO_GROUP_ANNOTATION
        )
    elif mechanism == "coscheduling":
        pointer = as_dict(metadata.get("labels")).get(gang.COSCHEDULING_POD_GROUP_LABEL)
    elif mechanism == "podgroup":
        pointer = as_dict(spec.get("schedulingGroup")).get("podGroupName")
    else:
        pointer = as_dict(spec.get("workloadRef")).get("name")
    return bool(pointer == name)


def _members(
    obj: dict[str, Any], mechanism: str, stream: Stream
) -> list[dict[str, Any]]:
    namespace, name = namespace_of(obj), as_dict(obj.get("metadata")).get("name")
    return [
        workload
        for workload, _ in stream.templates
        if namespace_of(workload) == namespace and _joins(workload, mechanism, name)
    ]


def _replicas(workload: dict[str, Any]) -> int:
    replicas = as_dict(workload.get("spec")).get("replicas", 1)
    return (
        replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    )


def _name(obj: dict[str, Any]) -> str:
    return f"{obj.get('kind')}/{as_dict(obj.get('metadata')).get('name')}"


@check("group-minimum", reads="stream")
def group_minimum(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A gang group's minimum is at most the pods that join it.

    The scheduler binds none of a group's pods until its minimum can be placed
    (Volcano and coscheduling ``minMember``, the Workload API's ``minCount``); a
    minimum above the pods whose templates point at the group (the replicas of
    each workload) is never reached, and the job waits for ever. A group no pod
    template of the stream joins is not checked: its pods may come from
    elsewhere. t2gen renders the job's pod count, or ``spec.scheduling.minMember``.
    Sources: volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go``;
    kubernetes-sigs/scheduler-plugins ``pkg/coscheduling/core/core.go``;
    https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/.
    """
    mechanism = _mechanism(obj)
    if mechanism is None:
        return
    members = _members(obj, mechanism, stream)
    path, minimum = _minimum(obj, mechanism)
    pods = sum(_replicas(workload) for workload in members)
    if members and isinstance(minimum, int) and minimum > pods:
        yield (
            path,
            f"{minimum} is more than the {pods} pods that join the group "
            f"({', '.join(_name(w) for w in members)}); no pod would ever be scheduled",
        )


@check("group-members", reads="stream")
def group_members(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Every pod template of the group's job points at the group, and Volcano's and coscheduling's run on their scheduler.

    A group object labelled ``t2-job: <job>`` stands for the whole job: a
    workload of the same job (same namespace, pod template labelled ``t2-job:
    <job>``) that does not join it is scheduled on its own, which is the
    half-placed job gang scheduling is there to prevent. Volcano ignores pods
    whose ``schedulerName`` is not its own (volcano-sh/volcano
    ``pkg/scheduler/cache/util.go``), and only the scheduler running the
    Coscheduling plugin honours its PodGroup, so their pods need a
    ``schedulerName`` other than ``default-scheduler``.
    """
    mechanism = _mechanism(obj)
    if mechanism is None:
        return
    name = as_dict(obj.get("metadata")).get("name")
    job = as_dict(as_dict(obj.get("metadata")).get("labels")).get(JOB_LABEL)
    if isinstance(job, str):
        for workload, _ in stream.labelled(namespace_of(obj), {JOB_LABEL: job}):
            if not _joins(workload, mechanism, name):
                yield (
                    "metadata.name",
                    f"{_name(workload)} of job {job!r} does not join the group; its pods would be "
                    "scheduled alone",
                )
    if mechanism in ("volcano", "coscheduling"):
        for workload in _members(obj, mechanism, stream):
            scheduler = _template(workload)[1].get("schedulerName", _DEFAULT_SCHEDULER)
            if scheduler == _DEFAULT_SCHEDULER:
                expected = gang.DEFAULT_SCHEDULER_NAMES[mechanism]
                yield (
                    "metadata.name",
                    f"{_name(workload)} joins the group but runs on the default scheduler, which ignores it; "
                    f"set spec.template.spec.schedulerName (e.g. {expected})",
                )


@check("task-topology-tasks", reads="stream")
def task_topology_tasks(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Every task a Volcano PodGroup names (topology annotations, ``minTaskMember``) is the task of some member pod.

    Volcano's task-topology plugin reads ``volcano.sh/task-topology-affinity``,
    ``-anti-affinity`` and ``-task-order`` from the PodGroup and a pod's task
    from its ``volcano.sh/task-spec`` annotation; a task no pod has makes it skip
    the whole topology, and a ``minTaskMember`` key no pod has is never met.
    Checked only when some pod template of the stream joins the group. Sources:
    volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/topology.go`` and ``util.go``.
    """
    if _mechanism(obj) != "volcano":
        return
    members = _members(obj, "volcano", stream)
    if not members:
        return
    tasks = {
        as_dict(_template(w)[0].get("annotations")).get(gang.VOLCANO_TASK_ANNOTATION)
        for w in members
    }
    annotations = as_dict(as_dict(obj.get("metadata")).get("annotations"))
    for key in (
        gang.VOLCANO_AFFINITY_ANNOTATION,
        gang.VOLCANO_ANTI_AFFINITY_ANNOTATION,
        gang.VOLCANO_TASK_ORDER_ANNOTATION,
    ):
        value = annotations.get(key)
        if not isinstance(value, str):
            continue
        for group in gang.parse_task_groups(value):
            for task in group:
                if task not in tasks:
                    yield (
                        f"metadata.annotations[{key}]",
                        f"task {task!r} is the {gang.VOLCANO_TASK_ANNOTATION} of no member pod "
                        f"(tasks: {', '.join(sorted(t for t in tasks if isinstance(t, str)))})",
                    )
    for task in as_dict(as_dict(obj.get("spec")).get("minTaskMember")):
        if task not in tasks:
            yield (
                f"spec.minTaskMember[{task}]",
                f"task {task!r} is the {gang.VOLCANO_TASK_ANNOTATION} of no member pod",
            )


@check("kueue-pod-group", reads="stream")
def kueue_pod_group(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A Kueue pod group's pods declare its total count, and the workload itself carries no queue label.

    Kueue's plain-pod groups need ``kueue.x-k8s.io/pod-group-total-count`` on
    every pod, equal to the pods of the group (here: the replicas of every
    template in the namespace with the same ``kueue.x-k8s.io/pod-group-name``),
    and ``kueue.x-k8s.io/queue-name``. A ``queue-name`` label on a StatefulSet's
    own metadata makes Kueue's StatefulSet integration admit it as a Workload of
    its own, one per StatefulSet. Sources: kubernetes-sigs/kueue
    ``site/content/en/docs/tasks/run/plain_pods.md``,
    ``pkg/controller/jobs/pod/pod_webhook.go``.
    """
    labels = as_dict(as_dict(obj.get("metadata")).get("labels"))
    metadata, _ = _template(obj)
    pod_labels = as_dict(metadata.get("labels"))
    group = pod_labels.get(gang.KUEUE_POD_GROUP_LABEL)
    if gang.KUEUE_QUEUE_LABEL in labels and isinstance(group, str):
        yield (
            f"metadata.labels[{gang.KUEUE_QUEUE_LABEL}]",
            "a queue label on the workload itself makes Kueue admit it alone; keep it on the pod template only",
        )
    if not isinstance(group, str):
        return
    if gang.KUEUE_QUEUE_LABEL not in pod_labels:
        yield (
            "spec.template.metadata.labels",
            f"pods of Kueue pod group {group!r} need the {gang.KUEUE_QUEUE_LABEL} label",
        )
    pods = sum(
        _replicas(workload)
        for workload, _ in stream.labelled(
            namespace_of(obj), {gang.KUEUE_POD_GROUP_LABEL: group}
        )
    )
    count = as_dict(metadata.get("annotations")).get(gang.KUEUE_TOTAL_COUNT_ANNOTATION)
    if count != str(pods):
        yield (
            f"spec.template.metadata.annotations[{gang.KUEUE_TOTAL_COUNT_ANNOTATION}]",
            f"is {count!r}, but the pod group {group!r} has {pods} pods; write {str(pods)!r}",
        )


GROUP_CHECKS: tuple[Check, ...] = (group_minimum, group_members, task_topology_tasks)
"""Checks of ``PodGroup`` and ``Workload`` objects."""

WORKLOAD_CHECKS: tuple[Check, ...] = (kueue_pod_group,)
"""Checks of workloads (pod templates) that join a gang."""
