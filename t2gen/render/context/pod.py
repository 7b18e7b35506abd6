"""The one pod builder: the pod template of every Twister2 pod, worker or job master.

A pod is built from its :class:`PodScope` (a worker group's or the job
master's: what the two differ in, decided by :mod:`.workers` and
:mod:`.job_master`) and the job. :func:`pod_template` reads everything else
itself: the scope's pod surface after what it takes of ``spec``'s (runtime class,
volumes, ``env``, ``envFrom``, ``/dev/shm``),
its placement (node affinity, node selector, uniform mapping, tolerations),
the job's security contexts and gang scheduling, the ServiceAccount, and
t2gen's own pod annotations. The role modules give only their containers,
which :func:`container` fills with what every Twister2 container shares. So
a new pod field of a scope is read here once, for workers and job master
alike, and ``t2gen plan`` reads it from the rendered pod template.

After the real launcher (DSC-SPIDAL/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``constructPodTemplate``, ``constructContainer``; ``master/JobMasterRequestObject.java``
for the job master). Its parts live beside it: :mod:`.env` (environment),
:mod:`.resources` (requests and limits), :mod:`.security` (security contexts),
:mod:`.placement` (node affinity, tolerations, uniform mapping), :mod:`.volumes`
(volumes and mounts) and :mod:`.surface` (the rest of the pod surface). The
templates only lay out what :func:`pod_template` returns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from t2gen.kube.quantity import Quantity
from t2gen.model import EnvVar, Job, Placement, PodSurface
from t2gen.record import Record
from t2gen.render.context.env import container_env
from t2gen.render.context.meta import pod_metadata
from t2gen.render.context.package import (
    init_container,
    package_annotations,
    package_volume,
)
from t2gen.render.context.placement import affinity, node_selector, tolerations
from t2gen.render.context.rbac import service_account_name
from t2gen.render.context.scheduling import pod_scheduling, task_affinity
from t2gen.render.context.security import security_contexts
from t2gen.render.context.surface import env_from
from t2gen.render.context.volumes import pod_volumes
from t2gen.twister2 import names

__all__ = [
    "PodParts",
    "PodScope",
    "container",
    "pod_settings",
    "pod_template",
]


class PodScope(Record):
    """What one kind of Twister2 pod is: a worker group's pods, or the job master's.

    Attributes:
        role: ``worker`` or ``job-master``: whose ServiceAccount the pod runs as.
        task: the pod's task name in the gang and the task topology (a worker
            group's ``name``, or ``names.JOB_MASTER_TASK``).
        labels: the pod's own labels (the job's are added).
        placement: where the pods run (a worker group's is ``spec.placement``
            with its own merged over it; the job master's is its own).
        job_wide: what the pods take of ``spec``'s pod surface (runtime
            class, volumes, environment, ``/dev/shm``, service links): a
            worker group all of it; the job master none of the user's
            volumes, ``env`` and ``envFrom``
            (:func:`.surface.job_master_share`).
        surface: the scope's own runtime class, volumes and environment (read
            after ``job_wide``, :mod:`.surface`).
        volatile: the pod's scratch space in bytes; zero for none.
        claim: the pod mounts the job's PersistentVolumeClaim.
        mpi: the pod runs OpenMPI's sshd (the SSH key volume, and the
            capabilities sshd needs, :func:`.security.security_contexts`).
        annotations: the role's own pod annotations, before t2gen's security
            profile annotation (the workers' binding claim).
    """

    role: str
    task: str
    labels: Mapping[str, str]
    placement: Placement
    job_wide: PodSurface
    surface: PodSurface
    volatile: Quantity
    claim: bool
    mpi: bool = False
    annotations: Mapping[str, str] = {}


class PodParts(Record):
    """What every container of a pod shares, for :func:`container`.

    Attributes:
        mounts: the ``volumeMounts`` of each container (:func:`.volumes.pod_volumes`).
        security_context: the container's ``securityContext``, or None.
        env_from: ``envFrom``: the scope's :attr:`PodScope.job_wide` then its own.
        env: the user's ``env`` of the pod: the scope's
            :attr:`PodScope.job_wide` then its own.
    """

    mounts: list[dict[str, Any]]
    security_context: dict[str, Any] | None
    env_from: list[dict[str, Any]]
    env: tuple[EnvVar, ...]


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


def container(
    job: Job,
    parts: PodParts,
    *,
    name: str,
    script: str,
    ports: list[dict[str, Any]],
    resources: dict[str, Any],
    class_to_run: str,
    heap_mib: int,
    worker_port: int | None = None,
) -> dict[str, Any]:
    """One Twister2 container: the job's image running ``/bin/bash -c <script>``.

    Args:
        job: the job.
        parts: what the pod's containers share (from :func:`pod_template`).
        name: the container's name, also ``CONTAINER_NAME``.
        script: ``./init.sh``, or ``./init_openmpi.sh`` with OpenMPI.
        ports: ``[{name, containerPort, protocol}]``.
        resources: from :func:`.resources.resources`.
        class_to_run: ``CLASS_TO_RUN`` (one of the ``names.CLASS_*``).
        heap_mib: ``JVM_MEMORY_MB``, the JVM heap in MiB (:mod:`.memory`).
        worker_port: ``WORKER_PORT``; None for the job master.

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
        "env": container_env(
            job,
            container_name=name,
            class_to_run=class_to_run,
            heap_mib=heap_mib,
            worker_port=worker_port,
            user_env=parts.env,
        ),
    }
    if parts.env_from:
        result["envFrom"] = parts.env_from
    result["resources"] = resources
    if parts.security_context:
        result["securityContext"] = parts.security_context
    result["volumeMounts"] = parts.mounts
    return result


