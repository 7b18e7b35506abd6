"""The supervisor end to end: the script and settings t2gen renders, run against a fake Kubernetes API.

Each test renders ``examples/supervised.yaml``, takes the script from the
supervisor's ConfigMap and the environment from its Job, and runs the script with
``/bin/sh`` and ``tests/lifecycle/fake_kubectl.py`` as ``kubectl`` on ``PATH``: the
fake replays a scripted life of the job (watch events of the job's ConfigMap, pods,
logs) and records every call. Asserted: the exit status, the termination message,
the log, the clean-up calls, and that every call the script made is one the
rendered Role allows (so the Role and the script cannot drift apart).

The life moves on the script's own calls, not on time (issue 40, item 6): a
step at poll N is what the script sees from its N-th poll on (its ``kubectl get
pods -l``, once per turn of its loop), so no scenario depends on how fast the
machine runs it. ``tests/kubeapi/test_lifecycle.py`` runs the same script
against a real API server.

What each scenario stands for, in the Twister2 runtime (``K8S/`` =
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``):
the job master deletes the ConfigMap when the job ends
(``K8S/master/JobTerminator.java:67-68``); ``KILL_JOB`` is how ``twister2 kill``
ends a job (``K8S/KubernetesLauncher.java:641``, ``K8S/master/JobKillWatcher.java:62-99``);
a worker restarted ``twister2.fault.tolerance.max.worker.restarts`` times is fully
failed (``K8S/worker/K8sWorkerStarter.java:173-180``) and the job master logs it and
fails the job (``twister2/master/src/java/edu/iu/dsc/tws/master/server/WorkerMonitor.java:367-379``).
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.lifecycle.calls import supervisor_calls, supervisor_env
from tests.lifecycle.harness import (
    CLEANUP,
    COUNTS,
    JOB,
    JOB_OBJECTS,
    NAMESPACE,
    OBJECTS,
    RENDERED_ENV,
    ROLE,
    RUN,
    START,
    WORKER_CRASH,
    check_calls,
    finish_supervising,
    job_pods,
    start_supervising,
    supervise,
)


def test_completed(tmp_path: Path) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"poll": 1, "set": COUNTS}, {"poll": 4, "end": True}],
            "pods": job_pods(),
        },
    )
    assert run.code == 0, run.out
    assert run.message.startswith("Completed: the job completed"), run.message
    assert run.deleted == CLEANUP  # what the job master leaves, and nothing else
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR"]
    assert "INFO: all workers joined" in run.out  # the job master's log, kept
    check_calls(run)


def test_worker_fully_failed(tmp_path: Path) -> None:
    failing = {"restarts_at": [2, 3], "previous_log": WORKER_CRASH}
    jm_end = (
        "SEVERE: Worker: 1 FULLY_FAILED.\nSEVERE: The job is completing with failure.\n"
    )
    pods = job_pods(c1=failing)
    pods[f"{JOB}-jm-0"]["log_at_end"] = jm_end
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"poll": 1, "set": COUNTS},
                {"poll": 2, "set": {"RESTART_COUNT_FOR_WORKER_1": "1"}},
                {"poll": 3, "set": {"RESTART_COUNT_FOR_WORKER_1": "2"}},
                {"poll": 6, "end": True},
            ],
            "pods": pods,
        },
    )
    assert run.code == 1, run.out
    assert run.message == (
        "WorkerFailed: worker 1 fully failed, so the job failed (the job master's log)\n"
    )
    assert f"{JOB}-0-1/twister2-container-1 restarted (2)" in run.out
    assert WORKER_CRASH.strip() in run.out  # the failed worker's previous log, kept
    assert "The job is completing with failure." in run.out
    assert run.deleted == CLEANUP
    check_calls(run)


def test_worker_failed_at_twister2s_restart_limit(tmp_path: Path) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"poll": 1, "set": {"RESTART_COUNT_FOR_WORKER_0": "5"}},
                {"poll": 3, "end": True},
            ],
            "pods": job_pods(),
        },
        T2_BACKOFF_LIMIT="",
    )
    assert run.code == 1, run.out
    assert run.message.startswith(
        "WorkerFailed: worker 0 restarted 5 times, Twister2's limit (5)"
    ), run.message
    check_calls(run)


def test_killed(tmp_path: Path) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"poll": 1, "set": COUNTS},
                {
                    "poll": 2,
                    "set": {"KILL_JOB": "true"},
                },  # twister2 kill, or kubectl patch
                {"poll": 3, "end": True},
            ],
            "pods": job_pods(),
        },
    )
    assert run.code == 1, run.out
    assert run.message.startswith("Killed: the job was killed (KILL_JOB was set"), (
        run.message
    )
    assert run.deleted == CLEANUP
    assert [p["key"] for p in run.patches] == [
        "T2GEN_SUPERVISOR"
    ]  # not killed by the supervisor
    check_calls(run)


def test_deadline_passed(tmp_path: Path) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"poll": 1, "set": COUNTS}],
            "on_kill": {"polls": 1},  # the job master's JobKillWatcher ends the job
            "pods": job_pods(),
        },
        T2_DEADLINE="1",
    )
    assert run.code == 1, run.out
    assert run.message == (
        "DeadlineExceeded: the job ran longer than its deadline of 1 s (activeDeadlineSeconds); "
        "the job master ended the job\n"
    )
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR", "KILL_JOB"]
    assert run.deleted == CLEANUP  # the job master deleted the rest
    check_calls(run)


def test_deadline_passed_and_the_job_master_does_not_answer(tmp_path: Path) -> None:
    pods = job_pods()
    pods[f"{JOB}-jm-0"]["phase"] = (
        "Pending"  # e.g. unschedulable: nobody watches KILL_JOB
    )
    run = supervise(
        tmp_path,
        {"configmap": START, "timeline": [], "pods": pods},
        T2_DEADLINE="1",
        T2_KILL_GRACE="1",
    )
    assert run.code == 1, run.out
    assert run.message.startswith("DeadlineExceeded: "), run.message
    assert "the supervisor deleted its objects" in run.message
    assert run.deleted == JOB_OBJECTS + CLEANUP
    check_calls(run)


def test_backoff_limit_exceeded(tmp_path: Path) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"poll": 1, "set": COUNTS},
                {"poll": 2, "set": {"RESTART_COUNT_FOR_WORKER_0": "3"}},
            ],
            "on_kill": {"polls": 1},
            "pods": job_pods(c0={"restarts_at": [2], "previous_log": WORKER_CRASH}),
        },
    )
    assert RENDERED_ENV["T2_BACKOFF_LIMIT"] == "2"
    assert run.code == 1, run.out
    assert run.message.startswith(
        "BackoffLimitExceeded: worker 0 restarted 3 times, more than the backoffLimit of 2"
    ), run.message
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR", "KILL_JOB"]
    check_calls(run)


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
    tmp_path: Path, leftover: dict[str, str], says: str
) -> None:
    run = supervise(
        tmp_path,
        {"configmap": {**START, **leftover}, "timeline": [], "pods": job_pods()},
    )
    assert run.code == 1, run.out
    assert run.message.startswith("Leftovers: "), run.message
    assert says in run.message
    assert (
        f"kubectl delete statefulsets,services,configmaps -n {NAMESPACE} -l t2-job={JOB}"
        in run.message
    )
    assert run.deleted == []  # refuses: touches nothing of what may be a running job
    assert run.patches == []
    check_calls(run)


def test_the_same_run_again_is_not_a_leftover(tmp_path: Path) -> None:
    """A supervisor pod started again for the same Job (same UID) carries on."""
    run = supervise(
        tmp_path,
        {
            "configmap": {**START, "T2GEN_SUPERVISOR": RUN},
            "timeline": [{"poll": 2, "end": True}],
            "pods": job_pods(),
        },
    )
    assert run.code == 0, run.out
    assert run.patches == []
    check_calls(run)


def test_no_config_map(tmp_path: Path) -> None:
    run = supervise(tmp_path, {"configmap": None, "timeline": [], "pods": {}})
    assert run.code == 1
    assert run.message.startswith(
        f"ConfigMapMissing: ConfigMap {JOB} is not in namespace {NAMESPACE}"
    )
    assert run.deleted == []
    check_calls(run)


def test_stopped_before_the_end_deletes_nothing(tmp_path: Path) -> None:
    """SIGTERM (the supervisor Job deleted, its pod evicted) while the job runs: nothing is deleted (issue 40, item 7).

    The pods' tokens are bound to the job's ServiceAccounts; ``tests/kubeapi/``
    shows on a real API server that the job's calls still succeed afterwards.
    """
    process = start_supervising(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"poll": 1, "set": COUNTS}],
            "pods": job_pods(),
        },
    )
    calls = tmp_path / "calls.jsonl"
    while not (calls.exists() and calls.read_text().count('"get", "pods"') >= 2):
        # the event: the script's second poll, however long it takes to come
        assert process.poll() is None, process.communicate()
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)  # to the script, as the kubelet signals PID 1
    run = finish_supervising(tmp_path, process)
    assert run.code == 1, run.out
    assert run.message.startswith("Terminated: the supervisor was stopped"), run.message
    assert "it deleted nothing" in run.message
    assert run.deleted == []
    check_calls(run)


def test_a_namespace_other_than_the_packages_is_refused_before_any_call(
    tmp_path: Path,
) -> None:
    """Issue 42, item 5: applied to another namespace (kustomize's ``namespace:``, Helm,
    Argo CD's destination), the pods would fail "Could not get ConfigMap"; the
    supervisor says so at its start, from its own namespace (the downward API)."""
    assert RENDERED_ENV["T2_PACKAGE_NAMESPACE"] == NAMESPACE  # the job file's
    (tmp_path / "calls.jsonl").write_text("")  # the fake writes it at its first call
    scenario = {"timeline": [{"type": "ADDED"}], "pods": {}}
    run = supervise(tmp_path, scenario, T2_NAMESPACE="analytics")
    assert run.code == 1, run.out
    assert run.message == (
        "NamespaceMismatch: the job was applied to namespace analytics, but its package "
        f'runs in namespace {NAMESPACE}: every Twister2 pod would fail "Could not get '
        f'ConfigMap from K8s master: {JOB}"; render and package it with -n analytics, '
        f"or apply it to {NAMESPACE}\n"
    )
    assert run.calls == [] and run.deleted == [] and run.patches == []
    assert "NamespaceMismatch" in run.out


def test_role_grants_nothing_the_script_does_not_call() -> None:
    """Every rule of the Role is used by a call of the script (:func:`tests.lifecycle.calls.supervisor_calls`)."""
    granted = {
        (verb, group, resource)
        for rule in ROLE["rules"]
        for verb in rule["verbs"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    used = {
        (call.verb, call.group, call.resource)
        for call in supervisor_calls(supervisor_env(list(OBJECTS.values())))
    }
    assert granted == used
    assert all(
        "resourceNames" in rule for rule in ROLE["rules"] if rule["verbs"] != ["list"]
    )
