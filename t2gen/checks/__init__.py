"""Semantic checks of rendered manifests: what the API server or scheduler would reject or ignore.

Kubernetes' OpenAPI schemas (:mod:`t2gen.checks.openapi`; jsonschema's work on
kinds without compiled code bounded by :mod:`~t2gen.checks.schemawork`) check types and field
names only. These checks cover what they miss, for t2gen's own output (every
render runs them; a finding there is a t2gen bug) and for any manifest stream
given to ``t2gen check``.

The checks form a registry, one module per object family:
:mod:`~t2gen.checks.metadata` (names, namespaces, labels: every object),
:mod:`~t2gen.checks.workloads` (selectors, StatefulSets),
:mod:`~t2gen.checks.pods` and :mod:`~t2gen.checks.affinity` (pod templates and
their containers), :mod:`~t2gen.checks.services`, :mod:`~t2gen.checks.rbac`,
:mod:`~t2gen.checks.storage`, :mod:`~t2gen.checks.configdata` (how much a ConfigMap
or Secret holds) and :mod:`~t2gen.checks.scheduling` (gang-scheduling
groups of every mechanism in :mod:`t2gen.gangs`: ``PodGroup``, ``Workload``, Kueue pod groups). Each :class:`~t2gen.checks.base.Check` has a
stable ID and its docstring is its documentation. Every object gets
:data:`GENERIC_CHECKS`, then the checks :data:`CHECKS_BY_KIND` lists for its
kind when the object is of that kind's API group (:data:`KIND_GROUPS`: a
``batch.volcano.sh`` Job is not a ``batch/v1`` Job), and the gang group kinds
when a mechanism of :mod:`t2gen.gangs` owns the object; any other object (a
custom resource) gets only the generic ones. Checking a new kind means a module and an entry
in :data:`CHECKS_BY_KIND` and :data:`KIND_GROUPS`.

Findings that hold an object to t2gen's own standard rather than a
Kubernetes rule (:class:`~t2gen.checks.base.Note`, and every finding of a
check registered ``strict``) are errors for t2gen's objects (labelled
``app.kubernetes.io/managed-by: t2gen``) and with ``strict``, and notes for
anyone else's: ``t2gen check`` is safe on any valid manifest. ``@check`` only describes a function: a check runs
once a table lists it (these, or :data:`t2gen.checks.pods.POD_CHECKS` and
``CONTAINER_CHECKS``), as the gang mechanisms and the job-file rules are
registered by explicit tables too; ``tests/test_registries.py`` fails for a
check written but listed nowhere.

The other modules: :mod:`~t2gen.checks.base` (the :class:`~t2gen.checks.base.Check`
record and its findings), :mod:`~t2gen.checks.stream` (the objects indexed once,
and label-selector semantics), :mod:`~t2gen.checks.security` (Pod Security
``restricted``), :mod:`~t2gen.checks.duplicates` (objects that collide in one
cluster), :mod:`~t2gen.checks.fused` (a pod's container checks and an object's
generic checks judged in one walk, to skip them when none would find anything), :mod:`~t2gen.checks.size` (objects too large for Kubernetes) and
:mod:`~t2gen.checks.manifests` (what ``render --validate`` and ``t2gen check``
run: the schemas, then these checks).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from t2gen.checks import (
    configdata,
    metadata,
    pods,
    rbac,
    scheduling,
    services,
    storage,
    workloads,
)
from t2gen.checks.base import Check, Note, is_t2gens
from t2gen.checks.fused import metadata_clean
from t2gen.checks.stream import WORKLOAD_KINDS, Part, Stream, matches
from t2gen.errors import Problem
from t2gen.gangs import GROUP_KINDS, group_owner
from t2gen.kube.kinds import KINDS

__all__ = [
    "ALL_CHECKS",
    "CHECKS_BY_KIND",
    "GENERIC_CHECKS",
    "KIND_GROUPS",
    "Check",
    "check_objects",
    "checks_for",
    "kind_checks",
    "matches",
    "object_findings",
    "object_problems",
]

GENERIC_CHECKS: tuple[Check, ...] = (
    metadata.object_name,
    metadata.object_namespace,
    metadata.package_namespace,
    metadata.object_labels,
)
"""Checks of every object, whatever its kind, in order."""

CHECKS_BY_KIND: dict[str, tuple[Check, ...]] = {
    **{
        kind: workloads.WORKLOAD_CHECKS + scheduling.WORKLOAD_CHECKS
        for kind in sorted(WORKLOAD_KINDS)
    },
    "StatefulSet": workloads.WORKLOAD_CHECKS
    + workloads.STATEFULSET_CHECKS
    + scheduling.WORKLOAD_CHECKS,
    **{kind: scheduling.GROUP_CHECKS for kind in sorted(GROUP_KINDS)},
    "Service": services.SERVICE_CHECKS,
    "PersistentVolumeClaim": storage.PVC_CHECKS,
    "ConfigMap": configdata.CONFIG_MAP_CHECKS,
    "Secret": configdata.SECRET_CHECKS,
    "Role": rbac.ROLE_CHECKS,
    "RoleBinding": rbac.ROLE_BINDING_CHECKS,
}
"""Object checks by ``kind``, run after :data:`GENERIC_CHECKS`, in order."""

KIND_GROUPS: dict[str, str] = {
    k.kind: k.group
    for k in KINDS
    if k.kind in CHECKS_BY_KIND and k.kind not in GROUP_KINDS
}
"""The API group of each built-in kind of :data:`CHECKS_BY_KIND` (``""``: the core group, ``v1``).

