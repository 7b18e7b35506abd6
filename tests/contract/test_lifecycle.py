"""The contract the supervisor (``spec.lifecycle.supervise``) relies on: what the job master deletes and when,
the ConfigMap keys and log lines it writes, and how a final state can be told from what the cluster shows.

Sources: DSC-SPIDAL/twister2 at c6844d2; ``K8S/`` =
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
``MASTER/`` = ``twister2/master/src/java/edu/iu/dsc/tws/master/server/``.

- The job master deletes, when the job ends (completed, failed or killed: ``MASTER/JobMaster.java:557-561`` ``endJob`` -> ``close()`` -> ``terminateJob``, ``:438-440``),
  the worker StatefulSets it finds by ``t2-job``, the Service ``<job>``, the claim
  ``<job>`` (kept for a failed job with checkpointing), the ConfigMap ``<job>``, the
  Service ``<job>-jm`` and its own StatefulSet ``<job>-jm``, in that order
  (``K8S/master/JobTerminator.java:36-88``): the ConfigMap's DELETED event is the end.
- It lists the ConfigMap by ``t2-job`` and refuses two (``K8S/KubernetesController.java:906-918``).
- ``KILL_JOB`` in the ConfigMap ends the job as KILLED (``K8S/master/JobKillWatcher.java:62-99``,
  set by ``twister2 kill``: ``K8S/KubernetesLauncher.java:641``).
- Restart counts are ``RESTART_COUNT_FOR_WORKER_<id>`` and ``RESTART_COUNT_FOR_JOB_MASTER``
  (``K8S/KubernetesUtils.java:171-181``, written by ``K8S/worker/K8sWorkerUtils.java:355-377``);
  a worker restarted ``twister2.fault.tolerance.max.worker.restarts`` (default 5) times is
  fully failed (``K8S/worker/K8sWorkerStarter.java:173-180``,
  ``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:30-31``).
- A fully failed worker makes the job master log ``Worker: <id> FULLY_FAILED.`` and
  ``The job is completing with failure.`` and end the job as FAILED (``MASTER/WorkerMonitor.java:367-379``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.contract import runtime as t2
from tests.contract.cases import all_cases, case
from tests.contract.helpers import cases_for, selects

_GROUPS = {
    "apps/v1": "apps",
    "v1": "",
    "rbac.authorization.k8s.io/v1": "rbac.authorization.k8s.io",
}


def _supervised() -> list[str]:
    return [
        c.name
        for c in all_cases()
        if not c.error and (c.spec.get("lifecycle") or {}).get("supervise") is True
    ]


def _ref(obj: dict[str, Any]) -> str:
    """``kubectl delete``'s ``TYPE/NAME`` of an object."""
    api_version = obj["apiVersion"]
    group = _GROUPS.get(api_version, api_version.rpartition("/")[0])
    kind = obj["kind"].lower()  # the API's plurals: podgroups, networkpolicies
    plural = kind[:-1] + "ies" if kind.endswith("y") else kind + "s"
    return (
        f"{plural}.{group}/{obj['metadata']['name']}"
        if group
        else f"{plural}/{obj['metadata']['name']}"
    )


def _env(c: Any) -> dict[str, str]:
    (job,) = [
        j for j in c.of_kind("Job") if j["metadata"]["name"] == f"{c.job}-supervisor"
    ]
    (container,) = job["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e["value"] for e in container["env"] if "value" in e}


def _terminator_deletes(c: Any) -> list[str]:
    """What ``JobTerminator.terminateJob`` deletes, in its order, but the claim."""
    workers = [
        f"statefulsets.apps/{s['metadata']['name']}" for s in c.worker_statefulsets
    ]
    return [
        *workers,
        f"services/{c.job}",
        f"configmaps/{c.job}",
        f"services/{c.job}-jm",
        f"statefulsets.apps/{c.job}-jm",
    ]


def test_there_are_supervised_cases() -> None:
    assert "job/supervised-openmpi-gang" in _supervised()
    assert "golden/supervised" in _supervised()


@pytest.mark.parametrize(
    "name", cases_for("supervisor-not-a-job-object", _supervised())
)
def test_supervisor_objects_are_not_the_jobs(name: str) -> None:
    """No object of the supervisor carries ``t2-job``: the runtime would take its ConfigMap for a second one of the job."""
    c = case(name)
    supervisor = [
        o for o in c.objects if o["metadata"]["name"] == f"{c.job}-supervisor"
    ]
    policy = {"NetworkPolicy"} if c.of_kind("NetworkPolicy") else set()
    assert {o["kind"] for o in supervisor} == {
        "ServiceAccount",
        "Role",
        "RoleBinding",
        "ConfigMap",
        "Job",
        *policy,
    }
    for obj in supervisor:
        assert not selects(
            t2.job_label_selector(c.job), obj["metadata"].get("labels") or {}
        ), obj["kind"]


@pytest.mark.parametrize(
    "name", cases_for("supervisor-cleans-leftovers", _supervised())
)
def test_supervisor_deletes_what_the_job_master_leaves(name: str) -> None:
    """The supervisor's clean-up is every object of the job the job master does not delete, but the claim.

    The per-job SSH Secret ``<job>-ssh`` of an OpenMPI job is not rendered (``t2gen
    secret ssh`` makes it) but is the job's, and left too.
    """
    c = case(name)
    job_objects = [
        _ref(o)
        for o in c.objects
        if selects(t2.job_label_selector(c.job), o["metadata"].get("labels") or {})
        and o["kind"] != "PersistentVolumeClaim"
    ]
    left = set(job_objects) - set(_terminator_deletes(c))
    if c.mpi and not (c.spec.get("mpi") or {}).get("sshSecretName"):
        left.add(f"secrets/{c.job}-ssh")
    assert set(_env(c)["T2_CLEANUP"].split()) == left


@pytest.mark.parametrize(
    "name", cases_for("supervisor-fallback-deletes", _supervised())
)
def test_supervisor_fallback_is_what_the_job_master_deletes(name: str) -> None:
    """Only when the job master does not answer a kill does the supervisor delete the job's objects: exactly the JobTerminator's, in its order."""
    c = case(name)
    assert _env(c)["T2_JOB_OBJECTS"].split() == _terminator_deletes(c)


@pytest.mark.parametrize(
    "name", cases_for("supervisor-reads-runtime-keys", _supervised())
)
def test_supervisor_reads_the_keys_and_lines_the_runtime_writes(name: str) -> None:
    """The script acts on the runtime's own ConfigMap keys and job master log lines."""
    c = case(name)
    (config_map,) = [
        o
        for o in c.of_kind("ConfigMap")
        if o["metadata"]["name"] == f"{c.job}-supervisor"
    ]
    script = config_map["data"]["supervise.sh"]
    assert (
        f'"path":"/data/{t2.KILL_JOB_KEY}"' in script
    )  # added as twister2 kill adds it
    assert t2.RESTART_KEY.pattern.startswith("RESTART_COUNT_FOR_")
    assert "RESTART_COUNT_FOR_WORKER_[0-9]{1,9}$" in script  # jq's pattern (STATE)
    assert "'Worker: [0-9]* FULLY_FAILED'" in script
    assert "'The job is completing with failure'" in script
    assert _env(c)["T2_MAX_RESTARTS"] == str(
        1  # an OpenMPI job's ranks: max.mpijob.restarts, MPIWorkerStarter.java:203-207
        if (c.spec.get("mpi") or {}).get("enabled")
        else (c.spec["lifecycle"]).get("maxWorkerRestarts", 5)
    )
