"""The kube-scheduler filters that t2gen's output relies on, one module per family.

Evaluated per node in the scheduler's order; the first that rejects a node is
reported (https://kubernetes.io/docs/reference/scheduling/config/#scheduling-plugins):

* ``NodeUnschedulable``, ``TaintToleration``: :mod:`.taints`; a node that is not
  Ready fails TaintToleration on the taint the node lifecycle controller adds.
* ``NodeName``: ``spec.nodeName`` of the template, if set (here).
* ``NodeAffinity``: ``nodeSelector`` and required node affinity, :mod:`.node_affinity`.
* ``NodeResourcesFit`` and ``CPUManager`` (whole cores for bound workers, which
  the kubelet, not the scheduler, enforces): :mod:`.resources`.
* ``InterPodAffinity``: required pod (anti-)affinity per hostname, :mod:`.interpod`.

This module runs the node-level filters (labels, taints, cordons), which do not
depend on what else is placed on the node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from t2gen.plan.filters.node_affinity import reject_node_affinity, reject_node_selector
from t2gen.plan.filters.taints import (
    reject_not_ready,
    reject_taints,
    reject_unschedulable,
)

if TYPE_CHECKING:
    from t2gen.plan.nodes import Node
    from t2gen.plan.templates import WorkloadTemplate

__all__ = ["node_rejection"]


def node_rejection(t: WorkloadTemplate, node: Node) -> tuple[str, str] | None:
    """Return (filter, message) of the first node-level filter that rejects ``node``, or None.

    Args:
        t: the StatefulSet's pod template.
        node: the node.

    Returns:
        The scheduler plugin's name (``NodeUnschedulable``, ``NodeName``,
        ``TaintToleration``, ``NodeAffinity``) and why, or None when all pass.
    """
    why = reject_unschedulable(node.unschedulable, t.tolerations)
    if why is not None:
        return "NodeUnschedulable", why
    if t.node_name is not None and node.name != t.node_name:
        return "NodeName", f"the pod names node {t.node_name}"
    why = reject_taints(node.taints, t.tolerations) or reject_not_ready(
        node.ready, node.taints, t.tolerations
    )
    if why is not None:
        return "TaintToleration", why
    why = reject_node_selector(t.node_selector, node.labels)
    if why is None and t.node_affinity is not None:
        why = reject_node_affinity(t.node_affinity, node.labels, node.name)
    if why is not None:
        return "NodeAffinity", why
    return None
