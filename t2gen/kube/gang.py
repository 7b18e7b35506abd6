"""Gang-scheduling APIs: group kinds, the keys that tie a pod to its group, and the Workload API by version.

Facts of the schedulers' published APIs, shared by the renderer
(:mod:`t2gen.render.context.scheduling`) and the output checks
(:mod:`t2gen.checks.scheduling`). Sources:

* Volcano: volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go`` (PodGroup),
  ``labels.go`` (``scheduling.k8s.io/group-name``, ``volcano.sh/preemptable``),
  ``pkg/apis/batch/v1alpha1/labels.go`` (``volcano.sh/task-spec``);
  volcano-sh/volcano ``pkg/scheduler/plugins/task-topology/util.go`` (the topology
  annotations) and ``cmd/scheduler/app/options/options.go`` (scheduler name ``volcano``).
* Coscheduling: kubernetes-sigs/scheduler-plugins ``apis/scheduling/v1alpha1/types.go``
  (``scheduling.x-k8s.io/pod-group``) and
  ``manifests/install/charts/as-a-second-scheduler/values.yaml`` (``scheduler-plugins-scheduler``).
* Kueue: kubernetes-sigs/kueue ``pkg/controller/constants/constants.go`` (queue name) and
  ``pkg/controller/jobs/pod/constants/constants.go`` (pod group name and total count).
* Kubernetes Workload API (KEP-4671): kubernetes/api ``scheduling/v1alpha1/types.go`` @ v0.35.0,
  ``scheduling/v1alpha2/types.go`` @ v0.36.0, ``scheduling/v1beta1/types.go`` @ v0.37.0, and
  ``core/v1/types.go`` (``PodSpec.workloadRef`` in 1.35, ``PodSpec.schedulingGroup`` from 1.36).
"""

from __future__ import annotations

from t2gen.record import Record

__all__ = [
    "COSCHEDULING_API_VERSION",
    "COSCHEDULING_POD_GROUP_LABEL",
    "DEFAULT_SCHEDULER_NAMES",
    "KUEUE_POD_GROUP_LABEL",
    "KUEUE_QUEUE_LABEL",
    "KUEUE_TOTAL_COUNT_ANNOTATION",
    "VOLCANO_AFFINITY_ANNOTATION",
    "VOLCANO_ANTI_AFFINITY_ANNOTATION",
    "VOLCANO_API_VERSION",
    "VOLCANO_GROUP_ANNOTATION",
    "VOLCANO_PREEMPTABLE_ANNOTATION",
    "VOLCANO_TASK_ANNOTATION",
    "VOLCANO_TASK_ORDER_ANNOTATION",
    "WORKLOAD_API_FEATURE_GATES",
    "WORKLOAD_API_FIRST_VERSION",
    "WORKLOAD_POD_GROUP_TEMPLATE",
    "WorkloadApi",
    "format_task_groups",
    "parse_task_groups",
    "workload_api",
]

VOLCANO_API_VERSION = "scheduling.volcano.sh/v1beta1"
VOLCANO_GROUP_ANNOTATION = "scheduling.k8s.io/group-name"
"""Pod annotation naming the Volcano PodGroup the pod belongs to (an annotation, not a label)."""
VOLCANO_TASK_ANNOTATION = "volcano.sh/task-spec"
"""Pod annotation holding the pod's task name; the task-topology plugin reads only the annotation."""
VOLCANO_PREEMPTABLE_ANNOTATION = "volcano.sh/preemptable"
VOLCANO_AFFINITY_ANNOTATION = "volcano.sh/task-topology-affinity"
VOLCANO_ANTI_AFFINITY_ANNOTATION = "volcano.sh/task-topology-anti-affinity"
VOLCANO_TASK_ORDER_ANNOTATION = "volcano.sh/task-topology-task-order"

COSCHEDULING_API_VERSION = "scheduling.x-k8s.io/v1alpha1"
COSCHEDULING_POD_GROUP_LABEL = "scheduling.x-k8s.io/pod-group"
"""Pod label naming the coscheduling PodGroup (read from ``pod.Labels``)."""

KUEUE_QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
KUEUE_TOTAL_COUNT_ANNOTATION = "kueue.x-k8s.io/pod-group-total-count"

DEFAULT_SCHEDULER_NAMES = {
    "volcano": "volcano",
    "coscheduling": "scheduler-plugins-scheduler",
}
"""The scheduler name each mechanism's pods need when the job file names none (the projects' defaults)."""

WORKLOAD_API_FIRST_VERSION = (1, 35)
"""The first Kubernetes minor version serving the Workload API (alpha)."""
WORKLOAD_API_FEATURE_GATES = ("GenericWorkload", "GangScheduling")
"""Feature gates the Workload API and its gang scheduling need (kube-apiserver, kube-scheduler,
kube-controller-manager); ``GangScheduling`` is merged into ``GenericWorkload`` from 1.37."""
WORKLOAD_POD_GROUP_TEMPLATE = "job"
"""Name of the Workload's one pod group (template), which every pod of the job joins."""


class WorkloadApi(Record):
    """The shape of the Workload API in one Kubernetes minor version.

    Attributes:
        api_version: ``scheduling.k8s.io/<version>`` of its objects.
        pod_group_object: whether a separate PodGroup object exists (1.36 on);
            before, the Workload's ``spec.podGroups`` are the groups.
        pod_field: the PodSpec field pointing at the group: ``workloadRef``
            (1.35) or ``schedulingGroup`` (1.36 on).
        template_ref: how a PodGroup names its Workload template:
            ``podGroupTemplateRef`` (1.36) or ``workloadRef`` (1.37 on); None before 1.36.
    """

    api_version: str
    pod_group_object: bool
    pod_field: str
    template_ref: str | None

    @property
    def version(self) -> str:
        """The API version without the group, e.g. ``v1alpha2``."""
        return self.api_version.rpartition("/")[2]


def workload_api(minor: tuple[int, int]) -> WorkloadApi | None:
    """The Workload API served by a Kubernetes version, or None before 1.35.

    Args:
        minor: ``(major, minor)``, e.g. ``(1, 36)``.

    Returns:
        1.35: ``scheduling.k8s.io/v1alpha1`` Workload, pods ``spec.workloadRef``;
        1.36: ``v1alpha2`` Workload and PodGroup (``podGroupTemplateRef``), pods
        ``spec.schedulingGroup``; 1.37 and later: ``v1beta1`` (PodGroup ``workloadRef``).
    """
    if minor < WORKLOAD_API_FIRST_VERSION:
        return None
    if minor == (1, 35):
        return WorkloadApi("scheduling.k8s.io/v1alpha1", False, "workloadRef", None)
    if minor == (1, 36):
        return WorkloadApi(
            "scheduling.k8s.io/v1alpha2", True, "schedulingGroup", "podGroupTemplateRef"
        )
    return WorkloadApi(
        "scheduling.k8s.io/v1beta1", True, "schedulingGroup", "workloadRef"
    )


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
