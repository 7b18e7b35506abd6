"""Label selectors (``matchLabels`` and ``matchExpressions``), as the API server and scheduler read them.

Follows ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``
(kubernetes/kubernetes): ``In``, ``NotIn``, ``Exists``, ``DoesNotExist``, all
ANDed; ``NotIn`` holds for a missing key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.record import Record

__all__ = [
    "LabelRequirement",
    "LabelSelector",
    "parse_label_selector",
    "strings",
]


class LabelRequirement(Record):
    """One ``matchExpressions`` entry of a label selector.

    Attributes:
        key: the label key.
        operator: ``In``, ``NotIn``, ``Exists`` or ``DoesNotExist``.
        values: the values for ``In``/``NotIn``.
    """

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Return True if ``labels`` satisfy the requirement (``NotIn`` holds for a missing key)."""
        if self.operator == "In":
            return labels.get(self.key) in self.values
        if self.operator == "NotIn":
            return labels.get(self.key) not in self.values
        if self.operator == "Exists":
            return self.key in labels
        if self.operator == "DoesNotExist":
            return self.key not in labels
        return False


class LabelSelector(Record):
    """A label selector: ``matchLabels`` and ``matchExpressions``, all ANDed.

    Attributes:
        match_labels: (key, value) pairs that must all be present.
        match_expressions: requirements that must all hold.
    """

    match_labels: tuple[tuple[str, str], ...] = ()
    match_expressions: tuple[LabelRequirement, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Return True if ``labels`` satisfy every part (an empty selector matches all)."""
        return all(labels.get(k) == v for k, v in self.match_labels) and all(
            r.matches(labels) for r in self.match_expressions
        )

    def __str__(self) -> str:
        """Return the selector as ``kubectl get -l`` writes it."""
        parts = [f"{k}={v}" for k, v in self.match_labels]
        for r in self.match_expressions:
            if r.operator in ("In", "NotIn"):
                parts.append(f"{r.key} {r.operator.lower()} ({','.join(r.values)})")
            elif r.operator == "Exists":
                parts.append(r.key)
            else:
                parts.append(f"!{r.key}")
        return ",".join(parts) or "(everything)"


def strings(raw: object) -> tuple[str, ...]:
    """Return a list of values as strings (``values`` of a requirement); anything else gives none."""
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    return tuple(str(v) for v in raw)


def parse_label_selector(raw: object) -> LabelSelector | None:
    """Parse a LabelSelector; None (a null selector, which matches nothing) when absent."""
    if not isinstance(raw, Mapping):
        return None
    labels = raw.get("matchLabels") or {}
    expressions = raw.get("matchExpressions") or []
    return LabelSelector(
        match_labels=tuple(
            sorted((str(k), str(v)) for k, v in labels.items())
            if isinstance(labels, Mapping)
            else ()
        ),
        match_expressions=tuple(
            LabelRequirement(
                str(e.get("key", "")),
                str(e.get("operator", "")),
                strings(e.get("values")),
            )
            for e in (expressions if isinstance(expressions, (list, tuple)) else ())
            if isinstance(e, Mapping)
        ),
    )
