"""Placement: node-affinity expressions, and whether any node can satisfy them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, as_list, problem, rule, warning
from t2gen.jobfile.rules._nodeaffinity import (
    INT64_MAX,
    contradictions,
    is_digits,
    node_int,
)
from t2gen.jobfile.rules._placements import (
    PLACEMENTS,
    group_terms,
    placement_at,
    placements,
    required_term,
    requirements,
)
from t2gen.kube.validators import (
    DEPRECATED_NODE_LABELS,
    LABEL_VALUE_MAX,
    is_label_value,
)


@rule(
    "affinity-operators",
    fields=(
        "spec.placement.nodeAffinity.required[].operator",
        "spec.placement.nodeAffinity.required[].values",
        "spec.placement.nodeAffinity.preferred[].operator",
        "spec.placement.nodeAffinity.preferred[].values",
        "spec.jobMaster.placement.nodeAffinity.required[]",
        "spec.jobMaster.placement.nodeAffinity.preferred[]",
        "spec.workers[].nodeAffinity.required[]",
        "spec.workers[].nodeAffinity.preferred[]",
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
    for path, expression in requirements(data):
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
        "spec.workers[].nodeAffinity.required[]",
        "spec.workers[].nodeSelector",
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
    match, it is a warning. ``nodeSelector`` entries, rendered as the pod's
    ``spec.nodeSelector``, which the scheduler ANDs with the term, are checked
    with it as ``key In [value]``, and the job master's placement the same way.
    A worker group's own expressions join the job-wide ones in its term (a
    group's ``nodeSelector`` entry replaces the job-wide one on the same key),
    so a key on which the group adds an expression is checked in that merged
    term, located at the group's expression.
    Whether some node carries a label is known only in the cluster; this rule
    reports only what no node can satisfy.

    Sources: Kubernetes, "Assigning Pods to Nodes", node affinity
    (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity);
    kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
    (``Requirement.Matches``: ``Gt``/``Lt`` parse the node's label with
    ``strconv.ParseInt`` and compare strictly; a label that does not parse
    never matches).
    """
    for prefix, who in PLACEMENTS:
        yield from _term_contradictions(
            doc, required_term(placement_at(data, prefix), prefix), who, None
        )
    for _, job_term, group_term, who in group_terms(data):
        yield from _term_contradictions(
            doc, job_term + group_term, who, {path for path, _ in group_term}
        )


def _term_contradictions(
    doc: SourceDoc,
    term: list[tuple[JsonPath, dict[str, Any]]],
    who: str,
    own: set[JsonPath] | None,
) -> Iterator[Problem]:
    """The contradictions of one required term, key by key.

    Args:
        doc: the parsed job file.
        term: the located expressions of the term.
        who: whose pods it places.
        own: when given, only keys with an expression at one of these paths
            are checked (a worker group's own, the rest being checked job-wide).
    """
    by_key: dict[str, list[tuple[JsonPath, dict[str, Any]]]] = {}
    for path, expression in term:
        if isinstance(expression.get("key"), str):
            by_key.setdefault(expression["key"], []).append((path, expression))
    for key, located in by_key.items():
        if own is None or any(path in own for path, _ in located):
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
        "spec.workers[].nodeAffinity.required[].key",
        "spec.workers[].nodeAffinity.preferred[].key",
        "spec.workers[].nodeSelector",
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
    for path, expression in requirements(data):
        key = expression.get("key")
        if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
            yield warning(
                doc,
                (*path, "key"),
                f"{key} is {DEPRECATED_NODE_LABELS[key]}",
            )
    for prefix, _ in placements(data):
        for key in as_dict(placement_at(data, prefix).get("nodeSelector")):
            if isinstance(key, str) and key in DEPRECATED_NODE_LABELS:
                yield warning(
                    doc,
                    (*prefix, "nodeSelector", key),
                    f"{key} is {DEPRECATED_NODE_LABELS[key]}",
                    key=True,
                )


RULES: tuple[Rule, ...] = (
    check_operators,
    check_contradictions,
    check_deprecated_labels,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
