"""Pod-spec rules the scheduler applies, shared by running pods and rendered templates.

Each helper follows the Kubernetes code it names:

* requests: ``k8s.io/component-helpers/resource/helpers.go`` (``PodRequests``),
  which ``computePodResourceRequest`` in
  ``pkg/scheduler/framework/types.go`` (kubernetes/kubernetes) calls: the sum of
  the containers, the maximum with each init container (sidecars, init
  containers with ``restartPolicy: Always``, add to the sum), plus
  ``spec.overhead``. A limit without a request counts as the request, as the API
  server's defaulting writes it (``pkg/apis/core/v1/defaults.go``).
* QoS and exclusive cores: ``pkg/apis/core/helper/qos/qos.go`` (Guaranteed) and
  ``pkg/kubelet/cm/cpumanager/policy_static.go`` (``guaranteedCPUs``: only
  containers of Guaranteed pods with a whole number of cores get exclusive ones).
* selectors: ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go`` and
  ``staging/src/k8s.io/component-helpers/scheduling/corev1/nodeaffinity/nodeaffinity.go``.
* tolerations: ``staging/src/k8s.io/api/core/v1/toleration.go`` (``ToleratesTaint``).

Quantities are exact (:func:`t2gen.kube.quantity.parse_quantity`) and rounded up as
``Quantity.MilliValue`` (cpu, millicores) and ``Quantity.Value`` (everything
else: bytes or counts) round them.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from t2gen.kube.quantity import parse_quantity

__all__ = [
    "LabelRequirement",
    "LabelSelector",
    "NodeSelectorRequirement",
    "PodAffinityTerm",
    "Resources",
    "Taint",
    "Toleration",
    "exclusive_cores",
    "format_cpu",
    "format_resource",
    "is_guaranteed",
    "parse_affinity_terms",
    "parse_label_selector",
    "parse_resource_list",
    "parse_tolerations",
    "pod_requests",
    "pod_resources",
]

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable"
HOSTNAME = "kubernetes.io/hostname"


@dataclass(frozen=True)
class Resources:
    """An amount of every resource the scheduler's NodeResourcesFit filter checks.

    Attributes:
        cpu_millis: CPU in millicores (1 core = 1000).
        memory_bytes: memory in bytes.
        pods: a number of pods (allocatable: how many the node runs; a request: 1).
        extended: every other resource as (name, whole units), sorted by name:
            extended resources such as ``nvidia.com/gpu`` (a count),
            ``ephemeral-storage`` and ``hugepages-2Mi`` (bytes).
    """

    cpu_millis: int = 0
    memory_bytes: int = 0
    pods: int = 0
    extended: tuple[tuple[str, int], ...] = ()

    def get(self, name: str) -> int:
        """Return the amount of resource ``name`` (``cpu`` in millicores), 0 if absent."""
        if name == CPU:
            return self.cpu_millis
        if name == MEMORY:
            return self.memory_bytes
        if name == PODS:
            return self.pods
        for key, value in self.extended:
            if key == name:
                return value
        return 0

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-able dict: ``cpuMillis``, ``memoryBytes``, ``pods``, ``extended``."""
        return {
            "cpuMillis": self.cpu_millis,
            "memoryBytes": self.memory_bytes,
            "pods": self.pods,
            "extended": dict(self.extended),
        }

    @staticmethod
    def from_amounts(
        amounts: Mapping[str, int], *, pods: int | None = None
    ) -> Resources:
        """Build from a resource map (``cpu`` in millicores, the rest in whole units)."""
        extended: tuple[tuple[str, int], ...] = ()
        if len(amounts) > (CPU in amounts) + (MEMORY in amounts) + (PODS in amounts):
            extended = tuple(
                sorted(
                    (k, v) for k, v in amounts.items() if k not in (CPU, MEMORY, PODS)
                )
            )
        return Resources(
            cpu_millis=amounts.get(CPU, 0),
            memory_bytes=amounts.get(MEMORY, 0),
            pods=amounts.get(PODS, 0) if pods is None else pods,
            extended=extended,
        )


