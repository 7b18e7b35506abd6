"""Can a rendered job be scheduled on these nodes? Filters, one placement, a verdict.

For every StatefulSet of the rendered job the engine evaluates, once per node,
the kube-scheduler filter plugins that t2gen's output relies on, in the
scheduler's order, and keeps the first that rejects each node
(https://kubernetes.io/docs/reference/scheduling/config/#scheduling-plugins):

* ``NodeUnschedulable``: a cordoned node (``spec.unschedulable``) takes only pods
  tolerating ``node.kubernetes.io/unschedulable:NoSchedule``
  (``pkg/scheduler/framework/plugins/nodeunschedulable``).
* ``NodeName``: ``spec.nodeName`` of the template, if set.
* ``TaintToleration``: every ``NoSchedule``/``NoExecute`` taint must be tolerated
  (``pkg/scheduler/framework/plugins/tainttoleration``;
  https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
* ``NodeAffinity``: ``nodeSelector`` and the required ``nodeSelectorTerms``
  (terms ORed, expressions ANDed; In, NotIn, Exists, DoesNotExist, Gt, Lt;
  https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity).
* ``NodeResourcesFit``: pod count, cpu (millicores), memory (bytes) and every
  requested extended resource against ``allocatable`` minus the requests of the
  pods already bound there (``pkg/scheduler/framework/plugins/noderesources/fit.go``).
* ``CPUManager``: a Guaranteed pod with integer cpu (t2gen's bound workers)
  needs that many whole cores that the kubelet's static CPU manager can pin:
  ``floor(allocatable cpu)`` minus cores already pinned
  (``pkg/kubelet/cm/cpumanager/policy_static.go``;
  https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/).
  The kubelet, not the scheduler, refuses such a pod, after it was bound.
* ``InterPodAffinity``: required podAffinity and podAntiAffinity on
  ``kubernetes.io/hostname`` against the running pods, in both directions
  (``pkg/scheduler/framework/plugins/interpodaffinity``).

Then it looks for one placement of every pod at once, which is what a gang
scheduler needs and what a Twister2 job needs anyway (the job master waits for
every worker). Pods of one StatefulSet are identical, so the search counts how
many fit on a node instead of trying pods one by one: the work is
O(StatefulSets x nodes), not O(pods x nodes). Inter-pod terms between the job's
own StatefulSets are handled as t2gen renders them: a self-selecting
anti-affinity term (``all-separate-nodes``) allows one selected pod per node,
and an affinity term (``all-same-node``) puts every pod it links on one node.

The search is greedy (most constrained StatefulSet first, nodes wanted by the
fewest StatefulSets first). An "infeasible" caused by one StatefulSet alone is
certain; one that arises only from StatefulSets competing for the same nodes
says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from t2gen.plan.nodes import ExistingPod, Node, PlanInputError, usage_by_node
from t2gen.plan.podspec import (
    HOSTNAME,
    MEMORY,
    UNSCHEDULABLE_TAINT,
    NodeSelectorRequirement,
    PodAffinityTerm,
    Resources,
    Taint,
    Toleration,
    exclusive_cores,
    format_cpu,
    format_resource,
    is_guaranteed,
    parse_affinity_terms,
    parse_node_selector_terms,
    parse_tolerations,
    pod_requests,
)
from t2gen.problems import Problem

__all__ = [
    "FilterRejection",
    "GangReport",
    "GroupReport",
    "NodeAssignment",
    "PlanResult",
    "WorkloadTemplate",
    "format_plan",
    "plan",
    "plan_templates",
    "plan_to_dict",
    "workload_templates",
]

# Where gang schedulers read a pod's group (annotation or label of the pod template).
_GANG_KEYS = (
    "scheduling.k8s.io/group-name",  # Volcano (annotation)
    "scheduling.x-k8s.io/pod-group",  # scheduler-plugins coscheduling (label)
    "kueue.x-k8s.io/pod-group-name",  # Kueue plain pod groups (label)
)
_SHOWN_REJECTIONS = 12
# Which rejections a one-line reason shows first: nodes that failed only on room
# (they passed every node-level filter), then taints, cordons, and last the nodes
# the pod does not select at all.
_EXAMPLE_ORDER = {
    "TaintToleration": 1,
    "NodeUnschedulable": 2,
    "NodeName": 3,
    "NodeAffinity": 3,
}
_UNSCHEDULABLE = Taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")


@dataclass(frozen=True)
class WorkloadTemplate:
    """One StatefulSet's pod template, reduced to what the filters read.

    Attributes:
        name: the StatefulSet's name; its pods are ``<name>-<ordinal>``.
        namespace: ``metadata.namespace``; None when the manifests leave it to
            ``kubectl apply -n``.
        replicas: ``spec.replicas`` (1 when unset).
        labels: the pod template's labels.
        requests: per pod: cpu in millicores, memory in bytes, ``pods`` 1.
        exclusive_cores: whole cores per pod the static CPU manager pins (bound workers).
        guaranteed: the pod has Guaranteed QoS.
        node_name: ``spec.nodeName``, if set.
        node_selector: ``spec.nodeSelector`` as sorted (key, value) pairs.
        node_affinity: required ``nodeSelectorTerms`` (ORed tuples of ANDed
            requirements); None when there is no required node affinity.
        tolerations: ``spec.tolerations``.
        pod_affinity: required podAffinity terms.
        pod_anti_affinity: required podAntiAffinity terms.
        gang: the gang (pod group) the template's pods belong to, if any.
    """

    name: str
    namespace: str | None
    replicas: int
    labels: Mapping[str, str]
    requests: Resources
    exclusive_cores: int = 0
    guaranteed: bool = False
    node_name: str | None = None
    node_selector: tuple[tuple[str, str], ...] = ()
    node_affinity: tuple[tuple[NodeSelectorRequirement, ...], ...] | None = None
    tolerations: tuple[Toleration, ...] = ()
    pod_affinity: tuple[PodAffinityTerm, ...] = ()
    pod_anti_affinity: tuple[PodAffinityTerm, ...] = ()
    gang: str | None = None


@dataclass(frozen=True)
class FilterRejection:
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


@dataclass(frozen=True)
class GroupReport:
    """The filters' outcome and the placement for one StatefulSet.

    Attributes:
        statefulset: its name.
        replicas: pods it wants.
        per_pod: requests of one pod (cpu in millicores, memory in bytes).
        exclusive_cores: whole cores per pod for bound workers (0: not bound).
        constraint: ``all-separate-nodes`` (required self anti-affinity per
            hostname), ``all-same-node`` (required affinity per hostname) or ``none``.
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


