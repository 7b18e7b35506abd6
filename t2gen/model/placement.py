"""Where pods may run: node expressions, tolerations and uniform mapping.

``spec.placement`` (every worker group), a worker group's own placement
(``spec.workers[].nodeSelector``, ``.nodeAffinity``, ``.tolerations``,
``.uniform``) merged over it by :meth:`Placement.merged`, and
``jobMaster.placement``.
"""

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

    def merged(self, own: Placement, uniform: str | None) -> Placement:
        """This job-wide placement with a worker group's own placement merged over it.

        The rules (docs/placement.md): required
        expressions are ANDed (the job's, then the group's, in one term);
        preferences are the job's, then the group's; ``nodeSelector`` entries
        are merged by key, the group's value winning for a key both set;
        tolerations are the job's, then the group's that are not already there;
        ``uniform`` is the group's when set, else the job's.

        Args:
            own: the group's own placement (its ``uniform`` is ignored).
            uniform: the group's ``uniform``, or None when it does not set one.

        Returns:
            The placement of the group's pods.
        """
        selector = dict(self.node_selector)
        selector.update(own.node_selector)
        return Placement(
            required=self.required + own.required,
            preferred=self.preferred + own.preferred,
            uniform=self.uniform if uniform is None else uniform,
            node_selector=tuple(sorted(selector.items())),
            tolerations=self.tolerations
            + tuple(t for t in own.tolerations if t not in self.tolerations),
        )
