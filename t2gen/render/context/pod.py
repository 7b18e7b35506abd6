"""The one pod builder shared by the worker StatefulSets and the job master.

Containers, environment, volumes and the pod template of every Twister2 pod
t2gen renders, after the real launcher (cylondata/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``constructPodTemplate``, ``constructContainer``, ``getCommonEnvVars``;
``master/JobMasterRequestObject.java`` for the job master). Its parts live
beside it: :mod:`.resources` (requests and limits), :mod:`.security` (security
contexts) and :mod:`.placement` (node affinity, tolerations, uniform mapping);
their functions are importable from here too. The templates only lay out what
:func:`pod_template` returns.
"""

from __future__ import annotations

import re
from typing import Any

from t2gen.jobfile.model import EnvVar, Job
from t2gen.jobfile.model.surface import PodSurface, thaw
from t2gen.kube.quantity import Quantity
from t2gen.render.context.meta import pod_metadata
from t2gen.render.context.placement import (
    affinity,
    node_affinity,
    required_expressions,
    tolerations,
)
from t2gen.render.context.rbac import service_account_name
from t2gen.render.context.resources import resources
from t2gen.render.context.scheduling import PodScheduling
from t2gen.render.context.security import security_contexts
from t2gen.render.context.storage import has_claim
from t2gen.render.context.surface import extra_volumes
from t2gen.twister2 import names

__all__ = [
    "affinity",
    "container",
    "container_env",
    "node_affinity",
    "pod_annotations",
    "pod_settings",
    "pod_template",
    "pod_volumes",
    "required_expressions",
    "resources",
    "security_contexts",
    "tolerations",
    "worker_volumes",
]


def pod_settings(job: Job) -> dict[str, Any]:
    """Settings of every pod of the job (the ``pod`` context key).

    Returns:
        ``{serviceAccounts: {worker, jobMaster}, imagePullSecrets}``: the
        ServiceAccount each role's pods run as (:func:`.rbac.service_account_name`;
        None: the namespace's default), and ``[{name}]`` of each pull secret.
    """
    return {
        "serviceAccounts": {
            "worker": service_account_name(job, "worker"),
            "jobMaster": service_account_name(job, "job-master"),
        },
        "imagePullSecrets": [{"name": s} for s in job.spec.image_pull_secrets],
    }


def _env(name: str, value: str | int) -> dict[str, str]:
    return {"name": name, "value": str(value)}


