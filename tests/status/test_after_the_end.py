"""``status`` after the supervisor's TTL, before apply, and an OpenMPI job's containers (issue 40, item 8)."""

from __future__ import annotations

from typing import Any

from t2gen.status.fetch import fetched_kinds
from t2gen.status.phase import job_status
from t2gen.status.text import status_text
from tests.status.test_leftovers import _left, _load


def _supervisors(job: Any, kind: str, api_version: str) -> dict[str, Any]:
    obj = _left(job, kind, api_version, f"{job.name}-supervisor")
    labels = obj["metadata"]["labels"]
    del labels["t2-job"]
    labels["t2-supervisor"] = job.name
    return obj


def test_after_the_supervisors_ttl_its_own_objects_are_left_over() -> None:
    """The TTL deletes the Job and its pod; its ConfigMap, ServiceAccount, Role and RoleBinding stay."""
    job, rendered = _load("supervised.yaml")
    left = [
        _supervisors(job, "ConfigMap", "v1"),
        _supervisors(job, "ServiceAccount", "v1"),
        _supervisors(job, "Role", "rbac.authorization.k8s.io/v1"),
        _supervisors(job, "RoleBinding", "rbac.authorization.k8s.io/v1"),
    ]
    found = job_status(job, left, fetched_kinds(job, rendered))
    assert found["phase"] == "Ended"
    assert "supervisor Job is gone" in found["reason"]
    assert len(found["leftovers"]) == 4
    assert all(ref.endswith(f"/{job.name}-supervisor") for ref in found["leftovers"])


def test_a_supervised_job_before_apply_is_not_advised_to_be_supervised() -> None:
    job, rendered = _load("supervised.yaml")
    text = status_text(job_status(job, [], fetched_kinds(job, rendered)))
    assert "NotFound" in text
    assert "spec.lifecycle.supervise renders one" not in text
    assert "supervisor: none found (not applied yet" in text


def _pod(job: Any, name: str) -> dict[str, Any]:
    pod = _left(job, "Pod", "v1", name)
    pod["status"] = {"phase": "Running", "containerStatuses": []}
    return pod


def test_an_openmpi_job_counts_its_containers_not_its_ranks() -> None:
    """examples/openmpi.yaml: more ranks than containers; one container a pod and the job master's."""
    job, rendered = _load("openmpi.yaml")
    running = [_left(job, "ConfigMap", "v1", job.name)]
    found = job_status(job, running, fetched_kinds(job, rendered))
    containers = {(w["pod"], w["container"]) for w in found["workers"]}
    assert len(found["workers"]) > len(containers)  # ranks share a container
    total = len(containers) + 1  # and the job master's
    assert total == 5  # 4 pods of one container, 16 ranks: it counted 17
    assert found["reason"] == f"{total} of {total} containers are not running yet"


def test_between_the_job_masters_clean_up_and_the_supervisors_verdict_the_job_is_ending() -> (
    None
):
    """The workloads are gone but the supervisor Job runs on: not an end yet (issue 42, item 7).

    Seen on the real control plane (tests/kubeapi/test_waiting.py): ``t2gen
    wait`` read this moment as ``Ended`` ("no supervisor kept the outcome")
    and exited 4 for a job whose supervisor recorded ``Completed`` a moment later.
    """
    job, rendered = _load("supervised.yaml")
    supervisor = _supervisors(job, "Job", "batch/v1")
    supervisor["status"] = {"active": 1}  # its pod runs: no condition yet
    left = [supervisor, _left(job, "ServiceAccount", "v1", f"{job.name}-worker")]
    found = job_status(job, left, fetched_kinds(job, rendered))
    assert found["phase"] == "Ending", found
    assert found["reason"].startswith("the job master ended the job")
    assert found["leftovers"] == []  # not judged before the end
