"""The rest of the pod surface: extra volumes, ``/dev/shm`` and environment from other objects.

Part of the one pod builder (:mod:`t2gen.render.context.pod`). Each pod takes
what its scope is given of the job-wide fields of ``spec`` (its
:attr:`~t2gen.render.context.pod.PodScope.job_wide`) and then its own scope's
(a worker group's or the job master's): volumes and environment add up (the
rules refuse a name given twice), a scope's ``shmSize`` replaces ``spec``'s,
as its ``runtimeClassName`` and ``enableServiceLinks`` do (read by
:func:`t2gen.render.context.pod.pod_template` itself). Worker groups are given
all of ``spec``'s; the job master none of its volumes, ``env`` and ``envFrom``
(:func:`job_master_share`).
"""

from __future__ import annotations

from typing import Any

from t2gen.model.surface import PodSurface, thaw
from t2gen.record import replace
from t2gen.twister2 import names

__all__ = [
    "SHM_VOLUME",
    "SHM_VOLUME_PATH",
    "env_from",
    "extra_volumes",
    "job_master_share",
]

SHM_VOLUME = "dshm"
"""Name of the memory-backed emptyDir t2gen mounts at :data:`SHM_VOLUME_PATH` for ``shmSize``."""

SHM_VOLUME_PATH = "/dev/shm"
"""Where POSIX shared memory lives; the container runtime's own is 64 MiB
(Docker's ``--shm-size`` default, https://docs.docker.com/reference/cli/docker/container/run/#shm-size),
too small for the JVM and MPI shared-memory transports."""


def job_master_share(job_wide: PodSurface) -> PodSurface:
    """What of ``spec``'s pod surface (``job_wide``) reaches the job master's pod.

    The job master coordinates: it runs no worker's task, so the user's job-wide
    ``volumes``, ``env`` and ``envFrom`` (a dataset claim, an object store's
    Secret) are the workers' and reach its pod only through its own
    ``jobMaster.volumes``, ``jobMaster.env`` and ``jobMaster.envFrom``, as its
    placement is only ``jobMaster.placement``: it mounts and reads no Secret or
    claim that its section does not name. (A Twister2 driver runs in the job
    master, DSC-SPIDAL/twister2
    ``twister2/master/src/java/edu/iu/dsc/tws/master/server/JobMaster.java``
    lines 454-487; a job whose driver reads them names them there.) Kept: the
    runtime's own variables a job may set in ``spec.env``
    (:data:`~t2gen.twister2.names.ENV_SET_BY_THE_JOB`: ``JOB_SUBMISSION_TIME``
    and ``ENCODED_NODE_INFO_LIST``, which the job master reads too), and the
    pod settings ``runtimeClassName``, ``shmSize`` and ``enableServiceLinks``,
    which its own section replaces.

    Args:
        job_wide: ``spec``'s pod surface (``job.spec.surface``).

    Returns:
        ``job_wide`` without its volumes and ``envFrom``, and with only the
        runtime's variables of its ``env``.
    """
    return replace(
        job_wide,
        volumes=(),
        env=tuple(v for v in job_wide.env if v.name in names.ENV_SET_BY_THE_JOB),
        env_from=(),
    )


def extra_volumes(
    job_wide: PodSurface, scope: PodSurface
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The user's volumes (``job_wide``'s then the scope's) and ``/dev/shm``, with their mounts.

    ``/dev/shm`` is an emptyDir of medium ``Memory`` whose ``sizeLimit`` is
    ``shmSize`` (the scope's, else ``spec``'s): tmpfs pages count against the
    container's memory limit
    (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir). A
    ``persistentVolumeClaim`` mounted ``readOnly`` is also attached read-only.

    Args:
        job_wide: what the pod takes of ``spec``'s pod surface
            (:attr:`~t2gen.render.context.pod.PodScope.job_wide`).
        scope: the worker group's or the job master's own pod surface.

    Returns:
        ``(volumes, volumeMounts)`` to add after t2gen's own.
    """
    volumes: list[dict[str, Any]] = []
    mounts: list[dict[str, Any]] = []
    for volume in (*job_wide.volumes, *scope.volumes):
        source = thaw(volume.source)
        if volume.kind == "persistentVolumeClaim" and volume.read_only:
            source["readOnly"] = True
        volumes.append({"name": volume.name, volume.kind: source})
        mount: dict[str, Any] = {"name": volume.name, "mountPath": volume.mount_path}
        if volume.sub_path:
            mount["subPath"] = volume.sub_path
        if volume.read_only:
            mount["readOnly"] = True
        mounts.append(mount)
    shm = scope.shm_size if scope.shm_size is not None else job_wide.shm_size
    if shm is not None and not shm.is_zero():
        volumes.append(
            {
                "name": SHM_VOLUME,
                "emptyDir": {"medium": "Memory", "sizeLimit": str(shm.rounded_up())},
            }
        )
        mounts.append({"name": SHM_VOLUME, "mountPath": SHM_VOLUME_PATH})
    return volumes, mounts


def env_from(job_wide: PodSurface, scope: PodSurface) -> list[dict[str, Any]]:
    """``envFrom`` of the containers: ``job_wide``'s then the scope's.

    Kubernetes gives ``env`` precedence over ``envFrom`` for a name in both, so
    the runtime's variables (``t2gen.twister2.names.ENV_SET_BY_T2GEN``) always win
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#environment-variables).
    """
    return [thaw(item) for item in (*job_wide.env_from, *scope.env_from)]
