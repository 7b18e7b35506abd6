"""What every output check shares: the :class:`Check` record, its finding type and small helpers.

A check is a function with a stable ID (kebab-case, like yamllint's rules) whose
docstring is its documentation: what it finds, why Kubernetes or Twister2
needs it, and the public source of the rule. A check yields findings, each a
``(json_path, message)`` pair; :func:`t2gen.checks.object_problems` turns them
into located :class:`t2gen.errors.Problem` records naming the object.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any, Literal

from t2gen.kube.quantity import parse_quantity
from t2gen.record import Record
from t2gen.twister2.names import JOB_LABEL, MANAGED_BY_LABEL, MANAGER, WORKER_POD_LABEL

__all__ = [
    "JOB_LABEL",
    "WORKER_POD_LABEL",
    "Check",
    "Finding",
    "Note",
    "PodState",
    "Reads",
    "as_dict",
    "as_list",
    "as_value",
    "check",
    "hashable",
    "is_t2gens",
    "quantity_findings",
]

Finding = tuple[str, str]
"""One thing wrong: ``(json_path, message)``, e.g. ``("spec.selector", "empty selector; ...")``."""


class Note(tuple[str, str]):
    """A finding of t2gen's own stricter standard, not of a Kubernetes rule: a style note.

    It is an error for t2gen's objects (:func:`is_t2gens`) and under ``t2gen
    check --strict``, and a note (a warning) for anyone else's: the API server
    accepts what it finds (a quantity not in canonical form, for one). It is
    still a ``(json_path, message)`` pair, so every consumer of findings reads it.
    """

    __slots__ = ()


def is_t2gens(obj: dict[str, Any]) -> bool:
    """Whether ``obj`` is t2gen's: labelled ``app.kubernetes.io/managed-by: t2gen``, as every render is."""
    labels = as_dict(as_dict(obj.get("metadata")).get("labels"))
    return labels.get(MANAGED_BY_LABEL) == MANAGER


Level = Literal["object", "pod", "container"]

Reads = Literal["object", "stream", "checks"]
"""What a check looks at besides its object: ``object`` nothing else (its pod, owner
and container included), ``stream`` other objects of the stream (through
:class:`t2gen.checks.stream.Stream`), ``checks`` runs further checks, each of
which says what it reads (``pod-spec``)."""


class Check(Record):
    """One registered output check.

    Attributes:
        id: stable kebab-case ID, unique among all checks (documentation, tests).
        level: what ``run`` takes. ``object``: ``(obj, stream)``; ``pod``:
            ``(path, pod_spec, owner, stream)``; ``container``:
            ``(path, container, pod_state)``. Each returns an iterator of
            :data:`Finding`.
        run: the check function; its docstring is the check's documentation.
        strict: every finding is a :class:`Note`: the check holds t2gen's own
            objects to a standard Kubernetes does not require of others.
        reads: ``object`` when its findings depend on the object alone,
            ``stream`` when they depend on other objects of the stream (a
            selector, a ``serviceName``, a RoleBinding's references, a gang's
            members), ``checks`` for a check that runs other checks. A batch
            render over several processes runs the ``object`` checks where
            each job is rendered and the ``stream`` checks once over every
            object (:mod:`t2gen.pipeline.batch`).
    """

    id: str
    level: Level
    run: Callable[..., Iterator[Finding]]
    reads: Reads = "object"
    strict: bool = False

    @property
    def doc(self) -> str:
        """The check's documentation: its function's docstring, dedented."""
        return inspect.getdoc(self.run) or ""