@dataclass(frozen=True)
class NodeAssignment:
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


@dataclass(frozen=True)
class GangReport:
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


@dataclass(frozen=True)
class PlanResult:
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
    """

    feasible: bool
    reasons: tuple[str, ...]
    groups: tuple[GroupReport, ...]
    placement: tuple[NodeAssignment, ...]
    gangs: tuple[GangReport, ...]
    nodes: int
    pods: int
    notes: tuple[str, ...] = ()


# ----------------------------------------------------------------------------
# Rendered objects -> templates


def _gang_of(metadata: Mapping[str, Any], spec: Mapping[str, Any]) -> str | None:
    for source in (metadata.get("annotations"), metadata.get("labels")):
        if isinstance(source, Mapping):
            for key in _GANG_KEYS:
                if source.get(key):
                    return str(source[key])
    group = spec.get("schedulingGroup")  # Kubernetes 1.36 Workload API
    if isinstance(group, Mapping) and group.get("podGroupName"):
        return str(group["podGroupName"])
    ref = spec.get("workloadRef")  # Kubernetes 1.35 Workload API
    if isinstance(ref, Mapping) and ref.get("name"):
        return f"{ref['name']}/{ref.get('podGroup', '')}".rstrip("/")
    return None


def workload_templates(
    objects: Iterable[Mapping[str, Any]], source: str = "job"
) -> tuple[WorkloadTemplate, ...]:
    """Reduce the StatefulSets among rendered objects to their pod templates.

    Args:
        objects: rendered Kubernetes objects (any kinds; only StatefulSets are read).
        source: how to name the input in errors.

    Returns:
        One template per StatefulSet, in the input's order.

    Raises:
        PlanInputError: no StatefulSet, or a request that is not a quantity.
    """
    templates = []
    problems = []
    for index, obj in enumerate(objects):
        if not isinstance(obj, Mapping) or obj.get("kind") != "StatefulSet":
            continue
        metadata = obj.get("metadata") or {}
        name = str(metadata.get("name") or f"statefulset-{index}")
        sts_spec = obj.get("spec") or {}
        template = sts_spec.get("template") or {}
        t_meta = template.get("metadata") or {}
        spec = template.get("spec") or {}
        try:
            requests = pod_requests(spec)
            cores = exclusive_cores(spec)
            guaranteed = is_guaranteed(spec)
        except ValueError as err:
            problems.append(Problem(source, 0, 0, f"StatefulSet {name}: {err}"))
            continue
        affinity = spec.get("affinity") or {}
        node_affinity = (
            (affinity.get("nodeAffinity") or {})
            if isinstance(affinity, Mapping)
            else {}
        )
        required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        selector = spec.get("nodeSelector") or {}
        replicas = sts_spec.get("replicas")
        templates.append(
            WorkloadTemplate(
                name=name,
                namespace=str(metadata["namespace"])
                if metadata.get("namespace")
                else None,
                replicas=replicas
                if isinstance(replicas, int) and not isinstance(replicas, bool)
                else 1,
                labels={
                    str(k): str(v) for k, v in (t_meta.get("labels") or {}).items()
                },
                requests=requests,
                exclusive_cores=cores,
                guaranteed=guaranteed,
                node_name=str(spec["nodeName"]) if spec.get("nodeName") else None,
                node_selector=tuple(
                    sorted((str(k), str(v)) for k, v in selector.items())
                ),
                node_affinity=(
                    parse_node_selector_terms(required.get("nodeSelectorTerms"))
                    if isinstance(required, Mapping)
                    else None
                ),
                tolerations=parse_tolerations(spec.get("tolerations")),
                pod_affinity=parse_affinity_terms(spec, "podAffinity"),
                pod_anti_affinity=parse_affinity_terms(spec, "podAntiAffinity"),
                gang=_gang_of(t_meta, spec),
            )
        )
    if problems:
        raise PlanInputError(problems=problems)
    if not templates:
        raise PlanInputError(
            problems=[
                Problem(
                    source,
                    0,
                    0,
                    "has no StatefulSet: pass the objects `t2gen render` prints",
                )
            ]
        )
    return tuple(templates)


def _min_members(objects: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """``minMember`` of PodGroup objects (Volcano, coscheduling) by name."""
    out = {}
    for obj in objects:
        if isinstance(obj, Mapping) and obj.get("kind") == "PodGroup":
            name = (obj.get("metadata") or {}).get("name")
            member = (obj.get("spec") or {}).get("minMember")
            if isinstance(name, str) and isinstance(member, int):
                out[name] = member
    return out


# ----------------------------------------------------------------------------
# The engine


def plan(
    objects: Sequence[Mapping[str, Any]],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod] = (),
    *,
    namespace: str | None = None,
    gang: bool = False,
) -> PlanResult:
    """Predict whether the rendered job's pods can all be scheduled on ``nodes`` at once.

    Args:
        objects: the rendered objects (``t2gen render`` output, parsed); the
            StatefulSets are planned, PodGroups give gangs their ``minMember``.
        nodes: from :func:`t2gen.plan.nodes.parse_nodes`.
        pods: running pods (:func:`t2gen.plan.nodes.parse_pods`); their requests
            are subtracted from allocatable and their labels meet inter-pod terms.
        namespace: the namespace the job will run in, for StatefulSets without
            one; None matches running pods of every namespace.
        gang: treat the whole job as one gang (all pods or none).

    Returns:
        The verdict, the per-StatefulSet filter reports and one placement.

    Raises:
        PlanInputError: the objects hold no StatefulSet, or malformed requests.
    """
    templates = workload_templates(objects)
    return plan_templates(
        templates,
        nodes,
        pods,
        namespace=namespace,
        gang=gang,
        min_members=_min_members(objects),
    )


@dataclass
class _State:
    """Free resources per node (mutable working arrays of the search)."""

    cpu: list[int]
    memory: list[int]
    pods: list[int]
    cores: list[int]
    extended: list[dict[str, int]]
    hosted: list[set[int] | None]  # template indices with a pod on each node


def _initial_state(nodes: Sequence[Node], pods: Sequence[ExistingPod]) -> _State:
    usage = usage_by_node(pods)
    state = _State([], [], [], [], [], [None] * len(nodes))
    for node in nodes:
        a = node.allocatable
        used = usage.get(node.name)
        r = used.requested if used is not None else Resources()
        state.cpu.append(a.cpu_millis - r.cpu_millis)
        state.memory.append(a.memory_bytes - r.memory_bytes)
        state.pods.append(a.pods - r.pods)
        state.cores.append(a.cpu_millis // 1000 - (used.exclusive_cores if used else 0))
        extended = dict(a.extended)
        for name, amount in r.extended:
            extended[name] = extended.get(name, 0) - amount
        state.extended.append(extended)
    return state


def _room(t: WorkloadTemplate, state: _State, i: int, limit: int) -> int:
    """How many pods of ``t`` fit on node ``i`` (at most ``limit``)."""
    r = t.requests
    k = min(limit, state.pods[i])
    if r.cpu_millis:
        k = min(k, state.cpu[i] // r.cpu_millis)
    if r.memory_bytes:
        k = min(k, state.memory[i] // r.memory_bytes)
    for name, amount in r.extended:
        if amount:
            k = min(k, state.extended[i].get(name, 0) // amount)
    if t.exclusive_cores:
        k = min(k, state.cores[i] // t.exclusive_cores)
    return max(k, 0)


def _lacking(
    t: WorkloadTemplate, state: _State, i: int, count: int = 1
) -> tuple[str, str]:
    """(filter, message) for the first resource that ``count`` pods of ``t`` lack on node ``i``."""
    r = t.requests
    noun = "pod needs" if count == 1 else f"{count} pods need"
    if state.pods[i] < count:
        return (
            "NodeResourcesFit",
            f"{max(state.pods[i], 0)} pod slots free (allocatable pods), {noun} {count}",
        )
    if t.exclusive_cores and state.cores[i] < count * t.exclusive_cores:
        return (
            "CPUManager",
            f"{max(state.cores[i], 0)} whole cores free ({format_cpu(max(state.cpu[i], 0))} cpu), "
            f"bound {noun} {count * t.exclusive_cores} exclusive cores",
        )
    if r.cpu_millis and state.cpu[i] < count * r.cpu_millis:
        return (
            "NodeResourcesFit",
            f"{format_cpu(max(state.cpu[i], 0))} cpu free, {noun} {format_cpu(count * r.cpu_millis)}",
        )
    if r.memory_bytes and state.memory[i] < count * r.memory_bytes:
        return (
            "NodeResourcesFit",
            f"{format_resource(MEMORY, max(state.memory[i], 0))} memory free, "
            f"{noun} {format_resource(MEMORY, count * r.memory_bytes)}",
        )
    for name, amount in r.extended:
        free = state.extended[i].get(name, 0)
        if amount and free < count * amount:
            return (
                "NodeResourcesFit",
                f"{format_resource(name, max(free, 0))} {name} free, {noun} {format_resource(name, count * amount)}",
            )
    return "NodeResourcesFit", "no room"


def _static_reject(t: WorkloadTemplate, node: Node) -> tuple[str, str] | None:
    """(filter, message) of the first label/taint filter that rejects ``node``, or None."""
    tolerations = t.tolerations
    if node.unschedulable and not any(x.tolerates(_UNSCHEDULABLE) for x in tolerations):
        return (
            "NodeUnschedulable",
            "cordoned (spec.unschedulable), the pod does not tolerate it",
        )
    if t.node_name is not None and node.name != t.node_name:
        return "NodeName", f"the pod names node {t.node_name}"
    for taint in node.taints:
        if taint.effect == "PreferNoSchedule":
            continue
        if not any(x.tolerates(taint) for x in tolerations):
            return "TaintToleration", f"taint {taint} not tolerated"
    labels = node.labels
    for key, value in t.node_selector:
        if labels.get(key) != value:
            found = labels.get(key)
            shown = "missing" if found is None else found
            return "NodeAffinity", f"nodeSelector {key}={value}: label {key} is {shown}"
    if t.node_affinity is not None:
        first: str | None = None
        for term in t.node_affinity:
            if not term:
                why: str | None = "an empty nodeSelectorTerm matches no node"
            else:
                why = None
                for requirement in term:
                    why = requirement.explain(labels, node.name)
                    if why is not None:
                        break
            if why is None:
                return None
            first = first or why
        if first is None:
            first = "no nodeSelectorTerms"
        return "NodeAffinity", f"node affinity {first}"
    return None


def _constraint(t: WorkloadTemplate) -> str:
    if any(
        x.topology_key == HOSTNAME and x.selects(t.namespace, t.namespace, t.labels)
        for x in t.pod_anti_affinity
    ):
        return "all-separate-nodes"
    if any(x.topology_key == HOSTNAME for x in t.pod_affinity):
        return "all-same-node"
    return "none"


class _Components:
    """Union-find over template indices (templates linked by podAffinity)."""

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(a)] = self.find(b)


def plan_templates(
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    pods: Sequence[ExistingPod] = (),
    *,
    namespace: str | None = None,
    gang: bool = False,
    min_members: Mapping[str, int] | None = None,
) -> PlanResult:
    """Plan already-reduced templates (see :func:`plan`, which reads rendered objects).

    Args:
        templates: from :func:`workload_templates`.
        nodes: the nodes.
        pods: running pods.
        namespace: namespace for templates without one (None: any).
        gang: treat every template as one gang.
        min_members: ``minMember`` per gang name, where a PodGroup sets it.

    Returns:
        The plan.
    """
    if namespace is not None:
        templates = [
            t if t.namespace else _with_namespace(t, namespace) for t in templates
        ]
    n = len(nodes)
    state = _initial_state(nodes, pods)
    notes: list[str] = []
    by_node = {node.name: i for i, node in enumerate(nodes)}
    pods_on: dict[int, list[ExistingPod]] = {}
    for pod in pods:
        if pod.node_name in by_node:
            pods_on.setdefault(by_node[pod.node_name], []).append(pod)

    # Inter-pod relations among the job's own templates (hostname topology only).
    count = len(templates)
    conflicts: list[set[int]] = [set() for _ in templates]
    components = _Components(count)
    linked = [False] * count
    impossible_affinity: dict[int, str] = {}
    required_nodes: dict[int, set[int]] = {}
    other_keys = set()
    for a, t in enumerate(templates):
        for term in t.pod_anti_affinity:
            if term.topology_key != HOSTNAME:
                other_keys.add(term.topology_key)
                continue
            for b, u in enumerate(templates):
                if term.selects(t.namespace, u.namespace, u.labels):
                    conflicts[a].add(b)
                    conflicts[b].add(a)
        for term in t.pod_affinity:
            if term.topology_key != HOSTNAME:
                other_keys.add(term.topology_key)
                continue
            existing = {
                i
                for i, here in pods_on.items()
                if any(term.selects(t.namespace, p.namespace, p.labels) for p in here)
            }
            if existing:
                required_nodes[a] = required_nodes.get(a, existing) & existing
                continue
            matched = [
                b
                for b, u in enumerate(templates)
                if term.selects(t.namespace, u.namespace, u.labels)
            ]
            if not matched:
                impossible_affinity[a] = (
                    f"podAffinity {term}: no pod matches it, not even the pod itself"
                )
            for b in matched:
                components.union(a, b)
                linked[a] = linked[b] = True
    if other_keys:
        notes.append(
            "inter-pod terms with topology keys other than kubernetes.io/hostname are not evaluated: "
            + ", ".join(sorted(other_keys))
        )

    # Filters per template, once per node.
    reports_passing: list[list[int]] = []
    reports_rejections: list[list[FilterRejection]] = []
    alone_room: list[int] = []
    for a, t in enumerate(templates):
        passing: list[int] = []
        rejections: list[FilterRejection] = []
        blocked = _blocked_by_running(t, pods_on)
        only = required_nodes.get(a)
        cap = 1 if a in conflicts[a] else t.replicas
        room = 0
        for i, node in enumerate(nodes):
            verdict = _static_reject(t, node)
            if verdict is None:
                k = _room(t, state, i, cap)
                if k < 1:
                    verdict = _lacking(t, state, i)
            if verdict is None and a in impossible_affinity:
                verdict = ("InterPodAffinity", impossible_affinity[a])
            if verdict is None and only is not None and i not in only:
                verdict = (
                    "InterPodAffinity",
                    "no running pod here matches the pod's podAffinity",
                )
            if verdict is None and i in blocked:
                verdict = ("InterPodAffinity", blocked[i])
            if verdict is None:
                passing.append(i)
                room += k
            else:
                rejections.append(FilterRejection(node.name, verdict[0], verdict[1]))
        reports_passing.append(passing)
        reports_rejections.append(rejections)
        alone_room.append(room)

    demand = [0] * n
    for passing in reports_passing:
        for i in passing:
            demand[i] += 1

    placed = [0] * count
    assignments: list[tuple[int, int, NodeAssignment]] = []
    reasons: list[str] = []

    def put(a: int, i: int, k: int) -> None:
        t = templates[a]
        r = t.requests
        state.pods[i] -= k
        state.cpu[i] -= k * r.cpu_millis
        state.memory[i] -= k * r.memory_bytes
        state.cores[i] -= k * t.exclusive_cores
        for name, amount in r.extended:
            state.extended[i][name] = state.extended[i].get(name, 0) - k * amount
        hosted = state.hosted[i]
        if hosted is None:
            hosted = state.hosted[i] = set()
        hosted.add(a)
        assignments.append((i, a, NodeAssignment(nodes[i].name, t.name, placed[a], k)))
        placed[a] += k

    # 1. podAffinity components: every pod of the component on one node.
    groups: dict[int, list[int]] = {}
    for a in range(count):
        if linked[a]:
            groups.setdefault(components.find(a), []).append(a)
    for members in groups.values():
        reasons.extend(
            _place_component(
                members, templates, nodes, state, reports_passing, conflicts, put
            )
        )

    # 2. The other templates, most constrained first.
    order = sorted(
        (a for a in range(count) if not linked[a]),
        key=lambda a: (len(reports_passing[a]), -templates[a].requests.cpu_millis, a),
    )
    competed = False
    for a in order:
        t = templates[a]
        self_anti = a in conflicts[a]
        others = conflicts[a] - {a}
        remaining = t.replicas
        skipped_for_others = 0
        for i in sorted(reports_passing[a], key=lambda i: (demand[i], i)):
            if remaining == 0:
                break
            hosted = state.hosted[i]
            if others and hosted is not None and hosted & others:
                skipped_for_others += 1
                continue
            k = _room(t, state, i, 1 if self_anti else remaining)
            if k:
                put(a, i, k)
                remaining -= k
        if remaining:
            reasons.append(
                _shortfall(
                    t,
                    placed[a],
                    reports_passing[a],
                    reports_rejections[a],
                    alone_room[a],
                    self_anti,
                    skipped_for_others,
                    templates,
                    others,
                    nodes,
                )
            )
            if alone_room[a] >= t.replicas:
                competed = True
    if competed:
        notes.append(
            "the placement is a greedy search: where StatefulSets compete for the same nodes, "
            "another arrangement may still fit"
        )

    # Gangs.
    gang_members: dict[str, list[int]] = {}
    for a, t in enumerate(templates):
        key = "job" if gang else t.gang
        if key is not None:
            gang_members.setdefault(key, []).append(a)
    gang_reports = []
    for name, members in gang_members.items():
        total = sum(templates[a].replicas for a in members)
        fit = sum(placed[a] for a in members)
        minimum = (min_members or {}).get(name, total)
        gang_reports.append(
            GangReport(
                name, tuple(templates[a].name for a in members), total, minimum, fit
            )
        )
        if fit < minimum:
            reasons.append(
                f"gang {name}: only {fit} of the {minimum} pods that must start together fit at once, "
                f"so the gang scheduler starts none of them ({', '.join(templates[a].name for a in members)})"
            )

    total_pods = sum(t.replicas for t in templates)
    feasible = sum(placed) == total_pods
    if not feasible and not gang_reports:
        reasons.append(
            f"without a gang scheduler the pods that fit start and "
            f"{_count(total_pods - sum(placed), 'pod')} "
            f"{'stays' if total_pods - sum(placed) == 1 else 'stay'} Pending; "
            "the Twister2 job master waits for every worker"
        )
    if any(t.exclusive_cores for t in templates):
        notes.append(
            "bound workers get exclusive cores only on nodes whose kubelet runs "
            "--cpu-manager-policy=static, which a node list does not show"
        )
    if any(
        t.guaranteed and not t.exclusive_cores and t.requests.cpu_millis
        for t in templates
    ):
        notes.append(
            "Guaranteed pods with fractional cpu run in the shared pool (no exclusive cores)"
        )

    assignments.sort(key=lambda x: (x[0], x[1], x[2].first_ordinal))
    reports = tuple(
        GroupReport(
            statefulset=t.name,
            replicas=t.replicas,
            per_pod=t.requests,
            exclusive_cores=t.exclusive_cores,
            constraint=_constraint(t),
            passing=tuple(nodes[i].name for i in reports_passing[a]),
            rejections=tuple(reports_rejections[a]),
            room=alone_room[a],
            placed=placed[a],
        )
        for a, t in enumerate(templates)
    )
    return PlanResult(
        feasible=feasible,
        reasons=() if feasible else tuple(reasons),
        groups=reports,
        placement=tuple(x[2] for x in assignments),
        gangs=tuple(gang_reports),
        nodes=n,
        pods=total_pods,
        notes=tuple(notes),
    )


def _count(number: int, noun: str) -> str:
    """Return ``1 pod`` or ``3 pods``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _with_namespace(t: WorkloadTemplate, namespace: str) -> WorkloadTemplate:
    return replace(t, namespace=namespace)


