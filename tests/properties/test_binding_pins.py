"""Binding means pinning, and only binding: no unbound pod gets exclusive cores unless its job file asks.

The Twister2 launcher sets CPU limits only when binding workers to cores
(DSC-SPIDAL/twister2 ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java:319-326``).
A pod whose containers all have cpu and memory limits equal to their requests
is Guaranteed, and the kubelet's static CPU manager gives each of its
containers with a whole-number CPU request exclusive cores
(kubernetes/kubernetes ``pkg/kubelet/cm/cpumanager/policy_static.go``,
``guaranteedCPUs``; :func:`t2gen.plan.podspec.pod_resources` computes it).

Checked over every example, every rendered golden and every input case that
renders: a pinned pod of a job with ``bindWorkersToCpu: false`` must come from
a ``cpuLimit`` written in the job file, and validating that file must warn
about it (``cpu-limit-pins-unbound``) at that very field.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import Warning_, format_json_path
from t2gen.inputs.yaml import parse_config
from t2gen.kube.yamlio import load_all_yaml
from t2gen.pipeline.job import generate
from t2gen.pipeline.load import validate
from t2gen.plan.podspec import pod_resources
from tests.conftest import EXAMPLES, GOLDEN, ROOT

CASES = sorted((ROOT / "tests" / "cases").glob("*/config.yaml"))


def _pinned(objects: list[dict[str, Any]]) -> dict[str, int]:
    """StatefulSet name -> exclusive cores per pod, for the pods the static CPU manager pins."""
    found = {}
    for obj in objects:
        if not isinstance(obj, dict) or obj.get("kind") != "StatefulSet":
            continue
        cores = pod_resources(obj["spec"]["template"]["spec"])[1]
        if cores:
            found[obj["metadata"]["name"]] = cores
    return found


def _holder_path(job_name: str, statefulset: str) -> tuple[str | int, ...]:
    """The job-file path of the worker group or job master behind a StatefulSet."""
    suffix = statefulset[len(job_name) + 1 :]
    if suffix == "jm":
        return ("spec", "jobMaster")
    return ("spec", "workers", int(suffix))


def _assert_only_asked_for(path: Path, objects: list[dict[str, Any]]) -> int:
    """Check the rule for one job file and its rendered objects; return the pinned StatefulSets."""
    doc = parse_config(path.read_text(encoding="utf-8"), path=str(path))
    spec = doc.data["spec"]
    pinned = _pinned(objects)
    if spec.get("bindWorkersToCpu") is True:
        return 0
    warnings: list[Warning_] = []
    validate(doc, warnings=warnings)
    warned = {w.json_path for w in warnings}
    for statefulset in pinned:
        where = _holder_path(doc.data["metadata"]["name"], statefulset)
        holder: Any = spec
        for part in where[1:]:
            holder = holder[part]
        assert "cpuLimit" in holder, (
            f"{path}: {statefulset} is pinned to whole cores without bindWorkersToCpu "
            "and without a cpuLimit in the job file"
        )
        field = format_json_path((*where, "cpuLimit"))
        assert field in warned, (
            f"{path}: {statefulset} is pinned but validate did not warn at {field}"
        )
    return len(pinned)


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_examples_pin_only_bound_workers_or_warn(example: Path) -> None:
    objects = [d.obj for d in generate([str(example)])]
    _assert_only_asked_for(example, objects)


def _render_goldens() -> list[tuple[str, Path, Path]]:
    """(case, job file, expected stdout) of every golden that renders a job to stdout."""
    found = []
    for args_file in sorted(GOLDEN.glob("*/args")):
        case = args_file.parent
        args = shlex.split(args_file.read_text(encoding="utf-8"))
        stdout = case / "expected.stdout"
        if args[0] != "render" or not stdout.is_file():
            continue
        job = ROOT / args[1].replace("{case}", f"tests/golden/{case.name}")
        found.append((case.name, job, stdout))
    return found


@pytest.mark.parametrize(
    ("case", "job", "stdout"),
    [pytest.param(*golden, id=golden[0]) for golden in _render_goldens()],
)
def test_goldens_pin_only_bound_workers_or_warn(
    case: str, job: Path, stdout: Path
) -> None:
    objects = load_all_yaml(stdout.read_text(encoding="utf-8"))
    if len(objects) == 1 and isinstance(objects[0], list):  # -o json: one list
        objects = objects[0]
    _assert_only_asked_for(job, objects)


def test_input_cases_pin_only_when_asked_and_the_check_finds_them() -> None:
    pinned = 0
    for config in CASES:
        try:
            objects = [d.obj for d in generate([str(config)])]
        except Exception:  # an invalid case: nothing rendered, nothing pinned
            continue
        pinned += _assert_only_asked_for(config, objects)
    # tests/cases/cpu-limit-pins-unbound{,-mpi} ask for it: the check sees real pinning
    assert pinned >= 2  # a worker group of each (the job master is never Guaranteed)
