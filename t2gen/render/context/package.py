"""The init container that places the job package, and the package's ``image`` volume.

Part of the one pod builder (:func:`t2gen.render.context.pod.pod_template`),
for workers and the job master alike. With ``jobPackage.source`` every pod
gets an init container that runs ``templates/package/place-job-package.sh``
in the job's own image: it puts ``<job>.tar.gz`` into the memory volume under
a temporary name, checks its size and SHA-256 and renames it into place, so
that the pod's Twister2 containers, which run their image's ``client-to-pods``
branch, find it complete at once (DSC-SPIDAL/twister2
``docker/kubernetes/image/rootfs/twister2/get_job_package.sh`` lines 30-54,
``init.sh`` line 13). Init containers run to completion, one after another,
before any app container starts, and a failing one is restarted with
backoff (``Init:Error``, ``Init:CrashLoopBackOff``) under the pod's
``restartPolicy`` (https://kubernetes.io/docs/concepts/workloads/pods/init-containers/).

* ``oci``: the artifact is an ``image`` volume
  (https://kubernetes.io/docs/concepts/storage/volumes/#image), beta and on by
  default from Kubernetes 1.35
  (https://kubernetes.io/docs/tasks/configure-pod-container/image-volumes/,
  "FEATURE STATE: Kubernetes v1.35 [beta] (enabled by default)"), mounted
  read-only into the init container, which copies the file. CRI-O mounts each
  layer of an OCI artifact as a file named by its
  ``org.opencontainers.image.title`` annotation (cri-o/cri-o
  ``internal/ociartifact/store.go`` ``BlobMountPaths``, ``artifactName``);
  containerd mounts images only (containerd/containerd#11907). The rules
  refuse ``oci`` below 1.35 (``package-source-image-volume``).
* ``url``: the init container downloads with ``wget`` (the Twister2 base image
  installs it and coreutils' ``sha256sum``: ``docker/kubernetes/baseimage/Dockerfile``
  lines 1, 42-45), with retries and backoff until ``deadlineSeconds``.

Its resources keep the pod's: the cpu of the pod's first container and, for
memory, the memory volume (the package it writes there is charged to it)
plus :data:`TOOLS_MEMORY`, with requests equal to limits, so a Guaranteed pod
stays Guaranteed; the scheduler counts the larger of the init container and
the sum of the app containers (``PodRequests`` in kubernetes/kubernetes
``staging/src/k8s.io/component-helpers/resource/helpers.go``), which the
first container already exceeds, so the package is counted once.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from t2gen.kube.quantity import parse_quantity
from t2gen.model import EnvVar, Job, PodSurface
from t2gen.render.context.env import package_env
from t2gen.render.context.surface import extra_volumes
from t2gen.resources import data_dir
from t2gen.twister2 import names

__all__ = [
    "INIT_CONTAINER",
    "PACKAGE_MOUNT_PATH",
    "PACKAGE_VOLUME",
    "TOOLS_MEMORY",
    "init_container",
    "package_annotations",
    "package_volume",
    "place_script",
]

INIT_CONTAINER = "job-package"
"""The init container's name."""
PACKAGE_VOLUME = "job-package"
"""The ``image`` volume of an ``oci`` source."""
PACKAGE_MOUNT_PATH = "/t2gen/job-package"
"""Where the init container mounts the ``image`` volume (read-only)."""
TOOLS_MEMORY = parse_quantity("64Mi")
"""Memory of the init container beside the package: the shell, ``wget`` or ``cp``, ``sha256sum``."""
_SCRIPT = ("package", "place-job-package.sh")
_SCRIPT_BOUND = 16 * 1024


@functools.cache
def place_script() -> str:
    """The init container's POSIX shell script (``templates/package/place-job-package.sh``).

    Raises:
        T2genError: t2gen is installed without its templates (a broken installation).
        ValueError: the script is larger than 16 KiB (a t2gen bug).
    """
    text = Path(data_dir("templates"), *_SCRIPT).read_text(encoding="utf-8")
    if len(text) > _SCRIPT_BOUND:
        raise ValueError(f"the package script is larger than {_SCRIPT_BOUND} bytes")
    return text


