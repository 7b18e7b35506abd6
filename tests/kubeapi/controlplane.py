"""Start and stop a real Kubernetes control plane for one test process, as envtest does, with the controllers.

From the binaries :mod:`tests.kubeapi.binaries` finds: etcd, ``kube-apiserver``
and, when present, ``kube-controller-manager`` and ``kube-scheduler``, with the
flags ``../shared/kube/kube-up`` gives them (RBAC with the real authorizer,
the default admission plugins but TaintNodesByCondition so Node objects
without a kubelet stay schedulable, ServiceAccount tokens, the Workload API of
1.36), plus an audit log of every request a ServiceAccount of a test makes
(https://kubernetes.io/docs/tasks/debug/debug-cluster/audit/), from which the
tests count API calls per ServiceAccount and see any refused.

Started here rather than by ``kube-up`` for three reasons: ``kube-up`` takes no
audit flags; its processes are detached (``nohup``) and outlive a test process
that is killed, where these die with it (``PR_SET_PDEATHSIG``); and the same
code starts the binaries of ``KUBEBUILDER_ASSETS``. Every port is a free one
the kernel hands out, so parallel test processes and worktrees never collide.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import ssl
import subprocess
import time
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import _kubectl_path
from tests.kubeapi.binaries import Binaries
from tests.kubeapi.client import Client
from tests.kubeapi.pki import write_pki
from tests.processes import keep

FEATURE_GATES = "GenericWorkload=true,GangScheduling=true"
AUDIT_POLICY = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived"],
    "rules": [
        {"level": "None", "userGroups": ["system:serviceaccounts:kube-system"]},
        {"level": "Metadata", "userGroups": ["system:serviceaccounts"]},
        {"level": "None"},
    ],
}
"""Every request of a ServiceAccount outside kube-system (the controllers' own accounts), at Metadata level."""
READY_SECONDS = 120


def _die_with_parent() -> None:  # pragma: no cover - runs in the child
    """``prctl(PR_SET_PDEATHSIG, SIGKILL)``: the child dies with the test process (Linux).

    SIGKILL, not SIGTERM: a test process that died cleans nothing up, and an
    API server whose etcd is gone never ends its graceful termination.
    """
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)


