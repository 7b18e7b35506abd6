"""Placement: node-affinity expressions, and whether any node can satisfy them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.jobfile.rules._base import (
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
    warning,
)
from t2gen.jobfile.rules._nodeaffinity import (
    INT64_MAX,
    contradictions,
    is_digits,
    node_int,
)
from t2gen.jobfile.yaml import JsonPath, SourceDoc
from t2gen.kube.validators import (
    DEPRECATED_NODE_LABELS,
    LABEL_VALUE_MAX,
    is_label_value,
)

_HOSTNAME_KEY = "kubernetes.io/hostname"
"""The well-known node label holding the node's hostname."""


def _affinity(data: dict[str, Any]) -> dict[str, Any]:
    """``spec.placement.nodeAffinity``, or an empty mapping."""
    return as_dict(
        as_dict(as_dict(data.get("spec")).get("placement")).get("nodeAffinity")
    )


_PLACEMENTS: tuple[tuple[JsonPath, str], ...] = (
    (("spec", "placement"), "the workers"),
    (("spec", "jobMaster", "placement"), "the job master"),
)
"""Where a job file places pods, and whose pods they are."""


def _placement(data: dict[str, Any], prefix: JsonPath) -> dict[str, Any]:
    node: Any = data
    for part in prefix:
        node = as_dict(node).get(str(part))
    return as_dict(node)


def _requirements(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, expression) for every required and preferred node expression.

    Both the workers' (``spec.placement``) and the job master's
    (``spec.jobMaster.placement``).
    """
    for prefix, _ in _PLACEMENTS:
        affinity = as_dict(_placement(data, prefix).get("nodeAffinity"))
        for kind in ("required", "preferred"):
            for index, expression in enumerate(as_list(affinity.get(kind))):
                if isinstance(expression, dict):
                    yield (*prefix, "nodeAffinity", kind, index), expression


def _required_term(
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


@rule(
    "affinity-operators",
    fields=(
        "spec.placement.nodeAffinity.required[].operator",
        "spec.placement.nodeAffinity.required[].values",
        "spec.placement.nodeAffinity.preferred[].operator",
        "spec.placement.nodeAffinity.preferred[].values",
        "spec.jobMaster.placement.nodeAffinity.required[]",
        "spec.jobMaster.placement.nodeAffinity.preferred[]",
    ),
)
def check_operators(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Each node expression has the values its operator takes.

    ``In`` and ``NotIn`` take at least one value, each a valid label value (a
    node label can hold nothing else, so any other value can never match);
    ``Exists`` and ``DoesNotExist`` take none; ``Gt`` and ``Lt`` take exactly one,
    a non-negative integer written in digits only: the API server parses it as
    an int64 and also requires a valid label value, so ``-1`` and ``+5`` are
    refused (after the objects before the StatefulSet were created, leaving a
    half-applied job); ``01`` is accepted and means 1. The API server refuses
    anything else.

    Sources: Kubernetes API, ``NodeSelectorRequirement``
    (https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/node-selector-requirement/);
    kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
    (``NewRequirement``: for ``Gt``/``Lt`` one value, ``strconv.ParseInt``, and
    ``validateLabelValue`` on every value);
    label values: "Labels and Selectors", syntax and character set
    (https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#syntax-and-character-set).
    """
    for path, expression in _requirements(data):
        operator = expression.get("operator")
        values = as_list(expression.get("values"))
        has_values = "values" in expression
        count = len(values)
        where = (*path, "values") if has_values else (*path, "operator")
        if operator in ("In", "NotIn"):
            if count == 0:
                yield problem(
                    doc,
                    where,
                    f"operator {operator} needs at least one value, e.g. values: [gpu]",
                )
            for index, value in enumerate(values):
                text = str(value) if not isinstance(value, bool) else value
                if isinstance(text, str) and not is_label_value(text):
                    yield problem(
                        doc,
                        (*path, "values", index),
                        f"{text!r} is not a valid label value, so no node label can equal it: use at most "
                        f"{LABEL_VALUE_MAX} letters, digits, '-', '_' and '.', starting and ending with a "
                        "letter or digit",
                    )
        elif operator in ("Exists", "DoesNotExist"):
            if count:
                yield problem(
                    doc,
                    where,
                    f"operator {operator} tests only whether the label {expression.get('key')!r} is set and takes "
                    f"no values; remove values ({count} given)",
                )
        elif operator in ("Gt", "Lt"):
            if count != 1:
                got = f"{count} values" if count != 1 else "1 value"
                yield problem(
                    doc,
                    where,
                    f"operator {operator} compares the label with exactly one integer; got {got}"
                    + (f" ({', '.join(repr(v) for v in values)})" if count else "")
                    + ', e.g. values: ["4"]',
                )
            elif is_digits(values[0]) and node_int(values[0]) is None:
                yield problem(
                    doc,
                    (*path, "values", 0),
                    f"operator {operator} parses the label as an int64, and {values[0]!r} is out of its "
                    f"range (at most {INT64_MAX})",
                )
            elif node_int(values[0]) is None:
                yield problem(
                    doc,
                    (*path, "values", 0),
                    f"operator {operator} needs a non-negative integer written in digits only (it must also "
                    f'be a valid label value, so no sign); {values[0]!r} is not one (e.g. "4")',
                )


