"""Checks judged in one walk: whether none of a group of checks would find anything.

:func:`t2gen.checks.pods.pod_findings` runs the eight checks of
:data:`t2gen.checks.pods.CONTAINER_CHECKS` on each container, each walking
it again (a render's 500 jobs: 1,500 containers, 12,000 check runs), and
every object gets the four :data:`t2gen.checks.GENERIC_CHECKS`, each reading
its metadata again (22,000 check runs). :func:`containers_clean` and
:func:`metadata_clean` walk once and answer True only when sure that every
check of the group finds nothing, so that the caller may skip them; they
answer False for anything they are not sure of (a value not a plain string,
int, list or map, a quantity, name or label not judged valid before, an
extended resource, any repeat or miss), and the checks then run as they
always do and say what is wrong. The findings are therefore the same either
way, in the same order. The fast path ``FUSED_CHECKS`` of
:mod:`t2gen.fastpaths`: the callers ask :attr:`t2gen.checks.stream.Stream.fused`,
read once per run of the checks (``T2GEN_NO_FUSED_CHECKS`` turns it off).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

from t2gen.checks.base import as_value, quantity_findings
from t2gen.checks.metadata import label_findings, object_name
from t2gen.kube import validators
from t2gen.twister2.names import PACKAGE_NAMESPACE_ANNOTATION

__all__ = ["containers_clean", "metadata_clean", "overcommit_allowed"]

_PORT_MAX = 65535
_NAME = operator.itemgetter("name")
_DICT = frozenset({dict})
_STR = frozenset({str})


def overcommit_allowed(resource: str) -> bool:
    """Whether Kubernetes lets a container's request of ``resource`` be below its limit, or alone.

    Native resources (no domain, or a ``kubernetes.io/`` one) may be
    overcommitted, except ``hugepages-*``; extended resources (any other
    ``<domain>/<name>``, such as ``nvidia.com/gpu``) may not. Kubernetes'
    ``helper.IsOvercommitAllowed`` (kubernetes/kubernetes ``pkg/apis/core/helper/helpers.go``).
    """
    native = "/" not in resource or "kubernetes.io/" in resource
    return native and not resource.startswith("hugepages-")


def _quantities_clean(amounts: dict[str, Any]) -> bool:
    """Whether every amount is a quantity ``container-quantities`` finds nothing in (string keys only)."""
    for resource, amount in amounts.items():
        if type(resource) is not str:
            return False
        for _ in quantity_findings("", amount):  # a clean text is remembered
            return False
    return True


def _resources_clean(resources: Any) -> bool:
    """Whether ``container-quantities``, ``-request-within-limit`` and ``-extended-resource-limit`` find nothing."""
    if resources is None:
        return True
    if type(resources) is not dict:
        return False
    requests = resources.get("requests")
    limits = resources.get("limits")
    if requests is None:
        requests = {}
    if limits is None:
        limits = {}
    if type(requests) is not dict or type(limits) is not dict:
        return False
    key = (tuple(requests.items()), tuple(limits.items()))
    try:
        if key in _CLEAN_RESOURCES:  # only strings are kept; a string equals only one
            return True
    except TypeError:  # a list or a map: not a quantity
        return False
    if not (_quantities_clean(requests) and _quantities_clean(limits)):
        return False
    for resource, amount in requests.items():
        if not overcommit_allowed(resource):  # the checks judge the rest
            return False
        if resource in limits:
            request, limit = as_value(amount), as_value(limits[resource])
            if request is None or limit is None or request > limit:
                return False
    texts = (*requests, *requests.values(), *limits, *limits.values())
    if _STR.issuperset(map(type, texts)):
        if len(_CLEAN_RESOURCES) >= 1024:  # bounded, whatever the input
            _CLEAN_RESOURCES.clear()
        _CLEAN_RESOURCES.add(key)
    return True


_CLEAN_RESOURCES: set[tuple[tuple[Any, ...], tuple[Any, ...]]] = set()
"""``(requests, limits)`` as item tuples, of strings only, :func:`_resources_clean`
found clean: a batch's containers repeat a few (500 jobs: 1,500 containers)."""


