"""The supervised job's life end to end on the real control plane (issue 40, item 2).

``examples/supervised.yaml`` (and variants) rendered by t2gen and applied with
``kubectl apply --server-side``; the real StatefulSet, Job, garbage-collector
and TTL controllers and the scheduler act; the played kubelet runs the pods
and the rendered supervisor script (a local process with a token of its own
ServiceAccount, so its every call meets the Role t2gen renders); the test plays
the Twister2 runtime with each pod's own token (:mod:`tests.kubeapi.runtime`).
Each step waits for an event (an object's state, the audit log, a log
follower), never for time. Every scenario ends with the API calls of each
ServiceAccount counted from the audit log, none refused.

Twister2 sources (DSC-SPIDAL/twister2 ``c6844d2``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
``MASTER/`` is ``twister2/master/src/java/edu/iu/dsc/tws/master/server/``): a
worker that throws at restart count ``max.worker.restarts - 1`` (4) reports
FULLY_FAILED (``K8S/worker/K8sWorkerStarter.java:185-199``), an OpenMPI rank at
``max.mpijob.restarts - 1`` (0: ``K8S/mpi/MPIWorkerStarter.java:209-222``); the
job master then logs ``Worker: <id> FULLY_FAILED.`` and ``The job is completing
with failure.`` and ends the job as FAILED (``MASTER/WorkerMonitor.java:367-380``).
"""

from __future__ import annotations

from pathlib import Path

from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.ending import (
    CRASH,
    FULLY_FAILED,
    SUPERVISED,
    cleaned_up,
    crash,
    end,
    kept_previous_log,
    kill,
    openmpi,
    phase,
    report_calls,
    scenario,
    supervised_run,
)
from tests.kubeapi.kubelet import Kubelet, until


def test_completed(controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path) -> None:
    """The job completes: Completed, exit 0, the RBAC deleted; Argo CD's hook annotations were accepted."""
    job = scenario(controllers, kubelet, tmp_path)
    job.apply()
    assert job.status()["phase"] in ("Pending", "Running")
    job.start_runtime()
    job.supervising()
    assert job.status()["phase"] == "Running"
    hooked = [
        o
        for o in job.objects("statefulsets")
        if "argocd.argoproj.io/hook" in o["metadata"].get("annotations", {})
    ]
    assert (
        len(hooked) == 2
    )  # argoCDHooks: the Twister2 objects are Sync hooks (docs/gitops.md)
    (supervisor_job,) = job.objects("jobs")
    assert (
        "argocd.argoproj.io/sync-options" in supervisor_job["metadata"]["annotations"]
    )
    assert job.job_master is not None
    job.job_master.terminate("COMPLETED")
    end(job, kubelet, 0, "Completed: the job completed")
    cleaned_up(job)
    assert phase(job, "Succeeded")["reason"].startswith("Completed: ")
    report_calls(job)


def test_backoff_limit_exceeded(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """A worker restarts a third time past backoffLimit 2: the supervisor kills the job (KILL_JOB)."""
    job = supervised_run(controllers, kubelet, tmp_path)
    pod, container = f"{SUPERVISED}-0-0", "twister2-container-0"
    assert crash(job, kubelet, pod, container, 0) == 1
    kept_previous_log(kubelet, job, pod, container)
    assert job.status()["phase"] == "Restarting"
    assert [crash(job, kubelet, pod, container, 0) for _ in range(2)] == [2, 3]
    supervisor = end(
        job,
        kubelet,
        1,
        "BackoffLimitExceeded: worker 0 restarted 3 times, more than the backoffLimit of 2; the job master ended the job",
    )
    assert job.job_master is not None and job.job_master.final_state == "KILLED"
    assert CRASH.strip() in supervisor.output  # the restarted worker's previous log
    cleaned_up(job)
    phase(job, "Failed")
    report_calls(job)


def test_worker_fully_failed(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """No backoffLimit: Twister2's own limit fails the worker, and the job master the job; WorkerFailed."""
    job = supervised_run(controllers, kubelet, tmp_path, backoffLimit=None)
    pod, container = f"{SUPERVISED}-0-0", "twister2-container-1"
    assert [crash(job, kubelet, pod, container, 1) for _ in range(4)] == [1, 2, 3, 4]
    kept_previous_log(kubelet, job, pod, container)
    # at restart count 4 its exception reports FULLY_FAILED (K8sWorkerStarter.java:191)
    job.job_master_log(FULLY_FAILED.format(id=1))
    assert job.job_master is not None
    job.job_master.terminate("FAILED")
    supervisor = end(
        job,
        kubelet,
        1,
        "WorkerFailed: worker 1 fully failed, so the job failed (the job master's log)",
    )
    assert "The job is completing with failure." in supervisor.output
    cleaned_up(job)
    assert phase(job, "Failed")["reason"].startswith("WorkerFailed: ")
    report_calls(job)


def test_deadline_exceeded(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """Past activeDeadlineSeconds the supervisor kills the job; the job master's kill watch ends it."""
    job = scenario(controllers, kubelet, tmp_path, activeDeadlineSeconds=1)
    job.apply()
    job.start_runtime()
    until(
        lambda: "KILL_JOB" in (job.config_map() or {"KILL_JOB": ""}),
        "the supervisor's KILL_JOB",
    )
    end(
        job,
        kubelet,
        1,
        "DeadlineExceeded: the job ran longer than its deadline of 1 s (activeDeadlineSeconds); the job master ended the job",
    )
    assert job.job_master is not None and job.job_master.final_state == "KILLED"
    cleaned_up(job)
    phase(job, "Failed")
    report_calls(job)


def test_killed_by_the_user(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """``twister2 kill`` (KILL_JOB, K8S/KubernetesLauncher.java:641) as the user: Killed."""
    job = supervised_run(controllers, kubelet, tmp_path)
    kill(job)
    end(job, kubelet, 1, "Killed: the job was killed (KILL_JOB was set")
    cleaned_up(job)
    phase(job, "Failed")
    report_calls(job)


def test_openmpi_worker_fully_failed(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    """An OpenMPI rank throws: at max.mpijob.restarts 1 it is FULLY_FAILED at once; WorkerFailed, the SSH Secret deleted."""
    job = openmpi(controllers, kubelet, tmp_path)
    job.supervising()
    job.job_master_log(FULLY_FAILED.format(id=5))
    assert job.job_master is not None
    job.job_master.terminate("FAILED")
    end(
        job,
        kubelet,
        1,
        "WorkerFailed: worker 5 fully failed, so the job failed (the job master's log)",
    )
    assert "Secret/openmpi-ssh" not in job.names("secrets")
    assert phase(job, "Failed")["reason"].startswith("WorkerFailed: ")
    report_calls(job)


def test_openmpi_status_counts_containers(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    job = openmpi(controllers, kubelet, tmp_path)
    containers = sum(len(p["spec"]["containers"]) for p in job.pods())
    assert containers == 5
    status = job.status()
    assert status["reason"] == f"all {containers} containers are running", status
