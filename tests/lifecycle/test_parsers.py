"""The supervisor's jq programs (``STATE``, ``PODS`` in ``templates/lifecycle/supervise.sh``) on hostile input.

The script reads the job's ConfigMap, its watch events and the worker pods as
JSON and lets jq turn them into lines of words it checks itself (issue 40):
whatever a value or name holds (a newline, a space, a glob, shell syntax,
U+009B), a line is a fixed word, a 0/1, a number or a name as the API server
allows it. These run the programs with the jq on ``PATH`` (the supervisor's
image, alpine/k8s, ships jq: ``apk add --update --no-cache jq yq`` in its
Dockerfile, github.com/alpine-docker/k8s).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from typing import Any

import pytest

from tests.lifecycle.harness import SCRIPT

JQ = shutil.which("jq")
pytestmark = pytest.mark.skipif(JQ is None, reason="jq is not installed")
SAFE_WORD = re.compile(r"^[-A-Za-z0-9.]+$")
HOSTILE = [
    "hello\nDELETED",
    "x\nRESTART_COUNT_FOR_WORKER_0=99",
    "a KILL_JOB=true",
    "a /*/*/*/*/*/*",
    "x;touch PWNED;#",
    "$(touch PWNED)",
    "`touch PWNED`",
    "\u009b31m",
    '"quoted"',
]


def _program(name: str) -> str:
    found = re.search(rf"^{name}='(.*?)'$", SCRIPT, re.MULTILINE | re.DOTALL)
    assert found, name
    return found.group(1)


def _jq(program: str, value: Any, *args: str) -> list[str]:
    result = subprocess.run(
        [str(JQ), "-r", *args, program],
        input=json.dumps(value),
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.splitlines()


def _config_map(data: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "wc"},
        "data": data,
    }


def test_state_of_a_config_map_and_of_an_event() -> None:
    data = {
        "JOB_ID": "wc",
        "TWISTER2_JOB_OBJECT": "CgJ3Yw==",
        "RESTART_COUNT_FOR_JOB_MASTER": "9",  # not a worker's: K8sWorkerStarter.java:173-180
        "RESTART_COUNT_FOR_WORKER_1": "2",
        "RESTART_COUNT_FOR_WORKER_10": "3",
        "KILL_JOB": "true",
        "T2GEN_SUPERVISOR": "5b0c1e2a-run-1",
    }
    state = _program("STATE")
    assert _jq(state, _config_map(data)) == ["GET 1 5b0c1e2a-run-1 3 10"]
    event = {"type": "DELETED", "object": _config_map(data)}
    assert _jq(state, event) == ["DELETED 1 5b0c1e2a-run-1 3 10"]
    assert _jq(state, {"type": "ADDED", "object": _config_map({})}) == [
        "ADDED 0 - -1 -"
    ]
    assert _jq(state, {"type": "ERROR", "object": {"kind": "Status"}}) == [
        "OTHER 0 - -1 -"
    ]


@pytest.mark.parametrize("value", HOSTILE)
def test_no_value_forges_a_state(value: str) -> None:
    """A value the job's code writes becomes no event, no kill, no count and no owner."""
    data = {
        "JOB_ID": value,
        "RESTART_COUNT_FOR_WORKER_0": value,
        "T2GEN_SUPERVISOR": value,
    }
    lines = _jq(_program("STATE"), {"type": "MODIFIED", "object": _config_map(data)})
    assert lines == ["MODIFIED 0 ? -1 -"]
    assert _jq(_program("STATE"), {"type": value, "object": _config_map({})}) == [
        "OTHER 0 - -1 -"
    ]


def _pod(
    name: str, restarts: int, container: str = "twister2-container-0"
) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "status": {
            "containerStatuses": [{"name": container, "restartCount": restarts}]
        },
    }


def test_pods_that_restarted_since_the_last_look(tmp_path: Any) -> None:
    seen = tmp_path / "seen.json"
    seen.write_text(json.dumps({"wc-0-0 twister2-container-0": 1}))
    pods = {"items": [_pod("wc-0-0", 2), _pod("wc-0-1", 0), _pod("wc-1-0", 1)]}
    lines = _jq(_program("PODS"), pods, "--slurpfile", "seen", str(seen))
    assert json.loads(lines[0]) == {
        "wc-0-0 twister2-container-0": 2,
        "wc-0-1 twister2-container-0": 0,
        "wc-1-0 twister2-container-0": 1,
    }
    assert lines[1:] == [
        "wc-0-0 twister2-container-0 2",
        "wc-1-0 twister2-container-0 1",
    ]


@pytest.mark.parametrize("name", [*HOSTILE, "a b", "UPPER", "-x", ""])
def test_no_name_but_the_api_servers_reaches_the_shell(
    name: str, tmp_path: Any
) -> None:
    """A pod or container name the API server would refuse is skipped, never printed."""
    seen = tmp_path / "seen.json"
    seen.write_text("{}")
    pods = {
        "items": [_pod(name, 3), _pod("wc-0-0", 1, container=name), {"metadata": 7}]
    }
    lines = _jq(_program("PODS"), pods, "--slurpfile", "seen", str(seen))
    assert lines == ["{}"]


def test_every_word_is_safe() -> None:
    """Every word STATE prints matches ``[-A-Za-z0-9.]+``, whatever the data."""
    for value in HOSTILE:
        data = {
            value: value,
            f"RESTART_COUNT_FOR_WORKER_{value}": "4",
            "KILL_JOB": value,
        }
        for line in _jq(
            _program("STATE"), {"type": "MODIFIED", "object": _config_map(data)}
        ):
            assert all(SAFE_WORD.match(word) for word in line.split(" ")), line
