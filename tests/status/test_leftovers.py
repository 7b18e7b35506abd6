"""``t2gen status`` fetches, reports and clears every kind the job master leaves (t2gen.twister2.terminator).

Issue 38: the supervisor learned to delete the job's NetworkPolicy (commit
8d10899) and ``status`` did not: it neither fetched nor reported it, nor the
per-job SSH Secret of an OpenMPI job. Both read one list now.
"""

from __future__ import annotations

from typing import Any

import pytest

from t2gen.inputs.jobfile import read_job
from t2gen.kube.kinds import kind_info
from t2gen.model import Job
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import validate
from t2gen.render.context.supervisor_rbac import cleanup_targets
from t2gen.status.fetch import collect_command
from t2gen.status.phase import job_status
from t2gen.status.text import status_text
from tests.conftest import ROOT


def _load(example: str) -> tuple[Job, list[dict[str, Any]]]:
    doc = read_job(str(ROOT / "examples" / example))
    job = validate(doc)
    return job, [d.obj for d in generate_loaded([(job, doc)])]


def _left(job: Job, kind: str, api_version: str, name: str) -> dict[str, Any]:
    """An object of ``job`` as ``kubectl get -o json`` shows it after the job master's clean-up."""
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {
            "name": name,
            "namespace": job.namespace or "default",
            "labels": {
                "t2-job": job.name,
                "app.kubernetes.io/instance": job.name,
                "app.kubernetes.io/managed-by": "t2gen",
            },
        },
    }


@pytest.mark.parametrize(
    ("example", "kind", "api_version", "name", "resource"),
    [
        (
            "isolated.yaml",
            "NetworkPolicy",
            "networking.k8s.io/v1",
            "isolated",
            "networkpolicies",
        ),
        ("openmpi.yaml", "Secret", "v1", "openmpi-ssh", "secrets"),
    ],
)
def test_a_left_over_network_policy_or_ssh_secret_is_fetched_reported_and_cleared(
    example: str, kind: str, api_version: str, name: str, resource: str
) -> None:
    job, rendered = _load(example)
    assert f",{resource}" in collect_command(job, rendered).split()[2]
    objects = [
        _left(job, "ServiceAccount", "v1", f"{job.name}-worker"),
        _left(job, kind, api_version, name),
    ]
    found = job_status(job, objects)
    ref = kind_info(api_version, kind).ref(name)
    assert found["phase"] == "Ended"
    assert ref in found["leftovers"]
    assert ref in found["clear"].split()
    assert f"to clear: {found['clear']}" in status_text(found)


def test_every_kind_the_supervisor_may_delete_is_fetched_and_reported() -> None:
    """The supervisor's clean-up list and status's fetch and leftovers are one list, for every example."""
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        doc = read_job(str(path))
        job = validate(doc)
        rendered = [d.obj for d in generate_loaded([(job, doc)])]
        groups = [o for o in rendered if o["kind"] in ("PodGroup", "Workload")]
        fetched = collect_command(job, rendered).split()[2].split(",")
        objects = []
        for kind, name in cleanup_targets(job, groups):
            assert kind.plural in fetched or kind.resource in fetched, (path.name, kind)
            objects.append(_left(job, kind.kind, kind.api_version, name))
        found = job_status(job, objects)
        assert found["leftovers"] == [k.ref(n) for k, n in cleanup_targets(job, groups)]


def test_an_object_of_a_kind_t2gen_never_renders_is_no_leftover() -> None:
    job, _ = _load("wordcount.yaml")
    stray = _left(job, "ClusterRole", "rbac.authorization.k8s.io/v1", "x")
    found = job_status(job, [stray, _left(job, "ServiceAccount", "v1", "wordcount-jm")])
    assert found["leftovers"] == ["serviceaccounts/wordcount-jm"]
