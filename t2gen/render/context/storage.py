"""The job's PersistentVolumeClaim and ConfigMap."""

from __future__ import annotations

import base64
from typing import Any

from t2gen.jobfile.model import Job, JobSpec

__all__ = ["config_map_data", "has_claim", "persistent_volume_claim"]


def has_claim(spec: JobSpec) -> bool:
    """True when the job has a PersistentVolumeClaim (``storage.persistent.perWorker`` above 0)."""
    return not spec.storage.per_worker.is_zero()


def persistent_volume_claim(job: Job) -> dict[str, Any] | None:
    """The job's one claim, shared by every pod.

    Its size is ``perWorker`` x the job's workers, plus the job master's
    ``persistentDisk`` when the job master runs in the cluster (Twister2
    ``RequestObjectBuilder.createPersistentVolumeClaimObject``).

    Returns:
        ``{storageClassName, accessModes, storage}`` (storage a canonical
        quantity rounded up), or None when the job has no claim.
    """
    spec = job.spec
    if not has_claim(spec):
        return None
    size = spec.storage.per_worker * spec.total_workers
    if spec.job_master.enabled:
        size = size + spec.job_master.persistent_disk
    return {
        "storageClassName": spec.storage.storage_class_name,
        "accessModes": [spec.storage.access_mode],
        "storage": str(size.rounded_up()),
    }


def config_map_data(job: Job, job_object: bytes | None) -> dict[str, str]:
    """The ConfigMap's data: never empty, since the runtime JSON-patches keys into it.

    Args:
        job: the job.
        job_object: the serialised Twister2 ``JobAPI.Job``, or None.

    Returns:
        ``{"JOB_ID": <job>}``, plus ``TWISTER2_JOB_OBJECT`` (base64) when given
        (Twister2 ``RequestObjectBuilder.createConfigMap``).
    """
    data = {"JOB_ID": job.name}
    if job_object is not None:
        data["TWISTER2_JOB_OBJECT"] = base64.b64encode(job_object).decode("ascii")
    return data
