"""Scheduling feasibility for rendered Twister2 jobs (the engine of ``t2gen plan --nodes``).

The engine works on rendered Kubernetes objects (the StatefulSets t2gen prints),
a node list (``kubectl get nodes -o json``) and optionally the running pods
(``kubectl get pods -A -o json``). It applies the kube-scheduler's filter rules
that t2gen's output uses and finds one placement of every pod at once. It
predicts feasibility; the real scheduler may choose different nodes.

Modules:
    nodes: node and pod lists into typed records, and per-node requested resources.
    podspec: pod-spec helpers shared by both sides (requests, QoS, selectors, terms).
    placement: per-StatefulSet filters, the placement search and the verdict.
"""

from __future__ import annotations

from t2gen.plan.placement import (
    FilterRejection,
    GroupReport,
    NodeAssignment,
    PlanResult,
    WorkloadTemplate,
    format_plan,
    plan,
    plan_to_dict,
    workload_templates,
)
from t2gen.plan.nodes import (
    ExistingPod,
    Node,
    NodeUsage,
    PlanInputError,
    Resources,
    Taint,
    load_document,
    parse_nodes,
    parse_pods,
    usage_by_node,
)

__all__ = [
    "ExistingPod",
    "FilterRejection",
    "GroupReport",
    "Node",
    "NodeAssignment",
    "NodeUsage",
    "PlanInputError",
    "PlanResult",
    "Resources",
    "Taint",
    "WorkloadTemplate",
    "format_plan",
    "load_document",
    "parse_nodes",
    "parse_pods",
    "plan",
    "plan_to_dict",
    "usage_by_node",
    "workload_templates",
]
