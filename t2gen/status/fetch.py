"""The ``kubectl get`` whose output ``t2gen status`` reads: every kind a job's objects can have.

The command lists only the kinds t2gen renders for the job (and its pods):
the Twister2 objects', the supervisor's when it has one, the gang's group
objects (custom resources, named with their group, since two schedulers both
serve ``podgroups``), and the NetworkPolicy and per-job SSH Secret that the
job master leaves (:func:`t2gen.twister2.terminator.job_master_leaves`); of
those, only the objects labelled with the job's instance and managed by t2gen.
Each kind is named by its row of :data:`t2gen.kube.kinds.KINDS`.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.gangs import GROUP_KINDS
from t2gen.kube.kinds import KindInfo, kind_info
from t2gen.model import Job
from t2gen.record import Record
from t2gen.render.context.supervisor_rbac import cleanup_targets
from t2gen.twister2 import names

__all__ = [
    "Kubectl",
    "collect_command",
    "fetched_kinds",
    "fetched_resources",
    "get_command",
    "selector",
]

_ORDER = (
    ("v1", "Pod"),
    ("apps/v1", "StatefulSet"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "ServiceAccount"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("batch/v1", "Job"),
)
"""The order of the kinds every job may have: the pods, the Twister2 objects, the supervisor's."""


def fetched_kinds(job: Job, rendered: Sequence[Mapping[str, Any]]) -> list[KindInfo]:
    """The kinds ``status`` fetches and reads for ``job``: only those t2gen renders for it, and its pods.

    The pods (the workloads' and the supervisor Job's), the kinds of the
    rendered objects, and those of what the job master leaves
    (:func:`t2gen.render.context.supervisor_rbac.cleanup_targets`); every one
    namespaced (:data:`t2gen.kube.kinds.KINDS`), so no cluster-scoped object is
    ever listed or advised for deletion (issue 40).

    Args:
        job: the job.
        rendered: its rendered objects (the gang's group objects among them).

    Returns:
        The kinds in :data:`_ORDER`, then the others by resource name.
    """
    found = {kind_info("v1", "Pod")}
    found |= {kind_info(o["apiVersion"], o["kind"]) for o in rendered}
    found |= {kind for kind, _ in cleanup_targets(job, [])}
    first = [kind_info(*pair) for pair in _ORDER]
    return [k for k in first if k in found] + sorted(
        (k for k in found if k not in first and k.namespaced), key=lambda k: k.resource
    )


def fetched_resources(job: Job, rendered: Sequence[Mapping[str, Any]]) -> list[str]:
    """The resources ``status`` fetches for ``job``, as ``kubectl get`` names them, in order.

    Args:
        job: the job.
        rendered: its rendered objects (the gang's group objects among them).

    Returns:
        Built-in kinds by their plural (``statefulsets``), the group objects'
        by plural and group (``podgroups.scheduling.volcano.sh``).
    """
    return [
        kind.resource if kind.kind in GROUP_KINDS else kind.plural
        for kind in fetched_kinds(job, rendered)
    ]


def selector(job: Job) -> str:
    """The label selector of the job's objects: its instance, managed by t2gen."""
    return f"{names.INSTANCE_LABEL}={job.name},{names.MANAGED_BY_LABEL}={names.MANAGER}"


class Kubectl(Record):
    """How to run kubectl: the binary, and the kubeconfig and context to use (None: kubectl's own).

    Attributes:
        binary: ``kubectl``, found on ``PATH``, or a path.
        kubeconfig: ``--kubeconfig``.
        context: ``--context``.
    """

    binary: str = "kubectl"
    kubeconfig: str | None = None
    context: str | None = None


def get_command(
    job: Job, rendered: Sequence[Mapping[str, Any]], kubectl: Kubectl
) -> list[str]:
    """The argv of the ``kubectl get ... -o json`` of the job's objects."""
    argv = [kubectl.binary]
    if kubectl.kubeconfig is not None:
        argv += ["--kubeconfig", kubectl.kubeconfig]
    if kubectl.context is not None:
        argv += ["--context", kubectl.context]
    argv += ["get", ",".join(fetched_resources(job, rendered))]
    if job.namespace:
        argv += ["-n", job.namespace]
    return [*argv, "-l", selector(job), "-o", "json"]


def collect_command(job: Job, rendered: Sequence[Mapping[str, Any]]) -> str:
    """The ``kubectl get ... -o json`` of the job's objects (:func:`fetched_resources`, :func:`selector`).

    Args:
        job: the job.
        rendered: its rendered objects.
    """
    return shlex.join(get_command(job, rendered, Kubectl()))
