"""Where pods run: ``nodeSelector``, node affinity, tolerations and uniform mapping.

Part of the one pod builder (:mod:`t2gen.render.context.pod`), after the real
launcher (cylondata/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``constructAffinity``).
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job, NodeSelectorRequirement, Placement, Toleration
from t2gen.twister2 import names

__all__ = [
    "affinity",
    "node_affinity",
    "node_selector",
    "required_expressions",
    "tolerations",
]


def _requirement(requirement: NodeSelectorRequirement) -> dict[str, Any]:
    """A NodeSelectorRequirement; Exists/DoesNotExist carry no ``values``."""
    expression: dict[str, Any] = {
        "key": requirement.key,
        "operator": requirement.operator,
    }
    if requirement.operator not in ("Exists", "DoesNotExist"):
        expression["values"] = list(requirement.values)
    return expression


def required_expressions(placement: Placement) -> list[dict[str, Any]]:
    """The required node-affinity term's expressions (``nodeAffinity.required``).

    A ``nodeSelector`` is not among them: it is the pod's own ``spec.nodeSelector``
    (:func:`node_selector`), which the scheduler ANDs with the required term
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodeselector:
    "If you specify both nodeSelector and nodeAffinity, both must be satisfied"),
    and which admission policies (Kyverno, Gatekeeper) read as written.
    """
    return [_requirement(r) for r in placement.required]


def node_selector(placement: Placement) -> dict[str, str]:
    """The pod's ``spec.nodeSelector``: the job-wide entries with the group's merged over them.

    ``placement`` is already merged (:meth:`~t2gen.model.Placement.merged`: for a
    key both set, the group's value wins), and its pairs are sorted by key.
    """
    return dict(placement.node_selector)


def node_affinity(placement: Placement) -> dict[str, Any] | None:
    """``nodeAffinity`` of a placement: the required term and the preferences, or None."""
    result: dict[str, Any] = {}
    required = required_expressions(placement)
    if required:
        result["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": required}]
        }
    if placement.preferred:
        result["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {
                "weight": p.weight,
                "preference": {"matchExpressions": [_requirement(p.requirement)]},
            }
            for p in placement.preferred
        ]
    return result or None


def tolerations(*lists: tuple[Toleration, ...]) -> list[dict[str, Any]]:
    """The tolerations of a pod, in order, each once (e.g. job-wide, then the group's)."""
    seen: list[dict[str, Any]] = []
    for items in lists:
        for item in items:
            manifest = item.as_manifest()
            if manifest not in seen:
                seen.append(manifest)
    return seen


def affinity(job: Job, placement: Placement) -> dict[str, Any] | None:
    """Pod affinity of a worker group: node affinity plus uniform mapping.

    ``placement`` is the group's (``spec.placement`` with the group's own merged
    over it, :meth:`~t2gen.model.Placement.merged`). The Twister2
    launcher sets affinity on compute resource 0 only
    (``RequestObjectBuilder.java:229-231``, ``constructAffinity``); t2gen sets
    the job-wide placement on every group, and a group's own on that group, so
    ``t2gen import`` reproduces the launcher by writing Twister2's mapping to
    group 0. The uniform term's selector ``t2-wp: <job>`` matches every worker
    pod of this job and no pod of another job (namespaces default to the pod's
    own), as the launcher's does (``RequestObjectBuilder.java:529-559``).

    Returns:
        ``{nodeAffinity?, podAffinity? | podAntiAffinity?}``, or None when empty.
    """
    result: dict[str, Any] = {}
    nodes = node_affinity(placement)
    if nodes:
        result["nodeAffinity"] = nodes
    if placement.uniform != "none":
        term = {
            "labelSelector": {"matchLabels": names.worker_pods_selector(job.name)},
            "topologyKey": "kubernetes.io/hostname",
        }
        kind = (
            "podAffinity" if placement.uniform == "all-same-node" else "podAntiAffinity"
        )
        result[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    return result or None
