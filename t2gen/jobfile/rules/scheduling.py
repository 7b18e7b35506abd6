"""Scheduling: gang-scheduling settings, worker group task names and the task topology (seed: Volcano's task-topology design)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.gangs import REGISTRY
from t2gen.gangs.base import GangRule
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    RuleOptions,
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
)
from t2gen.jobfile.schema import suggest
from t2gen.twister2.names import JOB_MASTER_TASK, JOB_MASTER_TASK_KEYWORD

_SCHEDULING: JsonPath = ("spec", "scheduling")


def _applies_to(setting: str) -> tuple[str, ...]:
    """The mechanisms that honour a ``spec.scheduling`` setting, in registry order."""
    return tuple(name for name, gang in REGISTRY.items() if setting in gang.SETTINGS)


_SETTINGS = tuple(
    dict.fromkeys(s for gang in REGISTRY.values() for s in sorted(gang.SETTINGS))
)
"""Every ``spec.scheduling`` setting that depends on the mechanism."""


def _scheduling(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(data.get("spec")).get("scheduling"))


def _job_master_enabled(data: dict[str, Any]) -> bool:
    return (
        as_dict(as_dict(data.get("spec")).get("jobMaster")).get("enabled") is not False
    )


def _task_names(data: dict[str, Any]) -> list[str]:
    """The job's task names as a job file writes them: ``jobMaster`` (when in the cluster), then the groups'."""
    names = [JOB_MASTER_TASK_KEYWORD] if _job_master_enabled(data) else []
    for index, group in groups(data):
        name = group.get("name", str(index))
        if isinstance(name, str):
            names.append(name)
    return names


def _pod_count(data: dict[str, Any]) -> int | None:
    """Every pod of the job, or None when a group's size is invalid (reported elsewhere)."""
    pods = 1 if _job_master_enabled(data) else 0
    for _, group in groups(data):
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return None
        pods += count // per_pod
    return pods


