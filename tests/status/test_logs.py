"""``t2gen logs`` against a scripted kubectl that plays the cluster: the claim is a directory.

The scripted kubectl records every call; ``apply`` keeps the pod it is sent,
``wait`` answers Ready (or times out, when told), ``exec`` runs the command
t2gen sends with the claim's mount ``/logs`` mapped to a directory the test
fills as Twister2 does (``worker-<ID>.log.0``: DSC-SPIDAL/twister2 c6844d2
``K8sWorkerUtils.java:80-82,117-120``), so the script t2gen runs in the
reader pod is the one tested. The same command against a real API server is
in ``tests/kubeapi/test_kept_logs.py``.
"""

from __future__ import annotations

import io
import json
import sys
import textwrap
from pathlib import Path

import pytest

from t2gen.errors import T2genError
from t2gen.pipeline.logs import job_logs
from t2gen.status.fetch import Kubectl
from t2gen.status.logs import reader_name, select_files
from t2gen.twister2.logfiles import log_file_name
from tests.conftest import ROOT
from tests.helpers import run_console

JOB = str(ROOT / "examples/kept-logs.yaml")


def _kubectl(tmp_path: Path, claim: Path, *, ready: bool = True) -> Kubectl:
    script = tmp_path / "kubectl"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import json, subprocess, sys
            from pathlib import Path
            args = sys.argv[1:]
            stdin = sys.stdin.read() if "apply" in args else None
            with open({str(tmp_path / "calls.jsonl")!r}, "a") as f:
                f.write(json.dumps({{"argv": args, "stdin": stdin}}) + "\\n")
            verb = next(a for a in args if a in ("apply", "wait", "exec", "delete"))
            if verb == "apply":
                print("pod/" + json.loads(stdin)["metadata"]["name"] + " created")
            elif verb == "wait" and not {ready!r}:
                sys.exit("error: timed out waiting for the condition on pods/x")
            elif verb == "exec":
                command = [a.replace("/logs", {str(claim)!r}) for a in args[args.index("--") + 1:]]
                sys.exit(subprocess.run(command).returncode)
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return Kubectl(binary=str(script))


def _calls(tmp_path: Path) -> list[dict[str, object]]:
    return [
        json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()
    ]


@pytest.fixture
def claim(tmp_path: Path) -> Path:
    """The claim after the job: what every worker and the job master logged, whole."""
    directory = tmp_path / "claim"
    directory.mkdir()
    for worker in range(4):
        lines = [f"[worker {worker}] line {n}\n" for n in range(20_000)]
        (directory / log_file_name(worker)).write_text("".join(lines))
    (directory / log_file_name(None)).write_text("job master: The job completed.\n")
    (directory / "lost+found").mkdir()  # what a fresh ext4 volume holds
    return directory


def test_a_worker_that_ran_to_the_end_has_its_whole_log(
    tmp_path: Path, claim: Path
) -> None:
    out = io.BytesIO()
    printed = job_logs(JOB, out, kubectl=_kubectl(tmp_path, claim), worker=3)
    assert printed == ["worker-3.log.0"]
    assert (
        out.getvalue() == (claim / "worker-3.log.0").read_bytes()
    )  # every byte, no heading
    verbs = [
        next(a for a in c["argv"] if a in ("apply", "wait", "exec", "delete"))  # type: ignore[union-attr]
        for c in _calls(tmp_path)
    ]
    assert verbs == ["apply", "wait", "exec", "exec", "delete"]


def test_every_log_job_master_first_each_headed(tmp_path: Path, claim: Path) -> None:
    out = io.BytesIO()
    printed = job_logs(JOB, out, kubectl=_kubectl(tmp_path, claim))
    assert printed == ["jobMaster.log.0", *(f"worker-{w}.log.0" for w in range(4))]
    text = out.getvalue().decode()
    assert text.startswith("==> jobMaster.log.0 <==\njob master: The job completed.\n")
    assert text.count("==> ") == 5
    assert "[worker 2] line 19999\n==> worker-3.log.0 <==\n" in text


