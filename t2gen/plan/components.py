"""Pods linked by a required podAffinity on ``kubernetes.io/hostname``: all on one node.

``all-same-node`` (``spec.placement.uniform``) and a required task affinity link
StatefulSets whose pods must share a node (:func:`t2gen.plan.filters.interpod.job_relations`
finds the components); :func:`place_component` puts a component's every pod on
the first node with room for all of them, or says why none has it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from t2gen.plan.filters.interpod import HOSTNAME, affinity_name
from t2gen.plan.filters.resources import Combined, FreeResources
from t2gen.plan.nodes import Node
from t2gen.plan.templates import WorkloadTemplate

__all__ = ["place_component"]


def place_component(
    members: list[int],
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    state: FreeResources,
    passing: list[list[int]],
    conflicts: list[set[int]],
    put: Callable[[int, int, int], None],
) -> list[str]:
    """Place every pod of an affinity component on one node; return reasons if impossible."""
    names = ", ".join(templates[a].name for a in members)
    label = "; ".join(
        dict.fromkeys(
            affinity_name(templates[a])
            for a in members
            if any(x.topology_key == HOSTNAME for x in templates[a].pod_affinity)
        )
    )
    total = sum(templates[a].replicas for a in members)
    if total > 1 and any(conflicts[a] & set(members) for a in members):
        return [
            f"{names}: podAffinity puts all {total} pods on one node, but their podAntiAffinity allows one per node"
        ]
    candidates = set(passing[members[0]])
    for a in members[1:]:
        candidates &= set(passing[a])
    if not candidates:
        return [
            f"{label}: no node passes every filter for {names} (see the rejected nodes)"
        ]
    need = Combined(members, templates)
    best: tuple[int, int] | None = None
    for i in sorted(candidates):
        hosted = state.hosted[i]
        if hosted is not None and any(conflicts[a] & hosted for a in members):
            continue
        if need.fits(state, i):
            for a in members:
                put(a, i, templates[a].replicas)
            return []
        score = state.cores[i] if need.cores else state.cpu[i]
        if best is None or score > best[1]:
            best = (i, score)
    where = ""
    if best is not None:
        where = (
            f"; the closest, {nodes[best[0]].name}, has {need.lacking(state, best[0])}"
        )
    return [
        f"{label}: no single node has room for all {total} pods of {names} (they need {need}){where}"
    ]
