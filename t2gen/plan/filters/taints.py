"""The NodeUnschedulable and TaintToleration filters: node taints against pod tolerations.

* ``NodeUnschedulable``: a cordoned node (``spec.unschedulable``) takes only pods
  tolerating ``node.kubernetes.io/unschedulable:NoSchedule``
  (``pkg/scheduler/framework/plugins/nodeunschedulable``, kubernetes/kubernetes).
* ``TaintToleration``: every ``NoSchedule``/``NoExecute`` taint must be tolerated
  (``pkg/scheduler/framework/plugins/tainttoleration``;
  https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/).
  A toleration matches as ``ToleratesTaint`` in
  ``staging/src/k8s.io/api/core/v1/toleration.go``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from t2gen.record import Record

__all__ = [
    "UNSCHEDULABLE_TAINT",
    "Taint",
    "Toleration",
    "not_ready_taint",
    "parse_tolerations",
    "reject_not_ready",
    "reject_taints",
    "reject_unschedulable",
]

UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"


class Taint(Record):
    """A node taint.

    Attributes:
        key: the taint key, e.g. ``nvidia.com/gpu``.
        value: its value, possibly empty.
        effect: ``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``.
    """

    key: str
    value: str
    effect: str

    def __str__(self) -> str:
        """Return ``key=value:effect`` (``key:effect`` without a value), as kubectl prints it."""
        if self.value:
            return f"{self.key}={self.value}:{self.effect}"
        return f"{self.key}:{self.effect}"


class Toleration(Record):
    """A pod toleration.

    Attributes:
        key: the taint key it matches; empty with ``Exists`` matches every key.
        operator: ``Exists`` or ``Equal`` (the default).
        value: the value ``Equal`` compares.
        effect: the effect it matches; empty matches every effect.
    """

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""

    def tolerates(self, taint: Taint) -> bool:
        """Return True if this toleration tolerates ``taint`` (``ToleratesTaint``)."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator == "Exists":
            return True
        if self.operator in ("Equal", ""):
            return bool(self.key) and self.value == taint.value
        return False


def parse_tolerations(raw: object) -> tuple[Toleration, ...]:
    """Parse ``spec.tolerations`` (a list of maps; anything else gives none)."""
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        return ()
    out = []
    for item in raw:
        if isinstance(item, Mapping):
            out.append(
                Toleration(
                    key=str(item.get("key") or ""),
                    operator=str(item.get("operator") or "Equal"),
                    value=str(item.get("value") or ""),
                    effect=str(item.get("effect") or ""),
                )
            )
    return tuple(out)


_UNSCHEDULABLE = Taint(UNSCHEDULABLE_TAINT, "", "NoSchedule")


def reject_unschedulable(
    unschedulable: bool, tolerations: Sequence[Toleration]
) -> str | None:
    """Return why a cordoned node refuses the pod (``NodeUnschedulable``), or None.

    Args:
        unschedulable: the node's ``spec.unschedulable``.
        tolerations: the pod's tolerations.
    """
    if unschedulable and not any(x.tolerates(_UNSCHEDULABLE) for x in tolerations):
        return "cordoned (spec.unschedulable), the pod does not tolerate it"
    return None


def reject_taints(
    taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> str | None:
    """Return the first ``NoSchedule``/``NoExecute`` taint not tolerated (``TaintToleration``), or None.

    Args:
        taints: the node's taints.
        tolerations: the pod's tolerations.
    """
    for taint in taints:
        if taint.effect == "PreferNoSchedule":
            continue
        if not any(x.tolerates(taint) for x in tolerations):
            return f"taint {taint} not tolerated"
    return None


def not_ready_taint(ready: str) -> Taint | None:
    """The taint the node lifecycle controller gives a node whose Ready condition is ``ready``.

    ``nodeConditionToTaintKeyStatusMap`` in
    ``pkg/controller/nodelifecycle/node_lifecycle_controller.go`` (kubernetes/kubernetes):
    Ready ``False`` is tainted ``node.kubernetes.io/not-ready``, ``Unknown``
    ``node.kubernetes.io/unreachable``, both ``NoSchedule`` (``doNoScheduleTaintingPass``,
    TaintNodesByCondition). A node without a Ready condition is one whose kubelet
    never posted its status: ``tryUpdateNodeHealth`` sets it to ``Unknown``
    (reason ``NodeStatusNeverUpdated``), so it is tainted ``unreachable`` too.

    Args:
        ready: ``status`` of the node's Ready condition; ``""`` when it has none.

    Returns:
        The taint, or None for a Ready node (``"True"``).
    """
    if ready == "True":
        return None
    key = (
        "node.kubernetes.io/not-ready"
        if ready == "False"
        else "node.kubernetes.io/unreachable"
    )
    return Taint(key, "", "NoSchedule")


def reject_not_ready(
    ready: str, taints: Sequence[Taint], tolerations: Sequence[Toleration]
) -> str | None:
    """Return why a node that is not Ready refuses the pod, or None.

    kube-scheduler itself reads no node condition (its ``CheckNodeCondition``
    predicate went with TaintNodesByCondition, Kubernetes 1.17): it refuses such
    a node by the taint of :func:`not_ready_taint`, which the node lifecycle
    controller adds within seconds of the condition (its node informer queues
    the node on every update). A node list taken in those seconds shows the
    condition without the taint; ``plan`` applies the taint the controller is
    about to add, so a NotReady node counts as unschedulable, unless the pod
    tolerates that taint (as it would on the real cluster).

    Args:
        ready: ``status`` of the node's Ready condition (``""``: none).
        taints: the node's taints (when it carries the taint already,
            :func:`reject_taints` reports it as any other).
        tolerations: the pod's tolerations.
    """
    taint = not_ready_taint(ready)
    if taint is None or any(t.key == taint.key for t in taints):
        return None
    if any(x.tolerates(taint) for x in tolerations):
        return None
    state = f"is {ready}" if ready else "is missing"
    return (
        f"NotReady (its Ready condition {state}): the node lifecycle controller "
        f"taints it {taint} within seconds, and the pod does not tolerate it"
    )