@rule(
    "worker-group-names",
    fields=("spec.workers[].name",),
)
def check_group_names(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Worker group names are unique, and none is the job master's task name ``jm`` or another group's index.

    A group's ``name`` is its task name: the ``t2-task`` pod label, Volcano's
    ``volcano.sh/task-spec`` annotation and a key of the PodGroup's
    ``minTaskMember`` (volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go``).
    Two groups with one task name would be one task to the scheduler; ``jm`` is
    the job master's. A name equal to another group's index would make the
    index of an unnamed group ambiguous.
    """
    seen: dict[str, int] = {}
    for index, group in groups(data):
        name = group.get("name", str(index))
        if not isinstance(name, str):
            continue
        where = (
            ("spec", "workers", index, "name")
            if "name" in group
            else ("spec", "workers", index)
        )
        if name == JOB_MASTER_TASK:
            yield problem(
                doc,
                where,
                f"{name!r} is the job master's task name; give the worker group another name",
            )
        elif name in seen:
            yield problem(
                doc,
                where,
                f"worker groups {seen[name]} and {index} are both named {name!r}; task names must be unique",
            )
        seen.setdefault(name, index)


def _written_gang(doc: SourceDoc) -> object:
    """The ``spec.scheduling.gang`` the file has, even one the schema refused (then absent from ``data``)."""
    written: object = doc.data
    for key in ("spec", "scheduling", "gang"):
        written = written.get(key) if isinstance(written, dict) else None
    return written


@rule(
    "scheduling-settings",
    fields=(
        "spec.scheduling.gang",
        "spec.scheduling.minMember",
        "spec.scheduling.queue",
        "spec.scheduling.scheduleTimeoutSeconds",
        "spec.scheduling.schedulerName",
        "spec.scheduling.preemptable",
        "spec.scheduling.topologyWeight",
        "spec.scheduling.topologyMode",
    ),
)
def check_settings(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each scheduling setting is used with a mechanism that has it, and ``minMember`` is at most the job's pods.

    ``minMember`` applies to Volcano, coscheduling and the Workload API (Kueue's
    pod group is always the whole job: ``kueue.x-k8s.io/pod-group-total-count``);
    ``queue`` to Volcano and Kueue, and Kueue needs one; ``scheduleTimeoutSeconds``
    to coscheduling; ``schedulerName`` to Volcano and coscheduling (Kueue and the
    Workload API work with the default scheduler); ``preemptable: true`` to
    Volcano. A group minimum above the job's pod count (every worker pod plus the
    job master pod when it runs in the cluster) can never be met: no pod would
    ever be bound. ``topologyWeight`` weighs the preferred inter-pod
    (anti-)affinity terms of a task topology, so written without a topology,
    with ``topologyMode: required`` (required terms have no weight), or with
    ``gang: volcano`` in the default preferred mode (Volcano's PodGroup carries
    the topology and no native terms are rendered; its plugin's weight is
    ``task-topology.weight`` in the scheduler configuration) it would be ignored.

    Sources: volcano-sh/apis ``pkg/apis/scheduling/v1beta1/types.go``;
    kubernetes-sigs/scheduler-plugins ``apis/scheduling/v1alpha1/types.go``;
    kubernetes-sigs/kueue ``site/content/en/docs/tasks/run/plain_pods.md``;
    https://kubernetes.io/docs/concepts/scheduling-eviction/gang-scheduling/.
    """
    scheduling = _scheduling(data)
    name = scheduling.get("gang")
    gang = REGISTRY.get(name) if isinstance(name, str) else None
    label = f"gang: {name}" if isinstance(name, str) else "no gang"
    for field in _SETTINGS:
        value = scheduling.get(field, False)
        if gang is None and _written_gang(doc) is not None:
            break  # a gang the schema refused (`Volcano`): it names the right one
        if value is not False and (gang is None or field not in gang.SETTINGS):
            yield problem(
                doc,
                (*_SCHEDULING, field),
                f"{field} applies only with gang: {' or '.join(_applies_to(field))}, not with {label}; "
                "remove it",
                key=not isinstance(value, bool),  # a switch turned on: at its value
            )
    yield from _unused_topology_weight(scheduling, doc, label)
    for field, what in gang.REQUIRED_SETTINGS.items() if gang else ():
        if field not in scheduling:
            yield problem(doc, (*_SCHEDULING, "gang"), f"{label} needs {field}: {what}")
    minimum = as_int(scheduling.get("minMember"))
    pods = _pod_count(data)
    if (
        minimum is not None
        and pods is not None
        and minimum > pods
        and gang is not None
        and "minMember" in gang.SETTINGS
    ):
        job_master = (
            " (the worker pods plus the job master pod)"
            if _job_master_enabled(data)
            else ""
        )
        yield problem(
            doc,
            (*_SCHEDULING, "minMember"),
            f"minMember {minimum} is more than the job's {pods} pods{job_master}, so no pod would ever be "
            f"scheduled; use at most {pods}, or leave it out for all of them",
        )


def _gang_rule(gang_rule: GangRule) -> Rule:
    """A mechanism's own rule (:attr:`t2gen.gangs.base.Gang.RULES`) as a job-file rule.

    Its findings are located in the job file here; its docstring is its documentation.
    """

    def run(
        data: dict[str, Any], doc: SourceDoc, options: RuleOptions | None = None
    ) -> Iterator[Problem]:
        version = (options or RuleOptions()).kube_version
        for path, message, at_key in gang_rule.check(data, version):
            yield problem(doc, path, message, key=at_key)

    run.__doc__ = gang_rule.check.__doc__
    made: Rule = rule(gang_rule.id, fields=gang_rule.fields, options=gang_rule.options)(
        run
    )
    return made


_GANG_RULES = tuple(
    _gang_rule(gang_rule) for gang in REGISTRY.values() for gang_rule in gang.RULES
)
"""Every gang mechanism's own rules, mechanism by mechanism (:data:`t2gen.gangs.REGISTRY`)."""


def _group_topology(name: Any) -> str | None:
    """How the group object of the mechanism ``name`` carries the task topology, or None (native terms)."""
    gang = REGISTRY.get(name) if isinstance(name, str) else None
    return gang.GROUP_TOPOLOGY if gang else None


def _unused_topology_weight(
    scheduling: dict[str, Any], doc: SourceDoc, label: str
) -> Iterator[Problem]:
    """A problem when the job file writes a ``topologyWeight`` that no rendered term would carry.

    The schema defaults it to 100, so only the file as written (``doc.data``) says
    whether the user set it.
    """
    written = as_dict(as_dict(as_dict(doc.data).get("spec")).get("scheduling"))
    if "topologyWeight" not in written:
        return
    where = (*_SCHEDULING, "topologyWeight")
    if not (
        as_list(scheduling.get("affinity")) or as_list(scheduling.get("antiAffinity"))
    ):
        message = (
            "applies only with a task topology (affinity or antiAffinity); remove it"
        )
    elif scheduling.get("topologyMode") == "required":
        message = (
            "weighs preferred terms, but topologyMode: required renders required "
            "inter-pod (anti-)affinity, which has no weight; remove it"
        )
    elif topology := _group_topology(scheduling.get("gang")):
        message = (
            f"weighs Kubernetes' preferred inter-pod (anti-)affinity terms, which t2gen does not render "
            f"with {label}: {topology}; remove it (or use topologyMode: required for "
            "native rules, which have no weight)"
        )
    else:
        return
    yield problem(doc, where, f"topologyWeight {message}", key=True)


def _topology(data: dict[str, Any]) -> Iterator[tuple[str, int, list[Any]]]:
    """Yield ``(field, index, tasks)`` of every task group of ``affinity`` and ``antiAffinity``."""
    scheduling = _scheduling(data)
    for field in ("affinity", "antiAffinity"):
        for index, tasks in enumerate(as_list(scheduling.get(field))):
            if isinstance(tasks, list):
                yield field, index, tasks


@rule(
    "task-topology-names",
    fields=("spec.scheduling.affinity[][]", "spec.scheduling.antiAffinity[][]"),
)
def check_task_names(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Every task of the task topology exists, and appears at most once in a group; no group is listed twice.

    The tasks are ``jobMaster`` (when the job master runs in the cluster) and the
    worker groups, by ``name`` or, unnamed, by index. Volcano's task-topology
    design ("Bucket: Task Affinity/Anti-Affinity within Job", volcano-sh/volcano
    ``docs/design/task-topology.md``) defines each group as a set of tasks; a
    task named twice, or a group listed twice, says nothing more and is most
    likely a typo.
    """
    known = _task_names(data)
    for field in ("affinity", "antiAffinity"):
        seen: dict[frozenset[str], int] = {}
        for _, index, tasks in ((f, i, t) for f, i, t in _topology(data) if f == field):
            names: set[str] = set()
            for position, task in enumerate(tasks):
                if not isinstance(task, str):
                    continue
                where = (*_SCHEDULING, field, index, position)
                if task not in known:
                    if task == JOB_MASTER_TASK_KEYWORD:
                        yield problem(
                            doc,
                            where,
                            "the job master runs in the submitting client (jobMaster.enabled: false), "
                            "so it is no task of the cluster; remove jobMaster",
                        )
                    else:
                        hint = suggest(task, known, noun="task") if known else ""
                        yield problem(
                            doc,
                            where,
                            f"unknown task {task!r}; a task is jobMaster or a worker group's name "
                            f"(its index when unnamed): {hint}",
                        )
                elif task in names:
                    yield problem(
                        doc,
                        where,
                        f"task {task!r} is listed twice in this group; list it once",
                    )
                names.add(task)
            key = frozenset(names)
            if key and key in seen:
                yield problem(
                    doc,
                    (*_SCHEDULING, field, index),
                    f"this group repeats {field}[{seen[key]}]; list each group once",
                )
            seen.setdefault(key, index)


def _pairs(tasks: list[Any]) -> set[frozenset[str]]:
    """The task pairs a group relates: every two different tasks, or the one task with itself."""
    names = sorted({task for task in tasks if isinstance(task, str)})
    if len(names) == 1:
        return {frozenset(names)}
    return {frozenset((a, b)) for i, a in enumerate(names) for b in names[i + 1 :]}


@rule(
    "task-topology-conflict",
    fields=("spec.scheduling.affinity[][]", "spec.scheduling.antiAffinity[][]"),
)
def check_conflicts(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """No two tasks are both affine and anti-affine.

    In a group of several tasks, each task is (anti-)affine to the others; a
    one-task group makes the task (anti-)affine to itself (Volcano's
    task-topology design, volcano-sh/volcano ``docs/design/task-topology.md``:
    "If there's any conflict, the pod will not be placed in any bucket").
    With ``topologyMode: required`` the pods could not be scheduled at all;
    there, a required affinity term selects the whole group, the task itself
    included (so that the first pod can start), so every task of an affinity
    group is also affine to itself and to each other task of it.
    """
    required = _scheduling(data).get("topologyMode") == "required"
    affine: dict[frozenset[str], int] = {}
    for field, index, tasks in _topology(data):
        if field == "affinity":
            pairs = _pairs(tasks)
            if required:
                names = {task for task in tasks if isinstance(task, str)}
                pairs |= {frozenset((a, b)) for a in names for b in names}
            for pair in pairs:
                affine.setdefault(pair, index)
    for field, index, tasks in _topology(data):
        if field != "antiAffinity":
            continue
        for pair in sorted(_pairs(tasks), key=sorted):
            if pair in affine:
                line = doc.position((*_SCHEDULING, "affinity", affine[pair]))[0]
                if len(pair) > 1:
                    first, second = sorted(pair)
                    what = f"tasks {first!r} and {second!r} are anti-affine here but affine"
                else:
                    what = f"task {next(iter(pair))!r} is anti-affine with itself here but affine with itself"
                yield problem(
                    doc,
                    (*_SCHEDULING, "antiAffinity", index),
                    f"{what} in affinity[{affine[pair]}] (line {line}); "
                    "keep one of the two",
                )


RULES: tuple[Rule, ...] = (
    check_group_names,
    check_settings,
    *_GANG_RULES,
    check_task_names,
    check_conflicts,
)
"""This module's rules and the gang mechanisms', in the order ``docs/rules.md`` lists them."""
