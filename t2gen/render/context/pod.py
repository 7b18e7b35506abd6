"""The one pod builder shared by the worker StatefulSets and the job master.

Containers, environment, volumes and the pod template of every Twister2 pod
t2gen renders, after the real launcher (cylondata/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``constructPodTemplate``, ``constructContainer``, ``getCommonEnvVars``;
``master/JobMasterRequestObject.java`` for the job master). Its parts live
beside it: :mod:`.resources` (requests and limits), :mod:`.security` (security
contexts), :mod:`.placement` (node affinity, tolerations, uniform mapping) and
:mod:`.volumes` (volumes and mounts);
their functions are importable from here too. The templates only lay out what
:func:`pod_template` returns.
"""

from __future__ import annotations

import re
from typing import Any

from t2gen.model import EnvVar, Job
from t2gen.model.surface import thaw
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
from t2gen.render.context.volumes import pod_volumes, worker_volumes
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
