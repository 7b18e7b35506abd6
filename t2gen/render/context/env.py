"""The environment of every Twister2 container: the runtime's variables, then the user's.

Part of the one pod builder (:mod:`t2gen.render.context.pod`, whose
:func:`~t2gen.render.context.pod.container` calls :func:`container_env`), after
the real launcher (DSC-SPIDAL/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``getCommonEnvVars``; ``K8sEnvVariables`` for the names and their order).
"""

from __future__ import annotations

import re
from typing import Any

from t2gen.model import EnvVar, Job
from t2gen.model.surface import thaw
from t2gen.twister2 import names

__all__ = ["container_env", "literal_env_value", "package_env"]


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
    ``spec.env`` sets it (and then every pod, the job master's too, takes
    that entry of ``spec.env``): a timestamp would change every render, and with
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
                package.uri
                or f"{names.uploader_server(package.uploader)}/{job.name}.tar.gz",
            )
        )
    env.append(_env("LOGGER_PROPERTIES_FILE", names.LOGGER_PROPERTIES_FILE))
    if not any(v.name == "JOB_SUBMISSION_TIME" for v in job.spec.env):
        env.append(_env("JOB_SUBMISSION_TIME", names.DEFAULT_JOB_SUBMISSION_TIME))
    # Twister2's restart sets twister2.checkpointing.restore.job, which the launcher
    # writes as RESTORE_JOB (RequestObjectBuilder.java:499-501) and the starters put
    # over the package's configuration (K8sWorkerStarter.java:78,101-103,
    # JobMasterStarter.java:67,86-88)
    env.append(
        _env("RESTORE_JOB", "true" if job.spec.checkpointing.restore else "false")
    )
    return env


def container_env(
    job: Job,
    *,
    container_name: str,
    class_to_run: str,
    heap_mib: int,
    worker_port: int | None = None,
    user_env: tuple[EnvVar, ...] = (),
) -> list[dict[str, Any]]:
    """A container's whole environment, in the runtime's order, then the user's.

    Args:
        job: the job.
        container_name: ``CONTAINER_NAME``.
        class_to_run: ``CLASS_TO_RUN`` (one of the ``names.CLASS_*``).
        heap_mib: ``JVM_MEMORY_MB``, the JVM heap in MiB (:mod:`t2gen.render.context.memory`).
        worker_port: ``WORKER_PORT``; None for the job master.
        user_env: the pod's own variables, in order: what it takes of
            ``spec.env`` (a worker all of it, the job master only the
            runtime's variables a job may set,
            :func:`t2gen.render.context.surface.job_master_share`), then its
            worker group's or the job master's ``env``.

    Returns:
        ``[{name, value}]`` or ``[{name, valueFrom}]`` entries.
    """
    env = [*_common_env(job), _env("CONTAINER_NAME", container_name)]
    env.append(_env("CLASS_TO_RUN", class_to_run))
    if worker_port is not None:
        env.append(_env("WORKER_PORT", worker_port))
    env.append(_env("JVM_MEMORY_MB", heap_mib))
    return env + _home_env(job, user_env) + _user_env(user_env)


def package_env(
    job: Job, own: list[tuple[str, str]], user_env: tuple[EnvVar, ...]
) -> list[dict[str, Any]]:
    """The environment of the init container that places the job package (:mod:`.package`).

    Args:
        job: the job.
        own: the placing script's settings, ``(name, value)`` in order;
            each value is written so that the kubelet passes it unchanged.
        user_env: the pod's own variables, as for :func:`container_env`
            (a proxy or a CA path reaches the download too).

    Returns:
        ``[{name, value}]`` or ``[{name, valueFrom}]``: the settings, ``HOME``
        for a container that does not run as root, then the user's.
    """
    settings = [_env(name, literal_env_value(value)) for name, value in own]
    return settings + _home_env(job, user_env) + _user_env(user_env)


def _home_env(job: Job, user_env: tuple[EnvVar, ...]) -> list[dict[str, Any]]:
    """``HOME`` and the JVM's ``user.home`` for a container that does not run as root.

    With no passwd entry for ``runAsUser`` the container runtime sets
    ``HOME=/`` (containers/crun#599, kata-containers#1644), which only root
    may write, and a JDK 8 JVM, as in the Twister2 image
    (``docker/kubernetes/baseimage/Dockerfile:14-16``), takes ``user.home`` from
    the passwd entry alone, ``?`` without one (JDK-8280357 made newer JDKs
    fall back to ``$HOME``; ``JAVA_TOOL_OPTIONS`` reaches every JVM the scripts
    start: ``-Duser.home`` sets it for JDK 8 too). Both point at the volatile
    volume, which such pods always mount (:mod:`.volumes`). A job that sets
    either variable itself keeps its own (``non-root-home`` warns when
    ``JAVA_TOOL_OPTIONS`` lacks ``-Duser.home``).
    """
    if not job.spec.security.non_root:
        return []
    own = {variable.name for variable in user_env}
    home: list[dict[str, Any]] = []
    if "HOME" not in own:
        home.append(_env("HOME", names.HOME_PATH))
    if "JAVA_TOOL_OPTIONS" not in own:
        home.append(_env("JAVA_TOOL_OPTIONS", f"-Duser.home={names.HOME_PATH}"))
    return home


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
