"""The job's PersistentVolumeClaim and ConfigMap."""

from __future__ import annotations

import base64
from typing import Any

from t2gen.model import Job, JobSpec
from t2gen.render.context.meta import object_metadata
from t2gen.twister2 import names
from t2gen.twister2.logfiles import logs_claim_name
from t2gen.twister2.names import JOB_OBJECT_KEY

__all__ = ["config_map_data", "has_claim", "kept_logs_claim", "persistent_volume_claim"]


def has_claim(spec: JobSpec) -> bool:
    """True when the job has a PersistentVolumeClaim (``storage.persistent.perWorker`` above 0)."""
    return not spec.storage.per_worker.is_zero()


def persistent_volume_claim(job: Job) -> dict[str, Any] | None:
    """The job's one claim, shared by every pod.

    Its size is ``perWorker`` x the job's workers, plus the job master's
    ``persistentDisk`` (Twister2
    ``RequestObjectBuilder.createPersistentVolumeClaimObject``).

    A run that restores checkpoints from the claim (``checkpointing.restore``
    with ``storageType: mounted``) mounts the claim of the failed run it
    restores, which the job master kept (``K8S/master/JobTerminator.java:49-65``),
    so the claim is not rendered, as the launcher then creates none
    (``K8S/KubernetesLauncher.java:124-138``; it refuses to restore when the
    claim is gone, ``:301-317``; ``K8S/`` is
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).

    Returns:
        ``{storageClassName, accessModes, storage}`` (storage a canonical
        quantity rounded up), or None when the job has no claim, or restores
        from an earlier run's.
    """
    spec = job.spec
    if not has_claim(spec) or spec.checkpointing.restores_from_claim:
        return None
    size = (
        spec.storage.per_worker * spec.total_workers + spec.job_master.persistent_disk
    )
    return {
        "storageClassName": spec.storage.storage_class_name,
        "accessModes": [spec.storage.access_mode],
        "storage": str(size.rounded_up()),
    }


def kept_logs_claim(job: Job) -> dict[str, Any] | None:
    """The claim of ``spec.logs`` that keeps the log files after the job (:mod:`t2gen.twister2.logfiles`).

    Named ``<job>-logs``, which the job master's ``JobTerminator`` never
    deletes (it deletes the claim ``<job>`` only:
    ``K8S/master/JobTerminator.java:54-65``) and its Role may not
    (:func:`t2gen.render.context.rbac.rbac_roles`); no ``ownerReferences``,
    so Kubernetes' garbage collector leaves it too. Without Twister2's labels
    ``app`` and ``t2-job``: ``twister2 clear`` deletes every ``app=twister2``
    claim of an ended job (``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/job/Twister2Submitter.java:247-253``),
    and ``twister2 kill`` fails on two claims labelled ``t2-job=<job>``
    (``K8S/ClientJobKillHandler.java:47``, ``K8S/KubernetesController.java:472-491``).
    Never an Argo CD hook
    (``lifecycle.argoCDHooks``, :data:`.meta.ARGO_CD_HOOK`): a hook is deleted before the next sync
    creates it again (``BeforeHookCreation``), the logs with it.

    Returns:
        ``{metadata, storageClassName, accessModes, storage}`` (storage a
        canonical quantity rounded up), or None without ``spec.logs``.
    """
    logs = job.spec.logs
    if logs is None:
        return None
    metadata = object_metadata(job, logs_claim_name(job.name), "logs")
    for label in (names.APP_LABEL, names.JOB_LABEL):
        del metadata["labels"][label]
    metadata.pop("annotations", None)  # the job's own, without ARGO_CD_HOOK
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return {
        "metadata": metadata,
        "storageClassName": logs.storage_class_name,
        "accessModes": [logs.access_mode],
        "storage": str(logs.size.rounded_up()),
    }


def config_map_data(job: Job, job_object: bytes | None) -> dict[str, str]:
    """The ConfigMap's data: never empty, since the runtime JSON-patches keys into it.

    ``TWISTER2_JOB_OBJECT`` holds the base64 of the ``--job-object`` file, as
    the launcher writes it (``K8S/RequestObjectBuilder.java:717-735``; ``K8S/``
    is ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
    of DSC-SPIDAL/twister2). Without the file, a job with a ``scalable`` group
    still gets the key, empty: on every scale the job master replaces it with
    a JSON patch ``replace`` (``K8S/driver/K8sScaler.java:141-148``,
    ``K8S/KubernetesController.java:1004-1037``), and ``replace`` fails when the
    key does not exist (RFC 6902, section 4.3), which ends the scale with
    "Can not update job object at ConfigMap". Nothing reads the key back (the
    job master and the workers read the job object from the job package:
    ``K8S/master/JobMasterStarter.java:78``, ``K8S/worker/K8sWorkerStarter.java:93``),
    so an empty value is never taken for a job.

    Args:
        job: the job.
        job_object: the serialised Twister2 ``JobAPI.Job``, or None.

    Returns:
        ``{"JOB_ID": <job>}``, plus ``TWISTER2_JOB_OBJECT``.
    """
    data = {"JOB_ID": job.name}
    if job_object is not None:
        data[JOB_OBJECT_KEY] = base64.b64encode(job_object).decode("ascii")
    elif any(group.scalable for group in job.spec.workers):
        data[JOB_OBJECT_KEY] = ""
    return data
