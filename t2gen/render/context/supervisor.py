"""The supervisor of a job (``spec.lifecycle.supervise``): a ``batch/v1`` Job, its RBAC and its script.

One Job per t2gen job, ``<job>-supervisor``, runs ``templates/lifecycle/supervise.sh``
(shipped in the ConfigMap ``<job>-supervisor``) with the image of
``lifecycle.image`` (a POSIX shell and kubectl). docs/lifecycle.md describes what it
does; ``tests/lifecycle/`` runs the rendered script against a fake kubectl and
checks that every call it makes is one this module's Role allows, and no more.

Its objects carry the ``app.kubernetes.io/*`` labels and ``t2-supervisor: <job>``,
never ``t2-job``: the Twister2 runtime lists the job's ConfigMap by ``t2-job`` and
refuses a job with two ("There are multiple ConfigMaps for this job",
``K8S/KubernetesController.java:906-918``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/`` of
DSC-SPIDAL/twister2 c6844d2).
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path
from typing import Any

from t2gen.model import Job
from t2gen.resources import data_dir
from t2gen.twister2 import names

__all__ = [
    "SUPERVISOR_LABEL",
    "cleanup_targets",
    "supervisor",
    "supervisor_name",
    "supervisor_rules",
    "supervisor_script",
]

SUPERVISOR_LABEL = "t2-supervisor"
"""The label (value: the job) of the supervisor's objects and pod."""
SCRIPT_KEY = "supervise.sh"
KILL_GRACE_SECONDS = 120
"""How long the supervisor waits for the job master to answer ``KILL_JOB`` before deleting the job's objects itself."""
BACKSTOP_SECONDS = 300
"""Added to the supervisor's own ``activeDeadlineSeconds`` beyond the job's deadline and the kill grace:
Kubernetes stops the supervisor only if its script hangs."""
SCRIPT_BOUND = 64 * 1024
MAX_NAMED_PODS = 1000
"""Above this many pods the supervisor's Role names no pod: 1,000 names are about 40 KB."""
DIGEST_ANNOTATION = "t2gen.dev/job-digest"
"""The supervisor pod template's annotation holding :func:`job_digest` (with ``argoCDHooks``)."""
ARGO_CD_REPLACE = {"argocd.argoproj.io/sync-options": "Force=true,Replace=true"}
"""The supervisor Job's annotation with ``argoCDHooks``: a Job's pod template is immutable, so
Argo CD deletes and creates it again when the job changed (argoproj/argo-cd
``docs/user-guide/sync-options.md``, "Force Sync")."""


def supervisor_name(job: str) -> str:
    """``<job>-supervisor``: the Job, ServiceAccount, Role, RoleBinding and ConfigMap of the supervisor."""
    return f"{job}-supervisor"


@functools.cache
def supervisor_script() -> str:
    """The supervisor's POSIX shell script (``templates/lifecycle/supervise.sh``), packaged with t2gen.

    Raises:
        T2genError: t2gen is installed without its templates (a broken installation).
        ValueError: the script is larger than 64 KiB (a t2gen bug).
    """
    text = Path(data_dir("templates"), "lifecycle", SCRIPT_KEY).read_text(
        encoding="utf-8"
    )
    if len(text) > SCRIPT_BOUND:
        raise ValueError(f"the supervisor script is larger than {SCRIPT_BOUND} bytes")
    return text


def _resource(api_version: str, kind: str) -> tuple[str, str]:
    """``(apiGroup, plural)`` of a kind t2gen renders (PodGroup -> podgroups)."""
    group = api_version.rpartition("/")[0]
    return group, kind.lower() + "s"


def _kind_ref(group: str, plural: str, name: str) -> str:
    """``kubectl delete``'s ``TYPE/NAME``, the type with its API group when not core."""
    return f"{plural}.{group}/{name}" if group else f"{plural}/{name}"


