"""Nothing the job writes steers its supervisor: hostile values, names and sizes, under dash and busybox sh.

The worker Role t2gen renders may patch the job's ConfigMap, so the job's own
code can write any value there; the fake API (``fake_kubectl.py``) also serves
pod and container names the real API server would refuse, to show that none
reaches the shell. Each scenario would end differently if a value were read
as a line, a word or a pattern (issue 40): a forged ``DELETED`` would complete
the job early, a forged restart count or ``KILL_JOB`` would kill it, a glob
would be expanded, a name would run ``touch PWNED``. The script reads every
object as JSON through jq (``STATE`` and ``PODS``, tests/lifecycle/test_parsers.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.lifecycle.harness import (
    CLEANUP,
    JOB,
    START,
    check_calls,
    job_pods,
    supervise,
)

SHELLS = [
    pytest.param(
        ("dash",),
        id="dash",
        marks=pytest.mark.skipif(not shutil.which("dash"), reason="no dash"),
    ),
    pytest.param(
        ("busybox", "sh"),
        id="busybox",
        marks=pytest.mark.skipif(not shutil.which("busybox"), reason="no busybox"),
    ),
]
pytestmark = pytest.mark.skipif(
    shutil.which("jq") is None, reason="jq is not installed"
)

HOSTILE_VALUES = {
    "A": "hello\nDELETED",
    "B": "x\nRESTART_COUNT_FOR_WORKER_0=99",
    "C": "a KILL_JOB=true",
    "D": "a /*/*/*/*/*/*",
    "RESTART_COUNT_FOR_WORKER_1": "1\nRESTART_COUNT_FOR_WORKER_0=99",
    "E": "$(touch PWNED) `touch PWNED` x;touch PWNED;# \u009b",
}
HOSTILE_NAMES = [
    "x;touch PWNED;#",
    "$(touch PWNED)",
    "`touch PWNED`",
    "a b --all",
    "\u009bx",
    "/*/*/*",
]


@pytest.mark.parametrize("shell", SHELLS)
def test_no_value_forges_an_end_a_count_or_a_kill(
    tmp_path: Path, shell: tuple[str, ...]
) -> None:
    """The job runs on to its deadline: no forged DELETED, restart count or KILL_JOB ends it first."""
    run = supervise(
        tmp_path,
        {
            "configmap": {**START, **HOSTILE_VALUES},  # from the start, and again
            "timeline": [{"poll": 1, "set": HOSTILE_VALUES}],
            "on_kill": {"polls": 1},
            "pods": job_pods(),
        },
        shell=shell,
        T2_DEADLINE="2",
    )
    assert run.code == 1, run.out
    assert run.message.startswith(
        "DeadlineExceeded: the job ran longer than its deadline"
    ), run.message
    assert [p["key"] for p in run.patches] == ["T2GEN_SUPERVISOR", "KILL_JOB"]
    assert run.deleted == CLEANUP  # after the job master's end, and only what it leaves
    assert not (tmp_path / "PWNED").exists()
    check_calls(run)


@pytest.mark.parametrize("shell", SHELLS)
def test_a_hostile_mark_is_a_leftover_and_runs_nothing(
    tmp_path: Path, shell: tuple[str, ...]
) -> None:
    run = supervise(
        tmp_path,
        {
            "configmap": {
                **START,
                "T2GEN_SUPERVISOR": "x;touch PWNED;#\n$(touch PWNED)",
            },
            "pods": job_pods(),
        },
        shell=shell,
    )
    assert run.code == 1, run.out
    assert run.message.startswith(
        f"Leftovers: ConfigMap {JOB} belongs to an earlier run (supervisor ?)"
    )
    assert run.deleted == [] and run.patches == []
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("shell", SHELLS)
def test_hostile_pod_names_reach_no_command(
    tmp_path: Path, shell: tuple[str, ...]
) -> None:
    """Names the API server would refuse are skipped; the job's own restarted pod is still logged."""
    pods = job_pods(c0={"restarts_at": [0], "previous_log": "crash of worker 0\n"})
    for name in HOSTILE_NAMES:
        pods[name] = {
            "containers": {"c": {"restarts_at": [0]}, name: {"restarts_at": [0]}}
        }
    run = supervise(
        tmp_path,
        # the job ends at the third poll: two pod lists seen
        {"configmap": START, "timeline": [{"poll": 3, "end": True}], "pods": pods},
        shell=shell,
    )
    assert run.code == 0, run.out
    assert "crash of worker 0" in run.out
    logged = [c for c in run.calls if "logs" in c and "--previous" in c]
    assert [c[c.index("logs") + 1] for c in logged] == [f"{JOB}-0-0"]
    assert not (tmp_path / "PWNED").exists()
    check_calls(run)


def _many_pods(count: int) -> dict[str, Any]:
    pods = job_pods()
    for index in range(count):
        pods[f"{JOB}-1-{index}"] = {
            "containers": {"twister2-container-0": {"restarts_at": [0]}}
        }
    return pods


# The cost of a big list is jq's and kubectl's, not the shell's: `make test` runs it
# in busybox's sh (the supervisor image, alpine/k8s, is Alpine's busybox) when there
# is one, `make fuzz` in dash as well; the shell-sensitive tests above run in both.
@pytest.mark.parametrize(
    "shell",
    [
        pytest.param(*param.values, id=param.id, marks=[*param.marks, pytest.mark.slow])
        if param.id == "dash" and shutil.which("busybox")
        else param
        for param in SHELLS
    ],
)
def test_a_3000_pod_list_costs_one_list_and_a_bounded_number_of_logs(
    tmp_path: Path, shell: tuple[str, ...]
) -> None:
    """3,000 containers restarting at once: one jq a poll, at most T2_LOGS_PER_POLL previous logs."""
    run = supervise(
        tmp_path,
        {
            "configmap": START,
            "timeline": [{"poll": 3, "end": True}],  # after two pod lists
            "pods": _many_pods(3000),
        },
        shell=shell,
        T2_LOGS_PER_POLL="8",
    )
    assert run.code == 0, run.out
    logged = [c for c in run.calls if "logs" in c and "--previous" in c]
    assert len(logged) == 8
    assert "2992 more containers restarted; their logs are not kept" in run.out
    assert run.deleted == CLEANUP
