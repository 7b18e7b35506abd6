"""The InterPodAffinity filter: required pod (anti-)affinity per hostname.

Required ``podAffinity`` and ``podAntiAffinity`` terms are checked against the
running pods in both directions, as the scheduler does
(``pkg/scheduler/framework/plugins/interpodaffinity``, kubernetes/kubernetes).
Among the job's own StatefulSets the terms are handled as t2gen renders them:
a self-selecting anti-affinity term allows one selected pod per node, and an
affinity term puts every pod it links on one node. Only the topology key
``kubernetes.io/hostname`` (one node) is evaluated.

t2gen renders such terms for two job-file fields, which :func:`constraint`
names apart: ``spec.placement.uniform`` (a term selecting every worker pod of
the job, ``t2-wp: <job>``: ``all-separate-nodes`` or ``all-same-node``) and a
required task topology (``spec.scheduling.affinity``/``antiAffinity`` with
``topologyMode: required``: terms selecting tasks by ``t2-task``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from t2gen.plan.selectors import LabelSelector, parse_label_selector, strings
from t2gen.record import Record
from t2gen.twister2.names import TASK_LABEL, WORKER_POD_LABEL

if TYPE_CHECKING:
    from t2gen.plan.pods import ExistingPod
    from t2gen.plan.templates import WorkloadTemplate

__all__ = [
    "HOSTNAME",
    "JobRelations",
    "PodAffinityTerm",
    "affinity_name",
    "anti_affinity_name",
    "blocked_by_running",
    "constraint",
    "job_relations",
    "parse_affinity_terms",
]

HOSTNAME = "kubernetes.io/hostname"


class PodAffinityTerm(Record):
    """A required pod (anti-)affinity term.

    Attributes:
        selector: which pods the term selects; None selects none.
        topology_key: the node label that defines "the same place";
            ``kubernetes.io/hostname`` is one node.
        namespaces: namespaces whose pods it selects; empty with
            ``all_namespaces`` False means the owning pod's namespace.
        all_namespaces: True when ``namespaceSelector`` is present, which the
            engine treats as every namespace (it cannot see namespace labels).
    """

    selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    all_namespaces: bool = False

    def selects(
        self,
        owner_namespace: str | None,
        namespace: str | None,
        labels: Mapping[str, str],
    ) -> bool:
        """Return True if the term of a pod in ``owner_namespace`` selects a pod.

        A namespace of None means "unknown"; it matches any namespace.
        """
        if self.selector is None or not self.selector.matches(labels):
            return False
        if self.all_namespaces or namespace is None:
            return True
        if self.namespaces:
            return namespace in self.namespaces
        return owner_namespace is None or owner_namespace == namespace

    def __str__(self) -> str:
        """Return ``selector @ topologyKey``."""
        return f"{self.selector if self.selector is not None else '(nothing)'} per {self.topology_key}"


def parse_affinity_terms(
    spec: Mapping[str, Any], kind: str
) -> tuple[PodAffinityTerm, ...]:
    """Return the required terms of ``affinity.<kind>`` (``podAffinity`` or ``podAntiAffinity``)."""
    affinity = spec.get("affinity") or {}
    section = affinity.get(kind) if isinstance(affinity, Mapping) else None
    if not isinstance(section, Mapping):
        return ()
    raw = section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    if not isinstance(raw, (list, tuple)):
        return ()  # not a list of terms: none the API server could have stored
    terms = []
    for term in raw:
        if not isinstance(term, Mapping):
            continue
        terms.append(
            PodAffinityTerm(
                selector=parse_label_selector(term.get("labelSelector")),
                topology_key=str(term.get("topologyKey") or ""),
                namespaces=strings(term.get("namespaces")),
                all_namespaces=isinstance(term.get("namespaceSelector"), Mapping),
            )
        )
    return tuple(terms)


def _tasks(selector: LabelSelector | None) -> tuple[str, ...]:
    """The task names (``t2-task``) a task-topology term selects; empty for other selectors."""
    if selector is None:
        return ()
    for key, value in selector.match_labels:
        if key == TASK_LABEL:
            return (value,)
    for requirement in selector.match_expressions:
        if requirement.key == TASK_LABEL and requirement.operator == "In":
            return requirement.values
    return ()


def _term_name(t: WorkloadTemplate, term: PodAffinityTerm, *, anti: bool) -> str:
    """Name a required hostname term of ``t`` after the job-file field that rendered it."""
    selector = term.selector
    worker_pods = ((WORKER_POD_LABEL, t.labels.get(WORKER_POD_LABEL)),)
    if (
        selector is not None
        and not selector.match_expressions
        and selector.match_labels == worker_pods
    ):
        return "all-separate-nodes" if anti else "all-same-node"
    kind = "required pod anti-affinity" if anti else "required pod affinity"
    tasks = _tasks(selector)
    if tasks:
        return f"{kind} (task topology: {', '.join(tasks)})"
    return f"{kind} ({term})"


def _first_name(
    t: WorkloadTemplate, terms: Sequence[PodAffinityTerm], *, anti: bool
) -> str | None:
    """The name of the first term, preferring the uniform mapping's."""
    names = [_term_name(t, x, anti=anti) for x in terms]
    uniform = "all-separate-nodes" if anti else "all-same-node"
    if uniform in names:
        return uniform
    return names[0] if names else None


