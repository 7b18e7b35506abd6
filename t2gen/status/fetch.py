"""The ``kubectl get`` whose output ``t2gen status`` reads: every kind a job's objects can have.

The command lists the Twister2 objects' kinds and the supervisor's (always the
same list, so a saved state reads alike whatever the job file says), then what
only some jobs have: the gang's group objects (custom resources, named with
their group, since two schedulers both serve ``podgroups``), and the
NetworkPolicy and per-job SSH Secret that the job master leaves
(:func:`t2gen.twister2.terminator.job_master_leaves`). Each kind is named by
its row of :data:`t2gen.kube.kinds.KINDS`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.gangs import GROUP_KINDS
from t2gen.kube.kinds import kind_info
from t2gen.model import Job
from t2gen.render.context.supervisor_rbac import cleanup_targets

__all__ = ["collect_command", "fetched_resources"]

_ALWAYS = (
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
"""The kinds every fetch lists: the Twister2 objects and the supervisor's Job and RBAC."""


def fetched_resources(job: Job, rendered: Sequence[Mapping[str, Any]]) -> list[str]:
    """The resources ``status`` fetches for ``job``, as ``kubectl get`` names them, in order.

    Args:
        job: the job.
        rendered: its rendered objects (the gang's group objects among them).

    Returns:
        Built-in kinds by their plural (``statefulsets``), the group objects'
        by plural and group (``podgroups.scheduling.volcano.sh``).
    """
    resources = [kind_info(*pair).plural for pair in _ALWAYS]
    resources += sorted(
        {
            kind_info(o["apiVersion"], o["kind"]).resource
            for o in rendered
            if o["kind"] in GROUP_KINDS
        }
    )
    for kind, _ in cleanup_targets(job, []):
        if kind.plural not in resources:
            resources.append(kind.plural)
    return resources


def collect_command(job: Job, rendered: Sequence[Mapping[str, Any]]) -> str:
    """The ``kubectl get ... -o json`` of every object labelled with the job's instance.

    Args:
        job: the job.
        rendered: its rendered objects.
    """
    namespace = f" -n {job.namespace}" if job.namespace else ""
    return (
        f"kubectl get {','.join(fetched_resources(job, rendered))}{namespace} "
        f"-l app.kubernetes.io/instance={job.name} -o json"
    )
