"""Checks of gang-scheduling groups, for every mechanism of :data:`t2gen.gangs.REGISTRY`.

A group is only as good as the pods that join it: a minimum above the pods that
point at the group is never met, and a pod of the job that does not point at it
is scheduled alone. Which object is a group, where its minimum is and how a pod
joins it is each mechanism's to say (:class:`t2gen.gangs.base.Gang`); so are the
checks only one mechanism has (a Volcano PodGroup's task topology, a Kueue pod
group's labels), registered here as checks like any other.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from typing import Any

from t2gen.checks.base import JOB_LABEL, Check, Finding, as_dict, check
from t2gen.checks.stream import MAX_NAMED, Stream, namespace_of
from t2gen.gangs import REGISTRY, Gang, group_owner
from t2gen.gangs.base import GroupCheck, WorkloadCheck

__all__ = ["GROUP_CHECKS", "WORKLOAD_CHECKS"]

_DEFAULT_SCHEDULER = "default-scheduler"


def _template(workload: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    template = as_dict(as_dict(workload.get("spec")).get("template"))
    return as_dict(template.get("metadata")), as_dict(template.get("spec"))


def _members(obj: dict[str, Any], gang: Gang, stream: Stream) -> list[dict[str, Any]]:
    """The workloads of the group's namespace whose pod templates join the group ``obj``, in stream order.

    Every group of a namespace asks about the same templates: they are indexed
    by the group references they carry (:meth:`t2gen.gangs.base.Gang.template_references`)
    once per stream and mechanism, so that a batch of gang jobs, a group per job,
    looks each group's members up instead of testing every template against it.
    """
    reference = gang.group_reference(obj)
    if reference is None:
        return []
    namespace = namespace_of(obj)

    def index() -> dict[Hashable, list[dict[str, Any]]]:
        members: dict[Hashable, list[dict[str, Any]]] = {}
        for workload, _ in stream.templates_in(namespace):
            for key in gang.template_references(*_template(workload)):
                members.setdefault(key, []).append(workload)
        return members

    found: dict[Hashable, list[dict[str, Any]]] = stream.memo(
        ("gang-members", gang.NAME, namespace), index
    )
    return found.get(reference, [])


def _replicas(workload: dict[str, Any]) -> int:
    replicas = as_dict(workload.get("spec")).get("replicas", 1)
    return (
        replicas if isinstance(replicas, int) and not isinstance(replicas, bool) else 1
    )


def _name(obj: dict[str, Any]) -> str:
    return f"{obj.get('kind')}/{as_dict(obj.get('metadata')).get('name')}"


@check("group-minimum", reads="stream")
def group_minimum(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A gang group's minimum is at most the pods that join it.

    The scheduler binds none of a group's pods until its minimum can be placed
    (Volcano and coscheduling ``minMember``, the Workload API's ``minCount``); a
    minimum above the pods whose templates point at the group (the replicas of
    each workload) is never reached, and the job waits for ever. A group no pod
    template of the stream joins is not checked: its pods may come from
    elsewhere. t2gen renders the job's pod count, or ``spec.scheduling.minMember``.
    Sources: volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go``;
    kubernetes-sigs/scheduler-plugins ``pkg/coscheduling/core/core.go``;
    https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/.
    """
    gang = group_owner(obj)
    if gang is None:
        return
    members = _members(obj, gang, stream)
    path, minimum = gang.group_minimum(obj)
    pods = sum(_replicas(workload) for workload in members)
    if members and isinstance(minimum, int) and minimum > pods:
        yield (
            path,
            f"{minimum} is more than the {pods} pods that join the group "
            f"({', '.join(_name(w) for w in members)}); no pod would ever be scheduled",
        )