def _free_ports(count: int) -> list[int]:
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class ControlPlane:
    """One control plane in ``directory``: ``server``, ``ca``, ``admin`` (a :class:`Client`), ``kubeconfig``.

    Args:
        binaries: where its binaries are.
        directory: a fresh directory for its certificates, data and logs.
    """

    def __init__(self, binaries: Binaries, directory: Path) -> None:
        self.binaries, self.directory = binaries, directory
        self.pki, self.logs = directory / "pki", directory / "logs"
        self.audit_log = self.logs / "audit.log"
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.controllers = binaries.controllers
        self.server = ""
        self.ca = self.pki / "ca.crt"
        self.kubeconfig = directory / "admin.kubeconfig"
        self._audit: list[dict[str, Any]] = []
        self._audit_read = 0

    # --- start ---
    def start(self) -> None:
        """Start every component and wait until each says it is ready (at most 120 s each).

        Raises:
            RuntimeError: a component exited or was not ready in time (its log's tail is in the message).
        """
        write_pki(self.pki)
        self.logs.mkdir(parents=True, exist_ok=True)
        (self.directory / "audit-policy.yaml").write_text(yaml.safe_dump(AUDIT_POLICY))
        api, etcd, peer, kcm, scheduler = _free_ports(5)
        self.server = f"https://127.0.0.1:{api}"
        for name in ("admin", "controller-manager", "scheduler"):
            self._write_kubeconfig(name)
        self._start_etcd(etcd, peer)
        self._wait("etcd", f"http://127.0.0.1:{etcd}/health")
        self._start("kube-apiserver", self._api_server_flags(api, etcd))
        self.admin = Client(
            self.server,
            self.ca,
            cert=(self.pki / "admin.crt", self.pki / "admin.key"),
            user="admin",
        )
        self._wait("kube-apiserver", f"{self.server}/readyz", client=self.admin)
        if self.controllers:
            self._start("kube-controller-manager", self._controller_flags(kcm))
            self._start("kube-scheduler", self._scheduler_flags(scheduler))
            self._wait("kube-controller-manager", f"https://127.0.0.1:{kcm}/healthz")
            self._wait("kube-scheduler", f"https://127.0.0.1:{scheduler}/healthz")
            # /healthz answers before the controllers run; the ServiceAccount
            # controller's first act, the namespace default's account, says they do
            self._wait(
                "kube-controller-manager",
                "/api/v1/namespaces/default/serviceaccounts/default",
                client=self.admin,
            )

    def _write_kubeconfig(self, name: str) -> None:
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [
                {
                    "name": "local",
                    "cluster": {
                        "server": self.server,
                        "certificate-authority": str(self.ca),
                    },
                }
            ],
            "users": [
                {
                    "name": name,
                    "user": {
                        "client-certificate": str(self.pki / f"{name}.crt"),
                        "client-key": str(self.pki / f"{name}.key"),
                    },
                }
            ],
            "contexts": [
                {"name": "local", "context": {"cluster": "local", "user": name}}
            ],
            "current-context": "local",
        }
        (self.directory / f"{name}.kubeconfig").write_text(json.dumps(config))

    def _start(self, name: str, argv: list[str]) -> None:
        log = (self.logs / f"{name}.log").open("wb")
        self.processes[name] = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=_die_with_parent,  # only prctl before exec: safe after fork
            start_new_session=True,
        )
        keep(
            self.processes[name].pid
        )  # outlives each test on purpose (tests/processes.py)
        log.close()

    def _start_etcd(self, client: int, peer: int) -> None:
        data = self.directory / "etcd"
        if self.binaries.etcd == "kube-etcd":
            argv = [str(data), str(client), str(peer)]
        else:
            url, peer_url = f"http://127.0.0.1:{client}", f"http://127.0.0.1:{peer}"
            argv = [
                f"--data-dir={data}",
                f"--listen-client-urls={url}",
                f"--advertise-client-urls={url}",
                f"--listen-peer-urls={peer_url}",
                f"--initial-advertise-peer-urls={peer_url}",
                f"--initial-cluster=default={peer_url}",
                "--unsafe-no-fsync",
            ]
        self._start("etcd", [str(self.binaries.path / self.binaries.etcd), *argv])

    def version(self) -> str:
        """``v1.36.2``: the API server binary's version."""
        out = subprocess.run(
            [str(self.binaries.path / "kube-apiserver"), "--version"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return out.split()[-1]

    def _api_server_flags(self, port: int, etcd: int) -> list[str]:
        p = self.pki
        flags = [
            str(self.binaries.path / "kube-apiserver"),
            f"--etcd-servers=http://127.0.0.1:{etcd}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            "--advertise-address=127.0.0.1",
            "--endpoint-reconciler-type=none",
            "--service-cluster-ip-range=10.96.0.0/16",
            "--service-node-port-range=30000-32767",
            "--authorization-mode=Node,RBAC",
            f"--client-ca-file={p / 'ca.crt'}",
            f"--tls-cert-file={p / 'apiserver.crt'}",
            f"--tls-private-key-file={p / 'apiserver.key'}",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={p / 'sa.pub'}",
            f"--service-account-signing-key-file={p / 'sa.key'}",
            "--disable-admission-plugins=TaintNodesByCondition",
            "--allow-privileged=true",
            "--profiling=false",
            "--v=1",
            f"--audit-policy-file={self.directory / 'audit-policy.yaml'}",
            f"--audit-log-path={self.audit_log}",
            "--audit-log-mode=blocking",
        ]
        if self.version().startswith("v1.36."):
            # the Workload API of 1.36, as kube-up enables it
            flags += [
                "--runtime-config=scheduling.k8s.io/v1alpha2=true",
                f"--feature-gates={FEATURE_GATES}",
            ]
        return flags

    def _component_flags(self, name: str, port: int) -> list[str]:
        config = self.directory / f"{name}.kubeconfig"
        flags = [
            f"--kubeconfig={config}",
            f"--authentication-kubeconfig={config}",
            f"--authorization-kubeconfig={config}",
            "--bind-address=127.0.0.1",
            f"--secure-port={port}",
            "--leader-elect=false",
            "--profiling=false",
            "--v=1",
        ]
        if self.version().startswith("v1.36."):
            flags.append(f"--feature-gates={FEATURE_GATES}")
        return flags

    def _controller_flags(self, port: int) -> list[str]:
        p = self.pki
        return [
            str(self.binaries.path / "kube-controller-manager"),
            *self._component_flags("controller-manager", port),
            # no kubelet heartbeats: the node lifecycle controller would evict every pod
            "--controllers=*,-node-lifecycle-controller,-service-ca-certificate-publisher-controller",
            f"--service-account-private-key-file={p / 'sa.key'}",
            f"--root-ca-file={p / 'ca.crt'}",
            "--use-service-account-credentials=true",
            f"--cluster-signing-cert-file={p / 'ca.crt'}",
            f"--cluster-signing-key-file={p / 'ca.key'}",
        ]

    def _scheduler_flags(self, port: int) -> list[str]:
        return [
            str(self.binaries.path / "kube-scheduler"),
            *self._component_flags("scheduler", port),
        ]

    def _wait(self, name: str, url: str, client: Client | None = None) -> None:
        """Wait until ``url`` answers 200 (a readiness endpoint), or the component exits."""
        context = ssl.create_default_context()
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            if self.processes[name].poll() is not None:
                raise RuntimeError(f"{name} exited: {self._tail(name)}")
            try:
                if client is not None:
                    client.request("GET", url.removeprefix(self.server), ok=())
                    return
                with urllib.request.urlopen(url, context=context, timeout=5) as answer:
                    if answer.status == 200:
                        return
            except Exception:  # not up yet: connection refused, 500 while starting
                time.sleep(0.1)
        raise RuntimeError(f"{name} not ready in {READY_SECONDS} s: {self._tail(name)}")

    def _tail(self, name: str) -> str:
        path = self.logs / f"{name}.log"
        lines = path.read_text(errors="replace").splitlines() if path.exists() else []
        return " | ".join(lines[-5:])

    # --- stop ---
    def stop(self) -> list[str]:
        """Stop every component, newest first (SIGTERM, then SIGKILL after 20 s); return what survived.

        Survivors are the components still running and any process whose
        command line names this control plane's directory: the caller fails
        on any (no orphan process).
        """
        for name in reversed(list(self.processes)):
            process = self.processes[name]
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=20)
        survivors = [name for name, p in self.processes.items() if p.poll() is None]
        return survivors + _processes_naming(self.directory)

    def kubectl(
        self, *args: str, input_text: str | None = None, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        """Run the real kubectl as the cluster's admin."""
        result = subprocess.run(
            [str(_kubectl_path()), f"--kubeconfig={self.kubeconfig}", *args],
            input=input_text,
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            env={**os.environ, "HOME": str(self.directory)},
        )
        if check and result.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(args)}: {result.stderr}")
        return result

    def audit_events(self) -> list[dict[str, Any]]:
        """Every audit event written so far (one JSON object a line), read on from where the last call stopped."""
        if self.audit_log.exists():
            with self.audit_log.open("rb") as log:
                log.seek(self._audit_read)
                chunk = log.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]
            self._audit_read += len(complete)
            self._audit += [
                json.loads(line) for line in complete.splitlines() if line.strip()
            ]
        return self._audit


def _processes_naming(directory: Path) -> list[str]:
    """``pid: command`` of every live process whose command line names ``directory``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if str(directory) in command:
            found.append(f"{proc.name}: {command[:200]}")
    return found
