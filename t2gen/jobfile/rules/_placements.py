"""Where a job file places pods: the placements the placement rules walk, and their required terms.

A worker group's own placement sits on the group (``spec.workers[i].nodeSelector``,
``.nodeAffinity``, ``.uniform``) and is merged with ``spec.placement`` as
docs/placement.md says; :func:`group_terms` gives each group's required term in
two parts, inherited and own, so that a rule can locate a finding at the group.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.inputs.yaml import JsonPath
from t2gen.jobfile.rules._base import as_dict, as_list, groups

__all__ = [
    "HOSTNAME_KEY",
    "PLACEMENTS",
    "group_terms",
    "placement_at",
    "placements",
    "required_term",
    "requirements",
]

HOSTNAME_KEY = "kubernetes.io/hostname"
"""The well-known node label holding the node's hostname."""


PLACEMENTS: tuple[tuple[JsonPath, str], ...] = (
    (("spec", "placement"), "the workers"),
    (("spec", "jobMaster", "placement"), "the job master"),
)
"""Where a job file places pods, and whose pods they are (worker groups aside)."""


def placements(data: dict[str, Any]) -> Iterator[tuple[JsonPath, str]]:
    """Every placement of the job file: job-wide, the job master's, then each worker group's own.

    A worker group's own node selector and node affinity sit on the group
    (``spec.workers[i].nodeSelector``, ``.nodeAffinity``).
    """
    yield from PLACEMENTS
    for index, _ in groups(data):
        yield ("spec", "workers", index), f"worker group {index}"


def placement_at(data: dict[str, Any], prefix: JsonPath) -> dict[str, Any]:
    node: Any = data
    for part in prefix:  # as_list and as_dict, inlined (13 calls a job)
        if isinstance(part, int):
            items = node if isinstance(node, list) else []
            node = items[part] if part < len(items) else None
        else:
            node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def requirements(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, expression) for every required and preferred node expression.

    The workers' (``spec.placement``), the job master's
    (``spec.jobMaster.placement``) and each worker group's own.
    """
    for prefix, _ in placements(data):
        affinity = as_dict(placement_at(data, prefix).get("nodeAffinity"))
        for kind in ("required", "preferred"):
            for index, expression in enumerate(as_list(affinity.get(kind))):
                if isinstance(expression, dict):
                    yield (*prefix, "nodeAffinity", kind, index), expression


def required_term(
    placement: dict[str, Any], prefix: JsonPath
) -> list[tuple[JsonPath, dict[str, Any]]]:
    """The required node term of one placement as rendered: ``nodeSelector`` entries, then ``required``.

    Each ``nodeSelector`` entry ``key: value`` is the expression ``key In [value]``
    (t2gen ANDs it into the required term), located at the entry.
    """
    term: list[tuple[JsonPath, dict[str, Any]]] = [
        (
            (*prefix, "nodeSelector", key),
            {"key": key, "operator": "In", "values": [value]},
        )
        for key, value in as_dict(placement.get("nodeSelector")).items()
        if isinstance(key, str) and isinstance(value, str)
    ]
    required = as_list(as_dict(placement.get("nodeAffinity")).get("required"))
    term += [
        ((*prefix, "nodeAffinity", "required", index), expression)
        for index, expression in enumerate(required)
        if isinstance(expression, dict)
    ]
    return term


def group_terms(
    data: dict[str, Any],
) -> Iterator[
    tuple[
        int,
        list[tuple[JsonPath, dict[str, Any]]],
        list[tuple[JsonPath, dict[str, Any]]],
        str,
    ]
]:
    """Yield ``(index, job-wide part, group's own part, who)`` of each worker group's required term.

    The job-wide part leaves out ``nodeSelector`` entries whose key the group's
    own ``nodeSelector`` sets (the group's value replaces them).
    """
    job_prefix: JsonPath = ("spec", "placement")
    job_term = required_term(placement_at(data, job_prefix), job_prefix)
    for index, group in groups(data):
        prefix: JsonPath = ("spec", "workers", index)
        own = required_term(group, prefix)
        replaced = {
            key for key in as_dict(group.get("nodeSelector")) if isinstance(key, str)
        }
        inherited = [
            (path, expression)
            for path, expression in job_term
            if not (path[2] == "nodeSelector" and path[3] in replaced)
        ]
        yield index, inherited, own, f"worker group {index}"
