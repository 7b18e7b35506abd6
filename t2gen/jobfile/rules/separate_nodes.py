"""``all-separate-nodes`` and the hostnames a required term allows: pods that can never be placed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, as_int, as_list, problem, rule
from t2gen.jobfile.rules._placements import HOSTNAME_KEY, group_terms


def _allowed_hostnames(
    term: list[tuple[JsonPath, dict[str, Any]]],
) -> tuple[set[str], JsonPath] | None:
    """The hostnames a required term's ``kubernetes.io/hostname In`` expressions allow, if any.

    Returns:
        The allowed names (``In`` lists intersected, ``NotIn`` lists removed) and
        the path of the last ``In`` list's values, or None without an ``In`` list.
    """
    allowed: set[str] | None = None
    where: JsonPath = ()
    for path, expression in term:
        if expression.get("key") != HOSTNAME_KEY or expression.get("operator") != "In":
            continue
        values = {str(v) for v in as_list(expression.get("values"))}
        allowed = values if allowed is None else allowed & values
        where = (*path, "values") if path[-2] == "required" else path
    if allowed is None:
        return None
    for _, expression in term:
        if (
            expression.get("key") == HOSTNAME_KEY
            and expression.get("operator") == "NotIn"
        ):
            allowed -= {str(v) for v in as_list(expression.get("values"))}
    return allowed, where


@rule(
    "separate-nodes-feasible",
    fields=(
        "spec.placement.uniform",
        "spec.placement.nodeAffinity.required[]",
        "spec.placement.nodeSelector",
        "spec.workers[].uniform",
        "spec.workers[].nodeAffinity.required[]",
        "spec.workers[].nodeSelector",
        "spec.workers[].count",
        "spec.workers[].perPod",
    ),
)
def check_feasibility(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``all-separate-nodes`` has at least as many allowed hostnames as the pods it separates.

    ``all-separate-nodes`` renders, on each worker group it applies to (the
    job-wide ``spec.placement.uniform``, or the group's own ``uniform``), a
    required pod anti-affinity on ``kubernetes.io/hostname`` selecting every
    worker pod of the job: each of those groups' pods needs a node of its own.
    When a group's required ``kubernetes.io/hostname In`` expressions (job-wide
    and its own) name the nodes, fewer names than the group's pods means some
    pods can never be scheduled; so does a set of such groups whose pods
    together outnumber the names their lists allow. Without such a list, which
    nodes qualify is known only in the cluster (``t2gen plan`` checks it against
    a node list), and nothing is reported.

    Sources: Kubernetes, "Assigning Pods to Nodes", inter-pod affinity and
    anti-affinity
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity);
    the well-known label ``kubernetes.io/hostname``
    (https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname);
    the uniform-mapping term, cylondata/twister2
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java:529-559``.
    """
    job_uniform = as_dict(as_dict(data.get("spec")).get("placement")).get("uniform")
    separated: list[tuple[int, set[str], JsonPath, JsonPath]] = []
    pods: dict[int, int] = {}
    for index, inherited, own, _ in group_terms(data):
        group = as_dict(as_list(as_dict(data.get("spec")).get("workers"))[index])
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return  # reported by another rule
        pods[index] = count // per_pod
        uniform_at: JsonPath = (
            ("spec", "workers", index, "uniform")
            if "uniform" in group
            else ("spec", "placement", "uniform")
        )
        uniform = group.get("uniform", job_uniform)
        if uniform != "all-separate-nodes":
            continue
        hosts = _allowed_hostnames(inherited + own)
        if hosts is not None:
            separated.append((index, hosts[0], hosts[1], uniform_at))
    reported: set[JsonPath] = set()
    for index, allowed, where, uniform_at in separated:
        if pods[index] > len(allowed):
            reported.add(uniform_at)
            whose = "the job's" if len(pods) == 1 else f"worker group {index}'s"
            yield _too_few(doc, uniform_at, where, pods[index], allowed, whose)
    union: set[str] = set()
    for _, allowed, _, _ in separated:
        union |= allowed
    total = sum(pods[index] for index, _, _, _ in separated)
    if len(separated) > 1 and total > len(union):
        uniform_at, where = separated[-1][3], separated[-1][2]
        if uniform_at not in reported:
            yield _too_few(doc, uniform_at, where, total, union, "the job's")


def _too_few(
    doc: SourceDoc,
    uniform_at: JsonPath,
    where: JsonPath,
    pods: int,
    allowed: set[str],
    whose: str,
) -> Problem:
    """The problem: ``pods`` separated pods, fewer allowed hostnames."""
    listed = ", ".join(sorted(allowed)) or "none"
    nodes = len(allowed)
    return problem(
        doc,
        uniform_at,
        f"all-separate-nodes puts each of {whose} {pods} worker pods on its own node, but the required "
        f"{HOSTNAME_KEY} In list at line {doc.position(where)[0]} allows only {nodes} node"
        f"{'s' if nodes != 1 else ''} ({listed}); the pods would stay Pending: list at least {pods} "
        f"nodes or use at most {nodes} pod{'s' if nodes != 1 else ''}",
    )


RULES: tuple[Rule, ...] = (check_feasibility,)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
