"""One job's life on the real control plane: rendered by t2gen, applied as a platform engineer does, its runtime played.

A :class:`Scenario` is a job file (an example with changes) in the test's own
namespace. It renders it with ``t2gen render``, applies it with ``kubectl apply
--server-side`` (no ``Warning:`` allowed), lets the played kubelet run the pods
and the supervisor's script, plays the Twister2 runtime of those pods with their
own tokens (:mod:`tests.kubeapi.runtime`), and reads the job's state with the
``kubectl get`` that ``t2gen status JOB`` prints, into ``t2gen status``.
"""

from __future__ import annotations

import collections
import json
import shlex
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from t2gen.status.phase import exit_code
from tests.conftest import ROOT
from tests.contract import runtime as t2
from tests.helpers import run_console
from tests.kubeapi.client import ApiError
from tests.kubeapi.controlplane import ControlPlane
from tests.kubeapi.kubelet import Kubelet, until
from tests.kubeapi.runtime import JobMaster, Worker, pod_token

JOB_MASTER_CONTAINER = t2.JOB_MASTER_CONTAINER
PATHS = {
    **{
        plural: f"/api/v1/namespaces/{{ns}}/{plural}"
        for plural in (
            "pods",
            "services",
            "configmaps",
            "secrets",
            "serviceaccounts",
            "persistentvolumeclaims",
            "events",
        )
    },
    "statefulsets": "/apis/apps/v1/namespaces/{ns}/statefulsets",
    "jobs": "/apis/batch/v1/namespaces/{ns}/jobs",
    "roles": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/roles",
    "rolebindings": "/apis/rbac.authorization.k8s.io/v1/namespaces/{ns}/rolebindings",
    "networkpolicies": "/apis/networking.k8s.io/v1/namespaces/{ns}/networkpolicies",
}
"""Where the namespaced resources the tests read are listed."""


def job_file(source: str, namespace: str, **lifecycle: Any) -> dict[str, Any]:
    """``examples/<source>.yaml`` in ``namespace``, with ``spec.lifecycle`` changed (``None`` removes a key)."""
    document = yaml.safe_load((ROOT / "examples" / f"{source}.yaml").read_text())
    document["metadata"]["namespace"] = namespace
    settings = document["spec"].setdefault("lifecycle", {})
    for key, value in lifecycle.items():
        if value is None:
            settings.pop(key, None)
        else:
            settings[key] = value
    return dict(document)


