"""``t2gen status``: a job's phase, each worker's state by worker ID, and what is left over, from a saved ``kubectl get``.

Offline, like ``plan --nodes``: the input is ``kubectl get ... -o json`` of the
objects labelled ``app.kubernetes.io/instance=<job>`` (the job's and its
supervisor's, :func:`collect_command`). Pods are mapped to worker IDs as ``t2gen
plan`` maps them (:mod:`t2gen.plan.workermap`). What the phases mean, from the
Twister2 runtime (``K8S/`` = ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
of DSC-SPIDAL/twister2 c6844d2):

* the job master deletes the StatefulSets, Services, ConfigMap and claim when the
  job ends (``K8S/master/JobTerminator.java:36-88``), so a job with none of them
  has ended, and what remains is left over;
* a completed and a failed job look the same after that; only the supervisor Job
  (``spec.lifecycle.supervise``) keeps the outcome, as its condition and its pod's
  termination message (docs/lifecycle.md);
* ``KILL_JOB`` in the ConfigMap is a kill (``K8S/master/JobKillWatcher.java:62-99``);
  a ConfigMap holding it while no pod runs is an earlier run's, which would kill
  the next run at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.errors import Problem
from t2gen.model import Job
from t2gen.plan.listio import PlanInputError, list_items, load_document
from t2gen.plan.workermap import build_worker_map
from t2gen.plan.workermap.layout import worker_rows
from t2gen.render.context.supervisor import supervisor_name
from t2gen.twister2 import names

__all__ = ["JobStatus", "collect_command", "job_status", "parse_objects", "status_text"]

_KINDS = ("pods", "statefulsets", "services", "configmaps", "persistentvolumeclaims",
          "serviceaccounts", "roles", "rolebindings", "jobs")  # fmt: skip
_RESOURCES = {
    "ServiceAccount": "serviceaccounts", "Role": "roles.rbac.authorization.k8s.io",
    "RoleBinding": "rolebindings.rbac.authorization.k8s.io", "ConfigMap": "configmaps",
    "Service": "services", "StatefulSet": "statefulsets.apps", "Job": "jobs.batch",
    "PersistentVolumeClaim": "persistentvolumeclaims", "Secret": "secrets",
}  # fmt: skip
JobStatus = dict[str, Any]
"""``{job, namespace, phase, reason, supervisor, killJob, workers, jobMaster, leftovers, clear, keptForRestore}`` (see :func:`job_status`)."""


def collect_command(job: Job, group_kinds: Sequence[str] = ()) -> str:
    """The ``kubectl get`` whose output ``t2gen status`` reads, for ``job``.

    Args:
        job: the job.
        group_kinds: the gang's group resources (``podgroups.scheduling.volcano.sh``).
    """
    namespace = f" -n {job.namespace}" if job.namespace else ""
    kinds = ",".join((*_KINDS, *group_kinds))
    return f"kubectl get {kinds}{namespace} -l app.kubernetes.io/instance={job.name} -o json"


def parse_objects(text: str, source: str) -> list[dict[str, Any]]:
    """The objects of a ``kubectl get -o json`` (a ``List``), each a mapping with ``kind`` and ``metadata.name``.

    Raises:
        PlanInputError: not JSON or YAML, not a list, or an item without kind or name.
    """
    command = "kubectl get ... -o json (t2gen status JOB prints it)"
    found: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for path, item in list_items(
        load_document(text, source), "Kubernetes object", command, source
    ):
        metadata = item.get("metadata") if isinstance(item, Mapping) else None
        if not (isinstance(item, Mapping) and isinstance(item.get("kind"), str)
                and isinstance(metadata, Mapping) and isinstance(metadata.get("name"), str)):  # fmt: skip
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    "not a Kubernetes object with kind and metadata.name",
                    path,
                )
            )
            continue
        found.append(dict(item))
    if problems:
        raise PlanInputError(problems=problems)
    return found


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, Mapping) else None
    return obj


def _list(obj: Any) -> list[Any]:
    return obj if isinstance(obj, list) else []


def _container_state(pod: Mapping[str, Any] | None, container: str) -> str:
    """One container's state in words: phase, why it waits or restarts (the kubelet's and scheduler's reasons)."""
    if pod is None:
        return "no pod"
    if _get(pod, "metadata", "deletionTimestamp"):
        return "Terminating"
    phase = _get(pod, "status", "phase") or "Unknown"
    if phase == "Pending":
        for condition in _list(_get(pod, "status", "conditions")):
            if (
                _get(condition, "type") == "PodScheduled"
                and _get(condition, "status") == "False"
            ):
                reason = _get(condition, "reason") or "Unschedulable"
                return f"Pending, not scheduled ({reason}): {_get(condition, 'message') or 'no message'}"
    for status in _list(_get(pod, "status", "containerStatuses")):
        if _get(status, "name") != container:
            continue
        words = phase
        waiting = _get(status, "state", "waiting")
        if isinstance(waiting, Mapping):
            words += f", waiting: {waiting.get('reason') or 'unknown'}"
            if waiting.get("message"):
                words += f" ({waiting['message']})"
        restarts = _get(status, "restartCount")
        if isinstance(restarts, int) and restarts > 0:
            last = _get(status, "lastState", "terminated") or {}
            words += f", restarted {restarts} time{'s' if restarts != 1 else ''}"
            if last:
                words += f" (last: {last.get('reason') or 'terminated'}, exit code {last.get('exitCode', '?')})"
        return words
    return phase


