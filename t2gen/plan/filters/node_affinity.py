"""The NodeAffinity filter: ``nodeSelector`` and required ``nodeSelectorTerms``.

Terms are ORed, a term's expressions ANDed; operators In, NotIn, Exists,
DoesNotExist, Gt and Lt, and ``matchFields`` on ``metadata.name``
(https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#node-affinity;
``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``,
kubernetes/kubernetes).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.plan.selectors import strings
from t2gen.record import Record

__all__ = [
    "NodeSelectorRequirement",
    "parse_node_selector_terms",
    "reject_node_affinity",
    "reject_node_selector",
]


class NodeSelectorRequirement(Record):
    """One node-affinity expression (``matchExpressions`` or ``matchFields``).

    Attributes:
        key: a node label key, or ``metadata.name`` for a field requirement.
        operator: ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, ``Gt`` or ``Lt``.
        values: the values; ``Gt``/``Lt`` need exactly one integer.
        field: True for a ``matchFields`` requirement (on the node's name).
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()
    field: bool = False

    def explain(self, labels: Mapping[str, str], name: str) -> str | None:
        """Return None if the node satisfies the requirement, else why not.

        Args:
            labels: the node's labels.
            name: the node's name (for ``matchFields`` on ``metadata.name``).
        """
        if self.field:
            if self.key != "metadata.name":
                return f"field {self.key} is not a node field the scheduler matches"
            value: str | None = name
            what = "metadata.name"
        else:
            value = labels.get(self.key)
            what = f"label {self.key}"
        op = self.operator
        shown = (
            f"{self.key} {op} [{', '.join(self.values)}]"
            if self.values
            else f"{self.key} {op}"
        )
        if op == "In":
            if value in self.values:
                return None
            return (
                f"{shown}: {what} is missing"
                if value is None
                else f"{shown}: {what} is {value}"
            )
        if op == "NotIn":
            return None if value not in self.values else f"{shown}: {what} is {value}"
        if op == "Exists":
            return None if value is not None else f"{shown}: {what} is missing"
        if op == "DoesNotExist":
            return None if value is None else f"{shown}: {what} is {value}"
        if op in ("Gt", "Lt"):
            if len(self.values) != 1 or _parse_int64(self.values[0]) is None:
                return f"{shown}: {op} needs exactly one integer value"
            if value is None:
                return f"{shown}: {what} is missing"
            number = _parse_int64(value)
            if number is None:
                return f"{shown}: {what} is {value}, not an integer"
            limit = _parse_int64(self.values[0])
            assert limit is not None
            ok = number > limit if op == "Gt" else number < limit
            return None if ok else f"{shown}: {what} is {value}"
        return f"{shown}: unknown operator {op}"


def _parse_int64(text: str) -> int | None:
    """Parse as Go's ``strconv.ParseInt(s, 10, 64)``: optional sign, decimal digits only."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    if len(body.lstrip("0")) > 19:  # past int64, and int() refuses 4,300 digits
        return None
    number = int(text)
    return number if -(2**63) <= number < 2**63 else None


def parse_node_selector_terms(
    raw: object,
) -> tuple[tuple[NodeSelectorRequirement, ...], ...]:
    """Parse ``nodeSelectorTerms``: terms ORed, each a tuple of ANDed requirements.

    A term with neither ``matchExpressions`` nor ``matchFields`` matches no node,
    as in the scheduler; it is kept as an empty tuple.
    """
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    terms = []
    for term in raw:
        if not isinstance(term, Mapping):
            continue
        reqs = [
            NodeSelectorRequirement(
                str(e.get("key", "")),
                str(e.get("operator", "")),
                strings(e.get("values")),
            )
            for e in term.get("matchExpressions") or []
            if isinstance(e, Mapping)
        ]
        reqs += [
            NodeSelectorRequirement(
                str(e.get("key", "")),
                str(e.get("operator", "")),
                strings(e.get("values")),
                field=True,
            )
            for e in term.get("matchFields") or []
            if isinstance(e, Mapping)
        ]
        terms.append(tuple(reqs))
    return tuple(terms)


def reject_node_selector(
    selector: Sequence[tuple[str, str]], labels: Mapping[str, str]
) -> str | None:
    """Return why a node's labels fail ``nodeSelector``, or None.

    Args:
        selector: the pod's ``nodeSelector`` as (key, value) pairs.
        labels: the node's labels.
    """
    for key, value in selector:
        if labels.get(key) != value:
            found = labels.get(key)
            shown = "missing" if found is None else found
            return f"nodeSelector {key}={value}: label {key} is {shown}"
    return None


def reject_node_affinity(
    terms: Sequence[Sequence[NodeSelectorRequirement]],
    labels: Mapping[str, str],
    name: str,
) -> str | None:
    """Return why a node fails every required ``nodeSelectorTerm``, or None.

    Args:
        terms: ORed terms of ANDed requirements (:func:`parse_node_selector_terms`).
        labels: the node's labels.
        name: the node's name (for ``matchFields``).

    Returns:
        None when a term holds, else the first failing requirement of the first term.
    """
    first: str | None = None
    for term in terms:
        if not term:
            why: str | None = "an empty nodeSelectorTerm matches no node"
        else:
            why = None
            for requirement in term:
                why = requirement.explain(labels, name)
                if why is not None:
                    break
        if why is None:
            return None
        first = first or why
    if first is None:
        first = "no nodeSelectorTerms"
    return f"node affinity {first}"
