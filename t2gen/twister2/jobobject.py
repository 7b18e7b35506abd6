"""The serialised Twister2 Job object that ``render --job-object`` stores in the ConfigMap.

Twister2's Kubernetes launcher keeps the job's serialised ``JobAPI.Job`` (the
``<job>.job`` file of the job package) base64-encoded in the job's ConfigMap
under ``TWISTER2_JOB_OBJECT`` (``KubernetesConstants.JOB_OBJECT_CM_PARAM`` in
package ``edu.iu.dsc.tws.rsched.schedulers.k8s``, cylondata/twister2 0.8.0).
t2gen reads the file as bytes and leaves its contents to Twister2.
"""

from __future__ import annotations

from t2gen.errors import ConfigError
from t2gen.jobfile.loader import read_source
from t2gen.kube.limits import CONFIG_MAP_LIMIT_BYTES

__all__ = ["JOB_OBJECT_MAX_BYTES", "read_job_object"]

JOB_OBJECT_MAX_BYTES = CONFIG_MAP_LIMIT_BYTES - 4096
"""Most base64-encoded bytes of the job object: a ConfigMap's 1 MiB, less 4 KiB for its other keys."""


def read_job_object(path: str, *, job_count: int) -> bytes:
    """Read the serialised Job object for the one job being rendered.

    Args:
        path: the file (``-`` for standard input).
        job_count: how many job files are being rendered; must be 1.

    Returns:
        The file's bytes, unchanged.

    Raises:
        ConfigError: more than one job, the file is unreadable, or base64-encoded
            it would not fit :data:`JOB_OBJECT_MAX_BYTES`.
    """
    if job_count != 1:
        raise ConfigError(
            path=path,
            message="--job-object belongs to one job; render one job file with it",
        )
    data = read_source(path)
    if len(data) * 4 // 3 > JOB_OBJECT_MAX_BYTES:
        raise ConfigError(
            path=path,
            message=f"{len(data)} bytes is too large: base64-encoded it would not fit a ConfigMap (1 MiB)",
        )
    return data
