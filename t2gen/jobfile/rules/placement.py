"""Placement: node-affinity expressions, and whether any node can satisfy them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.jobfile.loader import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
    warning,
)
from t2gen.kube.validators import (
    DEPRECATED_NODE_LABELS,
    LABEL_VALUE_MAX,
    is_label_value,
)
from t2gen.problems import Problem, Warning_

_HOSTNAME_KEY = "kubernetes.io/hostname"
"""The well-known node label holding the node's hostname."""

_INT64 = (-(2**63), 2**63 - 1)


def _affinity(data: dict[str, Any]) -> dict[str, Any]:
    """``spec.placement.nodeAffinity``, or an empty mapping."""
    return as_dict(
        as_dict(as_dict(data.get("spec")).get("placement")).get("nodeAffinity")
    )


def _requirements(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, expression) for every required and preferred node expression.

    Both the workers' (``spec.placement``) and the job master's
    (``spec.jobMaster.placement``).
    """
    master = as_dict(
        as_dict(
            as_dict(as_dict(data.get("spec")).get("jobMaster")).get("placement")
        ).get("nodeAffinity")
    )
    for prefix, affinity in (
        (("spec", "placement", "nodeAffinity"), _affinity(data)),
        (("spec", "jobMaster", "placement", "nodeAffinity"), master),
    ):
        for kind in ("required", "preferred"):
            for index, expression in enumerate(as_list(affinity.get(kind))):
                if isinstance(expression, dict):
                    yield (*prefix, kind, index), expression


def _node_int(value: Any) -> int | None:
    """The integer a ``Gt``/``Lt`` value stands for, or None if Kubernetes refuses it.

    The value must parse as an int64 (``strconv.ParseInt``) and be a valid label
    value, so it is written in ASCII digits only: no sign, no spaces (``01`` is
    fine and means 1). The same holds for the node label it is compared with,
    so every label Gt/Lt can match is a non-negative integer.
    """
    if isinstance(value, bool):
        return None
    text = str(value) if isinstance(value, int) else value
    if not (
        isinstance(text, str)
        and text.isascii()
        and text.isdigit()
        and len(text) <= LABEL_VALUE_MAX
    ):
        return None
    number = int(text)
    return number if number <= _INT64[1] else None


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
            elif _node_int(values[0]) is None:
                yield problem(
                    doc,
                    (*path, "values", 0),
                    f"operator {operator} needs a non-negative integer written in digits only (it must also "
                    f'be a valid label value, so no sign); {values[0]!r} is not one (e.g. "4")',
                )


@rule(
    "affinity-contradiction",
    fields=(
        "spec.placement.nodeAffinity.required[].key",
        "spec.placement.nodeAffinity.required[].operator",
        "spec.placement.nodeAffinity.required[].values",
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
    match no node at all: the workers would stay Pending for ever. Whether some
    node carries a label is known only in the cluster; this rule reports only
    what no node can satisfy.

    Sources: Kubernetes, "Assigning Pods to Nodes", node affinity
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity);
    kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
    (``Requirement.Matches``: ``Gt``/``Lt`` parse the node's label with
    ``strconv.ParseInt`` and compare strictly; a label that does not parse
    never matches).
    """
    by_key: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for index, expression in enumerate(as_list(_affinity(data).get("required"))):
        if isinstance(expression, dict) and isinstance(expression.get("key"), str):
            by_key.setdefault(expression["key"], []).append((index, expression))
    for key, expressions in by_key.items():
        operators = {str(e.get("operator")) for _, e in expressions}
        last = expressions[-1][0]
        path = ("spec", "placement", "nodeAffinity", "required", last)
        if "DoesNotExist" in operators and operators & {"Exists", "In", "Gt", "Lt"}:
            yield problem(
                doc,
                path,
                f"required expressions on {key!r} contradict each other: DoesNotExist with "
                f"{sorted(operators & {'Exists', 'In', 'Gt', 'Lt'})[0]}; no node can run the workers",
            )
            continue
        bounds = _bounds(expressions)
        if bounds is not None:
            above, below = bounds
            if below is not None and below - max(above, -1) < 2:
                yield problem(
                    doc,
                    path,
                    f"required expressions on {key!r} ask for an integer label "
                    f"{_describe_bounds(above, below)}, and there is none"
                    + (
                        " (a label value has no sign, so it is at least 0)"
                        if above < 0
                        else ""
                    )
                    + "; no node can run the workers",
                )
                continue
        allowed: set[str] | None = None
        for _, expression in expressions:
            values = {str(v) for v in as_list(expression.get("values"))}
            # an empty list is an arity error (affinity-operators)
            if expression.get("operator") == "In" and values:
                allowed = values if allowed is None else allowed & values
        if allowed is None:
            continue
        for _, expression in expressions:
            if expression.get("operator") == "NotIn":
                allowed -= {str(v) for v in as_list(expression.get("values"))}
        if not allowed:
            yield problem(
                doc,
                path,
                f"required expressions on {key!r} leave no value a node could have (In and NotIn exclude "
                "every value); no node can run the workers",
            )
        elif bounds is not None and not any(
            _within(_node_int(value), *bounds) for value in allowed
        ):
            yield problem(
                doc,
                path,
                f"required expressions on {key!r} allow only {', '.join(repr(v) for v in sorted(allowed))} "
                f"(In), and none of them is an integer {_describe_bounds(*bounds)} (Gt/Lt); no node can "
                "run the workers",
            )


def _bounds(
    expressions: list[tuple[int, dict[str, Any]]],
) -> tuple[int, int | None] | None:
    """The strict bounds the ``Gt``/``Lt`` expressions on one key set, or None if there are none.

    Returns:
        ``(above, below)``: the label must be an integer ``> above`` and, unless
        ``below`` is None, ``< below``; ``above`` is -1 without a ``Gt`` (a label
        value has no sign). Expressions whose value is malformed are skipped
        (``affinity-operators`` reports them).
    """
    above, below, found = -1, None, False
    for _, expression in expressions:
        operator = expression.get("operator")
        values = as_list(expression.get("values"))
        if operator not in ("Gt", "Lt") or len(values) != 1:
            continue
        number = _node_int(values[0])
        if number is None:
            continue
        found = True
        if operator == "Gt":
            above = max(above, number)
        else:
            below = number if below is None else min(below, number)
    return (above, below) if found else None


def _within(number: int | None, above: int, below: int | None) -> bool:
    """Whether ``number`` is an integer strictly between ``above`` and ``below`` (None: no upper bound)."""
    return number is not None and number > above and (below is None or number < below)


def _describe_bounds(above: int, below: int | None) -> str:
    """``greater than 10 and less than 11``, ``less than 0``, ``greater than 3``."""
    parts = []
    if above >= 0:
        parts.append(f"greater than {above}")
    if below is not None:
        parts.append(f"less than {below}")
    return " and ".join(parts)


@rule(
    "deprecated-node-label",
    fields=(
        "spec.placement.nodeAffinity.required[].key",
        "spec.placement.nodeAffinity.preferred[].key",
    ),
)
def check_deprecated_labels(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """Node expressions use current node label keys, not deprecated ones (a warning).

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
