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
* :data:`GANG_GROUPS`, immediately before the workloads, where the kinds of
  gang-scheduling group objects go, in the order the caller gives
  (``group_kinds``: t2gen passes :data:`t2gen.gangs.GROUP_KINDS`, which each
  mechanism's module defines, since admission of one group object may need
  another): pods created before their group are scheduled one by one, which
  is what gang scheduling is there to prevent.

Kinds Helm lists keep Helm's relative order, so the streams t2gen renders today
are in the same order as before the slots existed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from typing import Protocol, TypeVar

__all__ = [
    "CUSTOM_RESOURCES",
    "GANG_GROUPS",
    "INSTALL_ORDER",
    "install_order",
    "kind_rank",
    "natural_key",
    "sort_documents",
]

CUSTOM_RESOURCES = "*"
"""The slot in :data:`INSTALL_ORDER` of every kind it does not name."""

GANG_GROUPS = "<gang groups>"
"""The slot in :data:`INSTALL_ORDER` of the kinds that group pods for a gang scheduler (``group_kinds``)."""

INSTALL_ORDER: tuple[str, ...] = (
    "PriorityClass",
    "Namespace",
    "NetworkPolicy",
    "ResourceQuota",
    "LimitRange",
    "PodSecurityPolicy",
    "PodDisruptionBudget",
    "ServiceAccount",
    "Secret",
    "SecretList",
    "ConfigMap",
    "StorageClass",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleList",
    "ClusterRoleBinding",
    "ClusterRoleBindingList",
    "Role",
    "RoleList",
    "RoleBinding",
    "RoleBindingList",
    "Service",
    CUSTOM_RESOURCES,
    GANG_GROUPS,
    "DaemonSet",
    "Pod",
    "ReplicationController",
    "ReplicaSet",
    "Deployment",
    "HorizontalPodAutoscaler",
    "StatefulSet",
    "Job",
    "CronJob",
    "IngressClass",
    "Ingress",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
)
"""Kinds in the order they are installed; :data:`CUSTOM_RESOURCES` marks where the rest go,
:data:`GANG_GROUPS` where the group kinds a caller names go."""


class _Object(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def namespace(self) -> str | None: ...


_Document = TypeVar("_Document", bound=_Object)


@functools.cache
def install_order(group_kinds: tuple[str, ...] = ()) -> tuple[str, ...]:
    """:data:`INSTALL_ORDER` with ``group_kinds``, in their order, in the :data:`GANG_GROUPS` slot."""
    slot = INSTALL_ORDER.index(GANG_GROUPS)
    return (*INSTALL_ORDER[:slot], *group_kinds, *INSTALL_ORDER[slot + 1 :])


@functools.cache
def _ranks(group_kinds: tuple[str, ...]) -> dict[str, int]:
    return {kind: rank for rank, kind in enumerate(install_order(group_kinds))}


def kind_rank(kind: str, group_kinds: tuple[str, ...] = ()) -> int:
    """The position of ``kind`` in :func:`install_order` (unlisted kinds: the custom-resource slot).

    Args:
        kind: an object's ``kind``.
        group_kinds: the gang-scheduling group kinds, in install order.
    """
    ranks = _ranks(group_kinds)
    return ranks.get(kind, ranks[CUSTOM_RESOURCES])


def natural_key(text: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that orders ``wc-2`` before ``wc-10`` (runs of digits compare as numbers)."""
    return tuple(
        [
            (0, int(part)) if part.isdigit() else (1, part)
            for part in _DIGITS.split(text)
            if part
        ]
    )


_DIGITS = re.compile(r"(\d+)")


def sort_documents(
    documents: Iterable[_Document], group_kinds: tuple[str, ...] = ()
) -> list[_Document]:
    """Sort objects by :func:`kind_rank`, then kind, natural name and namespace.

    Args:
        documents: objects with ``kind``, ``name`` and ``namespace`` (rendered
            objects), in any order.
        group_kinds: the gang-scheduling group kinds, in install order, for the
            :data:`GANG_GROUPS` slot (otherwise they sort as custom resources).

    Returns:
        A new list; the same input always gives the same order.
    """
    ranks = _ranks(group_kinds)
    custom = ranks[CUSTOM_RESOURCES]
    # A job's objects share a few names (a batch of 500: 5,500 objects, ~2,300 names).
    naturals: dict[str, tuple[tuple[int, int | str], ...]] = {}

    def key(doc: _Document) -> tuple[int, str, tuple[tuple[int, int | str], ...], str]:
        kind, name = doc.kind, doc.name  # kind_rank inlined (5,500 calls a batch)
        natural = naturals.get(name)
        if natural is None:
            natural = naturals[name] = natural_key(name)
        return (ranks.get(kind, custom), kind, natural, doc.namespace or "")

    return sorted(documents, key=key)
