"""Checks of workloads (objects with a pod template) and of StatefulSets in particular."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Check, Finding, as_dict, check
from t2gen.checks.metadata import label_findings
from t2gen.checks.pods import pod_findings
from t2gen.checks.stream import (
    MAX_NAMED,
    Stream,
    frozen,
    matches,
    namespace_of,
    selects,
)

__all__ = ["STATEFULSET_CHECKS", "WORKLOAD_CHECKS"]


def _template(obj: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(obj.get("spec")).get("template"))


@check("template-labels")
def template_labels(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A pod template's labels are valid label keys and values (as ``object-labels``).

    Source: kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/util/validation/validation.go``.
    """
    yield from label_findings(
        "spec.template.metadata.labels",
        as_dict(_template(obj).get("metadata")).get("labels"),
    )


@check("selector-matches-template")
def selector_matches_template(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """A workload's selector is not empty and selects its own pod template's labels.

    The API server rejects a workload whose ``spec.selector`` does not match
    ``spec.template.metadata.labels``. Source: kubernetes/kubernetes
    ``pkg/apis/apps/validation`` (``ValidateStatefulSetSpec``: "selector does not
    match template labels"). A ``batch/v1`` Job has none unless ``manualSelector``:
    the API server generates it from the Job's UID
    (https://kubernetes.io/docs/concepts/workloads/controllers/job/#specifying-your-own-pod-selector).
    """
    spec = as_dict(obj.get("spec"))
    if obj.get("kind") == "Job" and spec.get("manualSelector") is not True:
        return  # the API server writes a Job's selector (its own UID label)
    selector = as_dict(spec.get("selector"))
    labels = as_dict(as_dict(_template(obj).get("metadata")).get("labels"))
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        yield (
            "spec.selector",
            "empty selector; it must select the pod template's labels",
        )
    elif not matches(selector, labels):
        yield (
            "spec.selector",
            "does not match the pod template's labels (the API server rejects this)",
        )


@check("pod-spec", reads="checks")
def pod_spec(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """Run the pod and container checks on ``spec.template.spec`` (see :mod:`t2gen.checks.pods`)."""
    yield from pod_findings(
        "spec.template.spec", as_dict(_template(obj).get("spec")), obj, stream
    )


@check("statefulset-selectors-disjoint", reads="stream", strict=True)
def statefulset_selectors_disjoint(
    obj: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """No two StatefulSets of a namespace select each other's pods.

    Controllers with overlapping selectors fight over the same pods. Twister2's
    launcher gave every worker StatefulSet of a job one selector; t2gen adds the
    worker-group label (docs/reference.md, "Where t2gen differs from the Twister2
    launcher"). Source: https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#pod-selector

    The API server accepts overlapping selectors, so this is t2gen's standard
    (``strict``): an error for t2gen's objects and under ``check --strict``, a
    note for others'.

    Each StatefulSet names at most ten others it overlaps and counts the rest.
    """
    selector = as_dict(as_dict(obj.get("spec")).get("selector"))
    if not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return
    namespace = namespace_of(obj)

    def select() -> tuple[list[dict[str, Any]], int]:
        first: list[dict[str, Any]] = []
        count = 0
        for workload, _ in stream.selected(namespace, selector):
            if workload.get("kind") == "StatefulSet":
                count += 1
                if count <= MAX_NAMED + 1:
                    first.append(workload)
        return first, count

    # Once per namespace and selector: the StatefulSets of a stream that share
    # a selector share the look-up, which keeps only the first MAX_NAMED + 1 and
    # the count (selectors that differ keep no list of the whole namespace each).
    selected, count = stream.memo(
        ("statefulsets-selected", namespace, frozen(selector)), select
    )
    own = as_dict(as_dict(_template(obj).get("metadata")).get("labels"))
    others = count - selects(selector, own)
    named = [other for other in selected if other is not obj]
    for other in named[:MAX_NAMED]:
        other_name = as_dict(other.get("metadata")).get("name")
        yield (
            "spec.selector",
            f"also selects the pods of StatefulSet {other_name}; selectors must not overlap",
        )
    if others > MAX_NAMED:
        yield (
            "spec.selector",
            f"also selects the pods of {others - MAX_NAMED:,} more StatefulSets; "
            "selectors must not overlap",
        )


@check("statefulset-pod-management-policy")
def statefulset_pod_management_policy(
    obj: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """``podManagementPolicy`` is ``OrderedReady`` or ``Parallel``.

    Source: https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#pod-management-policies
    """
    policy = as_dict(obj.get("spec")).get("podManagementPolicy")
    if policy is not None and policy not in ("OrderedReady", "Parallel"):
        yield "spec.podManagementPolicy", f"{policy!r} is not OrderedReady or Parallel"


@check("statefulset-service-name", reads="stream")
def statefulset_service_name(obj: dict[str, Any], stream: Stream) -> Iterator[Finding]:
    """``serviceName`` is set and, when that Service is in the stream, it is headless or NodePort.

    A StatefulSet's pods get stable DNS names (``<pod>.<service>``) only from a
    governing headless Service (``clusterIP: None``). The Twister2 launcher
    governs its worker StatefulSets with a NodePort Service instead when one
    is requested (``KubernetesLauncher.java:365-377``, cylondata/twister2):
    the runtime finds workers by pod IP, not by those names, so that Service
    is accepted too; any other (a ClusterIP with an address, a
    LoadBalancer) is an error. Source:
    https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#stable-network-id
    """
    service_name = as_dict(obj.get("spec")).get("serviceName")
    if not service_name:
        yield (
            "spec.serviceName",
            "empty: the pods get no stable DNS names without a governing headless Service",
        )
        return
    namespace = namespace_of(obj)
    # Once per namespace and name, and one finding however many Services of
    # that name the stream repeats (each made the same finding before).
    if stream.memo(
        ("service-not-governing", namespace, frozen(service_name)),
        lambda: any(
            _not_governing(service)
            for service in stream.services(namespace, service_name)
        ),
    ):
        yield (
            "spec.serviceName",
            f"Service {service_name} is not headless (clusterIP: None), so pods get no DNS names",
        )


def _not_governing(service: dict[str, Any]) -> bool:
    """Whether a Service gives a StatefulSet's pods no DNS names (neither headless nor NodePort)."""
    spec = as_dict(service.get("spec"))
    return spec.get("clusterIP") != "None" and spec.get("type") != "NodePort"


WORKLOAD_CHECKS: tuple[Check, ...] = (
    template_labels,
    selector_matches_template,
    pod_spec,
)
"""Checks of every kind with a pod template, in order."""

STATEFULSET_CHECKS: tuple[Check, ...] = (
    statefulset_selectors_disjoint,
    statefulset_pod_management_policy,
    statefulset_service_name,
)
"""Checks of StatefulSets after the workload checks, in order."""