def _field_env(name: str, field_path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def _common_env(job: Job) -> list[dict[str, Any]]:
    """The environment every Twister2 container reads (``K8sEnvVariables``, positions 1-15).

    Left out, because it is unknown offline: ``ENCODED_NODE_INFO_LIST`` (the
    runtime falls back to the pod's host IP). ``USER_JOB_JAR_FILE`` is always
    set, as Twister2 does (``RequestObjectBuilder.getCommonEnvVars``): without it
    ``init.sh`` leaves the user's jar off the CLASSPATH; ``<job>.jar`` when
    ``jobPackage.jarFile`` is omitted. ``JOB_SUBMISSION_TIME`` is ``0`` unless
    ``spec.env`` sets it: a timestamp would change every render, and with
    ZooKeeper the runtime parses it as a long (``WorkerRuntime``,
    ``JobMasterStarter``), so it may not be missing.
    """
    package = job.spec.job_package
    env: list[dict[str, Any]] = [
        _env("JOB_ID", job.name),
        _field_env("POD_NAME", "metadata.name"),
        _field_env("HOST_IP", "status.hostIP"),
        _field_env("HOST_NAME", "spec.nodeName"),
    ]
    if package.file_size is not None:
        env.append(_env("JOB_PACKAGE_FILE_SIZE", package.file_size))
    env.append(_env("USER_JOB_JAR_FILE", package.jar_file or f"{job.name}.jar"))
    env += [
        _env("POD_MEMORY_VOLUME", names.MEMORY_VOLUME_PATH),
        _env("JOB_ARCHIVE_DIRECTORY", names.JOB_ARCHIVE_DIRECTORY),
        _env("JOB_PACKAGE_FILENAME", f"{job.name}.tar.gz"),
        _env("UPLOAD_METHOD", package.upload_method),
    ]
    if package.upload_method == "webserver":
        env.append(
            _env(
                "JOB_PACKAGE_URI",
                package.uri or f"{names.DEFAULT_UPLOADER}/{job.name}.tar.gz",
            )
        )
    env.append(_env("LOGGER_PROPERTIES_FILE", names.LOGGER_PROPERTIES_FILE))
    if not any(v.name == "JOB_SUBMISSION_TIME" for v in job.spec.env):
        env.append(_env("JOB_SUBMISSION_TIME", names.DEFAULT_JOB_SUBMISSION_TIME))
    env.append(_env("RESTORE_JOB", "false"))
    return env


def container_env(
    job: Job,
    *,
    container_name: str,
    class_to_run: str,
    heap_mib: int,
    worker_port: int | None = None,
    job_master_ip: str | None = None,
    scope_env: tuple[EnvVar, ...] = (),
) -> list[dict[str, Any]]:
    """A container's whole environment, in the runtime's order, then ``spec.env``.

    Args:
        job: the job.
        container_name: ``CONTAINER_NAME``.
        class_to_run: ``CLASS_TO_RUN`` (one of the ``names.CLASS_*``).
        heap_mib: ``JVM_MEMORY_MB``, the JVM heap in MiB (:mod:`t2gen.render.context.memory`).
        worker_port: ``WORKER_PORT``; None for the job master.
        job_master_ip: ``JOB_MASTER_IP`` when the job master runs outside the cluster.
        scope_env: the worker group's or the job master's own ``env``, after ``spec.env``.

    Returns:
        ``[{name, value}]`` or ``[{name, valueFrom}]`` entries.
    """
    env = [*_common_env(job), _env("CONTAINER_NAME", container_name)]
    if job_master_ip:
        env.append(_env("JOB_MASTER_IP", job_master_ip))
    env.append(_env("CLASS_TO_RUN", class_to_run))
    if worker_port is not None:
        env.append(_env("WORKER_PORT", worker_port))
    env.append(_env("JVM_MEMORY_MB", heap_mib))
    return env + _user_env(job.spec.env) + _user_env(scope_env)


_EXPANDED_DOLLAR = r"\$(?=[$(])"


def literal_env_value(value: str) -> str:
    """An environment value written so that the kubelet passes it unchanged.

    The kubelet expands ``$(VAR)`` in a container's ``env[].value`` and reduces
    ``$$`` to ``$`` (https://kubernetes.io/docs/tasks/inject-data-application/define-interdependent-environment-variables/);
    a ``$`` before ``(`` or ``$`` is therefore written ``$$``, Kubernetes'
    own escape, and every other character as it is.

    Args:
        value: the value the container must see.

    Returns:
        The value to write into the manifest.
    """
    return re.sub(_EXPANDED_DOLLAR, "$$", value)


def _user_env(variables: tuple[EnvVar, ...]) -> list[dict[str, Any]]:
    """``env`` entries: a literal value (escaped), or ``valueFrom`` as written."""
    return [
        {"name": variable.name, "valueFrom": thaw(variable.value_from)}
        if variable.value_from is not None
        else _env(variable.name, literal_env_value(variable.value))
        for variable in variables
    ]


def container(
    job: Job,
    *,
    name: str,
    script: str,
    ports: list[dict[str, Any]],
    env: list[dict[str, Any]],
    resources: dict[str, Any],
    volume_mounts: list[dict[str, Any]],
    security_context: dict[str, Any] | None = None,
    env_from: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One Twister2 container: the job's image running ``/bin/bash -c <script>``.

    Returns:
        ``{name, image, imagePullPolicy, command, args, ports, env, envFrom?,
        resources, securityContext?, volumeMounts}``, in the order written.
    """
    result: dict[str, Any] = {
        "name": name,
        "image": job.spec.image,
        "imagePullPolicy": job.spec.image_pull_policy,
        "command": ["/bin/bash"],
        "args": ["-c", script],
        "ports": ports,
        "env": env,
    }
    if env_from:
        result["envFrom"] = env_from
    result["resources"] = resources
    if security_context:
        result["securityContext"] = security_context
    result["volumeMounts"] = volume_mounts
    return result


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
#   any, bounds it as it bounded the container's writable layer).
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
    scope: PodSurface | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Volumes of a pod and the mounts of each of its containers.

    Args:
        job: the job.
        volatile: the pod's scratch space in bytes; zero for none.
        claim: mount the job's PersistentVolumeClaim ``<job>`` at ``/persistent``.
        ssh_key: mount the OpenMPI SSH key Secret (mode 0400).
        scope: the worker group's or job master's pod surface; its volumes and
            ``spec.volumes`` (:func:`.surface.extra_volumes`) come after t2gen's own.

    Returns:
        ``(volumes, volumeMounts)``: always the memory volume (its ``sizeLimit``
        is ``spec.storage.memoryVolumeSize``, which the pod's first container
        also requests: :mod:`t2gen.render.context.memory`), then the others
        asked for, with the names and paths of ``KubernetesConstants``; with
        ``spec.security.readOnlyRootFilesystem`` also an emptyDir at
        ``/twister2-volatile`` (without a ``sizeLimit`` when there is no
        ``volatile`` disk) and one at ``/tmp``, the paths the runtime writes
        to (the comment above lists them with their sources).
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
    mounts: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "mountPath": names.MEMORY_VOLUME_PATH}
    ]
    read_only_root = job.spec.security.read_only_root_filesystem
    if not volatile.is_zero() or read_only_root:
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
    extra, extra_mounts = extra_volumes(job, scope or PodSurface())
    return volumes + extra, mounts + extra_mounts


def worker_volumes(
    job: Job, volatile: Quantity, scope: PodSurface | None = None
) -> tuple[list[Any], list[Any]]:
    """Volumes and mounts of a worker pod (claim when the job has one, SSH key with OpenMPI, the group's own)."""
    return pod_volumes(
        job,
        volatile=volatile,
        claim=has_claim(job.spec),
        ssh_key=job.spec.mpi.enabled,
        scope=scope,
    )


def pod_template(
    job: Job,
    *,
    labels: dict[str, str],
    containers: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
    affinity: dict[str, Any] | None,
    role: str = "worker",
    scheduling: PodScheduling | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    pod_security_context: dict[str, Any] | None = None,
    annotations: dict[str, str] | None = None,
    runtime_class_name: str | None = None,
) -> dict[str, Any]:
    """A StatefulSet's whole pod template, ready for ``templates/k8s/_pod.yaml.j2``.

    Args:
        job: the job.
        labels: the pod's own labels (the job's labels are added).
        containers: from :func:`container`.
        volumes: from :func:`pod_volumes`.
        affinity: from :func:`.placement.affinity`, or None.
        role: ``worker`` or ``job-master``: whose ServiceAccount the pod runs as.
        scheduling: from :func:`t2gen.render.context.scheduling.pod_scheduling`:
            labels, annotations and spec fields of ``spec.scheduling``.
        tolerations: from :func:`.placement.tolerations`; empty or None for none.
        pod_security_context: the pod part of :func:`.security.security_contexts`.
        annotations: t2gen's own pod annotations (after the job's).
        runtime_class_name: the pod's RuntimeClass (:func:`.surface.runtime_class_name`), or None.

    Returns:
        ``{metadata, spec}``; the spec holds ``serviceAccountName``,
        ``imagePullSecrets``, the scheduling fields (``schedulerName``,
        ``priorityClassName``, ``workloadRef`` or ``schedulingGroup``),
        ``securityContext``, ``affinity`` and ``tolerations`` only when set,
        ``terminationGracePeriodSeconds`` always (Kubernetes' default of 30 s
        only delays the end of a Twister2 job), then ``containers`` and
        ``volumes``.
    """
    scheduling = scheduling or PodScheduling({}, {}, {})
    settings = pod_settings(job)
    spec: dict[str, Any] = {}
    account = service_account_name(job, role)
    if account:
        spec["serviceAccountName"] = account
    if settings["imagePullSecrets"]:
        spec["imagePullSecrets"] = settings["imagePullSecrets"]
    spec.update(scheduling.spec)
    if runtime_class_name:
        spec["runtimeClassName"] = runtime_class_name
    spec["terminationGracePeriodSeconds"] = job.spec.termination_grace_period_seconds
    if pod_security_context:
        spec["securityContext"] = pod_security_context
    if affinity:
        spec["affinity"] = affinity
    if tolerations:
        spec["tolerations"] = tolerations
    spec["containers"] = containers
    spec["volumes"] = volumes
    metadata = pod_metadata(job, {**labels, **scheduling.labels})
    merged = {
        **scheduling.annotations,
        **metadata.get("annotations", {}),
        **(annotations or {}),
    }
    if merged:
        metadata["annotations"] = merged
    return {"metadata": metadata, "spec": spec}


def pod_annotations(job: Job, *, bound: bool) -> dict[str, str]:
    """t2gen's claims about a pod that its output checks verify (``t2gen check``).

    ``t2gen.dev/bind-workers-to-cpu: "true"`` on bound worker pods
    (``bound-worker-guaranteed``) and ``t2gen.dev/security-profile: restricted``
    on pods meant to pass Pod Security Admission ``restricted``
    (``pod-security-restricted``).
    """
    result: dict[str, str] = {}
    if bound:
        result[names.BIND_WORKERS_ANNOTATION] = "true"
    if job.spec.security.profile == "restricted":
        result[names.SECURITY_PROFILE_ANNOTATION] = "restricted"
    return result
