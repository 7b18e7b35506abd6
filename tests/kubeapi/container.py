"""The supervisor's container, run by the played kubelet as a local process.

What a kubelet and container runtime give the pod of ``<job>-supervisor``
(``t2gen/render/context/supervisor.py``), made here from the pod the Job
controller created and the scheduler bound:

- its script from the ConfigMap volume, run as the container's command
  (``/bin/sh /t2gen/supervise.sh``) in a process group of its own, the
  container's processes;
- its environment: ``env`` values, and the downward API's ``fieldRef``
  resolved from the pod (the namespace, the Job's controller-uid label);
  ``T2_TERMINATION_LOG`` and ``T2_WORK_DIR`` point at files standing for
  ``/dev/termination-log`` and the ``/tmp`` emptyDir; ``T2_POLL`` is the test's;
- its credentials: a kubeconfig with a token of its ServiceAccount bound to the
  pod (a TokenRequest, as the projected token volume holds:
  https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#bound-service-account-token-volume),
  and kubectl on ``PATH``;
- at its exit, the container's terminated state for the pod's status: exit
  code, reason and termination message (the file, at most 4096 bytes; with
  ``FallbackToLogsOnError`` the last 80 lines or 2048 bytes of its log when the
  file is empty and it failed:
  https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/).
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import signal
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.kubeapi.client import ApiError, Client, kubeconfig
from tests.kubeapi.logserver import ContainerLog
from tests.kubeapi.runtime import pod_token

MESSAGE_BYTES = 4096
FALLBACK_LINES, FALLBACK_BYTES = 80, 2048


def now() -> str:
    """The time as the API writes it (RFC 3339, seconds)."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def field(pod: dict[str, Any], path: str) -> str:
    """A downward API ``fieldRef.fieldPath`` of ``pod`` (``metadata.labels['k']``)."""
    head, _, key = path.partition("[")
    value: Any = pod
    for part in head.split("."):
        value = (value or {}).get(part)
    if key:
        value = (value or {}).get(key.strip("]'\""))
    return "" if value is None else str(value)


class Supervisor:
    """The script running for one pod: ``process``, and once it ended ``exit_code``, ``message``, ``output``."""

    def __init__(self, pod: dict[str, Any], process: subprocess.Popen[bytes]) -> None:
        self.pod, self.process = pod, process
        self.exit_code: int | None = None
        self.message = ""
        self.output = ""
        self.done = threading.Event()


def start_supervisor(
    admin: Client,
    pod: dict[str, Any],
    root: Path,
    kubectl: str,
    poll: str,
    log: ContainerLog,
    report: Callable[[dict[str, Any]], None],
) -> Supervisor:
    """Start the container of ``pod`` in directory ``root``; ``report`` gets its terminated status.

    Args:
        admin: the cluster's admin (reads the ConfigMap, asks for the token).
        pod: the supervisor's pod, bound to the played node.
        root: the container's files.
        kubectl: the kubectl binary to put on its ``PATH``.
        poll: ``T2_POLL``.
        log: where its output goes (``kubectl logs`` of the container).
        report: called with the pod status once the process has ended.
    """
    namespace, spec = pod["metadata"]["namespace"], pod["spec"]
    container = spec["containers"][0]
    volume = next(v for v in spec["volumes"] if "configMap" in v)["configMap"]
    config_map = admin.request(
        "GET", f"/api/v1/namespaces/{namespace}/configmaps/{volume['name']}"
    )
    for sub in ("t2gen", "tmp", "bin"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for key, text in config_map["data"].items():
        (root / "t2gen" / key).write_text(text)
    (root / "bin" / "kubectl").symlink_to(kubectl)
    own = pod_token(admin, namespace, pod)
    assert own.token is not None
    config = kubeconfig(admin.server, admin.ca, own.token, own.user)
    (root / "kubeconfig").write_text(json.dumps(config))
    env = {"PATH": f"{root / 'bin'}{os.pathsep}/usr/bin:/bin"}
    for entry in container.get("env", []):
        if "value" in entry:
            env[entry["name"]] = entry["value"]
        elif "fieldRef" in entry.get("valueFrom", {}):
            env[entry["name"]] = field(pod, entry["valueFrom"]["fieldRef"]["fieldPath"])
    env.update(
        {
            "HOME": str(root / "tmp"),
            "KUBECONFIG": str(root / "kubeconfig"),
            "T2_TERMINATION_LOG": str(root / "termination-log"),
            "T2_WORK_DIR": str(root / "tmp" / "t2gen-supervisor"),
            "T2_POLL": poll,
        }
    )
    script = root / "t2gen" / Path(container["command"][-1]).name
    process = subprocess.Popen(
        ["/bin/sh", str(script)],
        env=env,
        cwd=root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its own process group: the container's processes
    )
    supervisor = Supervisor(pod, process)
    threading.Thread(
        target=_follow, args=(supervisor, root, log, report), daemon=True
    ).start()
    return supervisor


def _follow(
    supervisor: Supervisor,
    root: Path,
    log: ContainerLog,
    report: Callable[[dict[str, Any]], None],
) -> None:
    """Keep the script's output as the container's log; at its exit, report the terminated state."""
    assert supervisor.process.stdout is not None
    for line in iter(supervisor.process.stdout.readline, b""):
        log.write(line.decode(errors="replace"))
    supervisor.process.stdout.close()
    code = supervisor.process.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(supervisor.process.pid, signal.SIGKILL)  # what it left running
    log.end()
    path = root / "termination-log"
    message = (
        path.read_bytes()[:MESSAGE_BYTES].decode(errors="replace")
        if path.exists()
        else ""
    )
    if not message and code != 0:
        tail = "".join(log.current.splitlines(keepends=True)[-FALLBACK_LINES:])
        message = tail.encode()[-FALLBACK_BYTES:].decode(errors="replace")
    supervisor.exit_code, supervisor.message = code, message
    supervisor.output = log.current
    pod = supervisor.pod
    terminated = {
        "exitCode": code,
        "reason": "Completed" if code == 0 else "Error",
        "message": message,
        "startedAt": now(),
        "finishedAt": now(),
    }
    status = {
        "phase": "Succeeded" if code == 0 else "Failed",
        "conditions": [
            {"type": t, "status": "False", "lastTransitionTime": now()}
            for t in ("ContainersReady", "Ready")
        ],
        "containerStatuses": [
            {
                "name": pod["spec"]["containers"][0]["name"],
                "image": pod["spec"]["containers"][0]["image"],
                "imageID": "",
                "ready": False,
                "started": False,
                "restartCount": 0,
                "containerID": f"containerd://{pod['metadata']['uid']}",
                "state": {"terminated": terminated},
            }
        ],
    }
    with contextlib.suppress(ApiError):  # the pod may be gone (deleted, TTL)
        report(status)
    supervisor.done.set()
