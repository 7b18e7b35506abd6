"""Semantic checks of rendered manifests: what the API server or scheduler would reject or ignore.

Kubernetes' OpenAPI schemas check types and field names only (see
``shared/reference/toolchain.md`` §1.6). These checks cover what they miss,
for t2gen's own output (every render runs them; a finding there is a t2gen
bug) and for any manifest stream given to ``t2gen check``:

* names: DNS-1123/1035 rules and lengths (StatefulSets at most 52 characters,
  because of the ``controller-revision-hash`` label);
* labels: valid keys and values;
* StatefulSets: the selector matches the pod template; no two StatefulSets
  select each other's pods; ``serviceName`` names a headless Service of the
  stream when that Service is in it;
* affinity: node selector operator arity (In/NotIn >= 1 value,
  Exists/DoesNotExist none, Gt/Lt one integer string), pod (anti-)affinity
  operators and non-empty ``topologyKey``; for t2gen jobs, each pod
  (anti-)affinity selector matches every worker pod of its job and nothing else;
* ports in range, unique per pod, NodePorts in 30000-32767, no NodePort on a
  headless Service;
* quantities parse, are canonical and 1m-precise; bound containers have
  ``requests == limits``;
* volume mounts name volumes of the pod; environment names are unique;
* RoleBindings point at a Role and ServiceAccount of the stream when those are in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

from t2gen.kube.quantity import parse_quantity

__all__ = ["check_objects"]

_DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
_DNS_1035 = re.compile(r"[a-z]([-a-z0-9]*[a-z0-9])?")
_DNS_SUBDOMAIN = re.compile(
    r"[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*"
)
_LABEL_NAME = re.compile(r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?")
_LABEL_VALUE = re.compile(r"([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_PORT_NAME = re.compile(r"[a-z0-9]([a-z0-9]|-(?=[a-z0-9]))*")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_POD_SELECTOR_OPERATORS = {"In", "NotIn", "Exists", "DoesNotExist"}
_WORKLOADS = {"StatefulSet", "Deployment", "DaemonSet", "ReplicaSet", "Job"}
_STATEFULSET_NAME_MAX = (
    52  # 63 minus "-" and the 10-character controller-revision-hash suffix
)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _namespace(obj: dict[str, Any]) -> str:
    """An object's namespace; "" when not written (kubectl's namespace applies to all of them)."""
    namespace = _dict(obj.get("metadata")).get("namespace")
    return namespace if isinstance(namespace, str) else ""


class _Stream:
    """The objects being checked, indexed once so that every check is linear in their number.

    Names, Services and pod templates are looked up within one namespace:
    selectors, ``serviceName`` and RoleBinding references never cross namespaces.
    """

    def __init__(self, objects: Sequence[dict[str, Any]]) -> None:
        self.objects = objects
        self._names: dict[tuple[str, Any], set[Any]] = {}
        self._services: dict[tuple[str, Any], list[dict[str, Any]]] = {}
        self.templates: list[tuple[dict[str, Any], dict[str, Any]]] = []
        self._by_label: dict[tuple[str, Any, Any], list[int]] = {}
        for obj in objects:
            namespace = _namespace(obj)
            kind, name = obj.get("kind"), _dict(obj.get("metadata")).get("name")
            self._names.setdefault((namespace, kind), set()).add(name)
            if kind == "Service":
                self._services.setdefault((namespace, name), []).append(obj)
            if kind in _WORKLOADS:
                template = _dict(_dict(obj.get("spec")).get("template"))
                labels = _dict(_dict(template.get("metadata")).get("labels"))
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
        """Pod templates in ``namespace`` whose labels include ``required``."""
        indices: set[int] | None = None
        for key, value in required.items():
            found = set(self._by_label.get((namespace, key, value), ()))
            indices = found if indices is None else indices & found
        if indices is None:  # no label required: every template of the namespace
            indices = {
                n
                for n, (obj, _) in enumerate(self.templates)
                if _namespace(obj) == namespace
            }
        for index in sorted(indices):
            yield self.templates[index]

    def selected(
        self, namespace: str, selector: dict[str, Any]
    ) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """Pod templates in ``namespace`` that a label selector selects."""
        match_labels = _dict(selector.get("matchLabels"))
        if not all(isinstance(value, str) for value in match_labels.values()):
            return  # a non-string label value selects nothing
        for workload, labels in self.labelled(namespace, match_labels):
            if _matches(selector, labels):
                yield workload, labels


def check_objects(objects: Sequence[dict[str, Any]]) -> list[str]:
    """Check a set of Kubernetes objects for semantic errors no schema catches.

    Args:
        objects: parsed manifests (one dict per object), e.g. one render.

    Returns:
        One line per finding, ``Kind/name: field.path: message``, in object order;
        empty when everything is fine.
    """
    stream = _Stream(objects)
    findings: list[str] = []
    for obj in objects:
        where = f"{obj.get('kind', '?')}/{_dict(obj.get('metadata')).get('name', '?')}"
        findings.extend(
            f"{where}: {path}: {message}"
            for path, message in _check_object(obj, stream)
        )
    return findings


def _check_object(obj: dict[str, Any], stream: _Stream) -> Iterator[tuple[str, str]]:
    kind = obj.get("kind")
    metadata = _dict(obj.get("metadata"))
    yield from _check_name(kind, metadata.get("name"))
    if metadata.get("namespace") is not None and not _is_dns_label(
        metadata.get("namespace")
    ):
        yield (
            "metadata.namespace",
            f"{metadata.get('namespace')!r} is not a DNS-1123 label",
        )
    yield from _check_labels("metadata.labels", metadata.get("labels"))
    spec = _dict(obj.get("spec"))
    if kind in _WORKLOADS:
        template = _dict(spec.get("template"))
        yield from _check_labels(
            "spec.template.metadata.labels",
            _dict(template.get("metadata")).get("labels"),
        )
        yield from _check_selector(spec, template)
        yield from _check_pod_spec(
            "spec.template.spec", _dict(template.get("spec")), obj, stream
        )
    if kind == "StatefulSet":
        yield from _check_statefulset(obj, spec, stream)
    elif kind == "Service":
        yield from _check_service(spec)
    elif kind == "PersistentVolumeClaim":
        storage = _dict(_dict(spec.get("resources")).get("requests")).get("storage")
        if storage is not None:
            yield from _check_quantity("spec.resources.requests.storage", storage)
    elif kind == "RoleBinding":
        yield from _check_role_binding(obj, stream)


def _is_dns_label(value: Any) -> bool:
    return (
        isinstance(value, str)
        and len(value) <= 63
        and _DNS_LABEL.fullmatch(value) is not None
    )


def _check_name(kind: Any, name: Any) -> Iterator[tuple[str, str]]:
    """Object names: Services are DNS-1035 labels, StatefulSets short DNS labels, others subdomains."""
    if not isinstance(name, str):
        yield "metadata.name", "missing"
        return
    if kind == "Service":
        if len(name) > 63 or not _DNS_1035.fullmatch(name):
            yield (
                "metadata.name",
                f"{name!r} is not a DNS-1035 label (a letter, then letters, digits, '-'; <= 63)",
            )
    elif kind == "StatefulSet":
        if not _is_dns_label(name):
            yield (
                "metadata.name",
                f"{name!r} is not a DNS-1123 label; its pods' hostnames would be invalid",
            )
        elif len(name) > _STATEFULSET_NAME_MAX:
            yield (
                "metadata.name",
                (
                    f"{name!r} is {len(name)} characters; a StatefulSet name may have at most {_STATEFULSET_NAME_MAX} "
                    "so that its controller-revision-hash label fits in 63"
                ),
            )
    elif len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        yield "metadata.name", f"{name!r} is not a DNS-1123 subdomain"


def _check_labels(path: str, labels: Any) -> Iterator[tuple[str, str]]:
    for key, value in _dict(labels).items():
        prefix, _, name = str(key).rpartition("/")
        if (
            prefix and not (len(prefix) <= 253 and _DNS_SUBDOMAIN.fullmatch(prefix))
        ) or not (len(name) <= 63 and _LABEL_NAME.fullmatch(name)):
            yield f"{path}[{key!r}]", f"{key!r} is not a valid label key"
        if (
            not isinstance(value, str)
            or len(value) > 63
            or not _LABEL_VALUE.fullmatch(value)
        ):
            yield (
                f"{path}[{key!r}]",
                f"{value!r} is not a valid label value (a string of at most 63 characters)",
            )


def _matches(selector: dict[str, Any], labels: dict[str, Any]) -> bool:
    """Whether a LabelSelector (matchLabels and matchExpressions) selects ``labels``."""
    for label, value in _dict(selector.get("matchLabels")).items():
        if labels.get(label) != value:
            return False
    for item in _list(selector.get("matchExpressions")):
        expression = _dict(item)
        key: Any = expression.get("key")
        operator = expression.get("operator")
        values = _list(expression.get("values"))
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


def _check_selector(
    spec: dict[str, Any], template: dict[str, Any]
) -> Iterator[tuple[str, str]]:
    selector = _dict(spec.get("selector"))
    labels = _dict(_dict(template.get("metadata")).get("labels"))
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        yield (
            "spec.selector",
            "empty selector; it must select the pod template's labels",
        )
    elif not _matches(selector, labels):
        yield (
            "spec.selector",
            "does not match the pod template's labels (the API server rejects this)",
        )


def _check_statefulset(
    obj: dict[str, Any], spec: dict[str, Any], stream: _Stream
) -> Iterator[tuple[str, str]]:
    selector = _dict(spec.get("selector"))
    if selector.get("matchLabels") or selector.get("matchExpressions"):
        for other, _labels in stream.selected(_namespace(obj), selector):
            if other is not obj and other.get("kind") == "StatefulSet":
                other_name = _dict(other.get("metadata")).get("name")
                yield (
                    "spec.selector",
                    f"also selects the pods of StatefulSet {other_name}; selectors must not overlap",
                )
    policy = spec.get("podManagementPolicy")
    if policy is not None and policy not in ("OrderedReady", "Parallel"):
        yield "spec.podManagementPolicy", f"{policy!r} is not OrderedReady or Parallel"
    service_name = spec.get("serviceName")
    if not service_name:
        yield (
            "spec.serviceName",
            "empty: the pods get no stable DNS names without a governing headless Service",
        )
        return
    for service in stream.services(_namespace(obj), service_name):
        if _dict(service.get("spec")).get("clusterIP") != "None":
            yield (
                "spec.serviceName",
                f"Service {service_name} is not headless (clusterIP: None), so pods get no DNS names",
            )


def _check_service(spec: dict[str, Any]) -> Iterator[tuple[str, str]]:
    headless = spec.get("clusterIP") == "None"
    kind = spec.get("type", "ClusterIP")
    if headless and kind in ("NodePort", "LoadBalancer"):
        yield "spec.clusterIP", f"a {kind} Service cannot be headless (clusterIP: None)"
    names: set[str] = set()
    for index, port in enumerate(_list(spec.get("ports"))):
        port = _dict(port)
        path = f"spec.ports[{index}]"
        if not isinstance(port.get("port"), int) or not 1 <= port["port"] <= 65535:
            yield f"{path}.port", f"{port.get('port')!r} is not a port (1-65535)"
        node_port = port.get("nodePort")
        if node_port is not None:
            if kind not in ("NodePort", "LoadBalancer"):
                yield f"{path}.nodePort", f"set on a {kind} Service"
            elif not isinstance(node_port, int) or not 30000 <= node_port <= 32767:
                yield (
                    f"{path}.nodePort",
                    f"{node_port!r} is outside the default NodePort range 30000-32767",
                )
        name = port.get("name")
        if name is not None:
            if name in names:
                yield f"{path}.name", f"duplicate port name {name!r}"
            names.add(name)
    if len(_list(spec.get("ports"))) > 1 and any(
        "name" not in _dict(p) for p in _list(spec.get("ports"))
    ):
        yield "spec.ports", "every port of a multi-port Service needs a name"


def _check_quantity(path: str, value: Any) -> Iterator[tuple[str, str]]:
    try:
        quantity = (
            parse_quantity(value) if isinstance(value, (str, int, float)) else None
        )
    except ValueError:
        quantity = None
    if quantity is None:
        yield path, f"{value!r} is not a quantity"
        return
    if quantity.value < 0:
        yield path, f"{value!r} is negative"
    if not quantity.is_milli_precise():
        yield path, f"{value!r} is finer than 1m; the API server rounds it up"
    if isinstance(value, str) and str(quantity) != value:
        yield (
            path,
            f"{value!r} is not in canonical form ({quantity}); kubectl would show a diff",
        )


def _check_pod_spec(
    path: str,
    pod: dict[str, Any],
    owner: dict[str, Any],
    stream: _Stream,
) -> Iterator[tuple[str, str]]:
    volumes = {_dict(volume).get("name") for volume in _list(pod.get("volumes"))}
    ports_seen: dict[tuple[Any, Any], str] = {}
    container_names: set[Any] = set()
    for index, container in enumerate(_list(pod.get("containers"))):
        container = _dict(container)
        cpath = f"{path}.containers[{index}]"
        name = container.get("name")
        if name in container_names:
            yield f"{cpath}.name", f"duplicate container name {name!r}"
        container_names.add(name)
        port_names: set[str] = set()
        for pindex, port in enumerate(_list(container.get("ports"))):
            port = _dict(port)
            number, protocol = port.get("containerPort"), port.get("protocol", "TCP")
            ppath = f"{cpath}.ports[{pindex}]"
            if not isinstance(number, int) or not 1 <= number <= 65535:
                yield f"{ppath}.containerPort", f"{number!r} is not a port (1-65535)"
            key = (number, protocol)
            if key in ports_seen:
                yield (
                    f"{ppath}.containerPort",
                    f"{number}/{protocol} is also used by container {ports_seen[key]}",
                )
            ports_seen[key] = str(name)
            port_name = port.get("name")
            if port_name is not None:
                if (
                    not isinstance(port_name, str)
                    or len(port_name) > 15
                    or not _PORT_NAME.fullmatch(port_name)
                    or not re.search("[a-z]", port_name)
                ):
                    yield (
                        f"{ppath}.name",
                        f"{port_name!r} is not an IANA service name (<= 15 lower-case letters, digits, '-')",
                    )
                if port_name in port_names:
                    yield f"{ppath}.name", f"duplicate port name {port_name!r}"
                port_names.add(port_name)
        resources = _dict(container.get("resources"))
        requests, limits = (
            _dict(resources.get("requests")),
            _dict(resources.get("limits")),
        )
        for kind_name, amounts in (("requests", requests), ("limits", limits)):
            for resource, amount in amounts.items():
                yield from _check_quantity(
                    f"{cpath}.resources.{kind_name}.{resource}", amount
                )
        for resource, amount in requests.items():
            request, limit = _as_value(amount), _as_value(limits.get(resource))
            if request is not None and limit is not None and request > limit:
                yield f"{cpath}.resources.requests.{resource}", "exceeds its limit"
        env_names: set[Any] = set()
        for eindex, variable in enumerate(_list(container.get("env"))):
            env_name = _dict(variable).get("name")
            if env_name in env_names:
                yield (
                    f"{cpath}.env[{eindex}].name",
                    f"duplicate variable {env_name!r}; the last one wins silently",
                )
            env_names.add(env_name)
        for mindex, mount in enumerate(_list(container.get("volumeMounts"))):
            mount_name = _dict(mount).get("name")
            if mount_name not in volumes:
                yield (
                    f"{cpath}.volumeMounts[{mindex}].name",
                    f"no volume named {mount_name!r} in the pod",
                )
    for vindex, volume in enumerate(_list(pod.get("volumes"))):
        size = _dict(_dict(volume).get("emptyDir")).get("sizeLimit")
        if size is not None:
            yield from _check_quantity(
                f"{path}.volumes[{vindex}].emptyDir.sizeLimit", size
            )
    yield from _check_affinity(
        f"{path}.affinity", _dict(pod.get("affinity")), owner, stream
    )
    yield from _check_binding(path, pod, owner)


def _check_binding(
    path: str, pod: dict[str, Any], owner: dict[str, Any]
) -> Iterator[tuple[str, str]]:
    """A bound t2gen worker pod is Guaranteed with whole cores, or binding silently does nothing.

    The kubelet's static CPU manager gives exclusive cores only to containers
    with a whole-number CPU request in Guaranteed pods, where every container
    has cpu and memory limits equal to its requests.
    """
    template = _dict(_dict(owner.get("spec")).get("template"))
    labels = _dict(_dict(template.get("metadata")).get("labels"))
    containers = [_dict(c) for c in _list(pod.get("containers"))]
    bound = any(_dict(c.get("resources")).get("limits") for c in containers)
    if "t2-wp" not in labels or not bound:
        return
    for index, container in enumerate(containers):
        resources = _dict(container.get("resources"))
        requests = _dict(resources.get("requests"))
        limits = _dict(resources.get("limits"))
        cpath = f"{path}.containers[{index}].resources"
        for resource in ("cpu", "memory"):
            request = _as_value(requests.get(resource))
            limit = _as_value(limits.get(resource))
            if request is None or limit is None or request != limit:
                yield (
                    f"{cpath}.limits.{resource}",
                    "a bound worker pod needs cpu and memory limits equal to requests in "
                    "every container (Guaranteed QoS), or the static CPU manager gives it "
                    "no exclusive cores",
                )
        cpu = _as_value(requests.get("cpu"))
        if cpu is not None and cpu != cpu.to_integral_value():
            yield (
                f"{cpath}.requests.cpu",
                f"{requests.get('cpu')!r} is not a whole number of cores; a bound worker "
                "gets exclusive cores only for whole CPUs",
            )


def _as_value(amount: Any) -> Decimal | None:
    """The exact value of a quantity, or None if it is missing or not one."""
    if isinstance(amount, bool) or not isinstance(amount, (str, int, float)):
        return None
    try:
        return parse_quantity(amount).value
    except ValueError:
        return None


def _check_node_requirement(
    path: str, expression: dict[str, Any]
) -> Iterator[tuple[str, str]]:
    operator = expression.get("operator")
    values = _list(expression.get("values"))
    count = len(values)
    if operator in ("In", "NotIn") and count == 0:
        yield path, f"operator {operator} needs at least one value"
    elif operator in ("Exists", "DoesNotExist") and count:
        yield path, f"operator {operator} takes no values"
    elif operator in ("Gt", "Lt"):
        if count != 1:
            yield path, f"operator {operator} needs exactly one value, got {count}"
        elif not (isinstance(values[0], str) and _INTEGER.fullmatch(values[0])):
            yield (
                path,
                f"operator {operator} needs an integer string, got {values[0]!r}",
            )
    elif operator not in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"):
        yield path, f"unknown operator {operator!r}"
    for index, value in enumerate(_list(values)):
        if not isinstance(value, str):
            yield f"{path}.values[{index}]", f"{value!r} is not a string"


def _check_affinity(
    path: str,
    affinity: dict[str, Any],
    owner: dict[str, Any],
    stream: _Stream,
) -> Iterator[tuple[str, str]]:
    node = _dict(affinity.get("nodeAffinity"))
    required = _dict(node.get("requiredDuringSchedulingIgnoredDuringExecution"))
    for tindex, term in enumerate(_list(required.get("nodeSelectorTerms"))):
        for eindex, expression in enumerate(_list(_dict(term).get("matchExpressions"))):
            epath = f"{path}.nodeAffinity.required.nodeSelectorTerms[{tindex}].matchExpressions[{eindex}]"
            yield from _check_node_requirement(epath, _dict(expression))
    for pindex, preferred in enumerate(
        _list(node.get("preferredDuringSchedulingIgnoredDuringExecution"))
    ):
        preferred = _dict(preferred)
        weight = preferred.get("weight")
        if not isinstance(weight, int) or not 1 <= weight <= 100:
            yield (
                f"{path}.nodeAffinity.preferred[{pindex}].weight",
                f"{weight!r} is not 1-100",
            )
        for eindex, expression in enumerate(
            _list(_dict(preferred.get("preference")).get("matchExpressions"))
        ):
            epath = f"{path}.nodeAffinity.preferred[{pindex}].preference.matchExpressions[{eindex}]"
            yield from _check_node_requirement(epath, _dict(expression))
    for kind in ("podAffinity", "podAntiAffinity"):
        terms = _list(
            _dict(affinity.get(kind)).get(
                "requiredDuringSchedulingIgnoredDuringExecution"
            )
        )
        for tindex, term in enumerate(terms):
            term = _dict(term)
            tpath = f"{path}.{kind}.required[{tindex}]"
            if not term.get("topologyKey"):
                yield (
                    f"{tpath}.topologyKey",
                    "empty; the scheduler needs a node label to group by",
                )
            selector = _dict(term.get("labelSelector"))
            for eindex, expression in enumerate(
                _list(selector.get("matchExpressions"))
            ):
                operator = _dict(expression).get("operator")
                if operator not in _POD_SELECTOR_OPERATORS:
                    yield (
                        f"{tpath}.labelSelector.matchExpressions[{eindex}]",
                        (
                            f"operator {operator!r} is not allowed in a label selector (In, NotIn, Exists, DoesNotExist)"
                        ),
                    )
            yield from _check_job_selector(tpath, selector, owner, stream)


def _check_job_selector(
    path: str,
    selector: dict[str, Any],
    owner: dict[str, Any],
    stream: _Stream,
) -> Iterator[tuple[str, str]]:
    """For a t2gen job: the term selects every worker pod of the job and no other pod of the stream."""
    labels = _dict(_dict(owner.get("metadata")).get("labels"))
    job = labels.get("t2-job")
    if job is None:
        return
    if not selector.get("matchLabels") and not selector.get("matchExpressions"):
        yield (
            f"{path}.labelSelector",
            "empty: it would select every pod in the namespace",
        )
        return
    namespace = _namespace(owner)
    for workload, pod_labels in stream.labelled(
        namespace, {"t2-wp": job, "t2-job": job}
    ):
        if not _matches(selector, pod_labels):
            name = _dict(workload.get("metadata")).get("name")
            yield (
                f"{path}.labelSelector",
                f"does not select the worker pods of {name} (same job {job})",
            )
    for workload, pod_labels in stream.selected(namespace, selector):
        if not (pod_labels.get("t2-wp") == job and pod_labels.get("t2-job") == job):
            name = _dict(workload.get("metadata")).get("name")
            yield (
                f"{path}.labelSelector",
                f"also selects the pods of {workload.get('kind')} {name}, which are not workers of job {job}",
            )


def _check_role_binding(
    obj: dict[str, Any], stream: _Stream
) -> Iterator[tuple[str, str]]:
    role_ref = _dict(obj.get("roleRef"))
    roles = stream.names(_namespace(obj), role_ref.get("kind"))
    if roles and role_ref.get("name") not in roles:
        yield (
            "roleRef.name",
            f"no {role_ref.get('kind')} named {role_ref.get('name')!r} in the output",
        )
    accounts = stream.names(_namespace(obj), "ServiceAccount")
    for index, subject in enumerate(_list(obj.get("subjects"))):
        subject = _dict(subject)
        if (
            subject.get("kind") == "ServiceAccount"
            and accounts
            and subject.get("name") not in accounts
        ):
            yield (
                f"subjects[{index}].name",
                f"no ServiceAccount named {subject.get('name')!r} in the output",
            )
