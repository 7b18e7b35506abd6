"""Install order: which kind of object a manifest stream lists first, as data.

``kubectl apply -f`` creates objects in the order of the stream, so an object
should come after the objects it refers to. :data:`INSTALL_ORDER` is Helm's
``InstallOrder`` (helm/helm, ``pkg/release/util/kind_sorter.go``) with two slots
added before the workloads (``DaemonSet`` ... ``CronJob``):

* :data:`CUSTOM_RESOURCES`, where every kind not listed goes (sorted by kind).
  Helm installs unknown kinds last (``lessByKind``: "unknown kind is last"), but
  the custom resources a job ships with its workloads are mostly ones its pods
  need when they are created (a gang-scheduling group, a certificate that
  becomes a Secret), so t2gen puts them after what they may refer to (RBAC,
  ServiceAccounts, ConfigMaps, Services, and ``CustomResourceDefinition``
  itself) and before the pods.
* :data:`SCHEDULING_KINDS` (``PodGroup`` of Volcano and of kubernetes-sigs
  scheduler-plugins' coscheduling; ``Workload``, the ``scheduling.k8s.io``
  gang-scheduling API), immediately before the workloads: pods created before
  their group are scheduled one by one, which is what gang scheduling is there
  to prevent.

Kinds Helm lists keep Helm's relative order, so the streams t2gen renders today
are in the same order as before the slots existed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

__all__ = [
    "CUSTOM_RESOURCES",
    "INSTALL_ORDER",
    "SCHEDULING_KINDS",
    "kind_rank",
    "natural_key",
    "sort_documents",
]

CUSTOM_RESOURCES = "*"
"""The slot in :data:`INSTALL_ORDER` of every kind it does not name."""

SCHEDULING_KINDS: tuple[str, ...] = ("PodGroup", "Workload")
"""Kinds that group pods for the scheduler; they must exist before the pods."""

INSTALL_ORDER: tuple[str, ...] = (
    "PriorityClass", "Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
    "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
    "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole", "ClusterRoleList",
    "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList", "RoleBinding", "RoleBindingList",
    "Service",
    CUSTOM_RESOURCES,
    *SCHEDULING_KINDS,
    "DaemonSet", "Pod", "ReplicationController", "ReplicaSet", "Deployment",
    "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob", "IngressClass", "Ingress", "APIService",
    "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
)  # fmt: skip
"""Kinds in the order they are installed; :data:`CUSTOM_RESOURCES` marks where the rest go."""

_RANK = {kind: rank for rank, kind in enumerate(INSTALL_ORDER)}


class _Object(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str | None: ...


_Document = TypeVar("_Document", bound=_Object)


def kind_rank(kind: str) -> int:
    """The position of ``kind`` in :data:`INSTALL_ORDER` (unlisted kinds: the custom-resource slot)."""
    return _RANK.get(kind, _RANK[CUSTOM_RESOURCES])


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders ``wc-2`` before ``wc-10`` (runs of digits compare as numbers)."""
    return tuple(
        (0, int(part)) if part.isdigit() else (1, part)
        for part in re.split(r"(\d+)", text)
        if part
    )


def sort_documents(documents: Iterable[_Document]) -> list[_Document]:
    """Sort objects by :func:`kind_rank`, then kind, natural name and namespace.

    Args:
        documents: objects with ``kind``, ``name`` and ``namespace`` (rendered
            objects), in any order.

    Returns:
        A new list; the same input always gives the same order.
    """
    return sorted(
        documents,
        key=lambda doc: (
            kind_rank(doc.kind),
            doc.kind,
            natural_key(doc.name),
            doc.namespace or "",
        ),
    )
