"""The Twister2 runtime's API calls, played from its sources with each pod's own ServiceAccount token.

Sources: DSC-SPIDAL/twister2 at ``c6844d2`` (the ``twister2/twister2-k8s:0.8.0``
image's code); ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``.
Every call is the request the Java client sends (``ClientBuilder.standard()``
with JSON patches, ``K8S/KubernetesController.java:85-98``), made with a token
of the pod's ServiceAccount bound to the pod, as the pod's projected token is:
so the worker and job-master Roles t2gen renders are what allows or refuses
them. The calls are those :data:`tests.contract.runtime.API_CALLS` lists.
"""

from __future__ import annotations

import threading
from typing import Any

from tests.contract import runtime as t2
from tests.kubeapi.client import JSON_PATCH, ApiError, Client

TERMINATING = {"gracePeriodSeconds": "0", "propagationPolicy": "Foreground"}
"""The query of the job master's deletes: ``K8S/KubernetesController.java:243-247,376-380,824-829``
(``KubernetesConstants.DELETE_OPTIONS_PROPAGATION_POLICY`` is ``Foreground``)."""


def pod_token(admin: Client, namespace: str, pod: dict[str, Any]) -> Client:
    """A client that calls as the pod: a TokenRequest of its ServiceAccount, bound to the pod.

    https://kubernetes.io/docs/reference/kubernetes-api/authentication-resources/token-request-v1/
    """
    account = pod["spec"].get("serviceAccountName") or "default"
    answer = admin.request(
        "POST",
        f"/api/v1/namespaces/{namespace}/serviceaccounts/{account}/token",
        {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {
                "expirationSeconds": 3600,
                "boundObjectRef": {
                    "kind": "Pod",
                    "apiVersion": "v1",
                    "name": pod["metadata"]["name"],
                    "uid": pod["metadata"]["uid"],
                },
            },
        },
    )
    user = f"system:serviceaccount:{namespace}:{account}"
    return admin.with_token(answer["status"]["token"], user)


class Twister2Pod:
    """The Twister2 code of one pod (a worker's, or the job master's), calling as that pod."""

    def __init__(self, client: Client, namespace: str, job: str) -> None:
        self.client, self.namespace, self.job = client, namespace, job
        self.base = f"/api/v1/namespaces/{namespace}"

    def config_map_data(self) -> dict[str, str]:
        """``getJobConfigMap``: the ConfigMaps labelled ``t2-job=<job>``, exactly one (``K8S/KubernetesController.java:906-926``)."""
        listed = self.client.request(
            "GET",
            f"{self.base}/configmaps",
            query={"labelSelector": f"t2-job={self.job}"},
        )
        items = listed["items"]
        assert len(items) == 1, "There are multiple ConfigMaps for this job"
        return dict(items[0].get("data") or {})

    def init_restart_count(self, key: str) -> int:
        """``initRestartFromCM`` (``K8S/worker/K8sWorkerUtils.java:356-383``): read the count, add 0 or write count + 1.

        Returns:
            The restart count this start runs with (0: the first start).
        """
        value = self.config_map_data().get(key)
        count = (-1 if value is None else int(value)) + 1
        op = (
            "add" if count == 0 else "replace"
        )  # K8S/KubernetesController.java:972-1013
        self.client.request(
            "PATCH",
            f"{self.base}/configmaps/{self.job}",
            f'[{{"op":"{op}","path":"/data/{key}","value":"{count}"}}]',
            content_type=JSON_PATCH,
        )
        return count


class Worker(Twister2Pod):
    """A worker's start: ``K8S/worker/K8sWorkerStarter.java:164`` (``MPIWorkerStarter.java:192`` with OpenMPI)."""

    def start(self, worker_id: int) -> int:
        """Read and write ``RESTART_COUNT_FOR_WORKER_<id>``; returns the restart count."""
        return self.init_restart_count(t2.worker_key(worker_id))


class JobMaster(Twister2Pod):
    """The job master in its pod: its restart count, the kill watch and the ``JobTerminator``."""

    def __init__(self, client: Client, namespace: str, job: str) -> None:
        super().__init__(client, namespace, job)
        self.ended = threading.Event()
        self._terminating = threading.Lock()
        self.final_state = ""
        self.failures: list[str] = []
        self._watch: Any = None

    def start(self) -> int:
        """``K8S/master/JobMasterStarter.java:118-121`` and the kill watch of ``:147-150``."""
        count = self.init_restart_count(t2.job_master_key())
        self._watch = self.client.watch(
            f"{self.base}/configmaps",
            {"labelSelector": f"t2-job={self.job}", "timeoutSeconds": str(2**31 - 1)},
        )
        threading.Thread(target=self._kill_watch, daemon=True).start()
        return count

    def _kill_watch(self) -> None:
        """``K8S/master/JobKillWatcher.java:61-100``: any ``KILL_JOB`` in ConfigMap ``<job>`` ends the job as KILLED."""
        for event in self._watch:
            obj = event.get("object") or {}
            if (
                obj.get("data") is not None
                and obj["metadata"]["name"] == self.job
                and t2.KILL_JOB_KEY in obj["data"]
            ):
                self.terminate("KILLED")
                return

    def terminate(self, final_state: str) -> None:
        """``JobTerminator.terminateJob`` (``K8S/master/JobTerminator.java:36-88``), in its order.

        The worker StatefulSets found by label (``:39-43``), the worker Service
        (``:45-47``), the claim (``:54-65``, kept for a FAILED job only with
        checkpointing, which these jobs do not have), the ConfigMap (``:67-68``),
        the job master's Service (``:70-72``) and StatefulSet (``:74-77``). A
        404 is success (``K8S/KubernetesController.java:256-259``); any other
        error is a failed termination, kept in ``failures``.
        """
        if not self._terminating.acquire(blocking=False):
            self.ended.wait(120)  # the kill watch ends the job already
            return
        self.final_state = final_state
        if self._watch is not None:
            self._watch.close()  # JobMaster.close() stops the watcher
        apps = f"/apis/apps/v1/namespaces/{self.namespace}/statefulsets"
        try:
            listed = self.client.request(
                "GET", apps, query={"labelSelector": f"t2-job={self.job}"}
            )
            names = [s["metadata"]["name"] for s in listed["items"]]
        except ApiError as error:
            self.failures.append(str(error))
            names = []
        workers = [n for n in names if n.removeprefix(f"{self.job}-").isdigit()]
        for path, query in [
            *((f"{apps}/{name}", TERMINATING) for name in workers),
            (f"{self.base}/services/{self.job}", TERMINATING),
            (f"{self.base}/persistentvolumeclaims/{self.job}", None),
            (f"{self.base}/configmaps/{self.job}", TERMINATING),
            (f"{self.base}/services/{self.job}-jm", TERMINATING),
            (f"{apps}/{self.job}-jm", TERMINATING),
        ]:
            try:
                self.client.request("DELETE", path, query=query, ok=(404,))
            except ApiError as error:
                self.failures.append(str(error))
        self.ended.set()
