"""The objects ``plan --quota`` reads (:mod:`t2gen.plan.quotaread`), as records.

Amounts are those of :mod:`t2gen.plan.quantities`: ``cpu`` (and ``requests.cpu``,
``limits.cpu``) in millicores, everything else in whole units (bytes, counts).
"""

from __future__ import annotations

from collections.abc import Mapping

from t2gen.record import Record

__all__ = [
    "ClusterQueue",
    "FlavorQuota",
    "LimitRange",
    "LimitRangeItem",
    "LocalQueue",
    "QuotaObjects",
    "ResourceQuota",
    "VolcanoQueue",
    "base_resource",
]

Amounts = Mapping[str, int]


def base_resource(name: str) -> str:
    """The resource a quota name counts: ``requests.cpu`` -> ``cpu``, ``limits.memory`` -> ``memory``."""
    for prefix in ("requests.", "limits."):
        if name.startswith(prefix):
            return name[len(prefix) :]
    return name


class LimitRangeItem(Record):
    """One ``spec.limits[]`` entry of a LimitRange (amounts: cpu in millicores)."""

    type: str
    default: Amounts
    default_request: Amounts
    min: Amounts
    max: Amounts
    max_ratio: Amounts  # in thousandths: 2 -> 2000


class LimitRange(Record):
    """A LimitRange: its name, namespace and items."""

    name: str
    namespace: str
    items: tuple[LimitRangeItem, ...]


class ResourceQuota(Record):
    """A ResourceQuota: ``hard`` and ``used`` by quota resource name (``requests.cpu`` in millicores).

    Attributes:
        scopes: ``spec.scopes`` and ``spec.scopeSelector.matchExpressions`` as
            (scope, operator, values).
        hard_from_spec: ``status.hard`` was absent (the quota controller has not
            synced it yet), so ``spec.hard`` is used.
    """

    name: str
    namespace: str
    hard: Amounts
    used: Amounts
    scopes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    hard_from_spec: bool = False


class FlavorQuota(Record):
    """One flavor of a Kueue resource group: quotas and usage by resource (None: no limit)."""

    name: str
    nominal: Amounts
    borrowing: Mapping[str, int | None]
    lending: Mapping[str, int | None]
    used: Amounts


class ClusterQueue(Record):
    """A Kueue ClusterQueue: its resource groups (covered resources, flavors in order) and cohort."""

    name: str
    cohort: str | None
    groups: tuple[tuple[tuple[str, ...], tuple[FlavorQuota, ...]], ...]


class LocalQueue(Record):
    """A Kueue LocalQueue: the ClusterQueue it sends a namespace's workloads to."""

    name: str
    namespace: str
    cluster_queue: str


class VolcanoQueue(Record):
    """A Volcano Queue: capability, guarantee, deserved, allocated (empty when unset) and state."""

    name: str
    capability: Amounts
    guarantee: Amounts
    deserved: Amounts
    allocated: Amounts
    state: str


class QuotaObjects(Record):
    """Everything ``--quota`` holds, in the file's order per kind."""

    resource_quotas: tuple[ResourceQuota, ...] = ()
    limit_ranges: tuple[LimitRange, ...] = ()
    cluster_queues: tuple[ClusterQueue, ...] = ()
    local_queues: tuple[LocalQueue, ...] = ()
    volcano_queues: tuple[VolcanoQueue, ...] = ()

    def namespaces(self) -> set[str]:
        """The namespaces of the namespaced objects (quotas, limit ranges, local queues)."""
        spaces = {x.namespace for x in self.resource_quotas}
        spaces.update(x.namespace for x in self.limit_ranges)
        spaces.update(x.namespace for x in self.local_queues)
        return spaces
