"""Runs that start or stop otherwise, on the real control plane (issue 40, items 2 and 7).

An earlier run's leftovers, a job created suspended, a worker pod deleted
under a running job, the supervisor stopped before the end (item 7: it must
delete nothing), and the TTL controller deleting the finished supervisor.
Set up as :mod:`tests.kubeapi.test_lifecycle` describes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.ending import (
    RBAC,
    SUPERVISED,
    cleaned_up,
    completes,
    end,
    phase,
    rbac,
    report_calls,
    scenario,
    supervised_run,
)
from tests.kubeapi.kubelet import Kubelet, until
from tests.kubeapi.scenario import Scenario, job_file


@pytest.mark.parametrize(
    ("leftover", "says"),
    [
        (
            {"KILL_JOB": "true", "RESTART_COUNT_FOR_WORKER_0": "2"},
            "already holds KILL_JOB",
        ),
        (
            {"T2GEN_SUPERVISOR": "an-earlier-run", "RESTART_COUNT_FOR_WORKER_0": "4"},
            "belongs to an earlier run",
        ),
    ],
)
def test_leftovers_of_an_earlier_run(
    controllers: ControlPlane,
    kubelet: Kubelet,
    tmp_path: Path,
    leftover: dict[str, str],
    says: str,
) -> None:
    """An earlier run's ConfigMap: the supervisor refuses, changes nothing and deletes nothing."""
    job = scenario(controllers, kubelet, tmp_path)
    rendered = [
        o
        for o in job.render_objects()
        if o["kind"] == "ConfigMap" and o["metadata"]["name"] == job.job
    ]
    earlier = {**rendered[0], "data": {**rendered[0]["data"], **leftover}}
    job.admin.request("POST", f"/api/v1/namespaces/{job.namespace}/configmaps", earlier)
    job.apply()
    end(job, kubelet, 1, "Leftovers: ")
    supervisor = kubelet.supervisor()
    assert says in supervisor.message
    assert (
        f"kubectl delete statefulsets,services,configmaps -n {job.namespace} -l t2-job={job.job}"
        in supervisor.message
    )
    assert job.config_map() == earlier["data"]  # not marked, not killed
    assert rbac(job.job, "worker", "jm", "supervisor") <= job.names(*RBAC)
    assert phase(job, "Failed")["reason"].startswith("Leftovers: ")
    report_calls(job)


def test_suspended_before_the_start(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """``suspend: true``: no pod at all, status Suspended; ``false`` and apply again: the job runs."""
    job = scenario(controllers, kubelet, tmp_path, suspend=True)
    job.apply()
    until(
        lambda: any(
            c["type"] == "Suspended" and c["status"] == "True"
            for c in job.objects("jobs")[0].get("status", {}).get("conditions", [])
        ),
        "the Job's Suspended condition",
    )
    assert [s["spec"]["replicas"] for s in job.objects("statefulsets")] == [0, 0]
    assert job.objects("pods") == []
    assert job.status()["phase"] == "Suspended"
    job.write(job_file("supervised", job.namespace, suspend=False))
    job.apply()
    job.start_runtime()
    job.supervising()
    completes(job, kubelet)


def test_worker_pod_deleted(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """A running job's worker pod is deleted: the StatefulSet makes it again, its workers start as restarted ones."""
    job = supervised_run(controllers, kubelet, tmp_path)
    pod = f"{SUPERVISED}-0-1"
    old = kubelet.pod(pod)["metadata"]["uid"]
    controllers.kubectl("delete", "pod", pod, "-n", job.namespace)
    until(
        lambda: kubelet.running(pod) and kubelet.pod(pod)["metadata"]["uid"] != old,
        f"a new {pod} to run",
    )
    new = kubelet.pod(pod)
    assert [
        job.worker(new).start(worker_id) for _, worker_id in job.worker_ids(new)
    ] == [1, 1]
    assert job.status()["phase"] == "Running"
    completes(job, kubelet)


def test_stopped_supervisor_deletes_nothing(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """Issue 40, item 7: deleting the supervisor Job mid-run (SIGTERM to its script) deletes nothing.

    Every pod's token is bound to its ServiceAccount's UID: had the supervisor
    deleted the ServiceAccounts, every call of the job would fail 401 from then
    on. The job master still ends the job; ``t2gen status`` then lists what is left.
    """
    job = supervised_run(controllers, kubelet, tmp_path)
    controllers.kubectl(
        "delete", "job", f"{job.job}-supervisor", "-n", job.namespace, "--wait=false"
    )
    end(job, kubelet, 1, "Terminated: ")
    assert rbac(job.job, "worker", "jm") <= job.names(*RBAC)
    worker = job.worker(kubelet.pod(f"{SUPERVISED}-0-0"))
    assert (
        worker.config_map_data()["JOB_ID"] == job.job
    )  # the worker's token still works
    assert job.job_master is not None
    job.job_master.terminate("COMPLETED")
    assert not job.job_master.failures
    until(
        lambda: not job.objects("statefulsets") and job.config_map() is None,
        "the job master's objects to be gone",
    )
    status = job.status()
    assert status["phase"] == "Ended", status
    assert {
        f"serviceaccounts/{job.job}-worker",
        f"serviceaccounts/{job.job}-jm",
    } <= set(status["leftovers"])
    report_calls(job)


def completed_then_ttl(
    cluster: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> Scenario:
    job = scenario(
        cluster, kubelet, tmp_path, ttlSecondsAfterFinished=0, argoCDHooks=False
    )
    job.apply()
    job.start_runtime()
    job.supervising()
    assert job.job_master is not None
    job.job_master.terminate("COMPLETED")
    end(job, kubelet, 0, "Completed: the job completed")
    until(
        lambda: not job.objects("jobs") and not job.objects("pods"),
        "the TTL controller to delete the supervisor Job and its pod",
    )
    return job


def test_ttl_deletes_the_supervisor(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """``ttlSecondsAfterFinished: 0``: the TTL controller deletes the finished Job and its pod, nothing else."""
    job = completed_then_ttl(controllers, kubelet, tmp_path)
    cleaned_up(job)
    report_calls(job)


def test_status_after_the_ttl(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    job = completed_then_ttl(controllers, kubelet, tmp_path)
    status = job.status()
    assert status["phase"] != "NotFound", status
    assert f"serviceaccounts/{job.job}-supervisor" in status["leftovers"]