def _ports_clean(ports: Any, opened: set[tuple[int, str]], names: set[str]) -> bool:
    """Whether ``container-ports`` and ``pod-port-name-unique`` find nothing; adds to ``opened`` and ``names``."""
    if ports is None:
        return True
    if type(ports) is not list:
        return False
    for port in ports:
        if type(port) is not dict:
            return False
        number, protocol = port.get("containerPort"), port.get("protocol", "TCP")
        if type(number) is not int or not 1 <= number <= _PORT_MAX:
            return False
        if type(protocol) is not str or (number, protocol) in opened:
            return False
        opened.add((number, protocol))
        name = port.get("name")
        if name is None:
            continue
        if type(name) is not str or name in names:
            return False
        if name not in _PORT_NAMES:
            if not validators.is_port_name(name):
                return False
            if len(_PORT_NAMES) >= 1024:  # bounded, whatever the input
                _PORT_NAMES.clear()
            _PORT_NAMES.add(name)
        names.add(name)
    return True


_PORT_NAMES: set[str] = set()
"""Port names :func:`t2gen.kube.validators.is_port_name` found valid."""


def _names_clean(items: Any) -> list[str] | None:
    """The ``name`` of each map of ``items`` (None: ``[]``), or None if one is not a map with a string name."""
    if items is None:
        return []
    if type(items) is not list or not _DICT.issuperset(map(type, items)):
        return None
    try:
        names = list(map(_NAME, items))
    except KeyError:
        return None
    return names if _STR.issuperset(map(type, names)) else None


def containers_clean(pod: dict[str, Any], volumes: set[Any]) -> bool:
    """Whether no check of :data:`t2gen.checks.pods.CONTAINER_CHECKS` finds anything in ``pod``'s containers.

    Args:
        pod: the pod spec.
        volumes: the pod's volume names, as :class:`t2gen.checks.base.PodState` has them.

    Returns:
        True only when every container check would find nothing in any
        container; False when one might (then the checks run and say what).
    """
    containers = pod.get("containers")
    if containers is None:
        return True
    if type(containers) is not list:
        return False
    seen: set[str] = set()
    opened: set[tuple[int, str]] = set()
    port_names: set[str] = set()
    for container in containers:
        if type(container) is not dict:
            return False
        name = container.get("name")
        if type(name) is not str or name in seen:
            return False
        seen.add(name)
        if not _ports_clean(container.get("ports"), opened, port_names):
            return False
        if not _resources_clean(container.get("resources")):
            return False
        env = _names_clean(container.get("env"))
        if env is None or len(set(env)) != len(env):
            return False
        mounts = _names_clean(container.get("volumeMounts"))
        if mounts is None or not volumes.issuperset(mounts):
            return False
    return True


def metadata_clean(obj: dict[str, Any]) -> bool:
    """Whether no check of :data:`t2gen.checks.GENERIC_CHECKS` finds anything in ``obj``.

    They read ``kind`` and ``metadata``'s name, namespace, labels and package
    annotation, each walking the metadata again for every object.

    Returns:
        True only when none of them would find anything; False when one might
        (then they run and say what).
    """
    kind, metadata = obj.get("kind"), obj.get("metadata")
    if type(kind) is not str or type(metadata) is not dict:
        return False
    name = metadata.get("name")
    if type(name) is not str:
        return False
    # object-name reads the kind (these two, or any other) and the name alone
    key = (kind if kind in ("Service", "StatefulSet") else "", name)
    if not _judged(_NAMES, key, lambda: _named_clean(kind, name)):
        return False
    namespace = metadata.get("namespace")
    if namespace is not None:
        if type(namespace) is not str or not _judged(
            _NAMESPACES, namespace, lambda: validators.is_dns1123_label(namespace)
        ):
            return False
        annotations = metadata.get("annotations")
        if annotations is not None:
            if type(annotations) is not dict:
                return False
            wanted = annotations.get(PACKAGE_NAMESPACE_ANNOTATION)
            if isinstance(wanted, str) and wanted != namespace:
                return False
    for _ in label_findings("metadata.labels", metadata.get("labels")):
        return False
    return True


def _named_clean(kind: Any, name: Any) -> bool:
    """Whether object-name finds nothing in an object of this kind and name alone."""
    named = {"kind": kind, "metadata": {"name": name}}
    return next(iter(object_name.run(named, None)), None) is None


def _judged(known: set[Any], item: Any, clean: Callable[[], bool]) -> bool:
    """Whether ``item`` is clean: in ``known``, or ``clean()`` says so (then remembered)."""
    if item in known:
        return True
    if not clean():
        return False
    _remember(known, item)
    return True


def _remember(known: set[Any], item: Any) -> None:
    if len(known) >= 4096:  # bounded, whatever the input
        known.clear()
    known.add(item)


_NAMES: set[tuple[str, str]] = set()
"""``(kind class, name)`` that object-name finds nothing in: a job's objects share a few names."""

_NAMESPACES: set[str] = set()
"""Namespaces found DNS-1123 labels."""
