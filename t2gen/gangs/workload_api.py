"""The Kubernetes Workload API (``gang: kubernetes``, KEP-4671): its objects and pod field change by version.

* 1.35: a ``scheduling.k8s.io/v1alpha1`` Workload whose ``spec.podGroups`` are
  the groups; pods point at it with ``spec.workloadRef``.
* 1.36: a ``v1alpha2`` Workload holding a pod group template and a separate
  PodGroup naming it (``podGroupTemplateRef``); pods point at the PodGroup with
  ``spec.schedulingGroup``.
* 1.37 on: ``v1beta1``, the PodGroup naming the template with ``workloadRef``.

The API is alpha from 1.35, behind the feature gates ``GenericWorkload`` and
``GangScheduling``; it works with the default scheduler.

Sources: kubernetes/api ``scheduling/v1alpha1/types.go`` @ v0.35.0,
``scheduling/v1alpha2/types.go`` @ v0.36.0, ``scheduling/v1beta1/types.go`` @
v0.37.0, and ``core/v1/types.go`` (``PodSpec.workloadRef`` in 1.35,
``PodSpec.schedulingGroup`` from 1.36);
https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from t2gen.gangs.base import (
    GangRule,
    GroupCheck,
    GroupObject,
    JobFinding,
    PodMembership,
    WorkloadCheck,
    as_dict,
    group_size,
    name_and_minimum,
)
from t2gen.kube.versions import format_version
from t2gen.record import Record

if TYPE_CHECKING:
    from t2gen.gangs.minresources import PodRequests
    from t2gen.model import Job

__all__ = [
    "DEFAULT_SCHEDULER",
    "FEATURE_GATES",
    "FIRST_VERSION",
    "GROUP",
    "GROUP_CHECKS",
    "GROUP_TOPOLOGY",
    "INSTALL_ORDER",
    "NAME",
    "POD_GROUP_TEMPLATE",
    "REQUIRED_SETTINGS",
    "RULES",
    "SETTINGS",
    "WORKLOAD_CHECKS",
    "WorkloadApi",
    "group_minimum",
    "group_objects",
    "group_reference",
    "owns",
    "plan_group",
    "plan_minimum",
    "pod_membership",
    "template_references",
    "workload_api",
]

NAME: str = "kubernetes"
GROUP = "scheduling.k8s.io"
FIRST_VERSION = (1, 35)
"""The first Kubernetes minor version serving the Workload API (alpha)."""
FEATURE_GATES = ("GenericWorkload", "GangScheduling")
"""Feature gates the Workload API and its gang scheduling need (kube-apiserver, kube-scheduler,
kube-controller-manager); ``GangScheduling`` is merged into ``GenericWorkload`` from 1.37."""
POD_GROUP_TEMPLATE = "job"
"""Name of the Workload's one pod group (template), which every pod of the job joins."""

SETTINGS: frozenset[str] = frozenset({"minMember"})
REQUIRED_SETTINGS: Mapping[str, str] = {}
DEFAULT_SCHEDULER: str | None = None
GROUP_TOPOLOGY: str | None = None
INSTALL_ORDER: tuple[str, ...] = ("Workload", "PodGroup")
"""The Workload first: from 1.36 a PodGroup names its Workload's pod group template, and
Kubernetes 1.36's API server refuses to create a PodGroup whose Workload does not exist yet
(``PodGroup rejected: Workload "<name>" not found``): the ``PodGroupWorkloadExists``
admission plugin, kubernetes/kubernetes ``plugin/pkg/admission/podgroup/admission.go``
(added by kubernetes/kubernetes#137464, "Added an admission plugin that validates PodGroup
resources reference an existing Workload" in ``CHANGELOG/CHANGELOG-1.36.md``, v1.36.0; on by
default, active with the ``GenericWorkload`` feature gate: ``pkg/kubeapiserver/options/plugins.go``).
1.35 has no PodGroup object and no such plugin; 1.37 removed the plugin
(kubernetes/kubernetes#139008, ``CHANGELOG/CHANGELOG-1.37.md``, v1.37.0-alpha.1), and the
PodGroup still refers to the Workload, so the Workload goes first for every version."""
GROUP_CHECKS: tuple[GroupCheck, ...] = ()
WORKLOAD_CHECKS: tuple[WorkloadCheck, ...] = ()


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
    if minor < FIRST_VERSION:
        return None
    if minor == (1, 35):
        return WorkloadApi(f"{GROUP}/v1alpha1", False, "workloadRef", None)
    if minor == (1, 36):
        return WorkloadApi(
            f"{GROUP}/v1alpha2", True, "schedulingGroup", "podGroupTemplateRef"
        )
    return WorkloadApi(f"{GROUP}/v1beta1", True, "schedulingGroup", "workloadRef")


