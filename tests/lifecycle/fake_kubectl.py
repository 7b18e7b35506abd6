#!/usr/bin/env python3
"""A fake ``kubectl`` for the supervisor's end-to-end tests: a scripted cluster of one job.

Installed on ``PATH`` as ``kubectl`` by ``tests/lifecycle/test_supervisor.py``. It
answers the calls ``templates/lifecycle/supervise.sh`` makes from a scenario
(``$FAKE_KUBECTL_DIR/scenario.json``), records every call (``calls.jsonl``) and
keeps the cluster's changes (``patches.json``, ``deleted.json``) in the same
directory, so the background watch and the supervisor's later calls see what
earlier calls did.

The scenario moves on the script's own calls, never on time (issue 40, item
6): its clock is the number of polls the script has made, a poll being its
``kubectl get pods -l`` (one in every turn of its loop), so the supervisor
sees every state of a timeline however slowly the machine runs it. A scenario::

    {"job": "wc",
     "configmap": {"JOB_ID": "wc"},            # the ConfigMap's data at the start; null: absent
     "timeline": [{"poll": 1, "set": {"RESTART_COUNT_FOR_WORKER_0": "0"}},
                  {"poll": 4, "end": true}],     # the job master's JobTerminator runs
     "on_kill": {"polls": 1} or null,            # the job master ends the job this many polls after KILL_JOB
     "pods": {"wc-jm-0": {"phase": "Running", "log": "..."},
              "wc-0-0": {"containers": {"twister2-container-0":
                          {"restarts_at": [2], "previous_log": "..."}}}}}

A step ``at`` poll N is what the N-th poll (and every later call) sees.

Its output is what the real kubectl prints with ``-o json`` (indented objects;
``--output-watch-events`` wraps each object as ``{type, object}``,
kubernetes/kubectl ``pkg/cmd/get/get.go``); another output is an error, so the
test fails if the script's calls change without this fake.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any

DIR = Path(os.environ["FAKE_KUBECTL_DIR"])
SCENARIO: dict[str, Any] = json.loads((DIR / "scenario.json").read_text())
JOB: str = SCENARIO["job"]


def _load(name: str, default: Any) -> Any:
    path = DIR / name
    return json.loads(path.read_text()) if path.exists() else default


def _save(name: str, value: Any) -> None:
    tmp = DIR / f".{name}.{os.getpid()}"
    tmp.write_text(json.dumps(value))
    tmp.replace(DIR / name)


def _clock() -> int:
    """The scenario's time: the number of polls (``get pods -l``) the script has made so far."""
    path = DIR / "calls.jsonl"
    if not path.exists():
        return 0
    return sum(1 for line in path.read_text().splitlines() if '"get", "pods"' in line)


def _end_time() -> int | None:
    """The poll at which the job master's JobTerminator has run: from the timeline, or after a kill."""
    ends = [step["poll"] for step in SCENARIO.get("timeline", []) if step.get("end")]
    killed_at = _load("killed_at.json", None)
    on_kill = SCENARIO.get("on_kill")
    if killed_at is not None and on_kill is not None:
        ends.append(killed_at + on_kill["polls"])
    return min(ends) if ends else None


def _ended(now: int) -> bool:
    end = _end_time()
    return end is not None and now >= end


def _config_map(now: int) -> dict[str, str] | None:
    """The ConfigMap's data at ``now`` (before the end), with the patches made so far."""
    if SCENARIO.get("configmap") is None:
        return None
    data = dict(SCENARIO["configmap"])
    for step in SCENARIO.get("timeline", []):
        if step["poll"] <= now and "set" in step:
            data.update(step["set"])
    for patch in _load("patches.json", []):
        data[patch["key"]] = patch["value"]
    return data


def _object(data: dict[str, str]) -> dict[str, Any]:
    """The ConfigMap as the API server returns it (``kubectl get -o json``)."""
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": JOB, "namespace": SCENARIO.get("namespace", "default")},
        "data": data,
    }


def _print(obj: Any) -> None:
    """One object as kubectl's JSON printer writes it: indented, then a newline."""
    sys.stdout.write(json.dumps(obj, indent=4) + "\n")
    sys.stdout.flush()


def _not_found(kind: str, name: str) -> int:
    print(f'Error from server (NotFound): {kind} "{name}" not found', file=sys.stderr)
    return 1


def _option(args: list[str], name: str) -> str | None:
    for index, arg in enumerate(args):
        if arg == name and index + 1 < len(args):
            return args[index + 1]
        if arg.startswith(name + "="):
            return arg.split("=", 1)[1]
    return None


def _positional(args: list[str]) -> list[str]:
    """The arguments after the verb that are not options or their values."""
    found: list[str] = []
    skip = False
    for arg in args[1:]:
        if skip:
            skip = False
        elif arg in ("-c", "-l", "-o", "-p", "--type"):
            skip = True
        elif not arg.startswith("-"):
            found.append(arg)
    return found


def _template(args: list[str]) -> str | None:
    output = _option(args, "-o")
    if output is None or not output.startswith("go-template="):
        return output
    return output.removeprefix("go-template=")


def _get_config_map(args: list[str], name: str) -> int:
    now = _clock()
    template = _template(args)
    if "--watch" in args:
        if template != "json" or "--output-watch-events" not in args:
            return _fail(f"unexpected watch output {template!r}")
        return _watch(name)
    data = _config_map(now)
    if name != JOB or data is None or _ended(now):
        return _not_found("configmaps", name)
    if template == "name":
        print(f"configmap/{name}")
    elif template == "json":
        _print(_object(data))
    else:
        return _fail(f"unexpected output {template!r}")
    return 0


