"""The supervisor of a job (``spec.lifecycle.supervise``): a ``batch/v1`` Job, its RBAC and its script.

One Job per t2gen job, ``<job>-supervisor``, runs ``templates/lifecycle/supervise.sh``
(:mod:`.supervisor_script`, shipped in the ConfigMap ``<job>-supervisor``) with
the image of ``lifecycle.image`` (a POSIX shell, kubectl and jq), under a Role of
exactly its calls (:mod:`.supervisor_rbac`). docs/lifecycle.md describes what it
does; ``tests/lifecycle/`` runs the rendered script against a fake kubectl and
checks that every call it makes is one the Role allows, and no more.

Its objects carry the ``app.kubernetes.io/*`` labels and ``t2-supervisor: <job>``,
never ``t2-job``: the Twister2 runtime lists the job's ConfigMap by ``t2-job`` and
refuses a job with two ("There are multiple ConfigMaps for this job",
``K8S/KubernetesController.java:906-918``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/`` of
DSC-SPIDAL/twister2 c6844d2).
"""

from __future__ import annotations

import hashlib
from typing import Any

from t2gen.gangs.kueue import NAME as KUEUE
from t2gen.gangs.kueue import QUEUE_LABEL
from t2gen.model import Job
from t2gen.package.runtime import restart_limit
from t2gen.render.context.placement import node_affinity, node_selector, tolerations
from t2gen.render.context.supervisor_rbac import (
    cleanup_targets,
    job_objects,
    supervisor_rules,
)
from t2gen.render.context.supervisor_script import SCRIPT_KEY, supervisor_script
from t2gen.twister2 import names

__all__ = ["SUPERVISOR_LABEL", "job_digest", "supervisor", "supervisor_name"]

SUPERVISOR_LABEL = "t2-supervisor"
"""The label (value: the job) of the supervisor's objects and pod."""
KILL_GRACE_SECONDS = 120
"""How long the supervisor waits for the job master to answer ``KILL_JOB`` before deleting the job's objects itself."""
BACKSTOP_SECONDS = 300
"""Added to the supervisor's own ``activeDeadlineSeconds`` beyond the job's deadline and the kill grace:
Kubernetes stops the supervisor only if its script hangs."""
DIGEST_ANNOTATION = "t2gen.dev/job-digest"
"""The supervisor pod template's annotation holding :func:`job_digest` (with ``argoCDHooks``)."""
ARGO_CD_REPLACE = {"argocd.argoproj.io/sync-options": "Force=true,Replace=true"}
"""The supervisor Job's annotation with ``argoCDHooks``: a Job's pod template is immutable, so
Argo CD deletes and creates it again when the job changed (argoproj/argo-cd
``docs/user-guide/sync-options.md``, "Force Sync")."""


def supervisor_name(job: str) -> str:
    """``<job>-supervisor``: the Job, ServiceAccount, Role, RoleBinding and ConfigMap of the supervisor."""
    return f"{job}-supervisor"


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
        {"name": "T2_PACKAGE_NAMESPACE", "value": job.package_namespace},
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
                kind.ref(name) for kind, name in cleanup_targets(job, group_objects)
            ),
        },
        {
            "name": "T2_JOB_OBJECTS",
            "value": " ".join(kind.ref(name) for kind, name in job_objects(job)),
        },
        {"name": "T2_MAX_RESTARTS", "value": str(restart_limit(job))},
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
    job_metadata = _job_metadata(job, metadata)
    template = _pod_template(job, name, metadata, group_objects)
    if lifecycle.argo_cd_hooks:
        job_metadata = {
            **job_metadata,
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


def _job_metadata(job: Job, metadata: dict[str, Any]) -> dict[str, Any]:
    """The supervisor Job's own metadata: its objects', plus the LocalQueue with ``gang: kueue``.

    Kueue manages a ``batch/v1`` Job by its ``kueue.x-k8s.io/queue-name`` label,
    which names a LocalQueue of the Job's namespace (kubernetes-sigs/kueue
    ``site/content/en/docs/tasks/run/jobs.md``, "1. Define the Job"). A cluster
    whose Kueue sets ``manageJobsWithoutQueueName: true`` suspends every Job
    without it, and "these Workloads will not be considered for admission by
    Kueue until they are edited to have a ``kueue.x-k8s.io/queue-name`` label"
    (``site/content/en/docs/tasks/manage/enforce_job_management/
    manage_jobs_without_queue_name.md``, "Expected Behavior";
    ``site/content/en/docs/reference/kueue-config.v1beta2.md``,
    ``manageJobsWithoutQueueName``): the job would run with no supervisor. So
    with ``gang: kueue`` the Job goes to the job's own LocalQueue, where Kueue
    admits it as a Workload of its own next to the job's pod group (``t2gen
    plan --quota`` counts both). Without a Kueue gang the Job is left as it
    is: a cluster that manages it anyway uses its LocalQueue defaulting.
    """
    scheduling = job.spec.scheduling
    if scheduling.gang != KUEUE or scheduling.queue is None:
        return metadata
    return {**metadata, "labels": {**metadata["labels"], QUEUE_LABEL: scheduling.queue}}


def job_digest(job: Job) -> str:
    """A SHA-256 of everything the job file says (the typed job, less the file's name), as hex.

    With ``argoCDHooks`` it is the supervisor's pod template annotation
    :data:`DIGEST_ANNOTATION`: the Twister2 objects are hooks, which Argo CD
    leaves out of the sync status, so a changed job must change the supervisor
    Job for the application to go OutOfSync and run it again.
    """
    text = repr((job.name, job.namespace, job.labels, job.annotations, job.spec))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _placement(job: Job) -> dict[str, Any]:
    """The supervisor pod's ``nodeSelector``, ``affinity`` and ``tolerations``: its own, or the job master's.

    Without them it stayed Pending on a cluster whose nodes are all tainted (issue
    40), while the job ran unsupervised and its deadline never started. The job
    master's node placement is the default: it runs where the job runs, and so
    can the supervisor (its uniform mapping, a worker-only rule, is not copied).
    """
    placement = job.spec.lifecycle.placement or job.spec.job_master.placement
    fields: dict[str, Any] = {}
    selector = node_selector(placement)
    if selector:
        fields["nodeSelector"] = selector
    nodes = node_affinity(placement)
    if nodes:
        fields["affinity"] = {"nodeAffinity": nodes}
    tolerated = tolerations(placement.tolerations)
    if tolerated:
        fields["tolerations"] = tolerated
    return fields


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
    spec.update(_placement(job))
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