def _supervisor(
    objects: Sequence[Mapping[str, Any]], job: Job
) -> dict[str, Any] | None:
    """The supervisor Job's state: ``{state, message}``; None when there is none."""
    name = supervisor_name(job.name)
    jobs = [
        o
        for o in objects
        if o.get("kind") == "Job" and _get(o, "metadata", "name") == name
    ]
    if not jobs:
        return None
    message = ""
    for pod in objects:
        labels = _get(pod, "metadata", "labels") or {}
        if pod.get("kind") == "Pod" and name in (
            labels.get("batch.kubernetes.io/job-name"),
            labels.get("job-name"),
        ):
            for status in _list(_get(pod, "status", "containerStatuses")):
                terminated = _get(status, "state", "terminated")
                if isinstance(terminated, Mapping) and terminated.get("message"):
                    message = str(terminated["message"]).strip()
    state = "Running"
    if _get(jobs[0], "spec", "suspend") is True:
        state = "Suspended"
    for condition in _list(_get(jobs[0], "status", "conditions")):
        if _get(condition, "status") == "True" and _get(condition, "type") in (
            "Complete",
            "Failed",
        ):
            state = str(_get(condition, "type"))
            message = message or str(
                _get(condition, "message") or _get(condition, "reason") or ""
            )
    return {"state": state, "message": message}


def job_status(
    job: Job,
    rendered: Sequence[Mapping[str, Any]],
    objects: Sequence[Mapping[str, Any]],
) -> JobStatus:
    """What ``objects`` (the cluster) say of ``job``, whose rendered objects are ``rendered``.

    Returns:
        :data:`JobStatus`: ``phase`` is ``Suspended``, ``Pending``, ``Running``,
        ``Restarting``, ``Succeeded``, ``Failed``, ``Ended`` (the job master
        cleaned up; no supervisor to say how it ended) or ``NotFound``;
        ``leftovers`` the ``TYPE/NAME`` of what remains after the end,
        ``clear`` the command that deletes them but the claim of a
        checkpointing job, which ``keptForRestore`` names when it is left.
    """
    by_name = {(o.get("kind"), _get(o, "metadata", "name")): o for o in objects}
    pods = {name: o for (kind, name), o in by_name.items() if kind == "Pod"}
    config_map = by_name.get(("ConfigMap", job.name))
    running = config_map is not None or any(
        kind == "StatefulSet" for kind, _ in by_name
    )
    wmap = build_worker_map(job, rendered)
    workers = [
        {
            "id": row[0],
            "pod": row[4],
            "container": row[5],
            "state": _container_state(pods.get(row[4]), row[5]),
        }
        for row in worker_rows(wmap)
    ]
    pod = names.statefulset_pod_name(names.job_master_statefulset_name(job.name), 0)
    job_master = {
        "pod": pod,
        "state": _container_state(pods.get(pod), "twister2-job-master-0"),
    }
    supervisor = _supervisor(objects, job)
    kill = _get(config_map, "data", "KILL_JOB") is not None
    states = [str(w["state"]) for w in workers] + [job_master["state"]]
    leftovers: list[str] = []
    if supervisor and supervisor["state"] in ("Complete", "Failed"):
        phase = "Succeeded" if supervisor["state"] == "Complete" else "Failed"
        reason = supervisor["message"]
    elif supervisor and supervisor["state"] == "Suspended":
        phase, reason = (
            "Suspended",
            "the supervisor Job is suspended; set lifecycle.suspend: false and apply",
        )
    elif running and kill and not pods:
        phase, reason = (
            "Ended",
            "KILL_JOB is set and no pod runs: an earlier, killed run's ConfigMap",
        )
    elif running:
        phase, reason = _running_phase(states)
    elif any(_is_the_jobs(o, job) for o in objects):
        phase, reason = (
            "Ended",
            "the job master deleted the job's workloads; no supervisor kept the outcome",
        )
    else:
        phase, reason = (
            "NotFound",
            f"no object labelled app.kubernetes.io/instance={job.name}",
        )
    if phase in ("Succeeded", "Failed", "Ended"):
        leftovers = [
            f"{_RESOURCES.get(str(o.get('kind')), str(o.get('kind')).lower() + 's')}/{_get(o, 'metadata', 'name')}"
            for o in objects
            if _is_the_jobs(o, job) and o.get("kind") != "Pod"
        ]
    namespace = f" -n {job.namespace}" if job.namespace else ""
    # A checkpointing job's claim outlives a failed run for a restore
    # (K8S/master/JobTerminator.java:49-65; docs/reference.md, "Re-running a job"):
    # the command to clear leaves it, and the text says why.
    kept = (
        f"persistentvolumeclaims/{job.name}" if job.spec.checkpointing.enabled else ""
    )
    deleted = [item for item in leftovers if item != kept]
    clear = (
        f"kubectl delete{namespace} {' '.join(deleted)} --ignore-not-found"
        if deleted
        else None
    )
    return {
        "job": job.name, "namespace": job.namespace, "phase": phase, "reason": reason,
        "supervisor": supervisor, "killJob": kill, "workers": workers, "jobMaster": job_master,
        "leftovers": leftovers, "clear": clear,
        "keptForRestore": kept if kept in leftovers else None,
    }  # fmt: skip