Their checks apply only to an object of that group: a kind name alone is
anyone's (Volcano's ``batch.volcano.sh`` Job, Kueue's and JobSet's kinds)."""


def _unique(checks: Sequence[Check]) -> tuple[Check, ...]:
    return tuple(dict.fromkeys(checks))


ALL_CHECKS: tuple[Check, ...] = _unique(
    [
        *GENERIC_CHECKS,
        *(c for checks in CHECKS_BY_KIND.values() for c in checks),
        *pods.CONTAINER_CHECKS,
        *pods.POD_CHECKS,
    ]
)
"""Every registered check once: object, pod and container level (for documentation and tests)."""


_CHECKS_FOR: dict[str, tuple[Check, ...]] = {
    kind: GENERIC_CHECKS + checks for kind, checks in CHECKS_BY_KIND.items()
}
"""What :func:`checks_for` returns for each kind of :data:`CHECKS_BY_KIND`, made once."""


def checks_for(kind: Any) -> tuple[Check, ...]:
    """The object checks run on an object of ``kind``: the generic ones, then its kind's."""
    return (
        _CHECKS_FOR.get(kind, GENERIC_CHECKS)
        if isinstance(kind, str)
        else GENERIC_CHECKS
    )


def kind_checks(obj: dict[str, Any]) -> tuple[Check, ...]:
    """The object checks run on ``obj``: the generic ones, then its kind's if it is that kind.

    A built-in kind's checks need the kind's API group (:data:`KIND_GROUPS`),
    a gang group kind's a mechanism that owns the object; anything else (a
    custom resource) gets the generic checks only.
    """
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in CHECKS_BY_KIND:
        return GENERIC_CHECKS
    if kind in GROUP_KINDS:
        return checks_for(kind) if group_owner(obj) is not None else GENERIC_CHECKS
    api_version = obj.get("apiVersion")
    group = api_version.rpartition("/")[0] if isinstance(api_version, str) else None
    return checks_for(kind) if group == KIND_GROUPS.get(kind) else GENERIC_CHECKS


_GENERIC = len(GENERIC_CHECKS)