_FAST_QUANTITY = re.compile(r"([0-9]{1,15})(m|k|M|G|T|Ki|Mi|Gi|Ti)?")
_FAST_FACTOR = {
    None: 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
    "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40,
}  # fmt: skip


@functools.lru_cache(maxsize=8192)
def _milli_value(text: str | int | float) -> int:
    """Return a quantity in thousandths, rounded up (``Quantity.MilliValue``)."""
    return math.ceil(parse_quantity(text).value * 1000)


@functools.lru_cache(maxsize=8192)
def _whole_value(text: str | int | float) -> int:
    """Return a quantity in whole units, rounded up (``Quantity.Value``)."""
    return math.ceil(parse_quantity(text).value)


def quantity_amount(name: str, raw: object) -> int:
    """Return the amount of resource ``name`` as the scheduler counts it.

    Whole numbers with a common suffix (``16``, ``7910m``, ``65049656Ki``) are
    read by integer arithmetic; everything else goes through the exact parser,
    :func:`t2gen.kube.quantity.parse_quantity`.

    Args:
        name: the resource name; ``cpu`` is counted in millicores, every other
            resource in whole units (bytes for memory and storage, a count for
            ``pods`` and extended resources).
        raw: the quantity as the API prints it: a string such as ``3920m`` or
            ``16Gi``, or a JSON number.

    Returns:
        The amount, rounded up as Kubernetes rounds it.

    Raises:
        ValueError: ``raw`` is not a Kubernetes quantity.
    """
    if type(raw) is str:
        return _string_amount(name == CPU, raw)
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        raise ValueError(f"{raw!r} is not a quantity")
    return _milli_value(raw) if name == CPU else _whole_value(raw)