def _is_the_jobs(obj: Mapping[str, Any], job: Job) -> bool:
    """An object of the Twister2 job (``t2-job``), not of its supervisor."""
    return bool(_get(obj, "metadata", "labels", names.JOB_LABEL) == job.name)


def _running_phase(states: Sequence[str]) -> tuple[str, str]:
    pending = sum(1 for s in states if s.startswith(("Pending", "no pod")))
    restarting = sum(1 for s in states if "restarted" in s or "CrashLoopBackOff" in s)
    if pending:
        return "Pending", f"{pending} of {len(states)} containers are not running yet"
    if restarting:
        return "Restarting", f"{restarting} of {len(states)} containers have restarted"
    return "Running", f"all {len(states)} containers are running"


def status_text(status: JobStatus) -> str:
    """:func:`job_status` for people: the phase, the supervisor, one line per worker, and the leftovers."""
    where = f" in namespace {status['namespace']}" if status["namespace"] else ""
    lines = [f"job {status['job']}{where}: {status['phase']}: {status['reason']}"]
    supervisor = status["supervisor"]
    if supervisor is None:
        lines.append(
            "supervisor: none (spec.lifecycle.supervise renders one that keeps the outcome)"
        )
    else:
        message = f": {supervisor['message']}" if supervisor["message"] else ""
        lines.append(f"supervisor: {supervisor['state']}{message}")
    if status["killJob"]:
        lines.append("KILL_JOB is set in the job's ConfigMap")
    if status["phase"] not in ("Succeeded", "Failed", "Ended", "NotFound"):
        rows = [("WORKER", "POD", "CONTAINER", "STATE")]
        if status["jobMaster"]:
            rows.append(
                (
                    "jm",
                    status["jobMaster"]["pod"],
                    "twister2-job-master-0",
                    status["jobMaster"]["state"],
                )
            )
        rows += [
            (str(w["id"]), w["pod"], w["container"], w["state"])
            for w in status["workers"]
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines += [
            "",
            *(
                "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False))
                + "  "
                + row[3]
                for row in rows
            ),
        ]
    if status["leftovers"]:
        lines += ["", f"left over ({len(status['leftovers'])}): {' '.join(status['leftovers'])}",
                  f"to clear: {status['clear']}"]  # fmt: skip
    if status.get("keptForRestore"):
        lines.append(
            f"kept: {status['keptForRestore']} holds the checkpoints of a failed run: restore "
            "with checkpointing.restore: true, or delete it to start afresh"
        )
    return "\n".join(lines) + "\n"
