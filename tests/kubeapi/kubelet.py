"""The kubelet of one Node, played by the test: the control plane has none.

It registers a ``v1/Node`` (capacity, a ``Ready`` condition, its address and the
port of :class:`~tests.kubeapi.logserver.LogServer`), watches the pods the
scheduler binds to it, and does what a kubelet does with them, through the
same API calls:

- a bound pod starts: its status becomes ``Running`` with every container
  running (``pods/status``, a strategic merge patch as the kubelet's status
  manager sends: kubernetes/kubernetes ``pkg/kubelet/status/status_manager.go``);
- the supervisor's pod (label ``t2-supervisor``) really runs: its script, from
  the ConfigMap its pod mounts, as a local process with the pod's environment
  (the downward API resolved), a kubeconfig made from a TokenRequest of the
  pod's ServiceAccount bound to the pod (what the projected token is:
  https://kubernetes.io/docs/reference/access-authn-authz/service-accounts-admin/#bound-service-account-token-volume),
  and ``kubectl`` on ``PATH``; when it exits the pod's status records the exit
  code and the termination message (``FallbackToLogsOnError``: the log's tail
  when the script wrote none and failed);
- a pod being deleted is stopped: the supervisor's process gets SIGTERM (then,
  after the pod's grace period, SIGKILL to everything it started, as the
  container runtime kills the container), and the pod is deleted for good with
  ``gracePeriodSeconds: 0`` and its UID as precondition (the kubelet's last
  call: ``pkg/kubelet/status/status_manager.go``, ``canBeDeleted``);
- a test restarts a container (:meth:`Kubelet.restart`): its ``restartCount``
  grows and ``lastState`` keeps the exit, as a crashed container's does.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.kubeapi.client import STRATEGIC_PATCH, ApiError, Client
from tests.kubeapi.container import Supervisor, now, start_supervisor
from tests.kubeapi.logserver import LogServer

SUPERVISOR_LABEL = "t2-supervisor"


def until(check: Callable[[], Any], what: str, timeout: float = 120) -> Any:
    """Wait for an event: ``check()`` is called until it returns something true, which is returned.

    The timeout only bounds a broken run; no outcome depends on it.

    Raises:
        AssertionError: ``what`` did not happen within ``timeout`` seconds.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout} s for {what}")
        time.sleep(0.05)