@functools.lru_cache(maxsize=65536)
def _string_amount(milli: bool, text: str) -> int:
    """:func:`quantity_amount` of a string, remembered (node lists repeat their quantities)."""
    match = _FAST_QUANTITY.fullmatch(text)
    if match is not None:
        number, suffix = int(match.group(1)), match.group(2)
        if suffix == "m":
            return number if milli else -(-number // 1000)
        amount = number * _FAST_FACTOR[suffix]
        return amount * 1000 if milli else amount
    return _milli_value(text) if milli else _whole_value(text)


def parse_resource_list(raw: object) -> dict[str, int]:
    """Parse a ResourceList (``requests``, ``limits``, ``allocatable``) into amounts.

    Args:
        raw: a mapping of resource name to quantity, or None.

    Returns:
        Resource name to amount: ``cpu`` in millicores, the rest in whole units.

    Raises:
        ValueError: not a mapping, or a value that is not a quantity; the message
            names the resource.
    """
    if raw is None:
        return {}
    if not isinstance(raw, dict) and not isinstance(raw, Mapping):
        raise ValueError("must be a map of resource names to quantities")
    out: dict[str, int] = {}
    for name, value in raw.items():
        try:
            out[str(name)] = quantity_amount(str(name), value)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    return out


@dataclass(frozen=True)
class _Container:
    """One container's requests (limits copied in where unset) and limits."""

    requests: dict[str, int]
    limits: dict[str, int]
    sidecar: bool


def _read_containers(spec: Mapping[str, Any], key: str) -> list[_Container]:
    out = []
    for container in spec.get(key) or ():
        if not isinstance(container, dict) and not isinstance(container, Mapping):
            continue
        resources = container.get("resources") or {}
        requests = parse_resource_list(resources.get("requests"))
        limits = parse_resource_list(resources.get("limits"))
        for name, amount in limits.items():
            requests.setdefault(name, amount)
        out.append(
            _Container(requests, limits, container.get("restartPolicy") == "Always")
        )
    return out


def _add(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        into[name] = into.get(name, 0) + amount


def _max(into: dict[str, int], other: Mapping[str, int]) -> None:
    for name, amount in other.items():
        if amount > into.get(name, 0):
            into[name] = amount


def pod_resources(spec: Mapping[str, Any]) -> tuple[Resources, int, bool]:
    """Return a pod's requests, its exclusive whole cores and whether it is Guaranteed.

    One pass over the containers; :func:`pod_requests`, :func:`exclusive_cores`
    and :func:`is_guaranteed` return its parts.

    Args:
        spec: a pod spec (``spec`` of a Pod, ``spec.template.spec`` of a StatefulSet).

    Returns:
        (requests, exclusive cores, Guaranteed). Requests (``pods`` 1; cpu in
        millicores, memory in bytes) are the containers summed, the maximum
        taken with each init container (sidecars, ``restartPolicy: Always``, add
        to the sum and to every later init container), pod-level
        ``resources.requests`` for cpu and memory when set, plus ``overhead``.

    Raises:
        ValueError: a request, limit or overhead that is not a quantity.
    """
    containers = _read_containers(spec, "containers")
    inits = (
        _read_containers(spec, "initContainers") if spec.get("initContainers") else []
    )
    total: dict[str, int] = {}
    for c in containers:
        _add(total, c.requests)
    sidecars: dict[str, int] = {}
    init_max: dict[str, int] = {}
    for c in inits:
        if c.sidecar:
            _add(total, c.requests)
            _add(sidecars, c.requests)
            effective = dict(sidecars)
        else:
            effective = dict(c.requests)
            _add(effective, sidecars)
        _max(init_max, effective)
    _max(total, init_max)
    pod_level = spec.get("resources")
    if isinstance(pod_level, Mapping):
        level = parse_resource_list(pod_level.get("requests"))
        for name, amount in parse_resource_list(pod_level.get("limits")).items():
            level.setdefault(name, amount)
        for name in (CPU, MEMORY):
            if name in level:
                total[name] = level[name]
    overhead = spec.get("overhead")
    if overhead:
        _add(total, parse_resource_list(overhead))
    total.pop(PODS, None)
    requests = Resources.from_amounts(total, pods=1)

    everything = containers + inits
    guaranteed = bool(everything) and all(
        name in c.limits and c.requests[name] == c.limits[name]
        for c in everything
        for name in (CPU, MEMORY)
    )
    if not guaranteed:
        return requests, 0, False

    def whole(c: _Container) -> int:
        millis = c.requests.get(CPU, 0)
        return millis // 1000 if millis % 1000 == 0 else 0

    running = sum(whole(c) for c in containers) + sum(
        whole(c) for c in inits if c.sidecar
    )
    init = max((whole(c) for c in inits if not c.sidecar), default=0)
    return requests, max(running, init), True


def pod_requests(spec: Mapping[str, Any]) -> Resources:
    """Return the resources the scheduler reserves for one pod (``PodRequests``).

    Args:
        spec: a pod spec.

    Returns:
        The pod's requests; see :func:`pod_resources`.

    Raises:
        ValueError: a request, limit or overhead that is not a quantity.
    """
    return pod_resources(spec)[0]


def is_guaranteed(spec: Mapping[str, Any]) -> bool:
    """Return True if the pod has Guaranteed QoS (``GetPodQOS``).

    Every container, init containers included, must set cpu and memory limits,
    with requests (defaulted from the limits) equal to them.
    """
    return pod_resources(spec)[2]


def exclusive_cores(spec: Mapping[str, Any]) -> int:
    """Return the whole cores the static CPU manager pins for this pod at once.

    Only a Guaranteed pod's containers whose cpu request is a whole number of
    cores get exclusive cores (``guaranteedCPUs`` in ``policy_static.go``).
    App containers and sidecars hold theirs together; an init container's
    cores are handed on to the app containers, so the pod needs the larger of
    the two.

    Returns:
        Whole cores, 0 for a pod that gets none (not Guaranteed, or fractional cpu).
    """
    return pod_resources(spec)[1]


def format_cpu(millis: int) -> str:
    """Return millicores as Kubernetes prints cpu: ``4`` for 4000, ``1500m`` for 1500."""
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def format_resource(name: str, amount: int) -> str:
    """Return an amount of resource ``name`` for a message: cpu, bytes as Gi/Mi, counts."""
    if name == CPU:
        return format_cpu(amount)
    if name == MEMORY or name == "ephemeral-storage" or name.startswith("hugepages-"):
        return _format_bytes(amount)
    return str(amount)


def _format_bytes(amount: int) -> str:
    for suffix, power in (("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)):
        unit = 1 << power
        if abs(amount) >= unit:
            if amount % unit == 0:
                return f"{amount // unit}{suffix}"
            return f"{amount / unit:.1f}{suffix}"
    return str(amount)


@dataclass(frozen=True)
class Taint:
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


@dataclass(frozen=True)
class Toleration:
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


@dataclass(frozen=True)
class LabelRequirement:
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


@dataclass(frozen=True)
class LabelSelector:
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


def _strings(raw: object) -> tuple[str, ...]:
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
                _strings(e.get("values")),
            )
            for e in expressions
            if isinstance(e, Mapping)
        ),
    )


@dataclass(frozen=True)
class NodeSelectorRequirement:
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
                _strings(e.get("values")),
            )
            for e in term.get("matchExpressions") or []
            if isinstance(e, Mapping)
        ]
        reqs += [
            NodeSelectorRequirement(
                str(e.get("key", "")),
                str(e.get("operator", "")),
                _strings(e.get("values")),
                field=True,
            )
            for e in term.get("matchFields") or []
            if isinstance(e, Mapping)
        ]
        terms.append(tuple(reqs))
    return tuple(terms)


