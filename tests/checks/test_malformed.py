"""Malformed objects given to ``t2gen check`` give findings, never a traceback.

YAML may make any name a list or a mapping; the checks track names in sets and
dicts, where such a value cannot go (it raised TypeError: unhashable). Every
name-like leaf of a rendered Volcano gang job (container, port, volume, env,
Service, Role, binding and gang names, kinds, mount paths, RBAC rule entries,
annotations) is replaced by a list in turn, and the stream is checked.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest

from t2gen.checks import object_problems
from t2gen.pipeline.job import generate
from tests.conftest import ROOT

_NAME_KEYS = {"name", "kind", "mountPath", "containerPort", "protocol", "serviceName"}

Path_ = tuple[str | int, ...]


def _leaves(value: Any, path: Path_ = ()) -> Iterator[Path_]:
    """Paths of the name-like leaves: values of :data:`_NAME_KEYS`, list items, annotations."""
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(item, (dict, list)) and (
                key in _NAME_KEYS or "annotations" in path
            ):
                yield (*path, key)
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, (dict, list)):
                yield (*path, index)
            yield from _leaves(item, (*path, index))


@pytest.fixture(scope="module")
def objects() -> list[dict[str, Any]]:
    path = ROOT / "examples" / "volcano-gang.yaml"
    return [document.obj for document in generate([str(path)])]


def test_a_name_yaml_made_a_list_is_never_a_crash(
    objects: list[dict[str, Any]],
) -> None:
    """Each name-like leaf made ``["x"]``: the checks run to the end."""
    assert object_problems(objects) == []
    tried = 0
    for index, obj in enumerate(objects):
        for path in _leaves(obj):
            broken = copy.copy(objects)
            broken[index] = changed = copy.deepcopy(obj)
            target: Any = changed
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = ["x"]
            object_problems(broken)  # findings or none; never an exception
            tried += 1
    assert tried > 100
