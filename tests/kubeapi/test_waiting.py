"""``t2gen wait`` and ``t2gen status --live/--watch`` on the real control plane (issue 42, item 7).

The supervised job of :mod:`tests.kubeapi.test_lifecycle` is driven by the test
(the played kubelet and Twister2 runtime) while ``t2gen wait`` and ``t2gen
status --watch`` run as processes of their own, reading the cluster through
the real kubectl with the admin's kubeconfig, as a user or a CI job would. They
are started before the job ends and waited for after: each must see the end by
itself, whenever its polls meet it (``--interval`` sets how often it looks,
never what it sees). Exit codes are the documented ones (docs/lifecycle.md,
"Exit codes and waiting for a job"): 0 Succeeded, 3 Failed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import _kubectl_path
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.ending import cleaned_up, end, kill, supervised_run
from tests.kubeapi.kubelet import Kubelet
from tests.kubeapi.scenario import Scenario


def _t2gen(cluster: ControlPlane, job: Scenario, *args: str) -> subprocess.Popen[str]:
    """``t2gen ARGS JOB --kubeconfig <admin>`` as its own process, kubectl on ``PATH``."""
    kubectl = _kubectl_path()
    assert kubectl is not None, "kubectl is missing: install the dev extra"
    env = {
        **os.environ,
        "HOME": str(cluster.directory),  # kubectl's cache, beside the cluster
        "PATH": f"{Path(kubectl).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "t2gen",
            *args,
            str(job.path),
            "--kubeconfig",
            str(cluster.kubeconfig),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _finish(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"t2gen did not see the end: {out}{err}") from None
    return process.returncode, out, err


def _first_document(process: subprocess.Popen[str]) -> str:
    """The first JSON document ``status --watch -o json`` prints (indented: it ends at a line ``}``)."""
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(line)
        if line.rstrip("\n") == "}":
            return "".join(lines)
    raise AssertionError(f"status --watch ended first: {''.join(lines)}")


def _phases(watched: str) -> list[str]:
    """The phases ``status --watch -o json`` printed, one JSON document per change."""
    decoder = json.JSONDecoder()
    found, at = [], 0
    while at < len(watched.rstrip()):
        while watched[at].isspace():
            at += 1
        document, at = decoder.raw_decode(watched, at)
        found.append(document["phase"])
    return found


def test_wait_and_watch_follow_a_job_to_its_success(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    job = supervised_run(controllers, kubelet, tmp_path)
    live = _t2gen(controllers, job, "status", "--live", "-o", "json")
    code, out, err = _finish(live)
    assert (code, json.loads(out)["phase"]) == (0, "Running"), err
    waiting = _t2gen(controllers, job, "wait", "--timeout", "10m", "--interval", "0.2s")
    watching = _t2gen(
        controllers, job, "status", "--watch", "--interval", "0.2s", "-o", "json"
    )
    first = _first_document(watching)  # the event: the watch has looked once
    assert job.job_master is not None
    job.job_master.terminate("COMPLETED")
    end(job, kubelet, 0, "Completed: the job completed")
    cleaned_up(job)
    code, out, err = _finish(waiting)
    assert code == 0, (out, err)
    assert out.startswith(f"{job.job}: Succeeded"), out
    code, out, err = _finish(watching)
    phases = _phases(first + out)
    assert code == 0, err
    assert phases[0] == "Running" and phases[-1] == "Succeeded", phases


def test_wait_says_why_a_job_failed(
    controllers: ControlPlane, kubelet: Kubelet, tmp_path: Path
) -> None:
    job = supervised_run(controllers, kubelet, tmp_path)
    waiting = _t2gen(controllers, job, "wait", "--timeout", "10m", "--interval", "0.2s")
    kill(job)
    end(job, kubelet, 1, "Killed: the job was killed (KILL_JOB was set")
    code, out, err = _finish(waiting)
    assert (code, out) == (3, ""), (out, err)  # the reason on stderr, as an error's
    assert err.startswith(f"{job.job}: Failed: Killed: the job was killed"), err
