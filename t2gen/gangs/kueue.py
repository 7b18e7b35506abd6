"""Kueue: a plain pod group for the whole job, made of labels on the pod templates; no group object.

Every pod carries ``kueue.x-k8s.io/queue-name`` (the LocalQueue), the pod
group's name ``kueue.x-k8s.io/pod-group-name`` and its total count
``kueue.x-k8s.io/pod-group-total-count``; Kueue admits the group as one
Workload and the default scheduler places its pods. The group is always every
pod of the job, so ``minMember`` does not apply.

Sources: kubernetes-sigs/kueue ``pkg/controller/constants/constants.go`` (queue
name), ``pkg/controller/jobs/pod/constants/constants.go`` (pod group name and
total count), ``site/content/en/docs/tasks/run/plain_pods.md``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from t2gen.gangs.base import (
    Finding,
    GangRule,
    GroupCheck,
    GroupObject,
    JobFinding,
    PodMembership,
    PodTemplates,
    WorkloadCheck,
    as_dict,
    group_named_by,
)

if TYPE_CHECKING:
    from t2gen.gangs.minresources import PodRequests
    from t2gen.model import Job

__all__ = [
    "DEFAULT_SCHEDULER",
    "GROUP_CHECKS",
    "GROUP_TOPOLOGY",
    "INSTALL_ORDER",
    "NAME",
    "POD_GROUP_LABEL",
    "QUEUE_LABEL",
    "REQUIRED_SETTINGS",
    "RULES",
    "SETTINGS",
    "TOTAL_COUNT_ANNOTATION",
    "WORKLOAD_CHECKS",
    "group_minimum",
    "group_objects",
    "group_reference",
    "owns",
    "plan_group",
    "plan_minimum",
    "pod_membership",
    "template_references",
]

NAME: str = "kueue"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"

SETTINGS: frozenset[str] = frozenset({"queue"})
REQUIRED_SETTINGS: Mapping[str, str] = {
    "queue": "the name of the LocalQueue the job is submitted to"
}
DEFAULT_SCHEDULER: str | None = None
GROUP_TOPOLOGY: str | None = None
INSTALL_ORDER: tuple[str, ...] = ()
GROUP_CHECKS: tuple[GroupCheck, ...] = ()


def group_objects(
    job: Job, kube_version: tuple[int, int], pod_requests: PodRequests
) -> list[GroupObject]:
    """None: Kueue's plain pod group is the labels on the pods.

    Kueue needs no ``minResources``: it builds its Workload's pod sets from the
    pods' own requests and admits the group against the ClusterQueue's quota
    before ungating any pod (kubernetes-sigs/kueue
    ``pkg/controller/jobs/pod/pod_controller.go``, ``PodSets``), so
    ``pod_requests`` is not needed.
    """
    return []


def pod_membership(job: Job, task: str, kube_version: tuple[int, int]) -> PodMembership:
    """The queue and pod group labels and the total count annotation (every pod of the job)."""
    return PodMembership(
        {QUEUE_LABEL: str(job.spec.scheduling.queue), POD_GROUP_LABEL: job.name},
        {TOTAL_COUNT_ANNOTATION: str(job.spec.job_pods)},
        {},
    )


def owns(obj: Mapping[str, Any]) -> bool:
    """Never: Kueue's pod group has no object of its own."""
    return False


def group_minimum(group: Mapping[str, Any]) -> tuple[str, Any]:
    """No minimum: a Kueue pod group is always all of its pods (its total count)."""
    return "", None


group_reference, template_references, plan_group = group_named_by(
    "labels", POD_GROUP_LABEL, "pod group"
)


def plan_minimum(group: Mapping[str, Any]) -> tuple[str, int] | None:
    """None: Kueue owns no group object."""
    return None


def _labels_in_scheduling(
    data: dict[str, Any], kube_version: tuple[int, int]
) -> Iterator[JobFinding]:
    """The job's own labels hold no Kueue label; ``spec.scheduling`` sets them where Kueue needs them.

    t2gen adds ``metadata.labels`` to every object, the StatefulSets included. A
    ``kueue.x-k8s.io/queue-name`` label on a StatefulSet makes Kueue's
    StatefulSet integration admit each StatefulSet as a Workload of its own,
    which splits the job; ``gang: kueue`` with ``queue`` puts Kueue's labels on
    the pod templates only, one pod group for the whole job. Source:
    kubernetes-sigs/kueue ``site/content/en/docs/tasks/run/plain_pods.md`` and
    ``site/content/en/docs/tasks/run/statefulset.md``.
    """
    labels = as_dict(as_dict(data.get("metadata")).get("labels"))
    for key in labels:
        if isinstance(key, str) and key.startswith("kueue.x-k8s.io/"):
            yield (
                ("metadata", "labels", key),
                f"{key} would be on every StatefulSet, and Kueue would admit each of them alone; "
                "use spec.scheduling (gang: kueue, queue: <LocalQueue>) instead",
                True,
            )


RULES: tuple[GangRule, ...] = (
    GangRule(
        "kueue-labels-in-scheduling",
        ("metadata.labels",),
        _labels_in_scheduling,
    ),
)


def _replicas(workload: dict[str, Any]) -> int:
    replicas = as_dict(workload.get("spec")).get("replicas", 1)
    return (
        replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    )


def _pod_group(
    workload: dict[str, Any], namespace: str, templates: PodTemplates
) -> Iterator[Finding]:
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
    labels = as_dict(as_dict(workload.get("metadata")).get("labels"))
    metadata = as_dict(
        as_dict(as_dict(workload.get("spec")).get("template")).get("metadata")
    )
    pod_labels = as_dict(metadata.get("labels"))
    group = pod_labels.get(POD_GROUP_LABEL)
    if QUEUE_LABEL in labels and isinstance(group, str):
        yield (
            f"metadata.labels[{QUEUE_LABEL}]",
            "a queue label on the workload itself makes Kueue admit it alone; keep it on the pod template only",
        )
    if not isinstance(group, str):
        return
    if QUEUE_LABEL not in pod_labels:
        yield (
            "spec.template.metadata.labels",
            f"pods of Kueue pod group {group!r} need the {QUEUE_LABEL} label",
        )
    pods = sum(
        _replicas(member)
        for member, _ in templates.labelled(namespace, {POD_GROUP_LABEL: group})
    )
    count = as_dict(metadata.get("annotations")).get(TOTAL_COUNT_ANNOTATION)
    if count != str(pods):
        yield (
            f"spec.template.metadata.annotations[{TOTAL_COUNT_ANNOTATION}]",
            f"is {count!r}, but the pod group {group!r} has {pods} pods; write {str(pods)!r}",
        )


WORKLOAD_CHECKS: tuple[WorkloadCheck, ...] = (
    WorkloadCheck("kueue-pod-group", _pod_group),
)