def check(
    check_id: str,
    level: Level = "object",
    *,
    reads: Reads = "object",
    strict: bool = False,
) -> Callable[[Callable[..., Iterator[Finding]]], Check]:
    """Decorate a check function, making it a :class:`Check` with ``check_id``.

    Args:
        check_id: the stable ID.
        level: ``object``, ``pod`` or ``container`` (see :class:`Check`).
        reads: ``object``, ``stream`` or ``checks`` (see :class:`Check`).
        strict: whether every finding is a :class:`Note` (see :class:`Check`).

    Returns:
        A decorator that returns the :class:`Check`.
    """

    def register(function: Callable[..., Iterator[Finding]]) -> Check:
        return Check(check_id, level, function, reads, strict)

    return register


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a mapping, else ``{}`` (checks never fail on malformed input)."""
    return value if isinstance(value, dict) else {}


def hashable(value: Any) -> bool:
    """Whether ``value`` can be a set member or a key: a name that YAML made a list or a mapping cannot.

    Such a name names nothing; the OpenAPI check reports its type.
    """
    try:
        hash(value)
    except TypeError:
        return False
    return True


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a list, else ``[]``."""
    return value if isinstance(value, list) else []


def as_value(amount: Any) -> Decimal | None:
    """The exact value of a quantity, or None if it is missing or not one."""
    if isinstance(amount, bool) or not isinstance(amount, (str, int, float)):
        return None
    try:
        return parse_quantity(amount).value
    except ValueError:
        return None


def quantity_findings(path: str, value: Any) -> Iterator[Finding]:
    """Findings for one resource quantity at ``path``.

    A quantity must parse (Kubernetes ``resource.ParseQuantity``), not be
    negative, be a whole number of milli-units (the API server rounds finer
    values up) and, as a :class:`Note` (t2gen's standard, not the API
    server's), be written canonically, as ``kubectl get -o yaml`` shows it,
    or every apply shows a diff. Source: kubernetes/kubernetes
    ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go``.
    """
    if type(value) is str and value in _CLEAN_QUANTITIES:
        return  # found clean before: the findings depend on the text alone
    try:
        quantity = (
            parse_quantity(value) if isinstance(value, (str, int, float)) else None
        )
    except ValueError:
        quantity = None
    if quantity is None:
        yield path, f"{value!r} is not a quantity"
        return
    clean = True
    if quantity.value < 0:
        clean = False
        yield path, f"{value!r} is negative"
    if not quantity.is_milli_precise():
        clean = False
        yield path, f"{value!r} is finer than 1m; the API server rounds it up"
    if isinstance(value, str) and str(quantity) != value:
        clean = False
        yield Note(
            (
                path,
                f"{value!r} is not in canonical form ({quantity}); kubectl would show a diff",
            )
        )
    if clean and type(value) is str:
        if len(_CLEAN_QUANTITIES) >= 4096:  # bounded, whatever the input
            _CLEAN_QUANTITIES.clear()
        _CLEAN_QUANTITIES.add(value)


_CLEAN_QUANTITIES: set[str] = set()
"""Quantity texts :func:`quantity_findings` found nothing wrong with: a render
repeats a few of them thousands of times (requests, limits, size limits)."""


class PodState:
    """What the container checks of one pod learn as they go, container by container.

    A plain class: t2gen's records are :class:`t2gen.record.Record` (``docs/development.md``),
    and this one changes as the checks go.

    Attributes:
        volumes: names of the pod's volumes.
        ports: ``(containerPort, protocol)`` -> name of the container that opened it.
        container_names: names of the containers seen so far.
        port_names: port name -> JSON path of the first port declaring it, over
            the containers seen so far.
    """

    __slots__ = ("container_names", "port_names", "ports", "volumes")

    def __init__(self, volumes: set[Any]) -> None:
        self.volumes = volumes
        self.ports: dict[tuple[Any, Any], str] = {}
        self.container_names: set[Any] = set()
        self.port_names: dict[Any, str] = {}

    @classmethod
    def of(cls, pod: dict[str, Any], owner: dict[str, Any]) -> PodState:
        """The state before the first container of ``pod``, the pod spec of workload ``owner``.

        Its volumes are the pod's, and a StatefulSet's ``volumeClaimTemplates``
        (the controller adds one volume per claim to its pods).
        """
        spec = as_dict(owner.get("spec")) if owner.get("kind") == "StatefulSet" else {}
        names = [as_dict(v).get("name") for v in as_list(pod.get("volumes"))] + [
            as_dict(as_dict(claim).get("metadata")).get("name")
            for claim in as_list(spec.get("volumeClaimTemplates"))
        ]
        return cls({name for name in names if hashable(name)})
