"""The objects being checked, indexed once, and Kubernetes' label-selector semantics."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Literal, TypeVar

from t2gen import fastpaths
from t2gen.checks.base import Check, as_dict, as_list, hashable

__all__ = [
    "MAX_NAMED",
    "WORKLOAD_KINDS",
    "Part",
    "Stream",
    "frozen",
    "matches",
    "namespace_of",
    "selects",
]

T = TypeVar("T")

Part = Literal["all", "object", "stream"]
"""Which checks a run of :func:`t2gen.checks.object_problems` makes: ``all`` of
them, only those whose findings depend on the object alone (``object``), or only
those that look at other objects of the stream (``stream``); see
:attr:`t2gen.checks.base.Check.reads`."""

WORKLOAD_KINDS = frozenset(
    {"StatefulSet", "Deployment", "DaemonSet", "ReplicaSet", "Job"}
)
"""Kinds with a pod template at ``spec.template`` (Kubernetes ``apps/v1`` and ``batch/v1``)."""


MAX_NAMED = 10
"""Most other objects that one kind of finding of one object names one by one; the rest are counted.

A finding that relates two objects (selectors that overlap, a term that also
selects another job's pods) would otherwise be made once per pair: a stream
of 1,000 StatefulSets with one selector made a million findings (5.6 s and
485 MB; 4,000 of them 94 s and 7.3 GB). With the bound each object has at
most ``MAX_NAMED + 1`` such findings, and a stream's findings grow with its
objects."""


def frozen(value: Any) -> Hashable:
    """``value`` (parsed JSON or YAML) as a hashable key: equal for equal values, in their order.

    Per-stream look-ups (:meth:`Stream.memo`) key on a selector's value, so
    that the many objects of a stream sharing one selector share one look-up.
    """
    if isinstance(value, dict):
        return ("map", tuple((frozen(k), frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("seq", tuple(frozen(item) for item in value))
    if isinstance(value, (set, frozenset)):
        return ("set", frozenset(frozen(item) for item in value))
    return value if hashable(value) else ("repr", repr(value))


def namespace_of(obj: dict[str, Any]) -> str:
    """An object's namespace; "" when not written (kubectl's namespace applies to all of them)."""
    metadata = obj.get("metadata")
    namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
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
        # A key YAML made a list names no label (and cannot be hashed).
        present = hashable(key) and key in labels
        if operator == "In" and not (present and labels[key] in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def selects(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """Whether :meth:`Stream.selected` selects a pod template labelled ``labels``.

    As :func:`matches`, except that a ``matchLabels`` value that is not a
    string selects nothing.
    """
    match_labels = as_dict(selector.get("matchLabels"))
    return all(isinstance(value, str) for value in match_labels.values()) and matches(
        selector, labels
    )


class Stream:
    """The objects being checked, indexed once so that every check is linear in their number.

    Names, Services and pod templates are looked up within one namespace:
    selectors, ``serviceName`` and RoleBinding references never cross namespaces.

    Args:
        objects: parsed manifests, one dict per object.
        part: which checks run over it (:data:`Part`). For ``object`` the
            objects are not indexed and every look-up raises, so a check that
            reads the stream but is not marked so fails loudly in the tests.

    Attributes:
        part: as given.
        fused: whether checks may be skipped by :mod:`t2gen.checks.fused`'s
            verdicts (the ``FUSED_CHECKS`` fast path), read once per stream.

    Raises:
        RuntimeError: (from a look-up) the stream of an ``object`` run was read.
    """

    def __init__(
        self, objects: Sequence[dict[str, Any]], *, part: Part = "all"
    ) -> None:
        self._objects = objects
        self.part = part
        self.fused = fastpaths.enabled("FUSED_CHECKS")
        self._indexed = part != "object"
        self._names: dict[tuple[str, Any], set[Any]] = {}
        self._services: dict[tuple[str, Any], list[dict[str, Any]]] = {}
        self._templates: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._by_label: dict[tuple[str, Any, Any], list[int]] = {}
        self._by_key: dict[tuple[str, Any], list[int]] = {}
        self._by_namespace: dict[str, list[int]] = {}
        self._bindings: dict[tuple[str, Any, Any], list[dict[str, Any]]] = {}
        self._memo: dict[Hashable, Any] = {}
        self._running: dict[int, tuple[tuple[Check, ...], tuple[Check, ...]]] = {}
        if self._indexed:
            self._index(objects)

    def _index(self, objects: Sequence[dict[str, Any]]) -> None:
        """Index every object once (names, Services, RoleBindings, pod templates)."""
        names, services, bindings = self._names, self._services, self._bindings
        templates = self._templates
        for obj in objects:
            namespace = namespace_of(obj)
            metadata = obj.get("metadata")
            name = metadata.get("name") if isinstance(metadata, dict) else None
            kind = obj.get("kind")
            # `check` refuses others (read.py)
            if (type(kind) is str or hashable(kind)) and (
                type(name) is str or hashable(name)
            ):
                names.setdefault((namespace, kind), set()).add(name)
                if kind == "Service":
                    services.setdefault((namespace, name), []).append(obj)
            if kind == "RoleBinding":
                ref = as_dict(obj.get("roleRef"))
                role = (namespace, ref.get("kind"), ref.get("name"))
                if all(isinstance(part, str) for part in role):
                    bindings.setdefault(role, []).append(obj)
            if isinstance(kind, str) and kind in WORKLOAD_KINDS:
                template = as_dict(as_dict(obj.get("spec")).get("template"))
                labels = as_dict(as_dict(template.get("metadata")).get("labels"))
                position = len(templates)
                for key, value in labels.items():
                    self._by_key.setdefault((namespace, key), []).append(position)
                    if isinstance(value, str):
                        self._by_label.setdefault((namespace, key, value), []).append(
                            position
                        )
                self._by_namespace.setdefault(namespace, []).append(position)
                templates.append((obj, labels))

    def runs(self, check: Check) -> bool:
        """Whether ``check`` runs in this stream's :data:`Part`."""
        return self.part == "all" or check.reads in ("checks", self.part)

    def running(self, checks: tuple[Check, ...]) -> tuple[Check, ...]:
        """The checks of ``checks`` that run in this stream's :data:`Part`, in order (worked out once per tuple)."""
        known = self._running.get(id(checks))
        if known is None or known[0] is not checks:
            known = (checks, tuple(check for check in checks if self.runs(check)))
            self._running[id(checks)] = known
        return known[1]

    def _read(self) -> None:
        if not self._indexed:
            raise RuntimeError(
                "a check marked reads='object' looked at other objects of the stream"
            )

    @property
    def objects(self) -> Sequence[dict[str, Any]]:
        """Every object of the stream, in order."""
        self._read()
        return self._objects

    @property
    def templates(self) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Every pod template of the stream: ``(workload, pod labels)``, in stream order."""
        self._read()
        return self._templates

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, once per ``key`` for this stream: for what many objects' checks share."""
        self._read()
        if key not in self._memo:
            self._memo[key] = compute()
        result: T = self._memo[key]
        return result

    def templates_in(
        self, namespace: str
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace``, in stream order."""
        self._read()
        for index in self._by_namespace.get(namespace, ()):
            yield self._templates[index]

    def role_bindings(
        self, namespace: str, kind: str, name: str
    ) -> list[dict[str, Any]]:
        """The RoleBindings in ``namespace`` whose ``roleRef`` is ``kind``/``name``, in stream order."""
        self._read()
        return self._bindings.get((namespace, kind, name), [])

    def names(self, namespace: str, kind: Any) -> set[Any]:
        """Names of the objects of ``kind`` in ``namespace`` (none for a ``kind`` YAML made a list)."""
        self._read()
        if not hashable(kind):
            return set()
        return self._names.get((namespace, kind), set())

    def services(self, namespace: str, name: Any) -> list[dict[str, Any]]:
        """The Services named ``name`` in ``namespace`` (none for a ``name`` YAML made a list)."""
        self._read()
        if not hashable(name):
            return []
        return self._services.get((namespace, name), [])

    def labelled(
        self, namespace: str, required: dict[str, str]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace`` whose labels include ``required``.

        Only the templates carrying the rarest of the required pairs are read:
        a pair every job shares (``t2-worker-group: "0"``) next to one naming
        the job must not make each look-up read every template of a batch.
        """
        self._read()
        if not required:
            candidates: Sequence[int] = self._by_namespace.get(namespace, ())
        else:
            candidates = min(
                (
                    self._by_label.get((namespace, key, value), ())
                    for key, value in required.items()
                ),
                key=len,
            )
        for index in candidates:  # in stream order, as every index list is
            workload, labels = self._templates[index]
            if all(labels.get(key) == value for key, value in required.items()):
                yield workload, labels

    def selected(
        self, namespace: str, selector: dict[str, Any]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates ``(workload, pod labels)`` in ``namespace`` that a label selector selects.

        Only the templates that could match are read: those of the selector's
        rarest positive requirement (a ``matchLabels`` pair, an ``In`` with
        string values, an ``Exists``), or every template of the namespace when
        it has none. A stream of selectors that each select one template by an
        ``In`` is then linear, however many templates share its other labels.
        """
        self._read()
        match_labels = as_dict(selector.get("matchLabels"))
        if not all(isinstance(value, str) for value in match_labels.values()):
            return  # a non-string label value selects nothing (see selects())
        for index in self._candidates(namespace, match_labels, selector):
            workload, labels = self._templates[index]
            if matches(selector, labels):
                yield workload, labels

    def _candidates(
        self, namespace: str, match_labels: dict[str, Any], selector: dict[str, Any]
    ) -> Sequence[int]:
        """Indices, in stream order, of the templates of the selector's rarest positive requirement."""
        choices: list[list[Sequence[int]]] = [
            [self._by_label.get((namespace, key, value), ())]
            for key, value in match_labels.items()
        ]
        for item in as_list(selector.get("matchExpressions")):
            expression = as_dict(item)
            key, operator = expression.get("key"), expression.get("operator")
            values = as_list(expression.get("values"))
            if not isinstance(key, str):
                continue
            if operator == "Exists":
                choices.append([self._by_key.get((namespace, key), ())])
            elif operator == "In" and all(isinstance(v, str) for v in values):
                # Only a string label value equals a string; those are indexed.
                choices.append(
                    [self._by_label.get((namespace, key, v), ()) for v in values]
                )
        if not choices:
            return self._by_namespace.get(namespace, ())
        rarest = min(choices, key=lambda lists: sum(map(len, lists)))
        if len(rarest) == 1:
            return rarest[0]
        return sorted({index for indices in rarest for index in indices})