def _self_anti(t: WorkloadTemplate) -> list[PodAffinityTerm]:
    return [
        x
        for x in t.pod_anti_affinity
        if x.topology_key == HOSTNAME and x.selects(t.namespace, t.namespace, t.labels)
    ]


def anti_affinity_name(t: WorkloadTemplate) -> str:
    """Name the self-selecting anti-affinity that allows one pod of ``t`` per node.

    Returns:
        ``all-separate-nodes`` for ``spec.placement.uniform``'s term, else e.g.
        ``required pod anti-affinity (task topology: w)``.
    """
    return _first_name(t, _self_anti(t), anti=True) or "required pod anti-affinity"


def affinity_name(t: WorkloadTemplate) -> str:
    """Name the hostname podAffinity that puts the pods ``t`` links on one node.

    Returns:
        ``all-same-node`` for ``spec.placement.uniform``'s term, else e.g.
        ``required pod affinity (task topology: a, b)``.
    """
    terms = [x for x in t.pod_affinity if x.topology_key == HOSTNAME]
    return _first_name(t, terms, anti=False) or "required pod affinity"


def constraint(t: WorkloadTemplate) -> str:
    """Name the inter-pod constraint ``t``'s pods carry (the CONSTRAINT column).

    Returns:
        ``all-separate-nodes`` or ``all-same-node`` (``spec.placement.uniform``),
        a required pod (anti-)affinity named by the tasks it selects (a required
        task topology) or by its selector, or ``none``.
    """
    if _self_anti(t):
        return anti_affinity_name(t)
    if any(x.topology_key == HOSTNAME for x in t.pod_affinity):
        return affinity_name(t)
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


class JobRelations(Record):
    """The inter-pod relations among a job's own templates (hostname topology only).

    Attributes:
        conflicts: per template, the templates whose pods its anti-affinity keeps
            off its pods' nodes, both directions (itself: one pod per node).
        components: templates linked by podAffinity, each list placed on one node.
        impossible: template to why its podAffinity matches no pod at all.
        required_nodes: template to the nodes whose running pods its podAffinity selects.
        other_keys: topology keys other than ``kubernetes.io/hostname`` (not evaluated).
    """

    conflicts: list[set[int]]
    components: list[list[int]]
    impossible: dict[int, str]
    required_nodes: dict[int, set[int]]
    other_keys: set[str]

    def linked(self) -> set[int]:
        """Return the templates that belong to an affinity component."""
        return {a for members in self.components for a in members}


def job_relations(
    templates: Sequence[WorkloadTemplate], pods_on: Mapping[int, list[ExistingPod]]
) -> JobRelations:
    """Relate the job's templates by their required hostname terms.

    Args:
        templates: the job's templates.
        pods_on: node index to the running pods there (a podAffinity term that
            selects running pods confines the template to their nodes).

    Returns:
        The relations.
    """
    count = len(templates)
    rel = JobRelations(
        conflicts=[set() for _ in templates],
        components=[],
        impossible={},
        required_nodes={},
        other_keys=set(),
    )
    components = _Components(count)
    linked = [False] * count
    for a, t in enumerate(templates):
        for term in t.pod_anti_affinity:
            if term.topology_key != HOSTNAME:
                rel.other_keys.add(term.topology_key)
                continue
            for b, u in enumerate(templates):
                if term.selects(t.namespace, u.namespace, u.labels):
                    rel.conflicts[a].add(b)
                    rel.conflicts[b].add(a)
        for term in t.pod_affinity:
            if term.topology_key != HOSTNAME:
                rel.other_keys.add(term.topology_key)
                continue
            existing = {
                i
                for i, here in pods_on.items()
                if any(term.selects(t.namespace, p.namespace, p.labels) for p in here)
            }
            if existing:
                rel.required_nodes[a] = rel.required_nodes.get(a, existing) & existing
                continue
            matched = [
                b
                for b, u in enumerate(templates)
                if term.selects(t.namespace, u.namespace, u.labels)
            ]
            if not matched:
                rel.impossible[a] = (
                    f"podAffinity {term}: no pod matches it, not even the pod itself"
                )
            for b in matched:
                components.union(a, b)
                linked[a] = linked[b] = True
    groups: dict[int, list[int]] = {}
    for a in range(count):
        if linked[a]:
            groups.setdefault(components.find(a), []).append(a)
    rel.components[:] = groups.values()
    return rel


def blocked_by_running(
    t: WorkloadTemplate, pods_on: Mapping[int, list[ExistingPod]]
) -> dict[int, str]:
    """Nodes where running pods and ``t``'s anti-affinity meet (either direction).

    Args:
        t: the StatefulSet's pod template.
        pods_on: node index to the running pods bound there.

    Returns:
        Node index to the message naming the pod and the term that excludes it.
    """
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