@check("group-members", reads="stream")
def group_members(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Every pod template of the group's job points at the group, and Volcano's and coscheduling's run on their scheduler.

    A group object labelled ``t2-job: <job>`` stands for the whole job: a
    workload of the same job (same namespace, pod template labelled ``t2-job:
    <job>``) that does not join it is scheduled on its own, which is the
    half-placed job gang scheduling is there to prevent. Volcano ignores pods
    whose ``schedulerName`` is not its own (volcano-sh/volcano
    ``pkg/scheduler/cache/util.go``), and only the scheduler running the
    Coscheduling plugin honours its PodGroup, so their pods need a
    ``schedulerName`` other than ``default-scheduler``. A group names at most
    ten workloads that do not join it and counts the rest.
    """
    gang = group_owner(obj)
    if gang is None:
        return
    job = as_dict(as_dict(obj.get("metadata")).get("labels")).get(JOB_LABEL)
    if isinstance(job, str):
        yield from _not_joining(obj, gang, job, stream)
    expected = gang.DEFAULT_SCHEDULER
    if expected is not None:
        for workload in _members(obj, gang, stream):
            scheduler = _template(workload)[1].get("schedulerName", _DEFAULT_SCHEDULER)
            if scheduler == _DEFAULT_SCHEDULER:
                yield (
                    "metadata.name",
                    f"{_name(workload)} joins the group but runs on the default scheduler, which ignores it; "
                    f"set spec.template.spec.schedulerName (e.g. {expected})",
                )


def _not_joining(
    group: dict[str, Any], gang: Gang, job: str, stream: Stream
) -> Iterator[Finding]:
    """The workloads of ``job`` that do not join ``group``: the first :data:`MAX_NAMED` by name, then a count.

    The job's workloads are looked up once per stream, and a group reads only
    them up to the tenth that does not join and its own members: a stream of
    many groups of one job (each making every workload of the job a finding)
    is linear, not groups x workloads.
    """
    namespace = namespace_of(group)
    workloads: list[dict[str, Any]] = stream.memo(
        ("job-workloads", namespace, job),
        lambda: [w for w, _ in stream.labelled(namespace, {JOB_LABEL: job})],
    )
    members = _members(group, gang, stream)
    joined = {id(workload) for workload in members}
    of_job = sum(
        1
        for w in members
        if as_dict(_template(w)[0].get("labels")).get(JOB_LABEL) == job
    )
    named = 0
    for workload in workloads:
        if named == MAX_NAMED:
            break
        if id(workload) not in joined:
            named += 1
            yield (
                "metadata.name",
                f"{_name(workload)} of job {job!r} does not join the group; its pods would be "
                "scheduled alone",
            )
    if (more := len(workloads) - of_job - named) > 0:
        yield (
            "metadata.name",
            f"{more:,} more workloads of job {job!r} do not join the group; their pods would be "
            "scheduled alone",
        )


def _group_check(gang: Gang, item: GroupCheck) -> Check:
    """A mechanism's own check of its group objects, run with the group's members."""

    def run(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
        if group_owner(obj) is gang:
            yield from item.run(obj, _members(obj, gang, stream))

    run.__doc__ = item.run.__doc__
    return check(item.id, reads="stream")(run)


def _workload_check(item: WorkloadCheck) -> Check:
    """A mechanism's own check of workloads, run with the stream's pod templates."""

    def run(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
        return item.run(obj, namespace_of(obj), stream)

    run.__doc__ = item.run.__doc__
    return check(item.id, reads="stream")(run)


GROUP_CHECKS: tuple[Check, ...] = (
    group_minimum,
    group_members,
    *(_group_check(g, item) for g in REGISTRY.values() for item in g.GROUP_CHECKS),
)
"""Checks of group objects (the kinds of :data:`t2gen.gangs.GROUP_KINDS`)."""

WORKLOAD_CHECKS: tuple[Check, ...] = tuple(
    _workload_check(item) for g in REGISTRY.values() for item in g.WORKLOAD_CHECKS
)
"""Checks of workloads (pod templates) that join a gang."""