@rule(
    "affinity-contradiction",
    fields=(
        "spec.placement.nodeAffinity.required[]",
        "spec.placement.nodeSelector",
        "spec.jobMaster.placement.nodeAffinity.required[]",
        "spec.jobMaster.placement.nodeSelector",
    ),
)
def check_contradictions(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Required node expressions on one key do not contradict each other.

    All required expressions must hold on the same node (they form one
    ``nodeSelectorTerm``), so ``DoesNotExist`` beside ``Exists``, ``In``, ``Gt`` or
    ``Lt`` on the same key, ``In`` and ``NotIn`` lists that leave no value,
    ``Gt``/``Lt`` bounds with no integer strictly between them (``Gt 10`` with
    ``Lt 11``; ``Lt 0``, since a label value has no sign), or ``In`` values none
    of which is an integer satisfying the ``Gt``/``Lt`` on the same key, can
    match no node at all: the workers would stay Pending for ever. So can
    ``Gt``/``Lt`` bounds whose integers ``NotIn`` all excludes (``Gt 10``,
    ``NotIn [11]``, ``Lt 12``; tried when at most 1000 integers lie between the
    bounds); when only a label written with leading zeros (``011``, which
    ``Gt``/``Lt`` read as 11 but ``NotIn [11]`` does not exclude) could still
    match, it is a warning. ``nodeSelector`` entries are part of the term as
    ``key In [value]``, and the job master's placement is checked the same way.
    Whether some node carries a label is known only in the cluster; this rule
    reports only what no node can satisfy.

    Sources: Kubernetes, "Assigning Pods to Nodes", node affinity
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity);
    kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
    (``Requirement.Matches``: ``Gt``/``Lt`` parse the node's label with
    ``strconv.ParseInt`` and compare strictly; a label that does not parse
    never matches).
    """
    for prefix, who in _PLACEMENTS:
        by_key: dict[str, list[tuple[JsonPath, dict[str, Any]]]] = {}
        for path, expression in _required_term(_placement(data, prefix), prefix):
            if isinstance(expression.get("key"), str):
                by_key.setdefault(expression["key"], []).append((path, expression))
        for key, located in by_key.items():
            yield from contradictions(doc, key, located, who)


@rule(
    "deprecated-node-label",
    fields=(
        "spec.placement.nodeAffinity.required[].key",
        "spec.placement.nodeAffinity.preferred[].key",
        "spec.placement.nodeSelector",
        "spec.jobMaster.placement.nodeAffinity.required[].key",
        "spec.jobMaster.placement.nodeAffinity.preferred[].key",
        "spec.jobMaster.placement.nodeSelector",
    ),
)
def check_deprecated_labels(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """Node expressions and ``nodeSelector`` entries use current node label keys, not deprecated ones (a warning).

    The API server warns on every apply of a pod template whose node affinity
    names a deprecated node label key, such as ``beta.kubernetes.io/os``
    (``kubernetes.io/os`` since v1.14) or
    ``failure-domain.beta.kubernetes.io/zone`` (``topology.kubernetes.io/zone``
    since v1.17); newer nodes may no longer carry the old key. t2gen gives the
    same warning, in the API server's words, and still renders the job.

    Sources: kubernetes/kubernetes ``pkg/api/node/util.go``
    (``deprecatedNodeLabels``) and ``pkg/api/pod/warnings.go``; Kubernetes,
    "Well-Known Labels, Annotations and Taints"
    (https://kubernetes.io/docs/reference/labels-annotations-taints/).
    """
    for path, expression in _requirements(data):
        key = expression.get("key")
        if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
            yield warning(
                doc,
                (*path, "key"),
                f"{key} is {DEPRECATED_NODE_LABELS[key]}",
            )
    for prefix, _ in _PLACEMENTS:
        for key in as_dict(_placement(data, prefix).get("nodeSelector")):
            if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
                yield warning(
                    doc,
                    (*prefix, "nodeSelector", key),
                    f"{key} is {DEPRECATED_NODE_LABELS[key]}",
                    key=True,
                )


def _allowed_hostnames(data: dict[str, Any]) -> tuple[set[str], JsonPath] | None:
    """The hostnames required ``kubernetes.io/hostname In`` expressions allow, if any."""
    required = as_list(_affinity(data).get("required"))
    allowed: set[str] | None = None
    where: JsonPath = ()
    for index, expression in enumerate(required):
        if not isinstance(expression, dict) or expression.get("key") != _HOSTNAME_KEY:
            continue
        values = {str(v) for v in as_list(expression.get("values"))}
        if expression.get("operator") == "In":
            allowed = values if allowed is None else allowed & values
            where = ("spec", "placement", "nodeAffinity", "required", index, "values")
    if allowed is None:
        return None
    for expression in required:
        if (
            isinstance(expression, dict)
            and expression.get("key") == _HOSTNAME_KEY
            and expression.get("operator") == "NotIn"
        ):
            allowed -= {str(v) for v in as_list(expression.get("values"))}
    return allowed, where


@rule(
    "separate-nodes-feasible",
    fields=(
        "spec.placement.uniform",
        "spec.placement.nodeAffinity.required[]",
        "spec.workers[].count",
        "spec.workers[].perPod",
    ),
)
def check_feasibility(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``all-separate-nodes`` has at least as many allowed hostnames as worker pods.

    ``all-separate-nodes`` renders a required pod anti-affinity on
    ``kubernetes.io/hostname``: no two worker pods share a node. When required
    ``kubernetes.io/hostname In`` expressions name the nodes, fewer names than
    pods means some pods can never be scheduled. Without such a list, which
    nodes qualify is known only in the cluster, and nothing is reported.

    Sources: Kubernetes, "Assigning Pods to Nodes", inter-pod affinity and
    anti-affinity
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#inter-pod-affinity-and-anti-affinity);
    the well-known label ``kubernetes.io/hostname``
    (https://kubernetes.io/docs/reference/labels-annotations-taints/#kubernetesiohostname).
    """
    placement = as_dict(as_dict(data.get("spec")).get("placement"))
    if placement.get("uniform") != "all-separate-nodes":
        return
    hosts = _allowed_hostnames(data)
    if hosts is None:
        return  # which nodes qualify is only known in the cluster
    allowed, where = hosts
    pods = 0
    for _, group in groups(data):
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return  # reported by another rule
        pods += count // per_pod
    if pods > len(allowed):
        listed = ", ".join(sorted(allowed)) or "none"
        yield problem(
            doc,
            ("spec", "placement", "uniform"),
            f"all-separate-nodes puts each of the job's {pods} worker pods on its own node, but the required "
            f"{_HOSTNAME_KEY} In list at line {doc.position(where)[0]} allows only {len(allowed)} node"
            f"{'s' if len(allowed) != 1 else ''} ({listed}); the pods would stay Pending: list at least {pods} "
            f"nodes or use at most {len(allowed)} pod{'s' if len(allowed) != 1 else ''}",
        )
