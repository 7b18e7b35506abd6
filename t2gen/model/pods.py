"""What each pod is given: worker groups (``spec.workers``) and the job master (``spec.jobMaster``)."""

from __future__ import annotations

from t2gen.kube.quantity import Quantity
from t2gen.model.placement import Placement
from t2gen.model.surface import PodSurface
from t2gen.record import Record

__all__ = [
    "JobMaster",
    "WorkerGroup",
]


class WorkerGroup(Record):
    """One group of identical workers (a Twister2 compute resource).

    Attributes:
        index: position in ``spec.workers``; the StatefulSet is ``<job>-<index>``.
        name: the group's task name (``spec.workers[].name``, default ``str(index)``).
        count: workers in the group.
        per_pod: workers per pod; ``count`` is a multiple of it.
        cpu: cores per worker.
        memory: bytes per worker.
        volatile_disk: scratch bytes per worker; zero for none.
        cpu_limit: cores per worker the container may use at most; None for no limit.
        memory_limit: bytes per worker the container may use at most; None for no limit.
        extended_resources: ``(name, count)`` per worker, sorted by name
            (e.g. ``("nvidia.com/gpu", 1)``).
        placement: where the group's pods run: ``spec.placement`` with the
            group's own node selector, node affinity, tolerations and uniform
            mapping merged over it (:meth:`Placement.merged`).
        surface: this group's runtime class, volumes and environment (after ``spec``'s).
        ephemeral_storage_limit: bytes of ``ephemeral-storage`` per worker the
            container may use at most; None for no limit.
        scalable: the job master may scale the group (Twister2 ``ComputeResource.scalable``);
            only the last group can be (``Twister2Job.java:137-168``).
    """

    index: int
    name: str
    count: int
    per_pod: int
    cpu: Quantity
    memory: Quantity
    volatile_disk: Quantity
    cpu_limit: Quantity | None
    memory_limit: Quantity | None
    extended_resources: tuple[tuple[str, int], ...]
    placement: Placement
    surface: PodSurface = PodSurface()
    ephemeral_storage_limit: Quantity | None = None
    scalable: bool = False

    @property
    def replicas(self) -> int:
        """Pods in the group: ``count / per_pod``."""
        return self.count // self.per_pod


class JobMaster(Record):
    """The job master: in the cluster (``enabled``) or in the client at ``address``."""

    enabled: bool
    address: str | None
    cpu: Quantity
    memory: Quantity
    port: int
    volatile_disk: Quantity
    persistent_disk: Quantity
    cpu_limit: Quantity | None
    memory_limit: Quantity | None
    placement: Placement
    surface: PodSurface = PodSurface()
    ephemeral_storage_limit: Quantity | None = None
