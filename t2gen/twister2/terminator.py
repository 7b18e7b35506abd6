"""What the job master deletes when a job ends, and what it leaves: Twister2's ``JobTerminator``.

When a job ends (completed, failed or killed), the job master deletes the
job's StatefulSets, its Services, its ConfigMap and, unless a failed job with
checkpointing may be restored, its claim (DSC-SPIDAL/twister2 at c6844d2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/master/JobTerminator.java:36-88``).
It leaves everything else a t2gen job has: the ServiceAccounts, Roles and
RoleBindings (Twister2's launcher never made per-job ones), the gang's group
objects, the NetworkPolicy of ``spec.network.policy`` and the per-job SSH
Secret of an OpenMPI job (``<job>-ssh``; a Secret named in
``mpi.sshSecretName`` is shared and kept).

The supervisor deletes what is left (:mod:`t2gen.render.context.supervisor`),
and ``t2gen status`` reports it (:mod:`t2gen.status`): both read these lists,
so a kind added here is deleted, allowed by the supervisor's Role, fetched
and reported alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from t2gen.kube.kinds import KindInfo, kind_info
from t2gen.twister2 import names

__all__ = ["JobObject", "claim", "job_master_deletes", "job_master_leaves"]

JobObject = tuple[KindInfo, str]
"""One object of a job: its kind and its name."""

_SERVICE = kind_info("v1", "Service")
_STATEFULSET = kind_info("apps/v1", "StatefulSet")


def job_master_deletes(job: str, groups: Iterable[int]) -> list[JobObject]:
    """What the job master deletes at the end but the claim, in ``JobTerminator``'s order.

    Args:
        job: the job's name.
        groups: the indexes of its worker groups.

    Returns:
        The worker StatefulSets, the workers' Service, the ConfigMap, the job
        master's Service and StatefulSet (``JobTerminator.java:36-88``).
    """
    return [
        *((_STATEFULSET, names.worker_statefulset_name(job, g)) for g in groups),
        (_SERVICE, names.worker_service_name(job)),
        (kind_info("v1", "ConfigMap"), job),
        (_SERVICE, names.job_master_service_name(job)),
        (_STATEFULSET, names.job_master_statefulset_name(job)),
    ]


def claim(job: str) -> JobObject:
    """The job's claim, which the job master deletes unless a failed checkpointing job may be restored.

    ``JobTerminator.java:49-65`` keeps it for such a job, so that a rerun with
    ``checkpointing.restore`` finds the checkpoints.
    """
    return kind_info("v1", "PersistentVolumeClaim"), job


def job_master_leaves(
    job: str,
    *,
    group_objects: Sequence[tuple[str, str, str]] = (),
    network_policy: bool = False,
    ssh_secret: str | None = None,
) -> list[JobObject]:
    """What the job master leaves when the job ends (the claim aside: :func:`claim`).

    Args:
        job: the job's name.
        group_objects: the gang's group objects as ``(apiVersion, kind, name)``.
        network_policy: whether the job has its NetworkPolicy (``spec.network.policy``).
        ssh_secret: the job's own SSH Secret (``<job>-ssh``) when it has one.

    Returns:
        The workers' and the job master's ServiceAccount, Role and RoleBinding,
        then the group objects, the NetworkPolicy and the SSH Secret.
    """
    accounts = [names.worker_account_name(job), names.job_master_account_name(job)]
    left: list[JobObject] = []
    for kind in (
        kind_info("v1", "ServiceAccount"),
        kind_info("rbac.authorization.k8s.io/v1", "Role"),
        kind_info("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ):
        left += [(kind, account) for account in accounts]
    left += [
        (kind_info(api_version, kind), name)
        for api_version, kind, name in group_objects
    ]
    if network_policy:
        left.append((kind_info("networking.k8s.io/v1", "NetworkPolicy"), job))
    if ssh_secret is not None:
        left.append((kind_info("v1", "Secret"), ssh_secret))
    return left
