"""Where pods may run: node expressions, tolerations and uniform mapping (``spec.placement``, ``jobMaster.placement``)."""

from __future__ import annotations

from typing import Any

from t2gen.record import Record

__all__ = [
    "NodeSelectorRequirement",
    "Placement",
    "PreferredRequirement",
    "Toleration",
]


class Toleration(Record):
    """A Kubernetes Toleration; unset fields are None (written only when set).

    Source: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
    """

    key: str | None
    operator: str
    value: str | None
    effect: str | None
    toleration_seconds: int | None

    def as_manifest(self) -> dict[str, Any]:
        """The toleration as written in a pod spec: ``{key?, operator, value?, effect?, tolerationSeconds?}``."""
        out: dict[str, Any] = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value is not None:
            out["value"] = self.value
        if self.effect is not None:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


class NodeSelectorRequirement(Record):
    """A node-label expression; ``values`` are strings, as Kubernetes needs them."""

    key: str
    operator: str
    values: tuple[str, ...]


class PreferredRequirement(Record):
    """A weighted (1-100) node-label preference."""

    weight: int
    requirement: NodeSelectorRequirement


class Placement(Record):
    """Node affinity, node selector, tolerations and uniform mapping of a set of pods.

    Attributes:
        required: required node expressions (one term, ANDed).
        preferred: weighted node preferences.
        uniform: ``none``, ``all-same-node`` or ``all-separate-nodes`` (workers only).
        node_selector: ``(key, value)`` pairs, sorted; each is ANDed into the
            required term as ``key In [value]``.
        tolerations: tolerations of every pod placed this way.
    """

    required: tuple[NodeSelectorRequirement, ...]
    preferred: tuple[PreferredRequirement, ...]
    uniform: str
    node_selector: tuple[tuple[str, str], ...]
    tolerations: tuple[Toleration, ...]
