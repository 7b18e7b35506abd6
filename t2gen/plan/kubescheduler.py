"""kube-scheduler's loop, one pod at a time: queue, filters, scores, bind, never undo.

:mod:`t2gen.plan.placement` asks whether one placement of every pod exists. The
default scheduler does not search for one: it takes the pods from its queue one
at a time, keeps the nodes that pass its filters, scores them, binds the pod to
the best and never revisits the choice. A pod that takes the only node another
pod could use strands that pod even though a placement exists. This module runs
that loop over the job's pods and reports the first pod it strands.

What it follows (kubernetes/kubernetes):

* Queue order: ``PrioritySort``
  (``pkg/scheduler/framework/plugins/queuesort/priority_sort.go``): higher
  ``spec.priority`` first, then the earlier queue timestamp. The pods are
  created in the order ``kubectl apply`` creates their StatefulSets (the order
  t2gen prints them), and a StatefulSet with ``podManagementPolicy: Parallel``
  creates its pods in ordinal order without waiting for each to be Ready
  (``pkg/controller/statefulset/stateful_set_control.go``).
* Filters: those of :mod:`t2gen.plan.filters` (NodeUnschedulable, NodeName,
  TaintToleration, NodeAffinity, NodeResourcesFit, InterPodAffinity on
  ``kubernetes.io/hostname``), against the pods already placed.
* How many nodes are scored: ``numFeasibleNodesToFind`` and
  ``findNodesThatPassFilters`` in ``pkg/scheduler/schedule_one.go``: with 100
  nodes or more, the search stops after ``max(100, n x max(5, 50 - n/125)%)``
  feasible nodes and the next pod's search starts where this one stopped. The
  scheduler walks its own node order (zones interleaved); this walks the list's.
* Scores, with the default weights of ``getDefaultPlugins``
  (``pkg/scheduler/apis/config/v1/default_plugins.go``): NodeResourcesFit with
  the LeastAllocated strategy, cpu and memory weighted 1 (weight 1,
  ``noderesources/least_allocated.go``); NodeResourcesBalancedAllocation
  (weight 1, ``noderesources/balanced_allocation.go``: ``(1 - |f_cpu - f_mem| / 2)
  x 100``, skipped for a pod without requests); TaintToleration (weight 3:
  untolerated ``PreferNoSchedule`` taints, normalised in reverse by
  ``helper.DefaultNormalizeScore``); NodeAffinity (weight 2: the weights of the
  preferred terms a node matches, normalised to 100); InterPodAffinity (weight
  2: preferred pod (anti-)affinity in both directions and other pods' required
  affinity with ``hardPodAffinityWeight`` 1, normalised by
  ``(score - min) / (max - min)`` with 0 in the range,
  ``interpodaffinity/scoring.go``). The node with the highest sum wins; ties are
  broken at random (``selectHost``).
* Left out: PodTopologySpread's default constraints (weight 2, which spread a
  StatefulSet's pods over nodes and zones) and ImageLocality (weight 1);
  running pods without requests count as 0, where the scheduler's scores count
  100m cpu and 200 MiB (``GetNonzeroRequests``).

Ties are random, and the queue order depends on how the StatefulSet controller
interleaves the StatefulSets' pods (:mod:`t2gen.plan.orders`), so
:mod:`t2gen.plan.simulate` runs this loop once per queue order and tie-break.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from t2gen.plan.filters.interpod import HOSTNAME, JobRelations, PodAffinityTerm
from t2gen.plan.filters.resources import FreeResources, free_resources, lacking, take
from t2gen.plan.nodes import Node
from t2gen.plan.pods import ExistingPod
from t2gen.plan.templates import WorkloadTemplate
from t2gen.record import Record

__all__ = ["SchedulerLoop", "Stranding", "explain", "names", "nodes_to_find"]

# pkg/scheduler/schedule_one.go
_MIN_FEASIBLE_NODES_TO_FIND = 100
_MIN_FEASIBLE_NODES_PERCENTAGE = 5
# pkg/scheduler/apis/config/v1/default_plugins.go
_W_TAINT, _W_NODE_AFFINITY, _W_FIT, _W_INTERPOD, _W_BALANCED = 3, 2, 1, 2, 1
_HARD_POD_AFFINITY_WEIGHT = 1  # InterPodAffinityArgs default
_MAX_SCORE = 100


class Stranding(Record):
    """The first pod one run of the loop could not place.

    Attributes:
        pod: its name, ``<statefulset>-<ordinal>``.
        statefulset: its StatefulSet.
        reason: why no node was left for it, naming nodes and the pods that took them.
        blockers: the StatefulSets whose pods took the nodes it needed.
    """

    pod: str
    statefulset: str
    reason: str
    blockers: tuple[str, ...] = ()


def nodes_to_find(count: int) -> int:
    """How many feasible nodes the scheduler scores among ``count`` (``numFeasibleNodesToFind``)."""
    if count < _MIN_FEASIBLE_NODES_TO_FIND:
        return count
    percentage = max(50 - count // 125, _MIN_FEASIBLE_NODES_PERCENTAGE)
    return max(count * percentage // 100, _MIN_FEASIBLE_NODES_TO_FIND)


def _weight(
    terms: Sequence[tuple[int, PodAffinityTerm]],
    owner: WorkloadTemplate,
    other: WorkloadTemplate,
) -> int:
    return sum(
        w
        for w, term in terms
        if term.topology_key == HOSTNAME
        and term.selects(owner.namespace, other.namespace, other.labels)
    )


class SchedulerLoop:
    """The state of one job's simulation: the queue, static scores, pairwise affinities."""

    def __init__(
        self,
        templates: Sequence[WorkloadTemplate],
        nodes: Sequence[Node],
        pods: Sequence[ExistingPod],
        passing: Sequence[Sequence[int]],
        relations: JobRelations,
        priorities: Mapping[int, int],
    ) -> None:
        self.templates = templates
        self.nodes = nodes
        self.pods = pods
        self.relations = relations
        self.allowed = [set(p) for p in passing]
        self.queue = sorted(
            ((a, k) for a, t in enumerate(templates) for k in range(t.replicas)),
            key=lambda x: (-priorities.get(x[0], 0), x[0], x[1]),
        )
        self.component = {
            a: c for c, members in enumerate(relations.components) for a in members
        }
        count = len(templates)
        # InterPodAffinity per pair (a incoming, b placed): a's preferred terms
        # selecting b, b's selecting a, and b's required affinity selecting a.
        self.pair = [[0] * count for _ in range(count)]
        self.scored = [False] * count
        for a, t in enumerate(templates):
            for b, u in enumerate(templates):
                w = _weight(t.preferred_pod_affinity, t, u) - _weight(
                    t.preferred_pod_anti_affinity, t, u
                )
                w += _weight(u.preferred_pod_affinity, u, t) - _weight(
                    u.preferred_pod_anti_affinity, u, t
                )
                w += _HARD_POD_AFFINITY_WEIGHT * sum(
                    1
                    for term in u.pod_affinity
                    if term.topology_key == HOSTNAME
                    and term.selects(u.namespace, t.namespace, t.labels)
                )
                self.pair[a][b] = w
            self.scored[a] = bool(
                t.preferred_pod_affinity
                or t.preferred_pod_anti_affinity
                or any(self.pair[a])
            )
        by_name = {node.name: i for i, node in enumerate(nodes)}
        self.running: list[dict[int, int]] = [{} for _ in templates]
        for a, t in enumerate(templates):
            terms = [(w, x) for w, x in t.preferred_pod_affinity] + [
                (-w, x) for w, x in t.preferred_pod_anti_affinity
            ]
            if not terms:
                continue
            for pod in pods:
                i = by_name.get(pod.node_name)
                if i is None:
                    continue
                w = sum(
                    weight
                    for weight, x in terms
                    if x.topology_key == HOSTNAME
                    and x.selects(t.namespace, pod.namespace, pod.labels)
                )
                if w:
                    self.running[a][i] = self.running[a].get(i, 0) + w
                    self.scored[a] = True
        self.static: list[dict[int, tuple[int, int]]] = [{} for _ in templates]
        self.initial = free_resources(
            nodes, pods
        )  # copied per run: O(nodes), not O(pods)
        self.alloc_cpu = [node.allocatable.cpu_millis for node in nodes]
        self.alloc_memory = [node.allocatable.memory_bytes for node in nodes]

    def _static(self, a: int, i: int) -> tuple[int, int]:
        """(untolerated PreferNoSchedule taints, matched preferred node-affinity weight)."""
        found = self.static[a].get(i)
        if found is None:
            t, node = self.templates[a], self.nodes[i]
            taints = sum(
                1
                for taint in node.taints
                if taint.effect == "PreferNoSchedule"
                and not any(x.tolerates(taint) for x in t.tolerations)
            )
            preferred = sum(
                w
                for w, term in t.preferred_node_affinity
                if term and all(r.explain(node.labels, node.name) is None for r in term)
            )
            found = self.static[a][i] = (taints, preferred)
        return found

    def run(
        self,
        chooser: random.Random | None,
        queue: Sequence[tuple[int, int]] | None = None,
    ) -> tuple[int, Stranding | None]:
        """One pass of the loop: how many pods it strands, and why the first is stranded."""
        templates, nodes = self.templates, self.nodes
        n = len(nodes)
        find = nodes_to_find(n)
        first_state = self.initial
        state = FreeResources(
            cpu=list(first_state.cpu),
            memory=list(first_state.memory),
            pods=list(first_state.pods),
            cores=list(first_state.cores),
            extended=[dict(x) for x in first_state.extended],
            hosted=[None] * n,
        )
        counts: list[dict[int, int]] = [{} for _ in range(n)]
        placed_on: dict[int, set[int]] = {}
        stranded = 0
        first: Stranding | None = None
        start = 0
        conflicts = self.relations.conflicts
        for a, ordinal in queue if queue is not None else self.queue:
            t = templates[a]
            allowed = self.allowed[a]
            r = t.requests
            component = self.component.get(a)
            together = placed_on.get(component) if component is not None else None
            feasible: list[int] = []
            processed = 0
            for step in range(n):
                i = (start + step) % n
                processed += 1
                if i not in allowed:
                    continue
                if together and i not in together:
                    continue
                hosted = state.hosted[i]
                if hosted is not None and hosted & conflicts[a]:
                    continue
                if (
                    state.pods[i] < 1
                    or state.cpu[i] < r.cpu_millis
                    or state.memory[i] < r.memory_bytes
                    or state.cores[i] < t.exclusive_cores
                    or any(
                        amount > state.extended[i].get(name, 0)
                        for name, amount in r.extended
                    )
                ):
                    continue
                feasible.append(i)
                if len(feasible) >= find:
                    break
            start = (start + processed) % n if n else 0
            if not feasible:
                if first is None:  # explained as things stand when it is stranded
                    first = explain(self, a, ordinal, state, counts)
                stranded += 1
                continue
            choice = self._best(a, feasible, state, counts, chooser)
            take(state, t, a, choice, 1)
            counts[choice][a] = counts[choice].get(a, 0) + 1
            if component is not None:
                placed_on.setdefault(component, set()).add(choice)
        return stranded, first

    def _best(
        self,
        a: int,
        feasible: list[int],
        state: FreeResources,
        counts: list[dict[int, int]],
        chooser: random.Random | None,
    ) -> int:
        """The node the scheduler binds to: the highest weighted score, ties at random."""
        t = self.templates[a]
        cpu, memory = t.requests.cpu_millis, t.requests.memory_bytes
        best_effort = not cpu and not memory
        statics = [self._static(a, i) for i in feasible]
        max_taints = max(s[0] for s in statics)
        max_preferred = max(s[1] for s in statics)
        interpod = [0] * len(feasible)
        if self.scored[a]:
            pair, running = self.pair[a], self.running[a]
            for k, i in enumerate(feasible):
                interpod[k] = running.get(i, 0) + sum(
                    pair[b] * c for b, c in counts[i].items()
                )
        low, high = min(0, *interpod), max(0, *interpod)
        best: list[int] = []
        top = -1
        free_cpu, free_memory = state.cpu, state.memory
        alloc_cpu, alloc_memory = self.alloc_cpu, self.alloc_memory
        for k, i in enumerate(feasible):
            # NodeResourcesFit (LeastAllocated) and BalancedAllocation, cpu and memory.
            c_cap, m_cap = alloc_cpu[i], alloc_memory[i]
            c_req = c_cap - free_cpu[i] + cpu
            m_req = m_cap - free_memory[i] + memory
            fit = 0
            if c_cap and c_req <= c_cap:
                fit = (c_cap - c_req) * _MAX_SCORE // c_cap
            if m_cap and m_req <= m_cap:
                fit += (m_cap - m_req) * _MAX_SCORE // m_cap
            total = _W_FIT * (fit // 2)
            if not best_effort:
                if c_cap and m_cap:
                    spread = abs(min(c_req / c_cap, 1.0) - min(m_req / m_cap, 1.0)) / 2
                else:
                    spread = 0.0
                total += _W_BALANCED * int((1 - spread) * _MAX_SCORE)
            taints, preferred = statics[k]
            total += _W_TAINT * (
                _MAX_SCORE - taints * _MAX_SCORE // max_taints
                if max_taints
                else _MAX_SCORE
            )
            if max_preferred:
                total += _W_NODE_AFFINITY * (preferred * _MAX_SCORE // max_preferred)
            if high > low:
                total += _W_INTERPOD * int(
                    _MAX_SCORE * (interpod[k] - low) / (high - low)
                )
            if total > top:
                top, best = total, [i]
            elif total == top:
                best.append(i)
        return best[0] if chooser is None else chooser.choice(best)


def names(items: Sequence[str], most: int = 3, sep: str = ", ") -> str:
    """The first ``most`` items joined, and how many more (``a, b, c and 4 more``)."""
    shown = sep.join(items[:most])
    return shown + (f" and {len(items) - most} more" if len(items) > most else "")


def explain(
    loop: SchedulerLoop,
    a: int,
    ordinal: int,
    state: FreeResources,
    counts: list[dict[int, int]],
) -> Stranding:
    """Name the nodes the stranded pod could have used and what took them."""
    t, templates, nodes = loop.templates[a], loop.templates, loop.nodes
    candidates = sorted(loop.allowed[a])
    blockers: dict[str, None] = {}
    details = []
    for i in candidates:
        here = [templates[b].name for b in sorted(counts[i])]
        blockers.update(dict.fromkeys(b for b in here if b != t.name))
        hosted = state.hosted[i]
        if hosted is not None and hosted & loop.relations.conflicts[a]:
            held = ", ".join(
                f"{c} pod{'s' if c > 1 else ''} of {templates[b].name}"
                for b, c in sorted(counts[i].items())
            )
            details.append(
                f"{nodes[i].name} holds {held}, which its pod anti-affinity excludes"
            )
        else:
            details.append(f"{nodes[i].name}: {lacking(t, state, i)[1]}")
    where = (
        f"the {len(candidates)} nodes that pass its filters"
        if len(candidates) != 1
        else "the only node that passes its filters"
    )
    taken = "were" if len(candidates) != 1 else "was"
    reason = (
        f"{where} {taken} taken by pods placed before it: {names(details, sep='; ')}"
    )
    return Stranding(f"{t.name}-{ordinal}", t.name, reason, tuple(blockers))