def package_volume(job: Job) -> dict[str, Any] | None:
    """The ``image`` volume of an ``oci`` source, or None.

    ``pullPolicy`` is the job's ``imagePullPolicy``; the kubelet pulls it with
    the pod's ``imagePullSecrets``, as a container image.
    """
    source = job.spec.job_package.source
    if source is None or source.oci is None:
        return None
    return {
        "name": PACKAGE_VOLUME,
        "image": {"reference": source.oci, "pullPolicy": job.spec.image_pull_policy},
    }


def package_annotations(job: Job) -> dict[str, str]:
    """``t2gen.dev/job-package-sha256`` when the package's SHA-256 is known, else nothing."""
    digest = job.spec.job_package.sha256
    return {names.JOB_PACKAGE_ANNOTATION: digest} if digest else {}


def _resources(job: Job, first: dict[str, Any]) -> dict[str, Any]:
    """The first app container's cpu (request, and limit if any), and memory for the package and the tools."""
    requests = first.get("requests", {})
    limits = first.get("limits", {})
    memory = str((job.spec.storage.memory_volume_size + TOOLS_MEMORY).rounded_up())
    out_requests = {"cpu": requests["cpu"], "memory": memory}
    out_limits: dict[str, str] = {}
    if "cpu" in limits:
        out_limits["cpu"] = limits["cpu"]
    out_limits["memory"] = memory
    if "ephemeral-storage" in limits:
        out_limits["ephemeral-storage"] = limits["ephemeral-storage"]
    return {"requests": out_requests, "limits": out_limits}


def init_container(
    job: Job,
    *,
    first: dict[str, Any],
    security_context: dict[str, Any] | None,
    env_from: list[dict[str, Any]],
    user_env: tuple[EnvVar, ...],
    job_wide: PodSurface,
    scope: PodSurface,
) -> dict[str, Any] | None:
    """The init container that places the job package, or None without ``jobPackage.source``.

    Args:
        job: the job (its source already checked by the rules: ``oci`` only
            for Kubernetes 1.35+, a size, a digest).
        first: the pod's first app container's ``resources``.
        security_context: the app containers' ``securityContext`` without
            sshd's allowances (``readOnlyRootFilesystem`` is added: the script
            writes only to the memory volume and its termination message).
        env_from: the pod's ``envFrom``.
        user_env: the pod's own variables (a proxy reaches the download).
        job_wide: what the pod takes of ``spec``'s pod surface; with
            ``scope``, whose volumes (a CA bundle, say) are mounted too.
        scope: the worker group's or job master's own pod surface.

    Returns:
        ``{name, image, imagePullPolicy, command, env, envFrom?, resources,
        securityContext, volumeMounts}``.
    """
    package = job.spec.job_package
    source = package.source
    if source is None:
        return None
    own = [
        ("POD_MEMORY_VOLUME", names.MEMORY_VOLUME_PATH),
        ("JOB_PACKAGE_FILENAME", f"{job.name}.tar.gz"),
        ("JOB_PACKAGE_FILE_SIZE", str(package.file_size)),
    ]
    if package.sha256:
        own.append(("JOB_PACKAGE_SHA256", package.sha256))
    mounts: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "mountPath": names.MEMORY_VOLUME_PATH}
    ]
    if source.oci is not None:
        own.append(("JOB_PACKAGE_PATH", f"{PACKAGE_MOUNT_PATH}/{job.name}.tar.gz"))
        mounts.append(
            {"name": PACKAGE_VOLUME, "mountPath": PACKAGE_MOUNT_PATH, "readOnly": True}
        )
    else:
        own.append(("JOB_PACKAGE_URL", source.url or ""))
        own.append(("JOB_PACKAGE_DEADLINE_SECONDS", str(source.deadline_seconds)))
    result: dict[str, Any] = {
        "name": INIT_CONTAINER,
        "image": job.spec.image,
        "imagePullPolicy": job.spec.image_pull_policy,
        "command": ["/bin/sh", "-c", place_script()],
        "env": package_env(job, own, user_env),
    }
    if env_from:
        result["envFrom"] = env_from
    result["resources"] = _resources(job, first)
    result["securityContext"] = {
        **(security_context or {}),
        "readOnlyRootFilesystem": True,
    }
    result["volumeMounts"] = mounts + extra_volumes(job_wide, scope)[1]
    return result
