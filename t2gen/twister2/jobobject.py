"""The serialised Twister2 Job object that ``render --job-object`` stores in the ConfigMap.

Twister2's Kubernetes launcher keeps the job's serialised ``JobAPI.Job`` (the
``<job>.job`` file of the job package) base64-encoded in the job's ConfigMap
under ``TWISTER2_JOB_OBJECT`` (``KubernetesConstants.JOB_OBJECT_CM_PARAM`` in
package ``edu.iu.dsc.tws.rsched.schedulers.k8s``, cylondata/twister2 0.8.0).
t2gen reads the file as bytes (:mod:`t2gen.pipeline.job`, which reads every file
a render is given) and leaves its contents to Twister2; this module only says
whether they may go in the ConfigMap.
"""

from __future__ import annotations

from t2gen.errors import ConfigError
from t2gen.kube.limits import CONFIG_MAP_LIMIT_BYTES

__all__ = ["JOB_OBJECT_MAX_BYTES", "check_job_object", "require_one_job"]

JOB_OBJECT_MAX_BYTES = CONFIG_MAP_LIMIT_BYTES - 4096
"""Most base64-encoded bytes of the job object: a ConfigMap's 1 MiB, less 4 KiB for its other keys."""


def require_one_job(path: str, *, job_count: int) -> None:
    """Refuse ``--job-object`` with more than one job file (before reading it).

    Args:
        path: the ``--job-object`` file as the user named it.
        job_count: how many job files are being rendered; must be 1.

    Raises:
        ConfigError: more than one job.
    """
    if job_count != 1:
        raise ConfigError(
            path=path,
            message="--job-object belongs to one job; render one job file with it",
        )


def check_job_object(path: str, data: bytes) -> bytes:
    """Return the serialised Job object unchanged, if base64-encoded it fits the ConfigMap.

    Args:
        path: the file as the user named it (``-`` for standard input).
        data: its bytes.

    Returns:
        ``data``.

    Raises:
        ConfigError: base64-encoded it would not fit :data:`JOB_OBJECT_MAX_BYTES`.
    """
    if len(data) * 4 // 3 > JOB_OBJECT_MAX_BYTES:
        raise ConfigError(
            path=path,
            message=f"{len(data)} bytes is too large: base64-encoded it would not fit a ConfigMap (1 MiB)",
        )
    return data
