"""The supervisor's RBAC: exactly the calls of its script, and what it deletes at the end.

The script (:mod:`t2gen.render.context.supervisor_script`) reads the job's
ConfigMap and pods and, when the job has ended, deletes what the job master
left (:func:`t2gen.twister2.terminator.job_master_leaves`), or everything the
job master would have deleted when it never answers a kill
(:func:`t2gen.twister2.terminator.job_master_deletes`). ``tests/lifecycle/``
checks that every call the script makes is one this Role allows, and no more.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.twister2 import names
from t2gen.twister2.terminator import JobObject, job_master_deletes, job_master_leaves

__all__ = ["MAX_NAMED_PODS", "cleanup_targets", "job_objects", "supervisor_rules"]

MAX_NAMED_PODS = 1000
"""Above this many pods the supervisor's Role names no pod: 1,000 names are about 40 KB."""


def cleanup_targets(job: Job, group_objects: list[dict[str, Any]]) -> list[JobObject]:
    """What the job master leaves when ``job`` ends (:func:`~t2gen.twister2.terminator.job_master_leaves`).

    Args:
        job: the job.
        group_objects: the gang's rendered group objects.
    """
    own_secret = names.ssh_secret_name(job.name)
    return job_master_leaves(
        job.name,
        group_objects=[
            (o["apiVersion"], o["kind"], o["metadata"]["name"]) for o in group_objects
        ],
        network_policy=job.spec.network.policy.enabled,
        ssh_secret=own_secret
        if job.spec.mpi.enabled and job.spec.mpi.ssh_secret_name == own_secret
        else None,
    )


def job_objects(job: Job) -> list[JobObject]:
    """What the job master deletes at the end but the claim (:func:`~t2gen.twister2.terminator.job_master_deletes`)."""
    return job_master_deletes(job.name, (g.index for g in job.spec.workers))


def _pod_names(job: Job) -> list[str]:
    pods = [
        names.statefulset_pod_name(
            names.worker_statefulset_name(job.name, g.index), ordinal
        )
        for g in job.spec.workers
        for ordinal in range(g.replicas)
    ]
    return [
        names.statefulset_pod_name(names.job_master_statefulset_name(job.name), 0),
        *pods,
    ]


def supervisor_rules(
    job: Job, group_objects: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The supervisor's Role: exactly the calls of its script, each named where RBAC can name it.

    - configmaps ``<job>``: get and watch (``kubectl get configmap <job>
      [--watch]`` reads the object, then watches it with the field selector
      ``metadata.name``, which ``resourceNames`` authorizes: kubernetes/kubectl
      ``pkg/cmd/get/get.go`` and cli-runtime ``Helper.WatchSingle``), patch
      (``T2GEN_SUPERVISOR``, ``KILL_JOB``) and delete (only if the job master
      does not answer a kill).
    - pods: get of the job's pods by name (the job master's phase; ``kubectl
      logs`` reads the pod first), list (the worker pods by label, which RBAC
      cannot narrow), ``pods/log`` get of the job's pods by name; of every pod
      of the namespace for a job of more than :data:`MAX_NAMED_PODS` pods,
      whose names would make the Role too large to apply.
    - delete, by name: what the job master leaves (:func:`cleanup_targets`), and
      what it deletes, for a job master that never answers a kill.

    Sources: https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources
    and https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb.

    Returns:
        The Role's ``rules``, in a fixed order.
    """
    pods: list[str] | None = _pod_names(job)
    if pods is not None and len(pods) > MAX_NAMED_PODS:
        pods = None  # the names would outgrow the Role (kubectl apply's size limit)
    rules: list[dict[str, Any]] = [
        _rule("", "configmaps", ["get", "watch", "patch"], [job.name]),
        _rule("", "pods", ["get"], pods),
        _rule("", "pods", ["list"]),
        _rule("", "pods/log", ["get"], pods),
    ]
    deletes: dict[tuple[str, str], list[str]] = {}
    for kind, name in [*job_objects(job), *cleanup_targets(job, group_objects)]:
        deletes.setdefault((kind.group, kind.plural), []).append(name)
    for (group, resource), object_names in deletes.items():
        rules.append(_rule(group, resource, ["delete"], object_names))
    return rules


def _rule(
    group: str, resource: str, verbs: list[str], names_: list[str] | None = None
) -> dict[str, Any]:
    rule: dict[str, Any] = {"apiGroups": [group], "resources": [resource]}
    if names_ is not None:
        rule["resourceNames"] = names_
    rule["verbs"] = verbs
    return rule
