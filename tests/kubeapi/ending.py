"""What every scenario of the real-server tier waits for and checks: the supervisor's end, the clean-up, the status.

Shared by :mod:`tests.kubeapi.test_lifecycle` (how a job ends) and
:mod:`tests.kubeapi.test_interruptions` (runs that start or stop otherwise).
Twister2 sources: DSC-SPIDAL/twister2 ``c6844d2``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
``MASTER/`` is ``twister2/master/src/java/edu/iu/dsc/tws/master/server/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.helpers import run_console
from tests.kubeapi.container import Supervisor
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import Kubelet, until
from tests.kubeapi.scenario import Scenario, job_file

RBAC = ("serviceaccounts", "roles", "rolebindings")
CRASH = "SEVERE: Uncaught exception in the thread main. Worker FAILED...\n"
FULLY_FAILED = (
    "SEVERE: Worker: {id} FULLY_FAILED.\nSEVERE: The job is completing with failure.\n"
)
SUPERVISED = "wordcount-supervised"


def rbac(job: str, *roles: str) -> set[str]:
    kinds = ("ServiceAccount", "Role", "RoleBinding")
    return {f"{kind}/{job}-{role}" for role in roles for kind in kinds}


def end(job: Scenario, kubelet: Kubelet, code: int, message: str) -> Supervisor:
    """Wait for the supervisor's exit; check its status, message and the API calls of the run."""
    supervisor = kubelet.supervisor()
    assert supervisor.done.wait(120), "the supervisor did not end"
    assert supervisor.exit_code == code, supervisor.output
    assert supervisor.message.startswith(message), supervisor.message
    if job.job_master is not None:
        assert not job.job_master.failures, job.job_master.failures
    assert not (refused := job.refused()), refused
    return supervisor


def cleaned_up(job: Scenario) -> None:
    """The job master deleted its objects, the supervisor the RBAC it leaves; the supervisor's own stay."""
    left = job.names(*RBAC, "configmaps", "statefulsets", "services")
    assert left & rbac(job.job, "worker", "jm") == set()
    assert f"ConfigMap/{job.job}" not in left
    assert {f"StatefulSet/{job.job}-0", f"StatefulSet/{job.job}-jm"} & left == set()
    assert rbac(job.job, "supervisor") | {f"ConfigMap/{job.job}-supervisor"} <= left


def finished(job: Scenario) -> str:
    """The supervisor Job's ``Complete`` or ``Failed`` condition, once the Job controller set it ("" before)."""
    for found in job.objects("jobs"):
        for condition in (found.get("status") or {}).get("conditions") or []:
            if (
                condition["type"] in ("Complete", "Failed")
                and condition["status"] == "True"
            ):
                return str(condition["type"])
    return ""


def phase(job: Scenario, phase: str) -> dict[str, Any]:
    """``t2gen status`` once the Job controller recorded the supervisor's end; its phase must be ``phase``."""
    until(lambda: finished(job), "the Job controller to record the supervisor's end")
    status = job.status()
    assert status["phase"] == phase, status
    return status


def scenario(
    cluster: ControlPlane,
    kubelet: Kubelet,
    tmp_path: Path,
    source: str = "supervised",
    **lifecycle: Any,
) -> Scenario:
    return Scenario(
        cluster, kubelet, job_file(source, kubelet.namespace, **lifecycle), tmp_path
    )


def crash(
    job: Scenario, kubelet: Kubelet, pod: str, container: str, worker_id: int
) -> int:
    """A worker throws and its container restarts: the kubelet's count grows, and the new JVM writes Twister2's."""
    kubelet.logs.log(job.namespace, pod, container).write(CRASH)
    kubelet.restart(pod, container)
    return job.worker(kubelet.pod(pod)).start(worker_id)


def kept_previous_log(
    kubelet: Kubelet, job: Scenario, pod: str, container: str
) -> None:
    wanted = f"/containerLogs/{job.namespace}/{pod}/{container}?previous=true"
    until(
        lambda: any(r.startswith(wanted) for r in kubelet.logs.requests),
        "the supervisor to keep the previous log",
    )


def openmpi(cluster: ControlPlane, kubelet: Kubelet, tmp_path: Path) -> Scenario:
    """``examples/openmpi.yaml`` supervised, with its SSH Secret (``t2gen secret ssh --job``), applied and started."""
    job = scenario(cluster, kubelet, tmp_path, "openmpi", supervise=True)

    secret = run_console(["secret", "ssh", "--job", str(job.path)])
    assert secret.exit_code == 0, secret.stderr
    cluster.kubectl("apply", "--server-side", "-f", "-", input_text=secret.stdout)
    job.apply()
    job.start_runtime()
    return job


def report_calls(job: Scenario) -> None:
    """The API calls of each ServiceAccount of the run (the audit log); fails on any refused."""
    print(f"API calls of {job.namespace}: {dict(job.calls())}")
    assert not (refused := job.refused()), refused


def supervised_run(
    cluster: ControlPlane, kubelet: Kubelet, tmp_path: Path, **lifecycle: Any
) -> Scenario:
    """:func:`scenario`, applied, its runtime started and its supervisor following it."""
    job = scenario(cluster, kubelet, tmp_path, **lifecycle)
    job.apply()
    job.start_runtime()
    job.supervising()
    return job


def kill(job: Scenario) -> None:
    """``twister2 kill`` as the user: ``KILL_JOB`` into the job's ConfigMap (``K8S/KubernetesLauncher.java:641``)."""
    job.admin.request(
        "PATCH",
        f"/api/v1/namespaces/{job.namespace}/configmaps/{job.job}",
        '[{"op":"add","path":"/data/KILL_JOB","value":"true"}]',
        content_type="application/json-patch+json",
    )


def completes(job: Scenario, kubelet: Kubelet) -> None:
    """The job master ends the job as COMPLETED: Completed, cleaned up, Succeeded, no call refused."""
    assert job.job_master is not None
    job.job_master.terminate("COMPLETED")
    end(job, kubelet, 0, "Completed: the job completed")
    cleaned_up(job)
    phase(job, "Succeeded")
    report_calls(job)