def _watch(name: str) -> int:
    """Print ADDED, then MODIFIED at every change, then DELETED with the last state.

    It waits for the script's other calls to move the scenario on (a change of
    ``calls.jsonl`` or ``patches.json``), looking every 50 ms: that is how
    often it looks, and no state depends on it. After DELETED it stays open,
    as kubectl's watch of a named object does, until the script stops it.
    """
    now = _clock()
    data = _config_map(now)
    if name != JOB or data is None or _ended(now):
        return _not_found("configmaps", name)
    _print({"type": "ADDED", "object": _object(data)})
    shown = data
    while True:
        time.sleep(0.05)
        now = _clock()
        if _ended(now):
            last = _config_map(now) or shown
            _print({"type": "DELETED", "object": _object(last)})
            while True:  # a real watch stays open after the object is gone
                time.sleep(3600)
        if SCENARIO.get("watch_polls") is not None and now >= SCENARIO["watch_polls"]:
            return 0  # the API server closed the watch
        data = _config_map(now) or {}
        if data != shown:
            shown = data
            _print({"type": "MODIFIED", "object": _object(data)})


def _pods() -> dict[str, Any]:
    pods: dict[str, Any] = SCENARIO.get("pods", {})
    return pods


def _get_pods(args: list[str]) -> int:
    now = _clock()
    if _option(args, "-l") != f"t2-wp={JOB}" or _template(args) != "json":
        return _fail("unexpected pod list")
    items = []
    for name, pod in [] if _ended(now) else sorted(_pods().items()):
        statuses = [
            {
                "name": container,
                "restartCount": sum(
                    1 for t in state.get("restarts_at", []) if t <= now
                ),
            }
            for container, state in sorted(pod.get("containers", {}).items())
        ]
        items.append(
            {"metadata": {"name": name}, "status": {"containerStatuses": statuses}}
        )
    items += SCENARIO.get("extra_pod_items", [])  # hostile lists, as served
    _print({"apiVersion": "v1", "kind": "List", "items": items})
    return 0


def _get_pod(args: list[str], name: str) -> int:
    now = _clock()
    pod = _pods().get(name)
    if pod is None or _ended(now):
        return _not_found("pods", name)
    if _template(args) != "json":
        return _fail("unexpected pod output")
    _print(
        {"metadata": {"name": name}, "status": {"phase": pod.get("phase", "Running")}}
    )
    return 0


def _logs(args: list[str]) -> int:
    name = _positional(args)[0]
    pod = _pods().get(name)
    if pod is None or _ended(_clock()):
        return _not_found("pods", name)
    container = _option(args, "-c")
    if "--previous" in args:
        state = pod.get("containers", {}).get(container, {})
        sys.stdout.write(state.get("previous_log", ""))
        return 0
    sys.stdout.write(pod.get("log", ""))
    sys.stdout.flush()
    if "--follow" in args:
        while not _ended(_clock()):
            time.sleep(0.05)  # until the script's polls reach the end
        sys.stdout.write(pod.get("log_at_end", ""))
    return 0


def _patch(args: list[str], name: str) -> int:
    now = _clock()
    if name != JOB or _config_map(now) is None or _ended(now):
        return _not_found("configmaps", name)
    if _option(args, "--type") != "json":
        return _fail("only JSON patches are expected")
    patches = _load("patches.json", [])
    for op in json.loads(_option(args, "-p") or "[]"):
        if op["op"] != "add" or not op["path"].startswith("/data/"):
            return _fail(f"unexpected patch {op}")
        key = op["path"].removeprefix("/data/")
        patches.append({"key": key, "value": op["value"]})
        if key == "KILL_JOB" and _load("killed_at.json", None) is None:
            _save("killed_at.json", now)
    _save("patches.json", patches)
    print(f"configmap/{name} patched")
    return 0


def _delete(args: list[str]) -> int:
    deleted = _load("deleted.json", [])
    for arg in args[1:]:
        if "/" in arg and not arg.startswith("-"):
            deleted.append(arg)
            print(f"{arg} deleted")
    _save("deleted.json", deleted)
    return 0


def _fail(message: str) -> int:
    print(f"fake kubectl: {message}", file=sys.stderr)
    (DIR / "unexpected").write_text(message + "\n")
    return 2


def main(argv: list[str]) -> int:
    with (DIR / "calls.jsonl").open("a") as calls:
        calls.write(json.dumps(argv) + "\n")
    args = list(argv)
    if args[:1] == ["--namespace"]:
        if args[1] != SCENARIO.get("namespace", "default"):
            return _fail(f"unexpected namespace {args[1]}")
        args = args[2:]
    verb = args[0] if args else ""
    if verb == "get" and args[1] == "configmap":
        return _get_config_map(args, args[2])
    if verb == "get" and args[1] == "pods":
        return _get_pods(args)
    if verb == "get" and args[1] == "pod":
        return _get_pod(args, args[2])
    if verb == "logs":
        return _logs(args)
    if verb == "patch" and args[1] == "configmap":
        return _patch(args, args[2])
    if verb == "delete":
        return _delete(args)
    return _fail(f"unexpected call {argv}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