@dataclass(frozen=True)
class PodAffinityTerm:
    """A required pod (anti-)affinity term.

    Attributes:
        selector: which pods the term selects; None selects none.
        topology_key: the node label that defines "the same place";
            ``kubernetes.io/hostname`` is one node.
        namespaces: namespaces whose pods it selects; empty with
            ``all_namespaces`` False means the owning pod's namespace.
        all_namespaces: True when ``namespaceSelector`` is present, which the
            engine treats as every namespace (it cannot see namespace labels).
    """

    selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    all_namespaces: bool = False

    def selects(
        self,
        owner_namespace: str | None,
        namespace: str | None,
        labels: Mapping[str, str],
    ) -> bool:
        """Return True if the term of a pod in ``owner_namespace`` selects a pod.

        A namespace of None means "unknown"; it matches any namespace.
        """
        if self.selector is None or not self.selector.matches(labels):
            return False
        if self.all_namespaces or namespace is None:
            return True
        if self.namespaces:
            return namespace in self.namespaces
        return owner_namespace is None or owner_namespace == namespace

    def __str__(self) -> str:
        """Return ``selector @ topologyKey``."""
        return f"{self.selector if self.selector is not None else '(nothing)'} per {self.topology_key}"


def parse_affinity_terms(
    spec: Mapping[str, Any], kind: str
) -> tuple[PodAffinityTerm, ...]:
    """Return the required terms of ``affinity.<kind>`` (``podAffinity`` or ``podAntiAffinity``)."""
    affinity = spec.get("affinity") or {}
    section = affinity.get(kind) if isinstance(affinity, Mapping) else None
    if not isinstance(section, Mapping):
        return ()
    raw = section.get("requiredDuringSchedulingIgnoredDuringExecution") or []
    terms = []
    for term in raw:
        if not isinstance(term, Mapping):
            continue
        terms.append(
            PodAffinityTerm(
                selector=parse_label_selector(term.get("labelSelector")),
                topology_key=str(term.get("topologyKey") or ""),
                namespaces=_strings(term.get("namespaces")),
                all_namespaces=isinstance(term.get("namespaceSelector"), Mapping),
            )
        )
    return tuple(terms)
