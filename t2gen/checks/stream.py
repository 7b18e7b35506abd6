"""The objects being checked, indexed once, and Kubernetes' label-selector semantics."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from t2gen.checks.base import as_dict, as_list

__all__ = ["WORKLOAD_KINDS", "Stream", "matches", "namespace_of"]

WORKLOAD_KINDS = frozenset(
    {"StatefulSet", "Deployment", "DaemonSet", "ReplicaSet", "Job"}
)
"""Kinds with a pod template at ``spec.template`` (Kubernetes ``apps/v1`` and ``batch/v1``)."""


def namespace_of(obj: dict[str, Any]) -> str:
    """An object's namespace; "" when not written (kubectl's namespace applies to all of them)."""
    namespace = as_dict(obj.get("metadata")).get("namespace")
    return namespace if isinstance(namespace, str) else ""


def matches(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """Whether a LabelSelector (matchLabels and matchExpressions) selects ``labels``.

    Args:
        selector: a ``metav1.LabelSelector`` as a dict; malformed parts are ignored.
        labels: an object's labels.

    Returns:
        True when every ``matchLabels`` pair and every ``matchExpressions``
        requirement (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``) holds, as in
        kubernetes/kubernetes ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``.
    """
    for label, value in as_dict(selector.get("matchLabels")).items():
        if labels.get(label) != value:
            return False
    for item in as_list(selector.get("matchExpressions")):
        expression = as_dict(item)
        key: Any = expression.get("key")
        operator = expression.get("operator")
        values = as_list(expression.get("values"))
        present = key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


class Stream:
    """The objects being checked, indexed once so that every check is linear in their number.

    Names, Services and pod templates are looked up within one namespace:
    selectors, ``serviceName`` and RoleBinding references never cross namespaces.

    Args:
        objects: parsed manifests, one dict per object.
    """

    def __init__(self, objects: Sequence[dict[str, Any]]) -> None:
        self.objects = objects
        self._names: dict[tuple[str, Any], set[Any]] = {}
        self._services: dict[tuple[str, Any], list[dict[str, Any]]] = {}
        self.templates: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._by_label: dict[tuple[str, Any, Any], list[int]] = {}
        for obj in objects:
            namespace = namespace_of(obj)
            kind, name = obj.get("kind"), as_dict(obj.get("metadata")).get("name")
            self._names.setdefault((namespace, kind), set()).add(name)
            if kind == "Service":
                self._services.setdefault((namespace, name), []).append(obj)
            if kind in WORKLOAD_KINDS:
                template = as_dict(as_dict(obj.get("spec")).get("template"))
                labels = as_dict(as_dict(template.get("metadata")).get("labels"))
                for key, value in labels.items():
                    if isinstance(value, str):
                        self._by_label.setdefault((namespace, key, value), []).append(
                            len(self.templates)
                        )
                self.templates.append((obj, labels))

    def names(self, namespace: str, kind: Any) -> set[Any]:
        """Names of the objects of ``kind`` in ``namespace``."""
        return self._names.get((namespace, kind), set())

    def services(self, namespace: str, name: Any) -> list[dict[str, Any]]:
        """The Services named ``name`` in ``namespace``."""
        return self._services.get((namespace, name), [])

    def labelled(
        self, namespace: str, required: dict[str, str]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace`` whose labels include ``required``."""
        indices: set[int] | None = None
        for key, value in required.items():
            found = set(self._by_label.get((namespace, key, value), ()))
            indices = found if indices is None else indices & found
        if indices is None:  # no label required: every template of the namespace
            indices = {
                n
                for n, (obj, _) in enumerate(self.templates)
                if namespace_of(obj) == namespace
            }
        for index in sorted(indices):
            yield self.templates[index]

    def selected(
        self, namespace: str, selector: dict[str, Any]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace`` that a label selector selects."""
        match_labels = as_dict(selector.get("matchLabels"))
        if not all(isinstance(value, str) for value in match_labels.values()):
            return  # a non-string label value selects nothing
        for workload, labels in self.labelled(namespace, match_labels):
            if matches(selector, labels):
                yield workload, labels
