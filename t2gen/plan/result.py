"""What ``t2gen plan --nodes`` finds: per-StatefulSet filter reports, one placement, the verdict."""

from __future__ import annotations

from t2gen.plan.admission import AdmissionVerdict
from t2gen.plan.quantities import Resources
from t2gen.plan.simulate import SchedulerVerdict
from t2gen.record import Record

__all__ = [
    "FilterRejection",
    "GangReport",
    "GroupReport",
    "NodeAssignment",
    "PlanResult",
]


class FilterRejection(Record):
    """Why one node cannot run a pod of one StatefulSet: the first filter that fails.

    Attributes:
        node: the node's name.
        filter: the scheduler plugin (``TaintToleration``, ``NodeResourcesFit``, ...).
        message: what fails, with numbers (``1500m cpu free, pod needs 4``).
    """

    node: str
    filter: str
    message: str

    def __str__(self) -> str:
        """Return ``node: message``."""
        return f"{self.node}: {self.message}"


class GroupReport(Record):
    """The filters' outcome and the placement for one StatefulSet.

    Attributes:
        statefulset: its name.
        replicas: pods it wants.
        per_pod: requests of one pod (cpu in millicores, memory in bytes).
        exclusive_cores: whole cores per pod for bound workers (0: not bound).
        constraint: the inter-pod constraint its pods carry
            (:func:`t2gen.plan.filters.interpod.constraint`): ``all-separate-nodes``
            or ``all-same-node`` (``spec.placement.uniform``), e.g.
            ``required pod anti-affinity (task topology: w)`` (a required task
            topology), or ``none``.
        passing: nodes where one of its pods passes every filter, with the pods
            already running (and none of this job's).
        rejections: the other nodes, each with the first filter that fails.
        room: how many of its pods those nodes hold if it were alone (an upper bound).
        placed: how many the placement put on nodes.
    """

    statefulset: str
    replicas: int
    per_pod: Resources
    exclusive_cores: int
    constraint: str
    passing: tuple[str, ...]
    rejections: tuple[FilterRejection, ...]
    room: int
    placed: int


class NodeAssignment(Record):
    """Consecutive pods of one StatefulSet placed on one node.

    Attributes:
        node: the node's name.
        statefulset: the StatefulSet's name.
        first_ordinal: ordinal of the first pod (pod ``<statefulset>-<ordinal>``).
        pods: how many pods, ordinals ``first_ordinal`` .. ``first_ordinal + pods - 1``.
    """

    node: str
    statefulset: str
    first_ordinal: int
    pods: int

    def pod_names(self) -> tuple[str, ...]:
        """Return the pods' names, ``<statefulset>-<ordinal>``."""
        return tuple(
            f"{self.statefulset}-{k}"
            for k in range(self.first_ordinal, self.first_ordinal + self.pods)
        )


class GangReport(Record):
    """A gang (pod group) and whether its minimum fits at once.

    Attributes:
        name: the group's name.
        statefulsets: the StatefulSets whose pods join it.
        pods: its pods in total.
        min_member: pods that must start together (a PodGroup's ``minMember``, else all).
        placed: pods the placement fits at once.
    """

    name: str
    statefulsets: tuple[str, ...]
    pods: int
    min_member: int
    placed: int


class PlanResult(Record):
    """The verdict, the per-StatefulSet filter reports and one placement.

    Attributes:
        feasible: every pod of the job fits at once.
        reasons: why not (empty when feasible), naming nodes and numbers.
        groups: one report per StatefulSet, in the input's order.
        placement: one placement that passes every filter (partial when infeasible).
        gangs: gangs found on the pod templates (or the whole job with ``gang=True``).
        nodes: how many nodes were considered.
        pods: how many pods the job has.
        notes: what the prediction cannot see (static CPU manager policy, other topology keys).
        scheduler: what kube-scheduler's one-pod-at-a-time loop did with the job
            (:mod:`t2gen.plan.simulate`); None when not asked (the job does not fit,
            or a gang or another scheduler places its pods).
        admission: whether the API server creates the pods and their queue admits
            them (``plan --quota``, :mod:`t2gen.plan.admission`); None when not asked.
    """

    feasible: bool
    reasons: tuple[str, ...]
    groups: tuple[GroupReport, ...]
    placement: tuple[NodeAssignment, ...]
    gangs: tuple[GangReport, ...]
    nodes: int
    pods: int
    notes: tuple[str, ...] = ()
    scheduler: SchedulerVerdict | None = None
    admission: AdmissionVerdict | None = None
