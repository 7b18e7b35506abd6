"""Volumes of a Twister2 pod and the mounts of its containers.

Part of the one pod builder (:mod:`t2gen.render.context.pod`): t2gen's own
volumes with the names and paths of Twister2's ``KubernetesConstants``, the writable paths of a read-only root filesystem,
then the pod surface's (:func:`.surface.extra_volumes`).
"""

from __future__ import annotations

from typing import Any

from t2gen.kube.quantity import Quantity
from t2gen.model import Job
from t2gen.model.surface import PodSurface
from t2gen.render.context.surface import extra_volumes
from t2gen.twister2 import logfiles, names

__all__ = ["pod_volumes"]


# What a Twister2 container writes with a read-only root filesystem (DSC-SPIDAL/twister2 at
# c6844d2496ab87ff18ae41aa7dd49237e74ffba0), each path a volume:
# - $POD_MEMORY_VOLUME, the memory volume (always mounted): the job package, its unpacked
#   directory and the flag file (docker/kubernetes/image/rootfs/twister2/get_job_package.sh
#   lines 21, 26, 49, 51, 80, 89, 92); init.sh reads from it (init.sh lines 22-23).
# - /twister2-volatile: the volatile storage root on Kubernetes
#   (twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java lines 56-61), where
#   file logging goes by default (twister2/config/src/yaml/conf/common/logger.properties
#   line 31 names Twister2FileLogHandler;
#   LoggingContext.java lines 156-180: "volatile" -> <root>/logs, created with mkdirs or the
#   worker fails, K8sWorkerUtils.java lines 105-114) and where data is spilled
#   (conf/kubernetes/data.yaml lines 21-28, K8sVolatileVolume.java line 25). Without a
#   volatileDisk the launcher mounts nothing there and it lands on the root filesystem, so
#   a read-only root gets an emptyDir without a sizeLimit (the ephemeral-storage limit, if
#   any, bounds it as it bounded the container's writable layer). So do containers that do
#   not run as root (profile restricted): "/" is root's, so mkdirs of /twister2-volatile/logs
#   fails and K8sWorkerUtils.initLogger throws "Failed to create the log directory" for
#   every worker and the job master; an emptyDir is writable by any user. It is also their
#   HOME (names.HOME_PATH, render/context/env.py).
# - /persistent: the claim, when the job has one (FileSystemContext.java lines 40-46;
#   checkpoints, conf/kubernetes/checkpoint.yaml line 2). Without a claim only checkpointing
#   writes there, which needs the claim anyway to survive a restart.
# - /tmp: the JVM (java.io.tmpdir, hsperfdata); names.TMP_VOLUME_PATH.
# OpenMPI's scripts also write to /.sshd, /tmp/sshd.log and the image's /twister2
# (start_sshd.sh lines 18-39, init_openmpi.sh lines 17, 43, 46): the rules refuse a
# read-only root with OpenMPI.


def pod_volumes(
    job: Job,
    *,
    volatile: Quantity,
    claim: bool,
    ssh_key: bool,
    job_wide: PodSurface,
    scope: PodSurface,
    package: dict[str, Any] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Volumes of a pod and the mounts of each of its containers.

    Args:
        job: the job.
        volatile: the pod's scratch space in bytes; zero for none.
        claim: mount the job's PersistentVolumeClaim ``<job>`` at ``/persistent``.
        ssh_key: mount the OpenMPI SSH key Secret (mode 0400).
        job_wide: what the pod takes of ``spec``'s pod surface (all of it for
            workers, no ``spec.volumes`` for the job master:
            :func:`.surface.job_master_share`).
        scope: the worker group's or job master's own pod surface; its volumes
            come after ``job_wide``'s, both after t2gen's own
            (:func:`.surface.extra_volumes`).
        package: the job package's ``image`` volume (:func:`.package.package_volume`),
            placed right after the memory volume; mounted only by the init
            container that copies the package.

    Returns:
        ``(volumes, volumeMounts)``: always the memory volume (its ``sizeLimit``
        is ``spec.storage.memoryVolumeSize``, which the pod's first container
        also requests: :mod:`t2gen.render.context.memory`), then the others
        asked for (with ``spec.logs``, the claim ``<job>-logs`` at Twister2's
        log directory: :mod:`t2gen.twister2.logfiles`), with the names and paths of ``KubernetesConstants``; with
        ``spec.security.readOnlyRootFilesystem`` also an emptyDir at
        ``/twister2-volatile`` (without a ``sizeLimit`` when there is no
        ``volatile`` disk) and one at ``/tmp``, the paths the runtime writes
        to (the comment above lists them with their sources); with the
        ``restricted`` profile (not root) the one at ``/twister2-volatile``.
    """
    volumes: list[dict[str, Any]] = [
        {
            "name": names.MEMORY_VOLUME,
            "emptyDir": {
                "medium": "Memory",
                "sizeLimit": str(job.spec.storage.memory_volume_size.rounded_up()),
            },
        }
    ]
    if package is not None:
        volumes.append(package)
    mounts: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "mountPath": names.MEMORY_VOLUME_PATH}
    ]
    read_only_root = job.spec.security.read_only_root_filesystem
    if not volatile.is_zero() or read_only_root or job.spec.security.non_root:
        volumes.append(
            {
                "name": names.VOLATILE_VOLUME,
                "emptyDir": {"sizeLimit": str(volatile.rounded_up())}
                if not volatile.is_zero()
                else {},
            }
        )
        mounts.append(
            {"name": names.VOLATILE_VOLUME, "mountPath": names.VOLATILE_VOLUME_PATH}
        )
    if claim:
        volumes.append(
            {
                "name": names.PERSISTENT_VOLUME,
                "persistentVolumeClaim": {"claimName": job.name},
            }
        )
        mounts.append(
            {"name": names.PERSISTENT_VOLUME, "mountPath": names.PERSISTENT_VOLUME_PATH}
        )
    if job.spec.logs is not None:
        volumes.append(
            {
                "name": logfiles.LOGS_VOLUME,
                "persistentVolumeClaim": {
                    "claimName": logfiles.logs_claim_name(job.name)
                },
            }
        )
        mounts.append(
            {"name": logfiles.LOGS_VOLUME, "mountPath": logfiles.LOGS_MOUNT_PATH}
        )
    if ssh_key:
        volumes.append(
            {
                "name": names.SSH_KEY_VOLUME,
                "secret": {
                    "secretName": job.spec.mpi.ssh_secret_name,
                    "defaultMode": names.SSH_KEY_MODE,
                },
            }
        )
        mounts.append(
            {"name": names.SSH_KEY_VOLUME, "mountPath": names.SSH_KEY_VOLUME_PATH}
        )
    if read_only_root:
        volumes.append({"name": names.TMP_VOLUME, "emptyDir": {}})
        mounts.append({"name": names.TMP_VOLUME, "mountPath": names.TMP_VOLUME_PATH})
    extra, extra_mounts = extra_volumes(job_wide, scope)
    return volumes + extra, mounts + extra_mounts
