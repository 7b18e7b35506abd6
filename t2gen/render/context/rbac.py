"""The job's RBAC, one role each for the workers and the job master: the least privilege the Twister2 runtime needs.

Each rule cites the Twister2 calls it allows (DSC-SPIDAL/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
abbreviated ``K8S/``). The runtime never reads an object by name (``get``):
every read is a list or a watch by label, which RBAC cannot narrow by
``resourceNames``, so those are namespace-wide
(https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources).
A watch is its own verb (``GET ...?watch=true``,
https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb).
``tests/contract/`` checks every call is allowed and nothing more;
``docs/security.md`` explains the split.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.render.context.meta import object_metadata
from t2gen.twister2 import names

__all__ = ["job_master_rules", "rbac_roles", "service_account_name", "worker_rules"]

Rule = dict[str, Any]


def _rule(
    group: str, resource: str, verbs: list[str], names_: list[str] | None = None
) -> Rule:
    rule: Rule = {"apiGroups": [group], "resources": [resource]}
    if names_ is not None:
        rule["resourceNames"] = names_
    rule["verbs"] = verbs
    return rule


def worker_rules(job: Job) -> list[Rule]:
    """What the workers' pods call: they run user code, so they may delete nothing.

    - watch pods: a worker watches the job master's pod (``t2-mp``) when its
      Service name does not resolve (``K8S/worker/K8sWorkerStarter.java:235-244``
      -> ``K8S/PodWatchUtils.java:483-503``); with OpenMPI pod ``<job>-0-0``
      also watches the worker pods (``t2-wp``) for its hostfile
      (``K8S/mpi/MPIMasterStarter.java:123-141`` -> ``K8S/PodWatchUtils.java:555-576``).
    - list ConfigMaps and patch ``<job>``: each worker reads and writes its
      restart count (``K8S/worker/K8sWorkerStarter.java:164``,
      ``K8S/mpi/MPIWorkerStarter.java:192`` -> ``K8S/worker/K8sWorkerUtils.java:297-383``
      -> ``K8S/KubernetesController.java:906-911,972-981,1004-1013``).

    Returns:
        The Role's ``rules``, in a fixed order.
    """
    rules: list[Rule] = []
    rules.append(_rule("", "pods", ["watch"]))
    rules += [
        _rule("", "configmaps", ["list"]),
        _rule("", "configmaps", ["patch"], [job.name]),
    ]
    return rules


def job_master_rules(job: Job) -> list[Rule]:
    """What the job master's pod calls; everything it changes is named.

    - list and watch ConfigMaps, patch and delete ``<job>``: its restart count
      (``K8S/master/JobMasterStarter.java:120-121``), the ``KILL_JOB`` watch
      (``K8S/master/JobKillWatcher.java:64-74``), the scaler's job object and
      restart counts (``K8S/driver/K8sScaler.java:125-148``) and the delete at
      job end (``K8S/master/JobTerminator.java:67-68``).
    - list StatefulSets, delete the worker sets and ``<job>-jm``: found by label
      at job end (``K8S/master/JobTerminator.java:39-43,74-77`` ->
      ``K8S/KubernetesController.java:154-158,195-207,241-247``).
    - patch ``statefulsets/scale`` of the last worker set: the scaler
      (``K8S/driver/K8sScaler.java:47-54,86,118`` -> ``K8S/KubernetesController.java:279-286``);
      never with OpenMPI (``K8S/driver/K8sScaler.java:64-67``).
    - delete the Services ``<job>``, ``<job>-jm`` and the claim ``<job>``
      (``K8S/master/JobTerminator.java:45-47,54-65,70-72``), the claim whether or
      not there is one: a 404 is success, a 403 a failed termination
      (``K8S/KubernetesController.java:542-560``).

    Returns:
        The Role's ``rules``, in a fixed order.
    """
    worker_sets = [
        names.worker_statefulset_name(job.name, g.index) for g in job.spec.workers
    ]
    rules = [
        _rule("", "configmaps", ["list", "watch"]),
        _rule("", "configmaps", ["patch", "delete"], [job.name]),
        _rule(
            "",
            "services",
            ["delete"],
            sorted(
                [
                    names.worker_service_name(job.name),
                    names.job_master_service_name(job.name),
                ]
            ),
        ),
        _rule("", "persistentvolumeclaims", ["delete"], [job.name]),
        _rule("apps", "statefulsets", ["list"]),
        _rule(
            "apps",
            "statefulsets",
            ["delete"],
            [*worker_sets, names.job_master_statefulset_name(job.name)],
        ),
    ]
    if not job.spec.mpi.enabled:
        rules.append(_rule("apps", "statefulsets/scale", ["patch"], worker_sets[-1:]))
    return rules


def service_account_name(job: Job, role: str) -> str | None:
    """The ServiceAccount the pods of ``role`` (``worker`` or ``job-master``) run as.

    ``<job>-worker`` and ``<job>-jm`` when t2gen renders them; else
    ``spec.rbac.serviceAccountName`` for both (None: the namespace's default).
    """
    if not job.spec.rbac.create:
        return job.spec.rbac.service_account_name
    if role == "job-master":
        return names.job_master_account_name(job.name)
    return names.worker_account_name(job.name)


def rbac_roles(job: Job) -> list[dict[str, Any]]:
    """The ServiceAccount, Role and RoleBinding of each role: the workers', then the job master's.

    Returns:
        ``[{role, serviceAccountName, rules, metadata: {serviceAccount, role,
        roleBinding}}]``; empty with ``spec.rbac.create: false``.
    """
    if not job.spec.rbac.create:
        return []
    roles = [("worker", worker_rules(job)), ("job-master", job_master_rules(job))]
    found = []
    for role, rules in roles:
        name = service_account_name(job, role)
        assert name is not None  # rbac.create
        metadata = object_metadata(job, name, "rbac")
        found.append(
            {
                "role": role,
                "serviceAccountName": name,
                "rules": rules,
                "metadata": {
                    "serviceAccount": metadata,
                    "role": metadata,
                    "roleBinding": metadata,
                },
            }
        )
    return found