def cleanup_targets(
    job: Job, group_objects: list[dict[str, Any]]
) -> list[tuple[str, str, str]]:
    """What the job master leaves when the job ends, as ``(apiGroup, resource, name)``.

    The job master deletes the StatefulSets, Services, ConfigMap and claim
    (``K8S/master/JobTerminator.java:36-88``) but not the ServiceAccounts, Roles
    and RoleBindings, the gang's group objects, the job's NetworkPolicy, or the
    per-job SSH Secret of an OpenMPI job (``<job>-ssh``; a Secret named in
    ``mpi.sshSecretName`` is shared and kept). The claim is left too: the job master keeps it for a failed job
    with checkpointing, for a restart (``JobTerminator.java:49-65``).
    """
    targets: list[tuple[str, str, str]] = []
    accounts = [
        names.worker_account_name(job.name),
        names.job_master_account_name(job.name),
    ]
    for resource, group in (
        ("serviceaccounts", ""),
        ("roles", "rbac.authorization.k8s.io"),
        ("rolebindings", "rbac.authorization.k8s.io"),
    ):
        targets += [(group, resource, account) for account in accounts]
    for obj in group_objects:
        group, plural = _resource(obj["apiVersion"], obj["kind"])
        targets.append((group, plural, obj["metadata"]["name"]))
    if job.spec.network.policy.enabled:
        targets.append(("networking.k8s.io", "networkpolicies", job.name))
    if job.spec.mpi.enabled and job.spec.mpi.ssh_secret_name == names.ssh_secret_name(
        job.name
    ):
        targets.append(("", "secrets", job.spec.mpi.ssh_secret_name))
    return targets


def _job_objects(job: Job) -> list[tuple[str, str, str]]:
    """What the job master deletes at the end (``JobTerminator.java:36-88``), but the claim."""
    sets = [names.worker_statefulset_name(job.name, g.index) for g in job.spec.workers]
    return [
        *(("apps", "statefulsets", name) for name in sets),
        ("", "services", names.worker_service_name(job.name)),
        ("", "configmaps", job.name),
        ("", "services", names.job_master_service_name(job.name)),
        ("apps", "statefulsets", names.job_master_statefulset_name(job.name)),
    ]


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
    for group, resource, name in [
        *_job_objects(job),
        *cleanup_targets(job, group_objects),
    ]:
        deletes.setdefault((group, resource), []).append(name)
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


def _labels(job: Job) -> dict[str, str]:
    labels = names.common_labels(job.name, "supervisor")
    del labels[names.APP_LABEL], labels[names.JOB_LABEL]
    return {**labels, SUPERVISOR_LABEL: job.name, **dict(job.labels)}


def _metadata(job: Job) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": supervisor_name(job.name)}
    if job.namespace:
        metadata["namespace"] = job.namespace
    metadata["labels"] = _labels(job)
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return metadata


