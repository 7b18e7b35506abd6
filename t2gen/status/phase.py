"""A job's phase, each worker's state by worker ID, and what is left over, from its objects in the cluster.

Offline, like ``plan --nodes``: the input is ``kubectl get ... -o json`` of the
objects labelled ``app.kubernetes.io/instance=<job>`` (the job's and its
supervisor's, :func:`t2gen.status.fetch.collect_command`). Pods are mapped to
worker IDs by the runtime's topology (:mod:`t2gen.twister2.topology`), as
``t2gen plan`` maps them. What the phases mean, from the
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

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.kube.kinds import KINDS, KindInfo, kind_info
from t2gen.model import Job
from t2gen.render.context.supervisor import SUPERVISOR_LABEL, supervisor_name
from t2gen.twister2 import names
from t2gen.twister2.logfiles import logs_claim_name
from t2gen.twister2.terminator import claim
from t2gen.twister2.topology import build_topology

__all__ = ["EXIT_CODES", "FINAL_PHASES", "JobStatus", "exit_code", "job_status"]

FINAL_PHASES = frozenset({"Succeeded", "Failed", "Ended"})
"""Phases after which nothing of the job runs any more."""

EXIT_CODES = {"Failed": 3, "Ended": 4, "NotFound": 4}
"""``t2gen status``'s and ``t2gen wait``'s exit code by phase; every other phase is 0.

