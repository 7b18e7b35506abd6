"""The supervised lifecycle (``spec.lifecycle``): what it needs and what cannot combine.

``K8S/`` is ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
of DSC-SPIDAL/twister2 (c6844d2). docs/lifecycle.md describes the supervisor.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, groups, problem, rule, warning

_NEEDS_SUPERVISE = (
    "activeDeadlineSeconds",
    "backoffLimit",
    "ttlSecondsAfterFinished",
    "placement",
)
"""Fields with no default that mean nothing without the supervisor."""
_FLAGS_NEED_SUPERVISE = ("suspend", "argoCDHooks")
"""Flags (default false) that mean nothing without the supervisor."""


def _lifecycle(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(data.get("spec")).get("lifecycle"))


def _supervised(data: dict[str, Any]) -> bool:
    return _lifecycle(data).get("supervise") is True


@rule(
    "lifecycle-needs-supervise",
    fields=(
        "spec.lifecycle.supervise",
        *(
            f"spec.lifecycle.{name}"
            for name in _NEEDS_SUPERVISE + _FLAGS_NEED_SUPERVISE
        ),
    ),
)
def check_needs_supervise(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A deadline, retry limit, time-to-live, placement, ``suspend`` or ``argoCDHooks`` needs ``supervise: true``.

    The Twister2 runtime has none of these: a Kubernetes Job's
    ``activeDeadlineSeconds``, ``backoffLimit``, ``ttlSecondsAfterFinished`` and
    ``suspend`` (https://kubernetes.io/docs/concepts/workloads/controllers/job/)
    act on the job through the supervisor Job t2gen renders with
    ``supervise: true``; without it they would be silently ignored.
    """
    lifecycle = _lifecycle(data)
    if _supervised(data):
        return
    for name in _NEEDS_SUPERVISE:
        if name in lifecycle:
            yield _unsupervised(doc, name)
    for name in _FLAGS_NEED_SUPERVISE:
        if lifecycle.get(name) is True:
            yield _unsupervised(doc, name)


def _unsupervised(doc: SourceDoc, name: str) -> Problem:
    return problem(
        doc,
        ("spec", "lifecycle", name),
        f"{name} acts through the supervisor Job, which is not rendered: add "
        "spec.lifecycle.supervise: true, or remove this field",
        key=True,
    )


