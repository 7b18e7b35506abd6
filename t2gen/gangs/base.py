"""The :class:`Gang` Protocol every gang-scheduling mechanism module implements, and what they share.

A mechanism is a module (``volcano``, ``coscheduling``, ``kueue``,
``workload_api``) whose module-level names implement :class:`Gang`, the way
pre-commit's language modules implement its ``Language`` Protocol
(pre-commit/pre-commit ``pre_commit/lang_base.py``, ``pre_commit/all_languages.py``).
Generic code never names a mechanism: it asks :data:`t2gen.gangs.REGISTRY`
for the one a job file's ``spec.scheduling.gang`` names, or for the one that
owns a group object.

This package sits low in the house: it imports only Kubernetes facts, the
Twister2 names and records. What it needs of the layers above it arrives as
arguments: the job model (typed, never imported at run time), the stream of
checked objects (:class:`PodTemplates`), and the job document as a dict.
Findings are plain data that the callers locate: ``(json_path, message, at_key)``
for the job file's rules, ``(json_path, message)`` for the output checks.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from t2gen.kube.quantity import Quantity
from t2gen.record import Record
from t2gen.twister2 import names

if TYPE_CHECKING:
    from t2gen.model import Job

__all__ = [
    "Finding",
    "Gang",
    "GangRule",
    "GroupCheck",
    "GroupObject",
    "JobFinding",
    "JobPath",
    "PodMembership",
    "PodTemplates",
    "WorkloadCheck",
    "as_dict",
    "group_named_by",
    "group_size",
    "name_and_minimum",
    "owns_kind",
    "plan_minimum_of",
    "rendered_task_groups",
    "spec_min_member",
    "task_order",
]

JobPath = tuple[str | int, ...]
"""A JSON path into the job file, e.g. ``("spec", "scheduling", "queue")``."""

JobFinding = tuple[JobPath, str, bool]
"""A broken job-file rule: ``(path, message, at_key)``; ``at_key`` locates it at the key, not the value."""

Finding = tuple[str, str]
"""A problem of a rendered object: ``(json_path, message)``, as :data:`t2gen.checks.base.Finding`."""


class GroupObject(Record):
    """One object of a mechanism's job-wide group, before the job's metadata is added.

    The renderer adds the ``metadata`` every object of the job has (name ``<job>``,
    namespace, labels, the job's annotations), so ``kubectl delete -l t2-job=<job>``
    removes the group too.

    Attributes:
        api_version: ``<group>/<version>``, e.g. ``scheduling.volcano.sh/v1beta1``.
        kind: e.g. ``PodGroup``; one of the mechanism's ``INSTALL_ORDER``.
        spec: the object's ``spec``.
        annotations: annotations of the object itself, put before the job's own.
    """

    api_version: str
    kind: str
    spec: dict[str, Any]
    annotations: dict[str, str] = {}  # noqa: RUF012 - a record is immutable; never mutated


class PodMembership(Record):
    """What a pod template needs to join the job's group.

    Attributes:
        labels: pod labels, after the job's and the ``t2-task`` label.
        annotations: pod annotations.
        spec: PodSpec fields, after ``schedulerName`` and ``priorityClassName``.
    """

    labels: dict[str, str]
    annotations: dict[str, str]
    spec: dict[str, Any]


class GangRule(Record):
    """A rule of the job file that only one mechanism has (registered in :mod:`t2gen.jobfile.rules`).

    Attributes:
        id: the stable kebab-case rule ID (never reused or renamed).
        fields: the job-file fields it reads, as in :attr:`t2gen.jobfile.rules.Rule.fields`.
        check: ``(data, kube_version) -> findings``: the job document with the
            schema's defaults applied, and ``(major, minor)`` rendered for. Its
            docstring is the rule's documentation (``docs/rules.md``).
        options: the command-line options it reads (``--kube-version``), for the documentation.
    """

    id: str
    fields: tuple[str, ...]
    check: Callable[[dict[str, Any], tuple[int, int]], Iterator[JobFinding]]
    options: tuple[str, ...] = ()


class PodTemplates(Protocol):
    """The pod templates of a checked stream, as :class:`t2gen.checks.stream.Stream` offers them."""

    def labelled(
        self, namespace: str, required: dict[str, str]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace`` whose labels include ``required``."""
        ...


class GroupCheck(Record):
    """An output check of one mechanism's group objects (registered in :mod:`t2gen.checks.scheduling`).

    Attributes:
        id: the stable kebab-case check ID.
        run: ``(group, members) -> findings``: a group object the mechanism owns
            and the workloads of its namespace whose pod templates join it. Its
            docstring is the check's documentation.
    """

    id: str
    run: Callable[[dict[str, Any], list[dict[str, Any]]], Iterator[Finding]]


class WorkloadCheck(Record):
    """An output check of workloads (objects with a pod template) for one mechanism.

    Attributes:
        id: the stable kebab-case check ID.
        run: ``(workload, namespace, templates) -> findings``: the workload, its
            namespace (``""`` when not written) and the stream's pod templates.
            Its docstring is the check's documentation.
    """

    id: str
    run: Callable[[dict[str, Any], str, PodTemplates], Iterator[Finding]]


class Gang(Protocol):
    """A gang-scheduling mechanism: everything t2gen knows of it, in one module.

    Attributes:
        NAME: the value of ``spec.scheduling.gang`` (the job schema's enum).
        SETTINGS: the ``spec.scheduling`` fields that depend on the mechanism and
            that it honours (``minMember``, ``queue``, ``scheduleTimeoutSeconds``,
            ``schedulerName``, ``preemptable``); any other of them written with
            this mechanism is an error (rule ``scheduling-settings``).
        REQUIRED_SETTINGS: the settings it cannot work without, each with what
            it is, for the message (``queue``: "the name of the LocalQueue ...").
        DEFAULT_SCHEDULER: the ``schedulerName`` its pods need when the job file
            names none, or None when the default scheduler serves it.
        GROUP_TOPOLOGY: how its group object carries a preferred task topology
            (a phrase for messages), or None when t2gen renders Kubernetes' own
            preferred inter-pod (anti-)affinity terms for it.
        INSTALL_ORDER: the kinds of its group objects, in the order ``kubectl
            apply`` must create them (admission of one may need the one before),
            all before the pods (:func:`t2gen.kube.order.sort_documents`).
        RULES: its own job-file rules.
        GROUP_CHECKS: its own checks of its group objects.
        WORKLOAD_CHECKS: its own checks of workloads whose pods join its groups.
    """

    NAME: str
    SETTINGS: frozenset[str]
    REQUIRED_SETTINGS: Mapping[str, str]
    DEFAULT_SCHEDULER: str | None
    GROUP_TOPOLOGY: str | None
    INSTALL_ORDER: tuple[str, ...]
    RULES: tuple[GangRule, ...]
    GROUP_CHECKS: tuple[GroupCheck, ...]
    WORKLOAD_CHECKS: tuple[WorkloadCheck, ...]

    def group_objects(
        self,
        job: Job,
        kube_version: tuple[int, int],
        pod_requests: Mapping[str, Mapping[str, Quantity]],
    ) -> list[GroupObject]:
        """The job-wide group's objects (none when the group is only labels on the pods).

        ``pod_requests`` holds one pod's requests by task (``jm``, each worker
        group's name), for a group that says how much it needs
        (:func:`t2gen.gangs.minresources.min_resources`).
        """
        ...

    def pod_membership(
        self, job: Job, task: str, kube_version: tuple[int, int]
    ) -> PodMembership:
        """What the pods of ``task`` (``jm`` or a worker group's name) need to join the group."""
        ...

    def owns(self, obj: Mapping[str, Any]) -> bool:
        """Whether a Kubernetes object is a group object of this mechanism (checked by ``group-*``)."""
        ...

    def group_minimum(self, group: Mapping[str, Any]) -> tuple[str, Any]:
        """``(json_path, value)`` of the pods a group object it owns needs at once."""
        ...

    def group_reference(self, group: Mapping[str, Any]) -> Hashable | None:
        """What a pod template carries to join ``group``, a group object it owns.

        None when the group object has no usable name: no pod joins it.
        """
        ...

    def template_references(
        self, metadata: Mapping[str, Any], spec: Mapping[str, Any]
    ) -> tuple[Hashable, ...]:
        """The :meth:`group_reference` of every group a pod template (its ``metadata`` and ``spec``) joins.

        A template joins a group when the group's reference is among these;
        the output checks look the members of every group of a stream up by
        them, once per stream.
        """
        ...

    def plan_group(
        self, metadata: Mapping[str, Any], spec: Mapping[str, Any]
    ) -> str | None:
        """The name ``t2gen plan`` gives the gang a pod template joins, or None."""
        ...

    def plan_minimum(self, group: Mapping[str, Any]) -> tuple[str, int] | None:
        """``(name, pods)`` of a group object it owns: the :meth:`plan_group` name of its pods, its minimum."""
        ...


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else ``{}`` (malformed input is someone else's to report)."""
    return value if isinstance(value, dict) else {}


def group_size(job: Job) -> int:
    """The group minimum: ``spec.scheduling.minMember``, else every pod of the job."""
    return job.spec.scheduling.min_member or job.spec.job_pods


def task_order(job: Job) -> list[tuple[str, int]]:
    """``(task, pods)`` of every task of the job, in order: the job master (when in the cluster), then each group."""
    tasks = [(names.JOB_MASTER_TASK, 1)] if job.spec.job_master.enabled else []
    return tasks + [(group.name, group.replicas) for group in job.spec.workers]


def rendered_task_groups(
    groups: tuple[tuple[str, ...], ...],
) -> tuple[tuple[str, ...], ...]:
    """Task groups of the job file (``jobMaster``, group names) as rendered task names (``jm``, ...)."""
    return tuple(tuple(names.task_name(task) for task in group) for group in groups)


def owns_kind(api_version: str, kind: str) -> Callable[[Mapping[str, Any]], bool]:
    """A mechanism's :meth:`Gang.owns` for group objects of one ``kind`` in the API group of ``api_version``.

    Args:
        api_version: ``<group>/<version>`` the mechanism renders, e.g.
            ``scheduling.x-k8s.io/v1alpha1``; any version of the group is owned.
        kind: the group object's kind, e.g. ``PodGroup``.
    """
    api_group = api_version.rpartition("/")[0]

    def owns(obj: Mapping[str, Any]) -> bool:
        group = str(obj.get("apiVersion", "")).rpartition("/")[0]
        return group == api_group and obj.get("kind") == kind

    owns.__doc__ = f"A ``{api_group}`` {kind} (any version)."
    return owns


def spec_min_member(group: Mapping[str, Any]) -> tuple[str, Any]:
    """``spec.minMember``."""
    return "spec.minMember", as_dict(group.get("spec")).get("minMember")


def group_named_by(
    where: str, key: str, group_noun: str
) -> tuple[
    Callable[[Mapping[str, Any]], str | None],
    Callable[[Mapping[str, Any], Mapping[str, Any]], tuple[str, ...]],
    Callable[[Mapping[str, Any], Mapping[str, Any]], str | None],
]:
    """A mechanism's :meth:`Gang.group_reference`, :meth:`Gang.template_references` and :meth:`Gang.plan_group` when a pod's label or annotation names its group.

    Args:
        where: ``labels`` or ``annotations``: the pod ``metadata`` field holding ``key``.
        key: the label or annotation whose value is the group's name, e.g.
            ``scheduling.x-k8s.io/pod-group``.
        group_noun: what the group is called in the docstrings, e.g. ``PodGroup``.

    Returns:
        ``(group_reference, template_references, plan_group)``: the group
        object's ``metadata.name`` (None unless a non-empty string), the pod's
        ``key`` (none unless a non-empty string), and the group ``key`` names
        (None when unset or empty).
    """
    noun = where.removesuffix("s")

    def group_reference(group: Mapping[str, Any]) -> str | None:
        name = as_dict(group.get("metadata")).get("name")
        return name if isinstance(name, str) and name else None

    def template_references(
        metadata: Mapping[str, Any], spec: Mapping[str, Any]
    ) -> tuple[str, ...]:
        value = as_dict(metadata.get(where)).get(key)
        return (value,) if isinstance(value, str) and value else ()

    def plan_group(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
        value = as_dict(metadata.get(where)).get(key)
        return str(value) if value else None

    group_reference.__doc__ = (
        f"The {group_noun}'s ``metadata.name``: its pods' ``{key}`` {noun}."
    )
    template_references.__doc__ = (
        f"The ``{key}`` {noun} of the pod, naming its {group_noun}."
    )
    plan_group.__doc__ = f"The {group_noun} the ``{key}`` {noun} names."
    return group_reference, template_references, plan_group


def name_and_minimum(
    group: Mapping[str, Any],
    group_minimum: Callable[[Mapping[str, Any]], tuple[str, Any]],
) -> tuple[str, int] | None:
    """A group object's ``metadata.name`` and the pods it needs at once, or None when either is malformed.

    Args:
        group: a group object the mechanism owns.
        group_minimum: the mechanism's :meth:`Gang.group_minimum`.
    """
    name = as_dict(group.get("metadata")).get("name")
    minimum = group_minimum(group)[1]
    if isinstance(name, str) and isinstance(minimum, int):
        return name, minimum
    return None


def plan_minimum_of(
    group_minimum: Callable[[Mapping[str, Any]], tuple[str, Any]], doc: str
) -> Callable[[Mapping[str, Any]], tuple[str, int] | None]:
    """A mechanism's :meth:`Gang.plan_minimum` when its pods name the group object itself (:func:`name_and_minimum`).

    Args:
        group_minimum: the mechanism's :meth:`Gang.group_minimum`.
        doc: the docstring, e.g. "The PodGroup's name and ``spec.minMember``."
    """

    def plan_minimum(group: Mapping[str, Any]) -> tuple[str, int] | None:
        return name_and_minimum(group, group_minimum)

    plan_minimum.__doc__ = doc
    return plan_minimum
