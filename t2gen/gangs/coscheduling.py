"""Coscheduling (kubernetes-sigs/scheduler-plugins): a ``scheduling.x-k8s.io/v1alpha1`` PodGroup for the whole job.

Every pod carries the PodGroup's name in the ``scheduling.x-k8s.io/pod-group``
label (read from ``pod.Labels``) and runs on the scheduler that has the
Coscheduling plugin: ``scheduler-plugins-scheduler``, the profile of
scheduler-plugins' second-scheduler Helm chart, unless the job file names
another.

Sources: kubernetes-sigs/scheduler-plugins ``apis/scheduling/v1alpha1/types.go``
(PodGroup, ``scheduling.x-k8s.io/pod-group``), ``pkg/coscheduling/core/core.go``
and ``manifests/install/charts/as-a-second-scheduler/values.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from t2gen.gangs.base import (
    GangRule,
    GroupCheck,
    GroupObject,
    PodMembership,
    WorkloadCheck,
    group_named_by,
    group_size,
    owns_kind,
    plan_minimum_of,
    spec_min_member,
)
from t2gen.gangs.minresources import PodRequests, min_resources

if TYPE_CHECKING:
    from t2gen.model import Job

__all__ = [
    "API_VERSION",
    "DEFAULT_SCHEDULER",
    "GROUP_CHECKS",
    "GROUP_TOPOLOGY",
    "INSTALL_ORDER",
    "NAME",
    "POD_GROUP_LABEL",
    "REQUIRED_SETTINGS",
    "RULES",
    "SETTINGS",
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

NAME: str = "coscheduling"
API_VERSION = "scheduling.x-k8s.io/v1alpha1"
POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
"""Pod label naming the coscheduling PodGroup (read from ``pod.Labels``)."""

SETTINGS: frozenset[str] = frozenset(
    {"minMember", "scheduleTimeoutSeconds", "schedulerName"}
)
REQUIRED_SETTINGS: Mapping[str, str] = {}
DEFAULT_SCHEDULER: str | None = "scheduler-plugins-scheduler"
GROUP_TOPOLOGY: str | None = None
INSTALL_ORDER: tuple[str, ...] = ("PodGroup",)
RULES: tuple[GangRule, ...] = ()
GROUP_CHECKS: tuple[GroupCheck, ...] = ()
WORKLOAD_CHECKS: tuple[WorkloadCheck, ...] = ()


def group_objects(
    job: Job, kube_version: tuple[int, int], pod_requests: PodRequests
) -> list[GroupObject]:
    """scheduler-plugins' ``scheduling.x-k8s.io/v1alpha1`` PodGroup ``<job>``.

    ``minResources`` is what its first ``minMember`` pods request
    (:func:`~t2gen.gangs.minresources.min_resources`): with it the
    Coscheduling PreFilter turns the pods away while all nodes together lack it.
    """
    spec: dict[str, Any] = {"minMember": group_size(job)}
    if requests := min_resources(job, pod_requests):
        spec["minResources"] = requests
    if job.spec.scheduling.schedule_timeout_seconds is not None:
        spec["scheduleTimeoutSeconds"] = job.spec.scheduling.schedule_timeout_seconds
    return [GroupObject(API_VERSION, "PodGroup", spec)]


def pod_membership(job: Job, task: str, kube_version: tuple[int, int]) -> PodMembership:
    """The ``scheduling.x-k8s.io/pod-group`` label."""
    return PodMembership({POD_GROUP_LABEL: job.name}, {}, {})


owns = owns_kind(API_VERSION, "PodGroup")
group_minimum = spec_min_member
group_reference, template_references, plan_group = group_named_by(
    "labels", POD_GROUP_LABEL, "PodGroup"
)
plan_minimum = plan_minimum_of(
    group_minimum, "The PodGroup's name and ``spec.minMember``."
)