def test_the_reader_pod_mounts_the_claim_read_only_and_is_deleted(
    tmp_path: Path, claim: Path
) -> None:
    job_logs(JOB, io.BytesIO(), kubectl=_kubectl(tmp_path, claim), job_master=True)
    calls = _calls(tmp_path)
    pod = json.loads(str(calls[0]["stdin"]))
    assert pod["metadata"] == {
        "name": "wordcount-logs-logs-reader",
        "namespace": "twister2",
        "labels": {
            "app.kubernetes.io/name": "twister2",
            "app.kubernetes.io/instance": "wordcount-logs",
            "app.kubernetes.io/component": "logs-reader",
            "app.kubernetes.io/managed-by": "t2gen",
        },
    }
    assert pod["spec"]["volumes"] == [
        {
            "name": "twister2-kept-logs",
            "persistentVolumeClaim": {
                "claimName": "wordcount-logs-logs",
                "readOnly": True,
            },
        }
    ]
    (container,) = pod["spec"]["containers"]
    assert container["image"] == "twister2/twister2-k8s:0.8.0"
    assert container["volumeMounts"][0]["readOnly"] is True
    assert pod["spec"]["activeDeadlineSeconds"] == 3600
    assert calls[-1]["argv"] == [
        "--namespace",
        "twister2",
        "delete",
        "pod",
        reader_name("wordcount-logs"),
        "--ignore-not-found",
        "--wait=false",
    ]


def test_a_reader_pod_that_never_starts_is_reported_and_deleted(
    tmp_path: Path, claim: Path
) -> None:
    with pytest.raises(T2genError, match="timed out waiting") as info:
        job_logs(JOB, io.BytesIO(), kubectl=_kubectl(tmp_path, claim, ready=False))
    assert "ReadWriteOnce" in str(info.value)
    assert "delete" in _calls(tmp_path)[-1]["argv"]  # type: ignore[operator]


def test_no_file_of_that_worker(tmp_path: Path, claim: Path) -> None:
    (claim / "worker-1.log.0").unlink()
    with pytest.raises(
        T2genError, match="no log file of worker 1 on claim wordcount-logs-logs"
    ):
        job_logs(JOB, io.BytesIO(), kubectl=_kubectl(tmp_path, claim), worker=1)
    assert "delete" in _calls(tmp_path)[-1]["argv"]  # type: ignore[operator]


def test_refused_before_kubectl_runs(tmp_path: Path, claim: Path) -> None:
    kubectl = _kubectl(tmp_path, claim)
    with pytest.raises(T2genError, match="has workers 0 to 3, not 4"):
        job_logs(JOB, io.BytesIO(), kubectl=kubectl, worker=4)
    with pytest.raises(T2genError, match=r"keeps no logs \(spec.logs is not set\)"):
        job_logs(str(ROOT / "examples/wordcount.yaml"), io.BytesIO(), kubectl=kubectl)
    assert not (tmp_path / "calls.jsonl").exists()


def test_files_in_reading_order() -> None:
    listing = "worker-10.log.0\nworker-2.log.1\nworker-2.log.0\njobMaster.log.0\nnotes.txt\nworker-02.log.0\n"
    assert select_files(listing, None, False) == [
        "jobMaster.log.0",
        "worker-2.log.1",  # the older generation first (java.util.logging.FileHandler)
        "worker-2.log.0",
        "worker-10.log.0",
    ]
    assert select_files(listing, 2, False) == ["worker-2.log.1", "worker-2.log.0"]
    assert select_files(listing, None, True) == ["jobMaster.log.0"]


def test_the_command_line_refuses_before_running_kubectl() -> None:
    both = run_console(["logs", JOB, "--worker", "1", "--job-master"])
    assert both.exit_code == 2 and "give one" in both.stderr
    none = run_console(["logs", str(ROOT / "examples/wordcount.yaml")])
    assert none.exit_code == 1
    assert "keeps no logs (spec.logs is not set)" in none.stderr
    assert none.stdout == ""