def _env(job: Job, group_objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lifecycle = job.spec.lifecycle
    job_master_pod = names.statefulset_pod_name(
        names.job_master_statefulset_name(job.name), 0
    )
    selector = ",".join(
        f"{k}={v}" for k, v in names.worker_pods_selector(job.name).items()
    )
    env: list[dict[str, Any]] = [
        {"name": "T2_JOB", "value": job.name},
        {
            "name": "T2_NAMESPACE",
            "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}},
        },
        {
            "name": "T2_RUN",
            "valueFrom": {
                "fieldRef": {
                    "fieldPath": "metadata.labels['batch.kubernetes.io/controller-uid']"
                }
            },
        },
        {"name": "T2_JOB_MASTER_POD", "value": job_master_pod},
        {"name": "T2_JOB_MASTER_CONTAINER", "value": "twister2-job-master-0"},
        {"name": "T2_WORKER_SELECTOR", "value": selector},
        {
            "name": "T2_CLEANUP",
            "value": " ".join(
                _kind_ref(*target) for target in cleanup_targets(job, group_objects)
            ),
        },
        {
            "name": "T2_JOB_OBJECTS",
            "value": " ".join(_kind_ref(*target) for target in _job_objects(job)),
        },
        {"name": "T2_MAX_RESTARTS", "value": str(lifecycle.max_worker_restarts)},
        {"name": "T2_TAIL", "value": str(lifecycle.log_tail_lines)},
        {"name": "T2_KILL_GRACE", "value": str(KILL_GRACE_SECONDS)},
        {"name": "HOME", "value": "/tmp"},
    ]
    if lifecycle.active_deadline_seconds is not None:
        env.append(
            {"name": "T2_DEADLINE", "value": str(lifecycle.active_deadline_seconds)}
        )
    if lifecycle.backoff_limit is not None:
        env.append({"name": "T2_BACKOFF_LIMIT", "value": str(lifecycle.backoff_limit)})
    return env


def supervisor(job: Job, group_objects: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Everything the supervisor's templates show; None without ``lifecycle.supervise``.

    Args:
        job: the job.
        group_objects: the gang's group objects (:func:`.scheduling.group_objects`),
            which the supervisor deletes at the end.

    Returns:
        ``{name, metadata, jobMetadata, rules, script, scriptKey, job, podTemplate}``
        (``jobMetadata``: the Job's, with Argo CD's ``Force=true,Replace=true``
        under ``argoCDHooks``):
        ``job`` is the Job's spec fields besides the pod (``backoffLimit`` 0: a
        second supervisor would find the first one's mark and refuse;
        ``activeDeadlineSeconds`` a backstop past the job's deadline and the kill
        grace; ``ttlSecondsAfterFinished``; ``suspend``), None where not set.
    """
    lifecycle = job.spec.lifecycle
    if not lifecycle.supervise:
        return None
    deadline = lifecycle.active_deadline_seconds
    spec: dict[str, Any] = {
        "suspend": lifecycle.suspend,
        "activeDeadlineSeconds": (
            None
            if deadline is None
            else deadline + KILL_GRACE_SECONDS + BACKSTOP_SECONDS
        ),
        "backoffLimit": 0,
        "ttlSecondsAfterFinished": lifecycle.ttl_seconds_after_finished,
    }
    metadata = _metadata(job)
    name = supervisor_name(job.name)
    job_metadata = metadata
    template = _pod_template(job, name, metadata, group_objects)
    if lifecycle.argo_cd_hooks:
        job_metadata = {
            **metadata,
            "annotations": {**metadata.get("annotations", {}), **ARGO_CD_REPLACE},
        }
        template["metadata"]["annotations"] = {
            **template["metadata"].get("annotations", {}),
            DIGEST_ANNOTATION: job_digest(job),
        }
    return {
        "name": name,
        "metadata": metadata,
        "jobMetadata": job_metadata,
        "rules": supervisor_rules(job, group_objects),
        "script": supervisor_script(),
        "scriptKey": SCRIPT_KEY,
        "job": spec,
        "podTemplate": template,
    }


def job_digest(job: Job) -> str:
    """A SHA-256 of everything the job file says (the typed job, less the file's name), as hex.

    With ``argoCDHooks`` it is the supervisor's pod template annotation
    :data:`DIGEST_ANNOTATION`: the Twister2 objects are hooks, which Argo CD
    leaves out of the sync status, so a changed job must change the supervisor
    Job for the application to go OutOfSync and run it again.
    """
    text = repr((job.name, job.namespace, job.labels, job.annotations, job.spec))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _pod_template(
    job: Job, name: str, metadata: dict[str, Any], group_objects: list[dict[str, Any]]
) -> dict[str, Any]:
    """The supervisor's pod: Pod Security ``restricted``, a read-only root, its script mounted read-only.

    ``restartPolicy: Never`` with the Job's ``backoffLimit: 0``: one pod per run,
    whose exit status and termination message are the outcome
    (``terminationMessagePolicy: FallbackToLogsOnError`` keeps the log's tail as
    the message if the script dies before writing one:
    https://kubernetes.io/docs/tasks/debug/debug-application/determine-reason-pod-failure/).
    """
    pod_metadata: dict[str, Any] = {"labels": dict(metadata["labels"])}
    if job.annotations:
        pod_metadata["annotations"] = dict(job.annotations)
    spec: dict[str, Any] = {
        "serviceAccountName": name,
        "restartPolicy": "Never",
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": 65532,
            "runAsGroup": 65532,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
    }
    if job.spec.image_pull_secrets:
        spec["imagePullSecrets"] = [{"name": s} for s in job.spec.image_pull_secrets]
    spec["containers"] = [
        {
            "name": "supervisor",
            "image": job.spec.lifecycle.image,
            "imagePullPolicy": "IfNotPresent",
            "command": ["/bin/sh", f"/t2gen/{SCRIPT_KEY}"],
            "env": _env(job, group_objects),
            "resources": {
                "requests": {"cpu": "50m", "memory": "64Mi"},
                "limits": {"memory": "256Mi"},
            },
            "securityContext": {
                "allowPrivilegeEscalation": False,
                "capabilities": {"drop": ["ALL"]},
                "readOnlyRootFilesystem": True,
            },
            "terminationMessagePolicy": "FallbackToLogsOnError",
            "volumeMounts": [
                {"name": "script", "mountPath": "/t2gen", "readOnly": True},
                {"name": "tmp", "mountPath": "/tmp"},
            ],
        }
    ]
    spec["volumes"] = [
        {"name": "script", "configMap": {"name": name, "defaultMode": 0o555}},
        {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
    ]
    return {"metadata": pod_metadata, "spec": spec}
