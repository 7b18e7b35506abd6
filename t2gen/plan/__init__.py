"""Scheduling feasibility for rendered Twister2 jobs (the engine of ``t2gen plan``).

The engine works on rendered Kubernetes objects (the StatefulSets t2gen prints),
a node list (``kubectl get nodes -o json``) and optionally the running pods
(``kubectl get pods -A -o json``). It applies the kube-scheduler's filter rules
that t2gen's output uses and finds one placement of every pod at once. It
predicts feasibility; the real scheduler may choose different nodes.

Modules, in the order data flows:
    typedread, typedrecords, typedpods: JSON lists decoded into only the fields
        the filters read (the plain reader is :mod:`t2gen.inputs.kubelist`).
    largelists, itemreader, listproblems: lists over 2 MiB, counted before they
        are built and read item by item within their bounds; at most 1,000
        problems of any list reported.
    nodes, pods: node and pod lists into typed records; per-node requested resources.
    quantities: resource amounts, resource lists and their text.
    podspec: a pod spec's requests, QoS class and exclusive cores.
    selectors: label selectors.
    templates: rendered StatefulSets into the templates the filters read.
    filters: one module per scheduler filter family (taints, node affinity,
        resources, inter-pod affinity).
    placement, components: the search for one placement of every pod at once.
    simulate, kubescheduler, orders: kube-scheduler's one-pod-at-a-time loop
        over every queue order the StatefulSet controller can produce, and
        under which orders it strands a pod of a job that fits.
    quotaread, quotarecords, limitranger, resourcequota, queues, admission:
        ``--quota``: LimitRanges, ResourceQuotas, Kueue and Volcano queues, and
        whether the job will be admitted.
    result, report, text: the verdict as data, and as a table or JSON.
    workermap: the worker map of ``t2gen plan JOB`` (no nodes needed).
"""

from __future__ import annotations

from t2gen.errors import InputError
from t2gen.inputs.kubelist import load_document
from t2gen.plan.filters.taints import Taint
from t2gen.plan.nodes import Node, parse_nodes
from t2gen.plan.placement import plan, plan_templates
from t2gen.plan.pods import ExistingPod, NodeUsage, parse_pods, usage_by_node
from t2gen.plan.quantities import Resources
from t2gen.plan.report import format_plan, plan_to_dict
from t2gen.plan.result import (
    FilterRejection,
    GangReport,
    GroupReport,
    NodeAssignment,
    PlanResult,
)
from t2gen.plan.templates import WorkloadTemplate, min_members, workload_templates

__all__ = [
    "ExistingPod",
    "FilterRejection",
    "GangReport",
    "GroupReport",
    "InputError",
    "Node",
    "NodeAssignment",
    "NodeUsage",
    "PlanResult",
    "Resources",
    "Taint",
    "WorkloadTemplate",
    "format_plan",
    "load_document",
    "min_members",
    "parse_nodes",
    "parse_pods",
    "plan",
    "plan_templates",
    "plan_to_dict",
    "usage_by_node",
    "workload_templates",
]
