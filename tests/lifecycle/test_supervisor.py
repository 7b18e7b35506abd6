"""The supervisor end to end: the script and settings t2gen renders, run against a fake Kubernetes API.

Each test renders ``examples/supervised.yaml``, takes the script from the
supervisor's ConfigMap and the environment from its Job, and runs the script with
``/bin/sh`` and ``tests/lifecycle/fake_kubectl.py`` as ``kubectl`` on ``PATH``: the
fake replays a scripted life of the job (watch events of the job's ConfigMap, pods,
logs) and records every call. Asserted: the exit status, the termination message,
the log, the clean-up calls, and that every call the script made is one the
rendered Role allows (so the Role and the script cannot drift apart).

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

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from t2gen.pipeline.job import generate
from tests.conftest import ROOT

JOB = "wordcount-supervised"
NAMESPACE = "twister2"
RUN = "5b0c1e2a-run-1"
FAKE = Path(__file__).with_name("fake_kubectl.py")


def _objects() -> dict[tuple[str, str], dict[str, Any]]:
    documents = generate([str(ROOT / "examples" / "supervised.yaml")])
    return {(d.obj["kind"], d.obj["metadata"]["name"]): d.obj for d in documents}


OBJECTS = _objects()
SUPERVISOR = f"{JOB}-supervisor"
ROLE = OBJECTS["Role", SUPERVISOR]
SCRIPT = OBJECTS["ConfigMap", SUPERVISOR]["data"]["supervise.sh"]
CONTAINER = OBJECTS["Job", SUPERVISOR]["spec"]["template"]["spec"]["containers"][0]
RENDERED_ENV = {e["name"]: e["value"] for e in CONTAINER["env"] if "value" in e}
CLEANUP = RENDERED_ENV["T2_CLEANUP"].split()
JOB_OBJECTS = RENDERED_ENV["T2_JOB_OBJECTS"].split()

JM_LOG = "INFO: JobMaster started\nINFO: all workers joined\n"
WORKER_CRASH = "SEVERE: Uncaught exception in the thread main. Worker FAILED...\n"


class Run:
    """One run of the supervisor: its exit status, output, termination message and calls."""

    def __init__(self, directory: Path, result: subprocess.CompletedProcess[str]):
        self.code = result.returncode
        self.out = result.stdout + result.stderr
        message = directory / "termination-log"
        self.message = message.read_text() if message.exists() else ""
        self.calls = [
            json.loads(line)
            for line in (directory / "calls.jsonl").read_text().splitlines()
        ]
        deleted = directory / "deleted.json"
        self.deleted: list[str] = (
            json.loads(deleted.read_text()) if deleted.exists() else []
        )
        patches = directory / "patches.json"
        self.patches = json.loads(patches.read_text()) if patches.exists() else []
        self.unexpected = (directory / "unexpected").exists()


def _run(
    tmp_path: Path, scenario: dict[str, Any], shell: tuple[str, ...] = (), **env: str
) -> Run:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    kubectl = bin_dir / "kubectl"
    kubectl.write_text(f"#!{sys.executable}\n" + FAKE.read_text())
    kubectl.chmod(0o755)
    script = tmp_path / "supervise.sh"
    script.write_text(SCRIPT)
    (tmp_path / "scenario.json").write_text(
        json.dumps({"job": JOB, "namespace": NAMESPACE, **scenario})
    )
    settings = {
        **RENDERED_ENV,
        "T2_NAMESPACE": NAMESPACE,  # the downward API's metadata.namespace
        "T2_RUN": RUN,  # the downward API's batch.kubernetes.io/controller-uid label
        "T2_POLL": "0.3",
        "T2_TERMINATION_LOG": str(tmp_path / "termination-log"),
        "T2_WORK_DIR": str(tmp_path / "work"),
        "HOME": str(tmp_path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_KUBECTL_DIR": str(tmp_path),
        **env,
    }
    result = subprocess.run(
        [*(shell or (shutil.which("sh") or "/bin/sh",)), str(script)],
        env=settings,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    return Run(tmp_path, result)


def _requests(argv: list[str]) -> list[tuple[str, str, str, str | None]]:
    """The API requests of one kubectl call, as ``(verb, apiGroup, resource, name)``."""
    assert argv[:2] == ["--namespace", NAMESPACE], argv
    args = argv[2:]
    verb = args[0]
    if verb == "get" and args[1] == "configmap":
        found = [("get", "", "configmaps", args[2])]
        if (
            "--watch" in args
        ):  # cli-runtime Helper.WatchSingle: fieldSelector metadata.name
            found.append(("watch", "", "configmaps", args[2]))
        return found
    if verb == "get" and args[1] == "pod":
        return [("get", "", "pods", args[2])]
    if verb == "get" and args[1] == "pods":
        return [("list", "", "pods", None)]
    if verb == "logs":
        pod = next(
            a
            for a in args[1:]
            if not a.startswith("-") and a not in _option_values(args)
        )
        return [("get", "", "pods", pod), ("get", "", "pods/log", pod)]
    if verb == "patch":
        return [("patch", "", args[1] + "s", args[2])]
    if verb == "delete":
        found = []
        for arg in args[1:]:
            if arg.startswith("-"):
                continue
            kind, name = arg.split("/")
            resource, _, group = kind.partition(".")
            found.append(("delete", group, resource, name))
        return found
    raise AssertionError(f"a kubectl call the test does not know: {argv}")


def _option_values(args: list[str]) -> set[str]:
    return {
        args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-c", "-l", "-o", "-p")
    }


def _allowed(request: tuple[str, str, str, str | None]) -> bool:
    verb, group, resource, name = request
    for rule in ROLE["rules"]:
        names = rule.get("resourceNames")
        if (
            group in rule["apiGroups"]
            and resource in rule["resources"]
            and verb in rule["verbs"]
            and (names is None or name in names)
        ):
            return True
    return False


def _check_calls(run: Run) -> None:
    assert not run.unexpected, run.out
    for argv in run.calls:
        for request in _requests(argv):
            assert _allowed(request), f"the Role does not allow {request} ({argv})"


def _pods(**containers: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{JOB}-jm-0": {
            "phase": "Running",
            "log": JM_LOG,
            "log_at_end": "INFO: job ended\n",
        },
        f"{JOB}-0-0": {
            "containers": {"twister2-container-0": containers.get("c0", {})}
        },
        f"{JOB}-0-1": {
            "containers": {"twister2-container-1": containers.get("c1", {})}
        },
    }


START = {"JOB_ID": JOB}
COUNTS = {"RESTART_COUNT_FOR_JOB_MASTER": "0", "RESTART_COUNT_FOR_WORKER_0": "0"}


def test_completed(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"at": 0.5, "set": COUNTS}, {"at": 3.0, "end": True}],
            "pods": _pods(),
        },
    )
    assert run.code == 0, run.out
    assert run.message.startswith("Completed: the job completed"), run.message
    assert run.deleted == CLEANUP  # what the job master leaves, and nothing else
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR"]
    assert "INFO: all workers joined" in run.out  # the job master's log, kept
    _check_calls(run)


def test_worker_fully_failed(tmp_path: Path) -> None:
    failing = {"restarts_at": [1.0, 1.5], "previous_log": WORKER_CRASH}
    jm_end = (
        "SEVERE: Worker: 1 FULLY_FAILED.\nSEVERE: The job is completing with failure.\n"
    )
    pods = _pods(c1=failing)
    pods[f"{JOB}-jm-0"]["log_at_end"] = jm_end
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"at": 0.5, "set": COUNTS},
                {"at": 1.0, "set": {"RESTART_COUNT_FOR_WORKER_1": "1"}},
                {"at": 1.5, "set": {"RESTART_COUNT_FOR_WORKER_1": "2"}},
                {"at": 4.0, "end": True},
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
    _check_calls(run)


def test_worker_failed_at_twister2s_restart_limit(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"at": 0.5, "set": {"RESTART_COUNT_FOR_WORKER_0": "5"}},
                {"at": 2.5, "end": True},
            ],
            "pods": _pods(),
        },
        T2_BACKOFF_LIMIT="",
    )
    assert run.code == 1, run.out
    assert run.message.startswith(
        "WorkerFailed: worker 0 restarted 5 times, Twister2's limit (5)"
    ), run.message
    _check_calls(run)


def test_killed(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"at": 0.5, "set": COUNTS},
                {
                    "at": 1.5,
                    "set": {"KILL_JOB": "true"},
                },  # twister2 kill, or kubectl patch
                {"at": 2.5, "end": True},
            ],
            "pods": _pods(),
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
    _check_calls(run)


def test_deadline_passed(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"at": 0.5, "set": COUNTS}],
            "on_kill": {"after": 1.0},  # the job master's JobKillWatcher ends the job
            "pods": _pods(),
        },
        T2_DEADLINE="2",
    )
    assert run.code == 1, run.out
    assert run.message == (
        "DeadlineExceeded: the job ran longer than its deadline of 2 s (activeDeadlineSeconds); "
        "the job master ended the job\n"
    )
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR", "KILL_JOB"]
    assert run.deleted == CLEANUP  # the job master deleted the rest
    _check_calls(run)


def test_deadline_passed_and_the_job_master_does_not_answer(tmp_path: Path) -> None:
    pods = _pods()
    pods[f"{JOB}-jm-0"]["phase"] = (
        "Pending"  # e.g. unschedulable: nobody watches KILL_JOB
    )
    run = _run(
        tmp_path,
        {"configmap": START, "timeline": [], "pods": pods},
        T2_DEADLINE="1",
        T2_KILL_GRACE="1",
    )
    assert run.code == 1, run.out
    assert run.message.startswith("DeadlineExceeded: "), run.message
    assert "the supervisor deleted its objects" in run.message
    assert run.deleted == JOB_OBJECTS + CLEANUP
    _check_calls(run)


def test_backoff_limit_exceeded(tmp_path: Path) -> None:
    run = _run(
        tmp_path,
        {
            "configmap": START,
            "timeline": [
                {"at": 0.5, "set": COUNTS},
                {"at": 1.0, "set": {"RESTART_COUNT_FOR_WORKER_0": "3"}},
            ],
            "on_kill": {"after": 0.5},
            "pods": _pods(c0={"restarts_at": [1.0], "previous_log": WORKER_CRASH}),
        },
    )
    assert RENDERED_ENV["T2_BACKOFF_LIMIT"] == "2"
    assert run.code == 1, run.out
    assert run.message.startswith(
        "BackoffLimitExceeded: worker 0 restarted 3 times, more than the backoffLimit of 2"
    ), run.message
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR", "KILL_JOB"]
    _check_calls(run)


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
    run = _run(
        tmp_path,
        {"configmap": {**START, **leftover}, "timeline": [], "pods": _pods()},
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
    _check_calls(run)


def test_the_same_run_again_is_not_a_leftover(tmp_path: Path) -> None:
    """A supervisor pod started again for the same Job (same UID) carries on."""
    run = _run(
        tmp_path,
        {
            "configmap": {**START, "T2GEN_SUPERVISOR": RUN},
            "timeline": [{"at": 2.0, "end": True}],
            "pods": _pods(),
        },
    )
    assert run.code == 0, run.out
    assert run.patches == []
    _check_calls(run)


def test_no_config_map(tmp_path: Path) -> None:
    run = _run(tmp_path, {"configmap": None, "timeline": [], "pods": {}})
    assert run.code == 1
    assert run.message.startswith(
        f"ConfigMapMissing: ConfigMap {JOB} is not in namespace {NAMESPACE}"
    )
    assert run.deleted == []
    _check_calls(run)


def test_role_grants_nothing_the_script_does_not_call() -> None:
    """Every rule of the Role is used by some scenario's call (checked over the verbs the script has)."""
    granted = {
        (verb, group, resource)
        for rule in ROLE["rules"]
        for verb in rule["verbs"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    used = {
        ("get", "", "configmaps"),
        ("watch", "", "configmaps"),
        ("patch", "", "configmaps"),
        ("get", "", "pods"),
        ("list", "", "pods"),
        ("get", "", "pods/log"),
        *(("delete", *_group_resource(ref)) for ref in CLEANUP + JOB_OBJECTS),
    }
    assert granted == used
    assert all(
        "resourceNames" in rule for rule in ROLE["rules"] if rule["verbs"] != ["list"]
    )


def _group_resource(ref: str) -> tuple[str, str]:
    kind = ref.split("/")[0]
    resource, _, group = kind.partition(".")
    return group, resource