0: the job succeeded, or is on its way (Pending, Running, Restarting, Suspended);
3: it failed (the supervisor says so); 4: it ended with no outcome kept, or
nothing of it is found. 1 and 2 stay the exit codes of invalid input and
usage errors (docs/lifecycle.md, "Waiting for a job")."""

JobStatus = dict[str, Any]
"""``{job, namespace, phase, reason, supervised, supervisor, killJob, workers, jobMaster, leftovers, clear, keptForRestore}``, plus ``keptLogs`` for a job with ``spec.logs`` (see :func:`job_status`)."""


def exit_code(phase: str) -> int:
    """The exit code of a phase (:data:`EXIT_CODES`)."""
    return EXIT_CODES.get(phase, 0)


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


def _own(
    objects: Sequence[Mapping[str, Any]], job: Job, kinds: Sequence[KindInfo]
) -> list[Mapping[str, Any]]:
    """Only the job's own objects: its kinds, its namespace, its instance and t2gen's labels.

    Of a kind in ``kinds`` (namespaced), in the job's namespace, labelled with
    its instance and managed by t2gen, with a name. A saved state may hold anything (issue 40: a cluster-scoped object with the
    instance label, a stranger's object); nothing else is read, reported or
    advised for deletion.
    """
    allowed = {(k.api_version, k.kind) for k in kinds if k.namespaced}
    own: list[Mapping[str, Any]] = []
    for obj in objects:
        labels = _get(obj, "metadata", "labels")
        if (
            isinstance(labels, Mapping)
            and labels.get(names.INSTANCE_LABEL) == job.name
            and labels.get(names.MANAGED_BY_LABEL) == names.MANAGER
            and (obj.get("apiVersion"), obj.get("kind")) in allowed
            and isinstance(_get(obj, "metadata", "name"), str)
            and (
                not job.namespace or _get(obj, "metadata", "namespace") == job.namespace
            )
        ):
            own.append(obj)
    return own


def _workers(job: Job, pods: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Each worker by worker ID: its pod, container and state."""
    topology = build_topology(
        job.name,
        job.spec.workers,
        base_port=job.spec.network.base_port,
        additional_ports=job.spec.network.additional_ports,
        mpi=job.spec.mpi.enabled,
    )
    return [
        {
            "id": slot.worker_id,
            "pod": slot.pod_name,
            "container": slot.container_name,
            "state": _container_state(pods.get(slot.pod_name), slot.container_name),
        }
        for slot in topology.iter_workers()
    ]


def _leftover(obj: Mapping[str, Any], job: Job, *, supervisors: bool) -> str | None:
    """``TYPE/NAME`` of ``obj`` when it is one of the job's own objects but a pod, else None.

    The job's own: labelled ``t2-job: <job>``, and with ``supervisors`` the
    supervisor's (``t2-supervisor: <job>``) too, of a kind t2gen renders
    (:data:`t2gen.kube.kinds.KINDS`).
    """
    mine = _is_the_jobs(obj, job) or (supervisors and _is_the_supervisors(obj, job))
    if not mine or obj.get("kind") == "Pod":
        return None
    if job.spec.logs is not None and _is_kept_logs(obj, job):
        return None  # kept on purpose: reported as keptLogs
    try:
        kind = kind_info(str(obj.get("apiVersion", "")), str(obj.get("kind")))
    except KeyError:
        return None
    return kind.ref(str(_get(obj, "metadata", "name")))


def job_status(
    job: Job,
    objects: Sequence[Mapping[str, Any]],
    kinds: Sequence[KindInfo] = KINDS,
) -> JobStatus:
    """What ``objects`` (the job's objects in the cluster, :mod:`t2gen.inputs.cluster`) say of ``job``.

    Only the job's own objects are read (:func:`_own`): of ``kinds`` (those
    t2gen renders for it, :func:`t2gen.status.fetch.fetched_kinds`; by default
    every namespaced kind t2gen knows), in its namespace, with its instance and
    t2gen's managed-by labels.

    Returns:
        :data:`JobStatus`: ``phase`` is ``Suspended``, ``Pending``, ``Running``,
        ``Restarting``, ``Ending`` (the workloads gone, the supervisor still
        running), ``Succeeded``, ``Failed``, ``Ended`` (the job master
        cleaned up; no supervisor to say how it ended) or ``NotFound``;
        ``leftovers`` the ``TYPE/NAME`` of what remains after the end,
        ``clear`` the command that deletes them but the claim of a
        checkpointing job, which ``keptForRestore`` names when it is left,
        every name shell-quoted (:func:`shlex.quote`); ``supervised``
        whether the job file asks for a supervisor; ``keptLogs`` (only for a
        job with ``spec.logs``) the claim holding the log files when it is
        there, never a leftover.
    """
    objects = _own(objects, job, kinds)
    by_name = {(o.get("kind"), _get(o, "metadata", "name")): o for o in objects}
    pods = {name: o for (kind, name), o in by_name.items() if kind == "Pod"}
    config_map = by_name.get(("ConfigMap", job.name))
    running = config_map is not None or any(
        kind == "StatefulSet" for kind, _ in by_name
    )
    workers = _workers(job, pods)
    pod = names.statefulset_pod_name(names.job_master_statefulset_name(job.name), 0)
    job_master = {
        "pod": pod,
        "state": _container_state(pods.get(pod), "twister2-job-master-0"),
    }
    supervisor = _supervisor(objects, job)
    kill = _get(config_map, "data", "KILL_JOB") is not None
    # one state a container: an OpenMPI pod's ranks share it (topology's slots)
    containers = {(w["pod"], w["container"]): str(w["state"]) for w in workers}
    states = [*containers.values(), job_master["state"]]
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
    elif supervisor and any(_is_the_jobs(o, job) for o in objects):
        # The job master has deleted the workloads (JobTerminator), and the
        # supervisor, still running, is about to record the outcome: not the end
        # yet, so `t2gen wait` waits on (it read "Ended" here, issue 42 item 7).
        phase, reason = (
            "Ending",
            "the job master ended the job; the supervisor is recording its outcome",
        )
    elif any(_is_the_jobs(o, job) for o in objects):
        phase, reason = (
            "Ended",
            "the job master deleted the job's workloads; no supervisor kept the outcome",
        )
    elif supervisor is None and any(_is_the_supervisors(o, job) for o in objects):
        # The Job's ttlSecondsAfterFinished deletes the Job and its pod, not the
        # ConfigMap, ServiceAccount, Role and RoleBinding next to it.
        phase, reason = (
            "Ended",
            "the supervisor Job is gone (deleted, or by its ttlSecondsAfterFinished) and "
            "the outcome with it; its own ConfigMap, ServiceAccount, Role and RoleBinding "
            "(and NetworkPolicy) remain",
        )
    else:
        phase, reason = (
            "NotFound",
            f"no object labelled app.kubernetes.io/instance={job.name}",
        )
    if phase in ("Succeeded", "Failed", "Ended"):
        leftovers = [
            ref
            for ref in (
                _leftover(o, job, supervisors=supervisor is None) for o in objects
            )
            if ref is not None
        ]
    namespace = f" -n {shlex.quote(job.namespace)}" if job.namespace else ""
    # A checkpointing job's claim outlives a failed run for a restore
    # (K8S/master/JobTerminator.java:49-65; docs/reference.md, "Re-running a job"):
    # the command to clear leaves it, and the text says why.
    kept = claim(job.name)[0].ref(job.name) if job.spec.checkpointing.enabled else ""
    deleted = [item for item in leftovers if item != kept]
    clear = (
        f"kubectl delete{namespace} {' '.join(map(shlex.quote, deleted))} --ignore-not-found"
        if deleted
        else None
    )
    status: JobStatus = {
        "job": job.name,
        "namespace": job.namespace,
        "phase": phase,
        "reason": reason,
        "supervised": job.spec.lifecycle.supervise,
        "supervisor": supervisor,
        "killJob": kill,
        "workers": workers,
        "jobMaster": job_master,
        "leftovers": leftovers,
        "clear": clear,
        "keptForRestore": kept if kept in leftovers else None,
    }
    if job.spec.logs is not None:
        status["keptLogs"] = next(
            (
                claim(logs_claim_name(job.name))[0].ref(logs_claim_name(job.name))
                for o in objects
                if _is_kept_logs(o, job)
            ),
            None,
        )
    return status


def _is_kept_logs(obj: Mapping[str, Any], job: Job) -> bool:
    """The claim of ``spec.logs`` (:func:`t2gen.twister2.logfiles.logs_claim_name`)."""
    return obj.get("kind") == "PersistentVolumeClaim" and _get(
        obj, "metadata", "name"
    ) == logs_claim_name(job.name)


def _is_the_jobs(obj: Mapping[str, Any], job: Job) -> bool:
    """An object of the Twister2 job (``t2-job``), not of its supervisor."""
    return bool(_get(obj, "metadata", "labels", names.JOB_LABEL) == job.name)


def _is_the_supervisors(obj: Mapping[str, Any], job: Job) -> bool:
    """An object of the job's supervisor (``t2-supervisor``)."""
    return bool(_get(obj, "metadata", "labels", SUPERVISOR_LABEL) == job.name)


def _running_phase(states: Sequence[str]) -> tuple[str, str]:
    pending = sum(1 for s in states if s.startswith(("Pending", "no pod")))
    restarting = sum(1 for s in states if "restarted" in s or "CrashLoopBackOff" in s)
    if pending:
        return "Pending", f"{pending} of {len(states)} containers are not running yet"
    if restarting:
        return "Restarting", f"{restarting} of {len(states)} containers have restarted"
    return "Running", f"all {len(states)} containers are running"