def pod_template(
    job: Job,
    scope: PodScope,
    kube_version: tuple[int, int],
    containers: Callable[[PodParts], list[dict[str, Any]]],
) -> dict[str, Any]:
    """A StatefulSet's whole pod template, ready for ``templates/k8s/_pod.yaml.j2``.

    Args:
        job: the job.
        scope: the pods' scope (:class:`PodScope`).
        kube_version: ``(major, minor)`` rendered for (the Workload API's pod field).
        containers: the role's containers, each made by :func:`container`
            from the :class:`PodParts` it is given.

    Returns:
        ``{metadata, spec}``; the spec holds ``serviceAccountName``,
        ``imagePullSecrets``, the scheduling fields (``schedulerName``,
        ``priorityClassName``, ``workloadRef`` or ``schedulingGroup``),
        ``runtimeClassName``, ``enableServiceLinks``, ``securityContext``, ``affinity`` and
        ``tolerations`` only when set, ``terminationGracePeriodSeconds``
        always (Kubernetes' default of 30 s only delays the end of a Twister2
        job), then ``initContainers`` (with ``jobPackage.source``: the one
        that places the package, :mod:`.package`), ``containers`` and ``volumes``.
    """
    volumes, mounts = pod_volumes(
        job,
        volatile=scope.volatile,
        claim=scope.claim,
        ssh_key=scope.mpi,
        job_wide=scope.job_wide,
        scope=scope.surface,
        package=package_volume(job),
    )
    pod_security, container_security = security_contexts(job, sshd=scope.mpi)
    parts = PodParts(
        mounts=mounts,
        security_context=container_security,
        env_from=env_from(scope.job_wide, scope.surface),
        env=(*scope.job_wide.env, *scope.surface.env),
    )
    scheduling = pod_scheduling(job, scope.task, kube_version)
    spec: dict[str, Any] = {}
    account = service_account_name(job, scope.role)
    if account:
        spec["serviceAccountName"] = account
    if job.spec.image_pull_secrets:
        spec["imagePullSecrets"] = pod_settings(job)["imagePullSecrets"]
    spec.update(scheduling.spec)
    # a scope's runtimeClassName and enableServiceLinks replace spec's
    runtime_class = (
        scope.surface.runtime_class_name or scope.job_wide.runtime_class_name
    )
    if runtime_class:
        spec["runtimeClassName"] = runtime_class
    service_links = scope.surface.enable_service_links
    if service_links is None:
        service_links = scope.job_wide.enable_service_links
    if service_links is not None:
        spec["enableServiceLinks"] = service_links
    spec["terminationGracePeriodSeconds"] = job.spec.termination_grace_period_seconds
    if pod_security:
        spec["securityContext"] = pod_security
    selector = node_selector(scope.placement)
    if selector:
        spec["nodeSelector"] = selector
    pod_affinity = task_affinity(job, scope.task, affinity(job, scope.placement))
    if pod_affinity:
        spec["affinity"] = pod_affinity
    pod_tolerations = tolerations(scope.placement.tolerations)
    if pod_tolerations:
        spec["tolerations"] = pod_tolerations
    app = containers(parts)
    init = init_container(
        job,
        first=app[0]["resources"],
        security_context=security_contexts(job, sshd=False)[1],
        env_from=parts.env_from,
        user_env=parts.env,
        job_wide=scope.job_wide,
        scope=scope.surface,
    )
    if init is not None:
        spec["initContainers"] = [init]
    spec["containers"] = app
    spec["volumes"] = volumes
    metadata = pod_metadata(job, {**scope.labels, **scheduling.labels})
    merged = {
        **scheduling.annotations,
        **metadata.get("annotations", {}),
        **scope.annotations,
        **package_annotations(job),
        **_profile_annotation(job),
    }
    if merged:
        metadata["annotations"] = merged
    return {"metadata": metadata, "spec": spec}


def _profile_annotation(job: Job) -> dict[str, str]:
    """``t2gen.dev/security-profile: restricted`` on pods meant to pass Pod Security Admission ``restricted``.

    A claim that ``t2gen check`` verifies (``pod-security-restricted``); the
    workers add their own claim, ``t2gen.dev/bind-workers-to-cpu``, before it.
    """
    if job.spec.security.profile == "restricted":
        return {names.SECURITY_PROFILE_ANNOTATION: "restricted"}
    return {}
