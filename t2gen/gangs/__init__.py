"""Gang-scheduling mechanisms as plug-ins: one module per mechanism behind one Protocol, and one registry.

:data:`REGISTRY` maps each value of the job file's ``spec.scheduling.gang`` to
the module that implements :class:`~t2gen.gangs.base.Gang` for it (pre-commit's
``all_languages.py`` for its ``Language`` modules). Everything t2gen knows of
a mechanism is in its module: the pod labels, annotations and PodSpec fields
that join the group, the group objects and the order ``kubectl apply`` must
create them in, the settings it honours and needs, its own job-file rules and
output checks, and how ``t2gen plan`` recognises its gangs. The generic code
asks the registry: the rules (:mod:`t2gen.jobfile.rules.scheduling`), the
renderer (:mod:`t2gen.render.context.scheduling`), the output checks
(:mod:`t2gen.checks.scheduling`), ``plan`` (:mod:`t2gen.plan.templates`) and
the install order (:data:`GROUP_KINDS`, for :func:`t2gen.kube.order.sort_documents`).

To add a mechanism: write its module here (copy the closest one; the helpers of
:mod:`t2gen.gangs.base`, :func:`~t2gen.gangs.base.owns_kind`,
:func:`~t2gen.gangs.base.group_named_by` and the like, make the usual
Protocol functions one line each), add one line to :data:`REGISTRY`, add its name to the ``spec.scheduling.gang`` enum of
``schemas/twister2job.schema.json`` (and, for a custom resource, its schema to
``schemas/kube/``), then ``make generate``. ``tests/gangs/`` checks the
contract for every registered mechanism.

Modules:
    volcano, coscheduling, kueue, workload_api: the mechanisms.
    base: the :class:`~t2gen.gangs.base.Gang` Protocol and its helpers.
    minresources: a group's ``minResources``, the requests of its first pods summed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from t2gen.gangs import coscheduling, kueue, volcano, workload_api
from t2gen.gangs.base import Gang

__all__ = [
    "GROUP_KINDS",
    "REGISTRY",
    "Gang",
    "group_owner",
    "merge_install_orders",
    "plan_group",
]

REGISTRY: dict[str, Gang] = {
    volcano.NAME: volcano,
    coscheduling.NAME: coscheduling,
    kueue.NAME: kueue,
    workload_api.NAME: workload_api,
}
"""Every mechanism by its ``spec.scheduling.gang`` value, in the order messages list them."""


def merge_install_orders(orders: list[tuple[str, ...]]) -> tuple[str, ...]:
    """One order of kinds that keeps every mechanism's :attr:`~t2gen.gangs.base.Gang.INSTALL_ORDER`.

    Args:
        orders: each mechanism's kinds in the order they must be created.

    Returns:
        Every kind once; a kind comes after every kind any order puts before it,
        and otherwise in the order first seen.

    Raises:
        ValueError: two mechanisms order two kinds both ways (a stream is sorted by
            kind, so one order must hold for all of them).
    """
    kinds = list(dict.fromkeys(kind for order in orders for kind in order))
    before = {kind: set[str]() for kind in kinds}
    for order in orders:
        for index, kind in enumerate(order):
            before[kind].update(order[:index])
    merged: list[str] = []
    while kinds:
        ready = next((k for k in kinds if before[k] <= set(merged)), None)
        if ready is None:
            raise ValueError(f"the gang mechanisms order {', '.join(kinds)} both ways")
        merged.append(ready)
        kinds.remove(ready)
    return tuple(merged)


GROUP_KINDS: tuple[str, ...] = merge_install_orders(
    [gang.INSTALL_ORDER for gang in REGISTRY.values()]
)
"""The kinds of every mechanism's group objects, in install order: after custom resources, before the pods."""


def group_owner(obj: Mapping[str, Any]) -> Gang | None:
    """The mechanism whose group object ``obj`` is, or None."""
    return next((gang for gang in REGISTRY.values() if gang.owns(obj)), None)


def plan_group(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    """The gang a pod template (its ``metadata`` and ``spec``) joins, by the first mechanism that sees one."""
    for gang in REGISTRY.values():
        name = gang.plan_group(metadata, spec)
        if name is not None:
            return name
    return None