def _blocked_by_running(
    t: WorkloadTemplate, pods_on: Mapping[int, list[ExistingPod]]
) -> dict[int, str]:
    """Nodes where running pods and ``t``'s anti-affinity meet (either direction)."""
    blocked: dict[int, str] = {}
    if not pods_on:
        return blocked
    terms = [x for x in t.pod_anti_affinity if x.topology_key == HOSTNAME]
    # A term's first matchLabels pair is a cheap test before the whole selector.
    firsts = [
        x.selector.match_labels[0] if x.selector and x.selector.match_labels else None
        for x in terms
    ]
    for i, here in pods_on.items():
        for pod in here:
            if not pod.anti_affinity and all(
                f is not None and pod.labels.get(f[0]) != f[1] for f in firsts
            ):
                continue
            mine = next(
                (x for x in terms if x.selects(t.namespace, pod.namespace, pod.labels)),
                None,
            )
            if mine is not None:
                blocked[i] = (
                    f"runs pod {pod.namespace}/{pod.name}, which the pod's podAntiAffinity {mine} excludes"
                )
                break
            theirs = next(
                (
                    x
                    for x in pod.anti_affinity
                    if x.topology_key == HOSTNAME
                    and x.selects(pod.namespace, t.namespace, t.labels)
                ),
                None,
            )
            if theirs is not None:
                blocked[i] = (
                    f"runs pod {pod.namespace}/{pod.name}, whose podAntiAffinity {theirs} excludes this pod"
                )
                break
    return blocked