def _api(kube_version: tuple[int, int]) -> WorkloadApi:
    api = workload_api(kube_version)
    if (
        api is None
    ):  # the rule workload-api-version refuses this first, located in the job file
        raise ValueError(f"Kubernetes {kube_version} has no Workload API")
    return api


def group_objects(
    job: Job, kube_version: tuple[int, int], pod_requests: PodRequests
) -> list[GroupObject]:
    """A Workload ``<job>`` and, from 1.36, a PodGroup ``<job>``.

    The gang policy has only ``minCount``: the Workload API has no field for the
    resources a group needs (``k8s.io/api/scheduling`` ``GangSchedulingPolicy``),
    so ``pod_requests`` is not needed.

    Raises:
        ValueError: ``kube_version`` is before 1.35 (the rules report it first).
    """
    api = _api(kube_version)
    policy = {"gang": {"minCount": group_size(job)}}
    if not api.pod_group_object:
        workload_spec: dict[str, Any] = {
            "podGroups": [{"name": POD_GROUP_TEMPLATE, "policy": policy}]
        }
    else:
        workload_spec = {
            "podGroupTemplates": [
                {"name": POD_GROUP_TEMPLATE, "schedulingPolicy": policy}
            ]
        }
    objects = [GroupObject(api.api_version, "Workload", workload_spec)]
    if api.pod_group_object:
        reference = (
            {
                "workload": {
                    "workloadName": job.name,
                    "podGroupTemplateName": POD_GROUP_TEMPLATE,
                }
            }
            if api.template_ref == "podGroupTemplateRef"
            else {"workloadName": job.name, "templateName": POD_GROUP_TEMPLATE}
        )
        objects.append(
            GroupObject(
                api.api_version,
                "PodGroup",
                {str(api.template_ref): reference, "schedulingPolicy": policy},
            )
        )
    return objects


def pod_membership(job: Job, task: str, kube_version: tuple[int, int]) -> PodMembership:
    """``spec.workloadRef`` (1.35) or ``spec.schedulingGroup`` (1.36 on).

    Raises:
        ValueError: ``kube_version`` is before 1.35 (the rules report it first).
    """
    if _api(kube_version).pod_field == "workloadRef":
        spec: dict[str, Any] = {
            "workloadRef": {"name": job.name, "podGroup": POD_GROUP_TEMPLATE}
        }
    else:
        spec = {"schedulingGroup": {"podGroupName": job.name}}
    return PodMembership({}, {}, spec)


def owns(obj: Mapping[str, Any]) -> bool:
    """A ``scheduling.k8s.io`` PodGroup (1.36 on), or a 1.35 ``v1alpha1`` Workload, whose pod groups are inside it."""
    api_version = str(obj.get("apiVersion", ""))
    kind = obj.get("kind")
    if api_version.rpartition("/")[0] == GROUP and kind == "PodGroup":
        return True
    return api_version == f"{GROUP}/v1alpha1" and kind == "Workload"