@rule(
    "lifecycle-job-master",
    fields=("spec.lifecycle.supervise", "spec.jobMaster.enabled", "spec.rbac.create"),
)
def check_job_master(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A supervised job runs its job master in the cluster and has t2gen's RBAC.

    The supervisor tells the job's end from the job master's work: it deletes
    the ConfigMap third from last, before the job master's Service and
    StatefulSet (``K8S/master/JobTerminator.java:38-77``) and
    reacts to ``KILL_JOB`` (``K8S/master/JobKillWatcher.java:62-99``); a job
    master in the client (``jobMaster.enabled: false``) is out of the
    supervisor's sight. The supervisor deletes the job's ServiceAccounts, Roles
    and RoleBindings when it ends, so they must be the ones t2gen renders
    (``rbac.create: true``), not accounts an administrator manages.
    """
    if not _supervised(data):
        return
    spec = as_dict(data.get("spec"))
    if as_dict(spec.get("jobMaster")).get("enabled") is False:
        yield problem(
            doc,
            ("spec", "lifecycle", "supervise"),
            "the supervisor follows the job master in the cluster, but jobMaster.enabled is false: "
            "run the job master in the cluster, or remove supervise",
        )
    if as_dict(spec.get("rbac")).get("create") is False:
        yield problem(
            doc,
            ("spec", "lifecycle", "supervise"),
            "the supervisor deletes the job's ServiceAccounts, Roles and RoleBindings at its end, "
            "but rbac.create is false (an administrator's accounts): set rbac.create: true, or "
            "remove supervise",
        )


@rule(
    "lifecycle-backoff-limit",
    fields=(
        "spec.lifecycle.backoffLimit",
        "spec.lifecycle.maxWorkerRestarts",
        "spec.workers[].scalable",
        "spec.mpi.enabled",
    ),
)
def check_backoff_limit(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``backoffLimit`` is at most ``maxWorkerRestarts`` - 2, for no OpenMPI job, and not with a scalable group.

    The supervisor counts restarts per worker ID from the ConfigMap's
    ``RESTART_COUNT_FOR_WORKER_<id>`` keys
    (``K8S/worker/K8sWorkerUtils.java:355-377``) and kills the job when one
    passes the limit. Twister2 itself fails a worker that throws at restart
    count ``twister2.fault.tolerance.max.worker.restarts`` - 1
    (``K8S/worker/K8sWorkerStarter.java:191``; at the limit itself, line 175;
    ``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:30-31``),
    so a count above the limit must be reachable below that: at most max - 2.
    An OpenMPI job's ranks are fully failed at their first failure
    (``twister2.fault.tolerance.max.mpijob.restarts``, default 1:
    ``K8S/mpi/MPIWorkerStarter.java:203-207``, and any uncaught exception,
    ``:211-221``), so no limit acts there. The scaler removes the counts of the
    workers it removes (``K8S/driver/K8sScaler.java:125-148`` ->
    ``K8S/KubernetesController.java:1043-1051``), so a worker ID scaled away and
    back starts counting again: with a scalable group the limit would not hold.
    """
    lifecycle = _lifecycle(data)
    limit = lifecycle.get("backoffLimit")
    if not isinstance(limit, int) or isinstance(limit, bool):
        return
    most = lifecycle.get("maxWorkerRestarts", 5)
    mpi = as_dict(as_dict(data.get("spec")).get("mpi")).get("enabled") is True
    if mpi:
        yield problem(
            doc,
            ("spec", "lifecycle", "backoffLimit"),
            "Twister2 fails an OpenMPI job at its first worker failure "
            "(twister2.fault.tolerance.max.mpijob.restarts, default 1), before any backoffLimit "
            "acts: remove backoffLimit",
        )
    elif isinstance(most, int) and limit > most - 2:
        usable = (
            f"use at most {most - 2}"
            if most >= 2
            else "remove backoffLimit, or raise maxWorkerRestarts"
        )
        yield problem(
            doc,
            ("spec", "lifecycle", "backoffLimit"),
            f"backoffLimit {limit} never acts: with maxWorkerRestarts {most}, Twister2 fails a "
            f"worker that fails at restart {most - 1}, before a count above {limit} is seen; "
            f"{usable}",
        )
    for index, group in groups(data):
        if group.get("scalable") is True:
            yield problem(
                doc,
                ("spec", "lifecycle", "backoffLimit"),
                f"spec.workers[{index}] is scalable, and Twister2's scaler removes the restart counts "
                "of the workers it removes, so a per-worker retry limit would not hold: remove "
                "backoffLimit, or scalable",
            )


@rule(
    "lifecycle-suspend-gang", fields=("spec.lifecycle.suspend", "spec.scheduling.gang")
)
def check_suspend_gang(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A job created suspended has no gang.

    ``suspend: true`` renders every StatefulSet with 0 replicas, while a gang's
    group object asks for every pod of the job (``minMember``), which a
    scheduler would wait for, and Kueue suspends and admits jobs itself
    (https://kueue.sigs.k8s.io/docs/tasks/run/plain_pods/). Suspend the job
    without a gang, or let the gang mechanism's queue hold it.
    """
    lifecycle = _lifecycle(data)
    gang = as_dict(as_dict(data.get("spec")).get("scheduling")).get("gang")
    if lifecycle.get("suspend") is True and gang is not None:
        yield problem(
            doc,
            ("spec", "lifecycle", "suspend"),
            f"a job created suspended has 0 replicas, but scheduling.gang {gang} asks for every "
            "pod: remove suspend and let the gang's queue hold the job, or remove the gang",
        )


@rule(
    "lifecycle-argo-cd-ttl",
    fields=("spec.lifecycle.argoCDHooks", "spec.lifecycle.ttlSecondsAfterFinished"),
)
def check_argo_cd_ttl(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """``argoCDHooks`` with ``ttlSecondsAfterFinished`` warns: the TTL makes the next sync run the job again.

    Under Argo CD the supervisor Job is the application's record of the run
    (docs/gitops.md); once its TTL deletes it, the application is OutOfSync
    (the Job is Missing), and the next sync, automated or on the next commit,
    creates it and the hooks again: the job runs once more.
    """
    lifecycle = _lifecycle(data)
    if lifecycle.get("argoCDHooks") is True and "ttlSecondsAfterFinished" in lifecycle:
        yield warning(
            doc,
            ("spec", "lifecycle", "ttlSecondsAfterFinished"),
            "with argoCDHooks, the supervisor Job deleted by this TTL is Missing in Argo CD, "
            "and the next sync runs the job again (docs/gitops.md): remove "
            "ttlSecondsAfterFinished, unless a rerun at each sync is what you want",
            key=True,
        )


RULES: tuple[Rule, ...] = (
    check_needs_supervise,
    check_job_master,
    check_backoff_limit,
    check_suspend_gang,
    check_argo_cd_ttl,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