def _place_component(
    members: list[int],
    templates: Sequence[WorkloadTemplate],
    nodes: Sequence[Node],
    state: _State,
    passing: list[list[int]],
    conflicts: list[set[int]],
    put: Callable[[int, int, int], None],
) -> list[str]:
    """Place every pod of an affinity component on one node; return reasons if impossible."""
    names = ", ".join(templates[a].name for a in members)
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
            f"all-same-node: no node passes every filter for {names} (see the rejected nodes)"
        ]
    need = _Combined(members, templates)
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
        f"all-same-node: no single node has room for all {total} pods of {names} (they need {need}){where}"
    ]


class _Combined:
    """The summed requests of several templates' pods (for one-node placement)."""

    def __init__(
        self, members: list[int], templates: Sequence[WorkloadTemplate]
    ) -> None:
        self.pods = 0
        self.cpu = 0
        self.memory = 0
        self.cores = 0
        self.extended: dict[str, int] = {}
        for a in members:
            t = templates[a]
            k = t.replicas
            self.pods += k
            self.cpu += k * t.requests.cpu_millis
            self.memory += k * t.requests.memory_bytes
            self.cores += k * t.exclusive_cores
            for name, amount in t.requests.extended:
                self.extended[name] = self.extended.get(name, 0) + k * amount

    def fits(self, state: _State, i: int) -> bool:
        return (
            state.pods[i] >= self.pods
            and state.cpu[i] >= self.cpu
            and state.memory[i] >= self.memory
            and state.cores[i] >= self.cores
            and all(state.extended[i].get(k, 0) >= v for k, v in self.extended.items())
        )

    def lacking(self, state: _State, i: int) -> str:
        if self.cores and state.cores[i] < self.cores:
            return f"{max(state.cores[i], 0)} whole cores free ({format_cpu(max(state.cpu[i], 0))} cpu)"
        if state.cpu[i] < self.cpu:
            return f"{format_cpu(max(state.cpu[i], 0))} cpu free"
        if state.memory[i] < self.memory:
            return f"{format_resource(MEMORY, max(state.memory[i], 0))} memory free"
        if state.pods[i] < self.pods:
            return f"{max(state.pods[i], 0)} pod slots free"
        for k, v in self.extended.items():
            if state.extended[i].get(k, 0) < v:
                return f"{max(state.extended[i].get(k, 0), 0)} {k} free"
        return "room"

    def __str__(self) -> str:
        parts = [
            f"{format_cpu(self.cpu)} cpu",
            f"{format_resource(MEMORY, self.memory)} memory",
        ]
        if self.cores:
            parts.insert(0, f"{self.cores} whole cores")
        parts += [
            f"{format_resource(k, v)} {k}" for k, v in sorted(self.extended.items())
        ]
        return ", ".join(parts)


