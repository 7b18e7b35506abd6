"""``spec.scheduling``: priority, gang scheduling and task topology."""

from __future__ import annotations

from t2gen.record import Record

__all__ = [
    "Scheduling",
]


class Scheduling(Record):
    """``spec.scheduling``: priority, gang scheduling and task topology.

    Attributes:
        priority_class_name: PriorityClass of every pod, or None.
        gang: a mechanism of :data:`t2gen.gangs.REGISTRY` (``volcano``, ``kubernetes``...) or None (no gang).
        min_member: the explicit group minimum, or None for every pod of the job.
        queue: Volcano Queue or Kueue LocalQueue, or None.
        schedule_timeout_seconds: coscheduling's wait for the group, or None.
        scheduler_name: the explicit scheduler name, or None for the mechanism's default.
        preemptable: Volcano may preempt the job's pods.
        affinity: task groups whose pods should share nodes; tasks are
            ``jobMaster`` or worker group names, as written.
        anti_affinity: task groups whose pods should not share nodes.
        topology_mode: ``preferred`` or ``required`` (native inter-pod affinity).
        topology_weight: weight of each preferred term, 1-100.
    """

    priority_class_name: str | None
    gang: str | None
    min_member: int | None
    queue: str | None
    schedule_timeout_seconds: int | None
    scheduler_name: str | None
    preemptable: bool
    affinity: tuple[tuple[str, ...], ...]
    anti_affinity: tuple[tuple[str, ...], ...]
    topology_mode: str
    topology_weight: int

    @property
    def has_topology(self) -> bool:
        """Whether any task (anti-)affinity is asked for."""
        return bool(self.affinity or self.anti_affinity)
