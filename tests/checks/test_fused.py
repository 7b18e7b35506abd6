"""The fused container verdict (``FUSED_CHECKS``, :mod:`t2gen.checks.fused`) never hides a finding.

Every leaf of every container of rendered examples' pods is replaced in turn
by values the checks find fault with (or that look alike to Python: ``True``
for ``1``), and whole containers, ports, variables and mounts are repeated or
changed; each object's findings must be the same, in the same order, with
the fast path and with ``T2GEN_NO_FUSED_CHECKS``.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from t2gen.checks import object_problems
from t2gen.checks.base import PodState
from t2gen.checks.fused import containers_clean
from t2gen.pipeline.job import generate
from tests.conftest import ROOT

EXAMPLES = ("heterogeneous.yaml", "gpu-cluster.yaml", "persistent-nfs.yaml")
ODD_VALUES: tuple[Any, ...] = (None, True, 1.0, "1.5m", "-x-", ["a"])

Path_ = tuple[str | int, ...]


def _workloads() -> list[dict[str, Any]]:
    objects = []
    for example in EXAMPLES:
        for document in generate([str(ROOT / "examples" / example)]):
            if document.obj["kind"] == "StatefulSet":
                objects.append(document.obj)
    return objects


WORKLOADS = _workloads()


def _leaves(value: Any, path: Path_) -> Iterator[Path_]:
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        yield path
        return
    for key, item in items:
        yield from _leaves(item, (*path, key))


def _at(obj: Any, path: Path_) -> Any:
    for key in path:
        obj = obj[key]
    return obj


CONTAINERS: Path_ = ("spec", "template", "spec", "containers")


def _mutants(workload: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """The workload with one leaf of its containers changed, or one part repeated or changed."""
    for leaf in _leaves(_at(workload, CONTAINERS), CONTAINERS):
        for value in ODD_VALUES:
            mutant = copy.deepcopy(workload)
            _at(mutant, leaf[:-1])[leaf[-1]] = value
            yield mutant
    changes: list[Callable[[dict[str, Any]], None]] = [
        lambda c: c["env"].append(dict(c["env"][0])),
        lambda c: c["ports"].append(dict(c["ports"][0])),
        lambda c: c["ports"].append({**c["ports"][0], "containerPort": 1}),
        lambda c: c["volumeMounts"].append({"name": "none", "mountPath": "/x"}),
        lambda c: c["resources"]["requests"].update({"example.com/dev": "1"}),
        lambda c: c["resources"]["requests"].update({"hugepages-2Mi": "2Mi"}),
        lambda c: c["resources"]["limits"].update({"cpu": "1m"}),
        lambda c: c["resources"]["requests"].update({"cpu": 2, "memory": 1.5}),
        lambda c: c.update({"resources": None, "env": None, "ports": None}),
    ]
    for change in changes:
        mutant = copy.deepcopy(workload)
        change(_at(mutant, CONTAINERS)[0])
        yield mutant
    for extra in ("same", "renamed"):
        mutant = copy.deepcopy(workload)
        containers = _at(mutant, CONTAINERS)
        containers.append(copy.deepcopy(containers[0]))
        if extra == "renamed":
            containers[-1]["name"] += "-b"
        yield mutant


def test_the_examples_take_the_fast_path() -> None:
    clean = [
        containers_clean(pod, PodState.of(pod, workload).volumes)
        for workload in WORKLOADS
        for pod in [_at(workload, CONTAINERS[:-1])]
    ]
    assert clean.count(True) >= len(WORKLOADS) - 2  # the GPU pods' may be judged


@pytest.mark.parametrize("index", range(len(WORKLOADS)))
def test_findings_are_the_same_without_the_fast_path(
    index: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    found_any = 0
    for mutant in _mutants(WORKLOADS[index]):
        monkeypatch.delenv("T2GEN_NO_FUSED_CHECKS", raising=False)
        fast = object_problems([mutant])
        monkeypatch.setenv("T2GEN_NO_FUSED_CHECKS", "1")
        plain = object_problems([mutant])
        assert fast == plain
        found_any += bool(plain)
    assert found_any > 20  # the mutants were faulty enough to find something


def _objects() -> list[dict[str, Any]]:
    return [
        document.obj
        for example in EXAMPLES
        for document in generate([str(ROOT / "examples" / example)])
    ]


def _metadata_mutants(obj: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """``obj`` with one leaf of its metadata or its kind changed, or a namespace added."""
    for leaf in [("kind",), *_leaves(obj["metadata"], ("metadata",))]:
        for value in ODD_VALUES:
            mutant = copy.deepcopy(obj)
            _at(mutant, leaf[:-1])[leaf[-1]] = value
            yield mutant
    for namespace in ("default", "other", "Bad_NS", "x" * 64):
        mutant = copy.deepcopy(obj)
        mutant["metadata"]["namespace"] = namespace
        yield mutant
    # one name judged for each kind rule: a subdomain, a DNS-1035 label, a StatefulSet's
    for name in ("1abc", "a.b", "s" * 53, "A"):
        for kind in ("ConfigMap", "Service", "StatefulSet", "Widget"):
            yield {**obj, "kind": kind, "metadata": {**obj["metadata"], "name": name}}


def test_metadata_findings_are_the_same_without_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    found_any = 0
    for obj in _objects():
        for mutant in _metadata_mutants(obj):
            monkeypatch.delenv("T2GEN_NO_FUSED_CHECKS", raising=False)
            fast = object_problems([mutant], part="object")
            monkeypatch.setenv("T2GEN_NO_FUSED_CHECKS", "1")
            plain = object_problems([mutant], part="object")
            assert fast == plain
            found_any += bool(plain)
    assert found_any > 100