def group_minimum(group: Mapping[str, Any]) -> tuple[str, Any]:
    """A PodGroup's ``spec.schedulingPolicy.gang.minCount``, or a 1.35 Workload's first pod group's."""
    spec = as_dict(group.get("spec"))
    if group.get("kind") == "PodGroup":
        return "spec.schedulingPolicy.gang.minCount", as_dict(
            as_dict(spec.get("schedulingPolicy")).get("gang")
        ).get("minCount")
    groups = spec.get("podGroups")
    first = as_dict(groups[0]) if isinstance(groups, list) and groups else {}
    return "spec.podGroups[0].policy.gang.minCount", as_dict(
        as_dict(first.get("policy")).get("gang")
    ).get("minCount")


def group_reference(group: Mapping[str, Any]) -> tuple[str, str] | None:
    """``("PodGroup", name)`` of a PodGroup, or (1.35) ``("Workload", name)`` of a Workload; None without a name."""
    name = as_dict(group.get("metadata")).get("name")
    if not isinstance(name, str) or not name:
        return None
    return ("PodGroup" if group.get("kind") == "PodGroup" else "Workload", name)


def template_references(
    metadata: Mapping[str, Any], spec: Mapping[str, Any]
) -> tuple[tuple[str, str], ...]:
    """The PodGroup ``spec.schedulingGroup.podGroupName`` names, and (1.35) the Workload ``spec.workloadRef.name`` names."""
    references = []
    pod_group = as_dict(spec.get("schedulingGroup")).get("podGroupName")
    if isinstance(pod_group, str) and pod_group:
        references.append(("PodGroup", pod_group))
    workload = as_dict(spec.get("workloadRef")).get("name")
    if isinstance(workload, str) and workload:
        references.append(("Workload", workload))
    return tuple(references)


def plan_group(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """The PodGroup ``spec.schedulingGroup`` names, or (1.35) ``<workload>/<pod group>`` of ``spec.workloadRef``."""
    group = spec.get("schedulingGroup")
    if isinstance(group, Mapping) and group.get("podGroupName"):
        return str(group["podGroupName"])
    ref = spec.get("workloadRef")
    if isinstance(ref, Mapping) and ref.get("name"):
        return f"{ref['name']}/{ref.get('podGroup', '')}".rstrip("/")
    return None


def plan_minimum(group: Mapping[str, Any]) -> tuple[str, int] | None:
    """A PodGroup's name, or (1.35) ``<workload>/<first pod group>``, with its ``minCount``."""
    found = name_and_minimum(group, group_minimum)
    if found is None or group.get("kind") == "PodGroup":
        return found
    name, minimum = found
    groups = as_dict(group.get("spec")).get("podGroups")
    first = as_dict(groups[0]) if isinstance(groups, list) and groups else {}
    return f"{name}/{first.get('name', '')}".rstrip("/"), minimum


def _version(
    data: dict[str, Any], kube_version: tuple[int, int]
) -> Iterator[JobFinding]:
    """``gang: kubernetes`` is rendered only for a Kubernetes version that has the Workload API (1.35 or later).

    The native Workload API (``scheduling.k8s.io`` Workload, and PodGroup from
    1.36) is alpha from Kubernetes 1.35, behind the feature gates
    ``GenericWorkload`` and ``GangScheduling``; an older API server has no such
    objects, and its pods would never reference a gang. The version is the one
    rendered for (``--kube-version``; default the newest supported). Source:
    https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/.
    """
    scheduling = as_dict(as_dict(data.get("spec")).get("scheduling"))
    if scheduling.get("gang") != NAME or workload_api(kube_version):
        return
    first = format_version(FIRST_VERSION)
    yield (
        ("spec", "scheduling", "gang"),
        f"gang: kubernetes needs the Workload API (scheduling.k8s.io), which Kubernetes "
        f"{format_version(kube_version)} does not have; it is alpha from Kubernetes {first}, behind the "
        f"feature gates {' and '.join(FEATURE_GATES)} and "
        "--runtime-config=scheduling.k8s.io/<version>=true on the API server: render with "
        f"--kube-version {first} or later, or choose another gang (volcano, coscheduling, kueue)",
        False,
    )


RULES: tuple[GangRule, ...] = (
    GangRule(
        "workload-api-version",
        ("spec.scheduling.gang",),
        _version,
        options=("--kube-version",),
    ),
)