def _problems(
    obj: dict[str, Any], stream: Stream, origin: str | None, strict: bool
) -> Iterator[tuple[Problem, bool]]:
    """Each finding of ``obj`` as a located problem, and whether it is only a note."""
    where: str | None = None  # worked out at the first finding: most objects have none
    lenient = False
    checks = stream.running(kind_checks(obj))
    # (a batch's cross-object part runs none of them: no Record comparisons there)
    if (
        stream.fused
        and stream.part != "stream"
        and checks[:_GENERIC] == GENERIC_CHECKS
        and metadata_clean(obj)
    ):
        checks = checks[_GENERIC:]  # none of them would find anything
    for object_check in checks:
        for finding in object_check.run(obj, stream):
            if where is None:
                metadata = obj.get("metadata")
                name = metadata.get("name", "?") if isinstance(metadata, dict) else "?"
                where = f"{obj.get('kind', '?')}/{name}"
                if origin is not None:
                    where = f"{origin}: {where}"
                lenient = not strict and not is_t2gens(obj)
            json_path, message = finding
            is_note = lenient and (object_check.strict or isinstance(finding, Note))
            yield Problem(where, 0, 0, message, json_path), is_note


def object_findings(
    objects: Sequence[dict[str, Any]],
    origins: Sequence[str | None] | None = None,
    *,
    part: Part = "all",
    strict: bool = True,
) -> tuple[list[Problem], list[Problem]]:
    """:func:`object_problems`, with t2gen's stricter findings on others' objects kept apart as notes.

    Args:
        objects: as :func:`object_problems`.
        origins: as :func:`object_problems`.
        part: as :func:`object_problems`.
        strict: hold every object to t2gen's standard (``t2gen check --strict``,
            and every render); when False, only objects labelled
            ``app.kubernetes.io/managed-by: t2gen`` are, and the others'
            :class:`~t2gen.checks.base.Note` findings are notes.

    Returns:
        ``(errors, notes)``, each located as :func:`object_problems` locates them.
    """
    stream = Stream(objects, part=part)
    errors: list[Problem] = []
    notes: list[Problem] = []
    for index, obj in enumerate(objects):
        origin = origins[index] if origins is not None else None
        for problem, is_note in _problems(obj, stream, origin, strict):
            (notes if is_note else errors).append(problem)
    return errors, notes


def object_problems(
    objects: Sequence[dict[str, Any]],
    origins: Sequence[str | None] | None = None,
    *,
    part: Part = "all",
) -> list[Problem]:
    """Check a set of Kubernetes objects for semantic errors no schema catches, strictly.

    Every finding counts, t2gen's own standard included (as for every render);
    :func:`object_findings` tells t2gen's stricter findings on others' objects apart.

    Args:
        objects: parsed manifests (one dict per object), e.g. one render.
        origins: one per object, where it was read (``a.yaml:12``, for ``t2gen
            check``; an overlay's template for ``render``); each problem's
            ``path`` is then ``a.yaml:12: Kind/name`` (None: ``Kind/name``).
        part: ``all`` checks; or only those whose findings depend on each
            object alone (``object``: the same findings whatever else is in
            the stream, so they may run on any subset of it); or only those
            that read other objects (``stream``: they must see every object).
            ``object`` and ``stream`` together find what ``all`` finds, in
            another order (:mod:`t2gen.pipeline.batch` splits a batch so).

    Returns:
        Located problems in object order, then check order: ``path`` is the
        object's ``Kind/name``, ``line`` and ``col`` are 0 and ``json_path`` is
        the field, so each prints as ``Kind/name: field.path: message``. Empty
        when everything is fine.
    """
    return object_findings(objects, origins, part=part)[0]


def check_objects(objects: Sequence[dict[str, Any]]) -> list[str]:
    """:func:`object_problems` as printed lines, ``Kind/name: field.path: message``.

    Args:
        objects: parsed manifests (one dict per object).

    Returns:
        One line per problem, in the same order; empty when everything is fine.
    """
    return [str(problem) for problem in object_problems(objects)]
