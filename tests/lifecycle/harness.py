"""The fake-kubectl harness of the supervisor's tests: the rendered script, its settings, a run and its calls.

``tests/lifecycle/test_supervisor.py`` runs the script rendered for
``examples/supervised.yaml`` with :func:`supervise` against ``fake_kubectl.py``;
:class:`Run` is what a run left (exit status, output, termination message, the
fake's record of calls, patches and deletions), :func:`check_calls` asserts
that every call is one the rendered Role allows.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

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


def start_supervising(
    tmp_path: Path, scenario: dict[str, Any], shell: tuple[str, ...] = (), **env: str
) -> subprocess.Popen[str]:
    """Start the script against the fake kubectl, in a process group of its own (the container).

    ``shell`` runs it (``("dash",)``, ``("busybox", "sh")``); by default ``sh``.
    The working directory is ``tmp_path``, where a glob the script expanded by
    mistake, or a ``touch PWNED`` it ran, would show.
    """
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
        "T2_POLL": "0.02",  # how long each turn waits: the speed, never the outcome
        "T2_TERMINATION_LOG": str(tmp_path / "termination-log"),
        "T2_WORK_DIR": str(tmp_path / "work"),
        "HOME": str(tmp_path),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_KUBECTL_DIR": str(tmp_path),
        **env,
    }
    return subprocess.Popen(
        [*(shell or (shutil.which("sh") or "/bin/sh",)), str(script)],
        env=settings,
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def finish_supervising(tmp_path: Path, process: subprocess.Popen[str]) -> Run:
    """Wait for the script; then stop what it left running, as the container's end does."""
    try:
        out, _ = process.communicate(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
    return Run(
        tmp_path, subprocess.CompletedProcess(process.args, process.returncode, out, "")
    )


def supervise(
    tmp_path: Path, scenario: dict[str, Any], shell: tuple[str, ...] = (), **env: str
) -> Run:
    return finish_supervising(
        tmp_path, start_supervising(tmp_path, scenario, shell, **env)
    )


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


def check_calls(run: Run) -> None:
    assert not run.unexpected, run.out
    for argv in run.calls:
        for request in _requests(argv):
            assert _allowed(request), f"the Role does not allow {request} ({argv})"


def job_pods(**containers: dict[str, Any]) -> dict[str, Any]:
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