class Kubelet:
    """Plays the kubelet of Node ``kubelet-<namespace>`` for the pods of one namespace.

    Args:
        admin: a client of the cluster as its admin.
        logs: the log endpoint the Node advertises.
        namespace: the test's namespace.
        sandbox: a directory for the supervisor's files (its ``/tmp``, script, token).
        kubectl: the kubectl binary the supervisor finds on its ``PATH``.
        poll: ``T2_POLL`` for the supervisor (seconds between its looks; the
            rendered script's default is 5, a test's is shorter).
    """

    def __init__(
        self,
        admin: Client,
        logs: LogServer,
        namespace: str,
        sandbox: Path,
        kubectl: str,
        poll: str = "0.2",
    ) -> None:
        self.admin, self.logs, self.namespace = admin, logs, namespace
        self.node = f"kubelet-{namespace}"
        self.sandbox, self.kubectl, self.poll = sandbox, kubectl, poll
        self.started: set[str] = set()
        self.stopped: set[str] = set()
        """Pod UIDs: a StatefulSet's new pod has its old pod's name."""
        self.supervisors: dict[str, Supervisor] = {}
        self.lock = threading.Lock()
        self.watch: Any = None
        self.thread: threading.Thread | None = None
        self.stopping = threading.Event()
        self.errors: list[str] = []
        self.pod_ips = 0

    # --- the node ---
    def register(self, cpu: str = "64", memory: str = "256Gi") -> None:
        """Create the Node: Ready, schedulable, reachable at 127.0.0.1 on the log server's port."""
        resources = {"cpu": cpu, "memory": memory, "pods": "250"}
        self.admin.request(
            "POST",
            "/api/v1/nodes",
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": self.node,
                    "labels": {
                        "kubernetes.io/hostname": self.node,
                        "kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64",
                    },
                },
                "status": {
                    "capacity": resources,
                    "allocatable": resources,
                    "conditions": [
                        {
                            "type": "Ready",
                            "status": "True",
                            "reason": "KubeletReady",
                            "message": "played by the test",
                            "lastHeartbeatTime": now(),
                            "lastTransitionTime": now(),
                        }
                    ],
                    "addresses": [{"type": "InternalIP", "address": "127.0.0.1"}],
                    "daemonEndpoints": {"kubeletEndpoint": {"Port": self.logs.port}},
                },
            },
        )

    def start(self) -> None:
        """Register the Node and start watching the pods bound to it."""
        self.register()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        path = f"/api/v1/namespaces/{self.namespace}/pods"
        selector = {"fieldSelector": f"spec.nodeName={self.node}"}
        while not self.stopping.is_set():
            try:
                listed = self.admin.request("GET", path, query=selector)
                for pod in listed["items"]:
                    self._handle(pod)
                self.watch = self.admin.watch(
                    path,
                    {
                        **selector,
                        "resourceVersion": listed["metadata"]["resourceVersion"],
                    },
                )
                for event in self.watch:
                    if event["type"] in ("ADDED", "MODIFIED"):
                        self._handle(event["object"])
            except Exception as error:  # kept, and the test fails at stop()
                if not self.stopping.is_set():
                    self.errors.append(repr(error))
                    time.sleep(0.1)

    def _handle(self, pod: dict[str, Any]) -> None:
        uid = pod["metadata"]["uid"]
        if pod["metadata"].get("deletionTimestamp"):
            with self.lock:
                if uid in self.stopped:
                    return
                self.stopped.add(uid)
            threading.Thread(target=self._stop_pod, args=(pod,), daemon=True).start()
            return
        if pod["status"].get("phase") not in (None, "Pending"):
            return
        with self.lock:
            if uid in self.started:
                return
            self.started.add(uid)
        if SUPERVISOR_LABEL in pod["metadata"].get("labels", {}):
            self._start_supervisor(pod)
        else:
            self._set_running(pod)

    # --- pod status ---
    def _patch_status(self, name: str, status: dict[str, Any]) -> None:
        self.admin.request(
            "PATCH",
            f"/api/v1/namespaces/{self.namespace}/pods/{name}/status",
            {"status": status},
            content_type=STRATEGIC_PATCH,
        )

    def _running_status(self, pod: dict[str, Any]) -> dict[str, Any]:
        self.pod_ips += 1
        ip = f"10.244.{self.pod_ips // 250}.{self.pod_ips % 250 + 1}"
        return {
            "phase": "Running",
            "hostIP": "127.0.0.1",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "startTime": now(),
            "conditions": [
                {"type": t, "status": "True", "lastTransitionTime": now()}
                for t in (
                    "PodReadyToStartContainers",
                    "Initialized",
                    "ContainersReady",
                    "Ready",
                )
            ],
            "containerStatuses": [
                {
                    "name": c["name"],
                    "image": c["image"],
                    "imageID": "",
                    "containerID": f"containerd://{pod['metadata']['uid']}-{c['name']}",
                    "ready": True,
                    "started": True,
                    "restartCount": 0,
                    "state": {"running": {"startedAt": now()}},
                }
                for c in pod["spec"]["containers"]
            ],
        }

    def _set_running(self, pod: dict[str, Any]) -> None:
        self._patch_status(pod["metadata"]["name"], self._running_status(pod))

    def pod(self, name: str) -> dict[str, Any]:
        """The pod as the API server has it."""
        return dict(
            self.admin.request(
                "GET", f"/api/v1/namespaces/{self.namespace}/pods/{name}"
            )
        )

    def running(self, name: str) -> bool:
        """Whether the pod exists, is bound here and runs."""
        try:
            pod = self.pod(name)
        except ApiError:
            return False
        return bool(pod["status"].get("phase") == "Running")

    def restart(self, name: str, container: str, exit_code: int = 1) -> int:
        """The container crashed and the kubelet started it again; returns its new ``restartCount``.

        Its log so far becomes its previous log (``kubectl logs --previous``).
        """
        pod = self.pod(name)
        statuses = pod["status"]["containerStatuses"]
        status = next(s for s in statuses if s["name"] == container)
        status["restartCount"] += 1
        status["lastState"] = {
            "terminated": {
                "exitCode": exit_code,
                "reason": "Error",
                "startedAt": now(),
                "finishedAt": now(),
                "containerID": status["containerID"],
            }
        }
        status["state"] = {"running": {"startedAt": now()}}
        self.logs.log(self.namespace, name, container).restart()
        self._patch_status(name, {"containerStatuses": statuses})
        return int(status["restartCount"])

    # --- the supervisor's process ---
    def _start_supervisor(self, pod: dict[str, Any]) -> None:
        name = pod["metadata"]["name"]
        self.supervisors[name] = start_supervisor(
            self.admin,
            pod,
            self.sandbox / name,
            self.kubectl,
            self.poll,
            self.logs.log(self.namespace, name, pod["spec"]["containers"][0]["name"]),
            lambda status: self._patch_status(name, status),
        )
        self._set_running(pod)

    def supervisor(self) -> Supervisor:
        """The supervisor started here (waits for its pod to be bound and started)."""
        return until(
            lambda: next(iter(self.supervisors.values()), None),
            "the supervisor's pod to start",
        )

    # --- stopping ---
    def _stop_pod(self, pod: dict[str, Any]) -> None:
        name = pod["metadata"]["name"]
        supervisor = self.supervisors.get(name)
        if supervisor is not None and supervisor.process.poll() is None:
            supervisor.process.send_signal(signal.SIGTERM)  # to PID 1 of the container
            grace = pod["spec"].get("terminationGracePeriodSeconds", 30)
            if not supervisor.done.wait(grace):
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(supervisor.process.pid, signal.SIGKILL)
            supervisor.done.wait(30)
        for container in pod["spec"]["containers"]:
            self.logs.log(self.namespace, name, container["name"]).end()
        with contextlib.suppress(ApiError):
            self.admin.request(
                "DELETE",
                f"/api/v1/namespaces/{self.namespace}/pods/{name}",
                {
                    "gracePeriodSeconds": 0,
                    "preconditions": {"uid": pod["metadata"]["uid"]},
                },
            )

    def stop(self) -> list[str]:
        """Stop watching, kill every process started here, delete the Node; return the watch's errors."""
        self.stopping.set()
        if self.watch is not None:
            self.watch.close()
        for supervisor in self.supervisors.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(supervisor.process.pid, signal.SIGKILL)
            supervisor.process.wait(30)
        if self.thread is not None:
            self.thread.join(30)
        with contextlib.suppress(ApiError):
            self.admin.request("DELETE", f"/api/v1/nodes/{self.node}")
        return self.errors