def _by_filter(rejections: Sequence[FilterRejection]) -> str:
    counts: dict[str, int] = {}
    for r in rejections:
        counts[r.filter] = counts.get(r.filter, 0) + 1
    return ", ".join(
        f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def _shortfall(
    t: WorkloadTemplate,
    placed: int,
    passing: list[int],
    rejections: list[FilterRejection],
    alone: int,
    self_anti: bool,
    skipped: int,
    templates: Sequence[WorkloadTemplate],
    others: set[int],
    nodes: Sequence[Node],
) -> str:
    """The reason a template's pods do not all fit, with nodes and numbers."""
    if not passing:
        telling = sorted(rejections, key=lambda r: _EXAMPLE_ORDER.get(r.filter, 0))
        examples = "; ".join(str(r) for r in telling[:3])
        more = f" (rejected by {_by_filter(rejections)})" if rejections else ""
        return f"{t.name}: no node passes every filter for its {t.replicas} pods{more}: {examples}"
    if self_anti:
        text = (
            f"{t.name}: all-separate-nodes needs {t.replicas} nodes (one pod each), "
            f"but only {len(passing)} pass every filter"
        )
        if len(passing) <= 8:
            text += f" ({', '.join(nodes[i].name for i in passing)})"
        if skipped:
            shared = ", ".join(sorted(templates[b].name for b in others))
            text += f"; {skipped} of them already hold a pod of {shared}"
        return text + f"; {placed} placed"
    if alone >= t.replicas:
        return (
            f"{t.name}: {placed} of {t.replicas} pods placed; the {len(passing)} nodes that pass "
            f"every filter hold {alone} on their own, but other StatefulSets of the job took the room"
        )
    return (
        f"{t.name}: room for only {alone} of {t.replicas} pods on the {len(passing)} nodes "
        f"that pass every filter (each pod needs {_per_pod(t)})"
    )


def _per_pod(t: WorkloadTemplate) -> str:
    r = t.requests
    parts = [
        f"{format_cpu(r.cpu_millis)} cpu",
        f"{format_resource(MEMORY, r.memory_bytes)} memory",
    ]
    parts += [f"{format_resource(k, v)} {k}" for k, v in r.extended if v]
    if t.exclusive_cores:
        parts.append(f"{t.exclusive_cores} exclusive cores")
    return ", ".join(parts)


# ----------------------------------------------------------------------------
# Output


def _pods_text(r: Resources, cores: int) -> str:
    parts = [f"{format_cpu(r.cpu_millis)} cpu", format_resource(MEMORY, r.memory_bytes)]
    parts += [f"{format_resource(k, v)} {k}" for k, v in r.extended if v]
    if cores:
        parts.append(f"{cores} pinned")
    return ", ".join(parts)


def _ranges(assignments: Sequence[NodeAssignment]) -> str:
    out = []
    for x in assignments:
        if x.pods == 1:
            out.append(f"{x.statefulset}-{x.first_ordinal}")
        else:
            out.append(
                f"{x.statefulset}-{x.first_ordinal}..{x.first_ordinal + x.pods - 1}"
            )
    return ", ".join(out)


def format_plan(result: PlanResult, *, max_rejections: int = _SHOWN_REJECTIONS) -> str:
    """Return the plan as a table for people.

    Args:
        result: from :func:`plan`.
        max_rejections: rejected nodes listed per StatefulSet; the rest are counted by filter.

    Returns:
        The text, ending in a newline: verdict and reasons, one row per
        StatefulSet, the rejected nodes, the placement and the notes.
    """
    lines = []
    if result.feasible:
        used = len({x.node for x in result.placement})
        lines.append(
            f"feasible: all {result.pods} pods fit at once, on {used} of {result.nodes} nodes"
        )
    else:
        placed = sum(x.pods for x in result.placement)
        lines.append(
            f"infeasible: {placed} of {result.pods} pods fit at once on {result.nodes} nodes"
        )
        lines += [f"  - {reason}" for reason in result.reasons]
    lines.append("")
    header = (
        "STATEFULSET",
        "PODS",
        "PER POD",
        "CONSTRAINT",
        "NODES PASSING",
        "ROOM",
        "PLACED",
    )
    rows = [
        (
            g.statefulset,
            str(g.replicas),
            _pods_text(g.per_pod, g.exclusive_cores),
            g.constraint,
            f"{len(g.passing)}/{result.nodes}",
            str(g.room),
            str(g.placed),
        )
        for g in result.groups
    ]
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    for row in [header, *rows]:
        lines.append(
            "  ".join(
                cell.ljust(w) for cell, w in zip(row, widths, strict=True)
            ).rstrip()
        )
    for g in result.groups:
        if not g.rejections:
            continue
        lines.append("")
        lines.append(
            f"{g.statefulset}: {len(g.rejections)} nodes rejected ({_by_filter(g.rejections)})"
        )
        for r in g.rejections[:max_rejections]:
            lines.append(f"  {r}")
        if len(g.rejections) > max_rejections:
            lines.append(f"  ... and {len(g.rejections) - max_rejections} more")
    if result.placement:
        lines.append("")
        lines.append(
            "placement (one that passes every filter; the scheduler may choose other nodes):"
        )
        per_node: dict[str, list[NodeAssignment]] = {}
        for x in result.placement:
            per_node.setdefault(x.node, []).append(x)
        width = max(len(name) for name in per_node)
        for name, items in per_node.items():
            lines.append(f"  {name.ljust(width)}  {_ranges(items)}")
    if result.gangs:
        lines.append("")
        for gang in result.gangs:
            lines.append(
                f"gang {gang.name}: {gang.placed} of {gang.pods} pods fit at once "
                f"(minimum {gang.min_member}): {', '.join(gang.statefulsets)}"
            )
    if result.notes:
        lines.append("")
        lines += [f"note: {note}" for note in result.notes]
    return "\n".join(lines) + "\n"


def plan_to_dict(result: PlanResult) -> dict[str, Any]:
    """Return the plan as a JSON-able dict (for ``-o json``).

    Amounts are integers: cpu in millicores, memory in bytes. The placement
    lists, per node, pod name ranges by StatefulSet.
    """
    return {
        "feasible": result.feasible,
        "reasons": list(result.reasons),
        "nodes": result.nodes,
        "pods": result.pods,
        "statefulSets": [
            {
                "name": g.statefulset,
                "replicas": g.replicas,
                "perPod": g.per_pod.to_dict(),
                "exclusiveCores": g.exclusive_cores,
                "constraint": g.constraint,
                "passing": list(g.passing),
                "rejected": [
                    {"node": r.node, "filter": r.filter, "message": r.message}
                    for r in g.rejections
                ],
                "room": g.room,
                "placed": g.placed,
            }
            for g in result.groups
        ],
        "placement": [
            {
                "node": x.node,
                "statefulSet": x.statefulset,
                "firstOrdinal": x.first_ordinal,
                "pods": x.pods,
            }
            for x in result.placement
        ],
        "gangs": [
            {
                "name": g.name,
                "statefulSets": list(g.statefulsets),
                "pods": g.pods,
                "minMember": g.min_member,
                "placed": g.placed,
            }
            for g in result.gangs
        ],
        "notes": list(result.notes),
    }
