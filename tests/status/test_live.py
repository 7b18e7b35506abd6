"""``status --live``/``--watch`` and ``t2gen wait`` run kubectl themselves (here a scripted kubectl).

The scripted kubectl answers its Nth call with the Nth saved state
(tests/fixtures/status/), so every test advances on the command's own calls,
never on the clock. The same commands against a real API server are in
tests/kubeapi/.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from t2gen.errors import T2genError
from t2gen.pipeline.status import (
    TIMEOUT_EXIT_CODE,
    status_report,
    wait_for_job,
    watch_status,
)
from t2gen.status.fetch import Kubectl
from tests.conftest import ROOT

JOB = str(ROOT / "examples/supervised.yaml")
STATES = ROOT / "tests/fixtures/status"
T2GEN = Path(sys.executable).parent / "t2gen"


def _kubectl(tmp_path: Path, *states: str, code: int = 0) -> Kubectl:
    """A kubectl that prints ``states[n]`` at its nth call (the last one again after), logging its argv."""
    script = tmp_path / "kubectl"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import json, sys
            from pathlib import Path
            log = Path({str(tmp_path / "calls.jsonl")!r})
            calls = log.read_text().splitlines() if log.exists() else []
            with log.open("a") as f:
                f.write(json.dumps(sys.argv[1:]) + "\\n")
            states = {[str(STATES / f"{s}.json") for s in states]!r}
            sys.stdout.write(Path(states[min(len(calls), len(states) - 1)]).read_text())
            if {code}:
                sys.stderr.write("error: the server has asked for the client to provide credentials\\n")
            sys.exit({code})
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return Kubectl(binary=str(script))


def _calls(tmp_path: Path) -> list[list[str]]:
    return [
        json.loads(line) for line in (tmp_path / "calls.jsonl").read_text().splitlines()
    ]


def test_live_runs_the_command_status_prints(tmp_path: Path) -> None:
    kubectl = _kubectl(tmp_path, "running")
    outcome = status_report(JOB, kubectl=kubectl)
    assert (outcome.phase, outcome.exit_code) == ("Running", 0)
    printed = status_report(JOB).text.split(" > ")[0].split()
    assert _calls(tmp_path) == [
        printed[1:]
    ]  # the very command `t2gen status JOB` prints


def test_watch_prints_each_change_until_the_end(tmp_path: Path) -> None:
    kubectl = _kubectl(tmp_path, "pending", "pending", "running", "failed")
    sleeps: list[float] = []
    outcomes = list(watch_status(JOB, kubectl=kubectl, interval=7, sleep=sleeps.append))
    assert [o.phase for o in outcomes] == ["Pending", "Running", "Failed"]
    assert outcomes[-1].exit_code == 3
    assert sleeps == [7, 7, 7] and len(_calls(tmp_path)) == 4


@pytest.mark.parametrize(
    ("states", "code", "says"),
    [
        (("pending", "running", "finished"), 0, "Succeeded"),
        (("running", "failed"), 3, "Failed"),
        (("leftovers",), 4, "Ended"),
    ],
)
def test_wait_ends_with_the_jobs_outcome(
    tmp_path: Path, states: tuple[str, ...], code: int, says: str
) -> None:
    job = JOB if states != ("leftovers",) else str(ROOT / "examples/wordcount.yaml")
    outcome = wait_for_job(
        job,
        kubectl=_kubectl(tmp_path, *states),
        timeout=3600,
        interval=1,
        sleep=lambda _: None,
    )
    assert outcome.exit_code == code
    assert f": {says}" in outcome.message


def test_wait_gives_up_at_the_timeout_naming_the_last_phase(tmp_path: Path) -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    outcome = wait_for_job(
        JOB,
        kubectl=_kubectl(tmp_path, "running"),
        timeout=25,
        interval=10,
        clock=lambda: now[0],
        sleep=sleep,
    )
    assert outcome.exit_code == TIMEOUT_EXIT_CODE
    assert "timed out after 25 s, still Running" in outcome.message
    assert len(_calls(tmp_path)) == 4  # at 0, 10, 20 and 25 s


def test_a_failing_kubectl_is_one_line_with_its_reason(tmp_path: Path) -> None:
    with pytest.raises(T2genError) as raised:
        status_report(JOB, kubectl=_kubectl(tmp_path, "running", code=1))
    assert raised.value.lines() == [
        "kubectl get failed (exit code 1): error: the server has asked for the client "
        "to provide credentials"
    ]


def test_kubectls_output_is_read_within_the_cluster_files_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import t2gen.status.live

    monkeypatch.setattr(t2gen.status.live, "MAX_CLUSTER_BYTES", 1024)
    with pytest.raises(T2genError) as raised:
        status_report(JOB, kubectl=_kubectl(tmp_path, "running"))
    assert "printed more than 1 KiB" in raised.value.lines()[0]


def test_the_command_line_waits_and_exits_by_phase(tmp_path: Path) -> None:
    _kubectl(tmp_path, "running", "failed")
    env = {**os.environ, "PATH": f"{tmp_path}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        [str(T2GEN), "wait", JOB, "--interval", "0.01s", "--timeout", "1h"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (done.returncode, done.stdout) == (3, "")
    assert done.stderr.startswith("wordcount-supervised: Failed: ")
    watched = subprocess.run(
        [str(T2GEN), "status", JOB, "--watch", "--interval", "0.01s", "-o", "json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert watched.returncode == 3
    assert [line for line in watched.stdout.splitlines() if '"phase"' in line] == [
        '  "phase": "Failed",'
    ]  # the third call: a watch resumes where the wait left the script's count


def test_usage_errors(tmp_path: Path) -> None:
    for argv in (
        ["wait", JOB, "--timeout", "soon"],
        ["status", JOB, "--cluster", "x.json", "--live"],
        ["status", JOB, "--watch", "--interval", "0"],
    ):
        done = subprocess.run(
            [str(T2GEN), *argv], capture_output=True, text=True, check=False
        )
        assert done.returncode == 2, (argv, done.stderr)


def _flaky_kubectl(tmp_path: Path, answers: list[str | int]) -> Kubectl:
    """A kubectl whose nth call prints the saved state ``answers[n]``, or fails with that exit code."""
    script = tmp_path / "kubectl"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!{sys.executable}
            import sys
            from pathlib import Path
            log = Path({str(tmp_path / "calls")!r})
            n = len(log.read_text()) if log.exists() else 0
            log.write_text("x" * (n + 1))
            answer = {answers!r}[min(n, {len(answers) - 1})]
            if isinstance(answer, int):
                sys.stderr.write("Unable to connect to the server: connection refused\\n")
                sys.exit(answer)
            sys.stdout.write(Path({str(STATES)!r}, answer + ".json").read_text())
            """
        ),
        encoding="utf-8",
    )
    script.chmod(0o755)
    return Kubectl(binary=str(script))


def test_wait_waits_through_a_short_outage_of_the_api_server(tmp_path: Path) -> None:
    """Three failed polls in a row after a good one (an API server restarting): the wait goes on."""
    outcome = wait_for_job(
        JOB,
        kubectl=_flaky_kubectl(tmp_path, ["running", 1, 1, 1, "failed"]),
        timeout=3600,
        interval=1,
        sleep=lambda _: None,
    )
    assert (outcome.exit_code, outcome.message.split(": ")[1]) == (3, "Failed")


def test_wait_gives_up_on_a_longer_outage_and_on_a_kubectl_that_never_worked(
    tmp_path: Path,
) -> None:
    for answers in (["running", 1, 1, 1, 1, "failed"], [1, "running"]):
        (tmp_path / "calls").unlink(missing_ok=True)
        with pytest.raises(T2genError, match="connection refused"):
            wait_for_job(
                JOB,
                kubectl=_flaky_kubectl(tmp_path, answers),
                timeout=3600,
                interval=1,
                sleep=lambda _: None,
            )