class Scenario:
    """A job file rendered, applied and played in ``kubelet``'s namespace.

    Args:
        cluster: the control plane.
        kubelet: the played kubelet of the test's Node.
        document: the job file (:func:`job_file`).
        directory: the test's temporary directory.
    """

    def __init__(
        self,
        cluster: ControlPlane,
        kubelet: Kubelet,
        document: dict[str, Any],
        directory: Path,
    ) -> None:
        self.cluster, self.kubelet, self.admin = cluster, kubelet, cluster.admin
        self.namespace = kubelet.namespace
        self.directory = directory
        self.job = str(document["metadata"]["name"])
        self.path = directory / "job.yaml"
        self.write(document)
        self.job_master: JobMaster | None = None
        self.statuses: list[dict[str, Any]] = []

    def write(self, document: dict[str, Any]) -> None:
        """Change the job file (a new render and apply follow)."""
        self.document = document
        self.path.write_text(yaml.safe_dump(document, sort_keys=False))

    # --- rendering and applying ---
    def render(self) -> str:
        """``t2gen render job.yaml`` for the server's Kubernetes version; its stdout."""
        minor = ".".join(self.cluster.version().lstrip("v").split(".")[:2])
        result = run_console(["render", str(self.path), "--kube-version", minor])
        assert result.exit_code == 0, result.stderr
        return result.stdout

    def render_objects(self) -> list[dict[str, Any]]:
        """The objects ``t2gen render`` gives (parsed)."""
        return [o for o in yaml.safe_load_all(self.render()) if o]

    def apply(
        self, change: Callable[[list[dict[str, Any]]], None] | None = None
    ) -> list[dict[str, Any]]:
        """``kubectl apply --server-side`` of the render; fails on any ``Warning:``. Returns the objects.

        Args:
            change: when given, edits the rendered objects in place before they
                are applied (a Role with a verb taken out).
        """
        manifest = self.directory / "rendered.yaml"
        manifest.write_text(self.render())
        if change is not None:
            objects = [o for o in yaml.safe_load_all(manifest.read_text()) if o]
            change(objects)
            manifest.write_text(yaml.safe_dump_all(objects, sort_keys=False))
        result = self.cluster.kubectl("apply", "--server-side", "-f", str(manifest))
        warnings = [line for line in result.stderr.splitlines() if "Warning:" in line]
        assert not warnings, warnings
        return [o for o in yaml.safe_load_all(manifest.read_text()) if o]

    def objects(self, resource: str) -> list[dict[str, Any]]:
        """The live objects of ``resource`` (a plural of :data:`PATHS`) in the namespace, with their ``kind``."""
        listed = self.admin.request("GET", PATHS[resource].format(ns=self.namespace))
        kind = listed["kind"].removesuffix("List")
        return [{**o, "kind": kind} for o in listed["items"]]

    def names(self, *kinds: str) -> set[str]:
        """``Kind/name`` of every live object of those kinds in the namespace."""
        return {
            f"{o['kind']}/{o['metadata']['name']}"
            for kind in kinds
            for o in self.objects(kind)
            if not o["metadata"].get("deletionTimestamp")
        }

    def config_map(self) -> dict[str, str] | None:
        """The job's ConfigMap's data (None: deleted)."""
        try:
            found = self.admin.request(
                "GET", f"/api/v1/namespaces/{self.namespace}/configmaps/{self.job}"
            )
        except ApiError as error:
            if error.status == 404:
                return None
            raise
        return dict(found.get("data") or {})

    # --- t2gen status ---
    def status(self) -> dict[str, Any]:
        """``t2gen status job.yaml -o json`` on the real ``kubectl get -o json`` it prints; kept in ``statuses``.

        Its exit code must be the phase's (:data:`t2gen.status.phase.EXIT_CODES`).
        """
        printed = run_console(["status", str(self.path)])
        assert printed.exit_code == 0, printed.stderr
        argv = shlex.split(printed.stdout.strip())
        assert argv[0] == "kubectl" and argv[-2] == ">", argv
        state = self.cluster.kubectl(*argv[1:-2]).stdout
        saved = self.directory / "state.json"
        saved.write_text(state)
        result = run_console(
            ["status", str(self.path), "--cluster", str(saved), "-o", "json"]
        )
        found = dict(json.loads(result.stdout))
        # status exits by the job's phase (docs/lifecycle.md, "Exit codes"): the code
        # must be the phase's, 0 for a job that succeeded or is on its way.
        assert result.exit_code == exit_code(found["phase"]), (
            result.exit_code,
            result.stderr,
        )
        self.statuses.append(found)
        return found

    # --- the runtime, played ---
    def pods(self) -> list[dict[str, Any]]:
        listed = self.admin.request(
            "GET",
            f"/api/v1/namespaces/{self.namespace}/pods",
            query={"labelSelector": f"t2-job={self.job}"},
        )
        return [
            p for p in listed["items"] if not p["metadata"].get("deletionTimestamp")
        ]

    def running(self) -> list[dict[str, Any]]:
        """Wait until every pod of the job's StatefulSets runs; return them."""
        sets = self.objects("statefulsets")
        wanted = sum(int(s["spec"].get("replicas", 1)) for s in sets)

        def all_running() -> list[dict[str, Any]] | None:
            pods = self.pods()
            ok = len(pods) == wanted and all(
                p["status"].get("phase") == "Running" for p in pods
            )
            return pods if ok else None

        return list(until(all_running, f"the {wanted} pods of job {self.job} to run"))

    def worker_ids(self, pod: dict[str, Any]) -> list[tuple[str, int]]:
        """``(container, worker ID)`` of every worker in a worker pod (``K8S/worker/K8sWorkerUtils.java:135-169``)."""
        groups = self.document["spec"]["workers"]
        sets = sorted(
            (
                s
                for s in self.objects("statefulsets")
                if s["metadata"]["name"] != f"{self.job}-jm"
            ),
            key=lambda s: t2.index_from_name(s["metadata"]["name"]),
        )
        resources = [
            t2.ComputeResource(
                t2.index_from_name(s["metadata"]["name"]),
                int(s["spec"]["replicas"]),
                int(groups[i].get("perPod", 1)),
            )
            for i, s in enumerate(sets)
        ]
        name = pod["metadata"]["name"]
        mpi = bool(self.document["spec"].get("mpi", {}).get("enabled"))
        if mpi:  # one container runs the pod's workers under mpirun (MPIWorkerStarter)
            container = pod["spec"]["containers"][0]["name"]
            index = t2.index_from_name(t2.remove_index_from_name(name))
            first = t2.worker_id(resources, name, f"{t2.CONTAINER_PREFIX}0")
            per_pod = resources[index].workers_per_pod
            return [(container, first + i) for i in range(per_pod)]
        return [
            (c["name"], t2.worker_id(resources, name, c["name"]))
            for c in pod["spec"]["containers"]
        ]

    def start_runtime(self) -> JobMaster:
        """Every pod runs: the job master starts (restart count, kill watch), then every worker."""
        pods = self.running()
        jm_pod = next(p for p in pods if p["metadata"]["name"] == f"{self.job}-jm-0")
        self.job_master = JobMaster(
            pod_token(self.admin, self.namespace, jm_pod), self.namespace, self.job
        )
        self.job_master.start()
        for pod in pods:
            if pod is not jm_pod:
                try:
                    # the pod's token is asked for here too: a TokenRequest bound to a
                    # pod that the job master's clean-up has deleted answers 404
                    worker = self.worker(pod)
                    for _, worker_id in self.worker_ids(pod):
                        worker.start(worker_id)
                except ApiError as error:
                    # A short deadline may end the job before every worker has
                    # started (the machine is slow, not the script): the job
                    # master's JobTerminator deleted the ConfigMap and the pods
                    # (404) and the supervisor the pods' ServiceAccounts (401). In a
                    # cluster those pods are being deleted; nothing is left to start.
                    # The 404 can come while JobTerminator is still deleting (the
                    # garbage collector removes the pods of a deleted StatefulSet at
                    # once), so wait for its end rather than read it.
                    if not (
                        error.status in (401, 404) and self.job_master.ended.wait(60)
                    ):
                        raise
                    return self.job_master
        return self.job_master

    def worker(self, pod: dict[str, Any]) -> Worker:
        """The Twister2 worker code of ``pod``, calling with the pod's token."""
        return Worker(
            pod_token(self.admin, self.namespace, pod), self.namespace, self.job
        )

    def job_master_log(self, text: str) -> None:
        """Lines the job master logs (what ``kubectl logs`` of its container shows)."""
        pod = f"{self.job}-jm-0"
        self.kubelet.logs.log(self.namespace, pod, JOB_MASTER_CONTAINER).write(text)

    # --- the supervisor ---
    def supervising(self) -> None:
        """Wait until the supervisor follows the job: its mark in the ConfigMap, its watch open, the job master's log followed."""
        until(
            lambda: (self.config_map() or {}).get("T2GEN_SUPERVISOR"),
            "the supervisor's mark",
        )
        account = f"system:serviceaccount:{self.namespace}:{self.job}-supervisor"
        until(
            lambda: any(
                e["user"]["username"] == account
                and e["verb"] == "watch"
                and e.get("objectRef", {}).get("resource") == "configmaps"
                for e in self.cluster.audit_events()
            ),
            "the supervisor's watch of the ConfigMap",
        )
        log = self.kubelet.logs.log(
            self.namespace, f"{self.job}-jm-0", JOB_MASTER_CONTAINER
        )
        until(
            lambda: log.followers > 0, "the supervisor to follow the job master's log"
        )

    def calls(self) -> dict[str, collections.Counter[str]]:
        """API calls per ServiceAccount of the namespace, from the audit log.

        Returns:
            ``{account: {"calls": n, "refused": m, "probes": k}}``: ``probes``
            are kubectl's own looks at the namespace after a NotFound
            (:func:`_probe`), refused and not counted in ``refused``.
        """
        found = {}
        for account, events in sorted(self._audit_by_account().items()):
            probes = [e for i, e in enumerate(events) if _probe(events, i)]
            refused = [e for e in events if _code(e) in (401, 403) and e not in probes]
            found[account] = collections.Counter(
                calls=len(events), refused=len(refused), probes=len(probes)
            )
        return found

    def refused(self) -> list[str]:
        """``account: verb URI code`` of every refused call of the namespace's ServiceAccounts (but kubectl's probes)."""
        return [
            f"{account}: {e['verb']} {e['requestURI']} {_code(e)}"
            for account, events in sorted(self._audit_by_account().items())
            for i, e in enumerate(events)
            if _code(e) in (401, 403) and not _probe(events, i)
        ]

    def _audit_by_account(self) -> dict[str, list[dict[str, Any]]]:
        """Each ServiceAccount's requests, one event each, in the order the API server received them."""
        prefix = f"system:serviceaccount:{self.namespace}:"
        seen: dict[str, dict[str, dict[str, Any]]] = {}
        for event in self.cluster.audit_events():
            user = event["user"]["username"]
            if user.startswith(prefix):
                seen.setdefault(user.removeprefix(prefix), {})[event["auditID"]] = event
        return {
            account: sorted(
                events.values(), key=lambda e: e["requestReceivedTimestamp"]
            )
            for account, events in seen.items()
        }


def _code(event: dict[str, Any]) -> int:
    return int(event.get("responseStatus", {}).get("code", 0))


def _probe(events: list[dict[str, Any]], index: int) -> bool:
    """Whether ``events[index]`` is kubectl's look at the namespace after a NotFound, refused.

    kubectl (1.37) answers a ``get`` of a named object that is not found by
    getting the object's namespace, to say whether the namespace is what is
    missing; the supervisor does that when a pod it is about to read was
    deleted meanwhile (the job's end, a deleted worker pod). Its Role grants no
    ``get`` of namespaces, so that look is refused; the script ignores the
    NotFound either way. Found by this tier (issue 40).
    """
    event = events[index]
    ref = event.get("objectRef", {})
    if not (
        _code(event) == 403
        and event["verb"] == "get"
        and ref.get("resource") == "namespaces"
        and ref.get("name") == ref.get("namespace")
    ):
        return False
    before = events[:index]
    return any(e["verb"] == "get" and _code(e) == 404 for e in before[-3:])
