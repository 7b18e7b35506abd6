"""The one pod builder shared by the worker StatefulSets and the job master.

Containers, environment, volumes, resources and affinity of every Twister2 pod
t2gen renders, after the real launcher (cylondata/twister2,
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``:
``constructPodTemplate``, ``constructContainer``, ``getCommonEnvVars``,
``constructAffinity``; ``master/JobMasterRequestObject.java`` for the job master).
The templates only lay out what :func:`pod_template` returns.
"""

from __future__ import annotations

from typing import Any

from t2gen.jobfile.model import (
    Job,
    JobSpec,
    NodeSelectorRequirement,
    Placement,
    Toleration,
)
from t2gen.kube.quantity import Quantity
from t2gen.render.context.meta import pod_metadata
from t2gen.render.context.scheduling import PodScheduling
from t2gen.render.context.storage import has_claim
from t2gen.twister2 import names

__all__ = [
    "affinity",
    "container",
    "container_env",
    "jvm_memory_mb",
    "node_affinity",
    "pod_annotations",
    "pod_settings",
    "pod_template",
    "pod_volumes",
    "resources",
    "security_contexts",
    "tolerations",
]


def pod_settings(job: Job) -> dict[str, Any]:
    """Settings of every pod of the job (the ``pod`` context key).

    Returns:
        ``{serviceAccountName, imagePullSecrets}``: the job's own ServiceAccount
        when t2gen creates it, else the one named (None: the namespace's
        default), and ``[{name}]`` of each pull secret.
    """
    rbac = job.spec.rbac
    return {
        "serviceAccountName": job.name if rbac.create else rbac.service_account_name,
        "imagePullSecrets": [{"name": s} for s in job.spec.image_pull_secrets],
    }


def resources(
    cpu: Quantity,
    memory: Quantity,
    *,
    cpu_limit: Quantity | None,
    memory_limit: Quantity | None,
    extended: tuple[tuple[str, int], ...] = (),
    ephemeral_storage: Quantity | None = None,
) -> dict[str, Any]:
    """Container resources: requests and limits of cpu, memory and extended resources.

    The default limits equal the requests (``cpuLimit``/``memoryLimit: request``
    in the schema): a namespace whose ResourceQuota covers ``limits.cpu`` or
    ``limits.memory`` rejects every pod without them, and a LimitRange's default
    limit could otherwise fall below the request
    (https://kubernetes.io/docs/concepts/policy/resource-quotas/#requests-vs-limits).
    Bound workers keep requests == limits, which the static CPU manager needs
    (https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/).
    Extended resources (``nvidia.com/gpu``) cannot be overcommitted: request and
    limit are always equal (https://kubernetes.io/docs/tasks/configure-pod-container/extended-resource/).
    Scratch space is requested as ``ephemeral-storage`` so the scheduler places
    the pod where its volatile emptyDir fits.

    Args:
        cpu: cores requested.
        memory: bytes requested; written rounded up to a whole byte.
        cpu_limit: the cpu limit, or None for none.
        memory_limit: the memory limit, or None for none.
        extended: ``(name, count)`` of extended resources, requested and limited.
        ephemeral_storage: bytes of scratch space requested; None or zero for none.

    Returns:
        ``{requests, limits?}`` with canonical quantity strings, cpu and memory first.
    """
    requests: dict[str, str] = {"cpu": str(cpu), "memory": str(memory.rounded_up())}
    if ephemeral_storage is not None and not ephemeral_storage.is_zero():
        requests["ephemeral-storage"] = str(ephemeral_storage.rounded_up())
    limits: dict[str, str] = {}
    if cpu_limit is not None:
        limits["cpu"] = str(cpu_limit)
    if memory_limit is not None:
        limits["memory"] = str(memory_limit.rounded_up())
    for name, count in extended:
        requests[name] = str(count)
        limits[name] = str(count)
    return (
        {"requests": requests, "limits": limits} if limits else {"requests": requests}
    )


def security_contexts(
    job: Job, *, sshd: bool
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The pod and container ``securityContext`` of ``spec.security.profile``.

    ``default``: seccomp ``RuntimeDefault`` for the pod; each container drops
    ``NET_RAW`` and, unless it runs OpenMPI's sshd (``sshd``), sets
    ``allowPrivilegeEscalation: false``. ``restricted`` meets Pod Security
    Admission's ``restricted`` level: ``runAsNonRoot`` with a user and group ID,
    seccomp ``RuntimeDefault``, no privilege escalation, and every capability
    dropped. ``none``: no context. Sources:
    https://kubernetes.io/docs/concepts/security/pod-security-standards/ and
    kubernetes/kubernetes ``staging/src/k8s.io/pod-security-admission/policy/``.

    Args:
        job: the job.
        sshd: the container runs ``init_openmpi.sh`` (sshd as root); the rules
            refuse ``restricted`` with OpenMPI.

    Returns:
        ``(pod securityContext, container securityContext)``, each None when empty.
    """
    security = job.spec.security
    seccomp = {"type": "RuntimeDefault"}
    if security.profile == "restricted":
        return (
            {
                "runAsNonRoot": True,
                "runAsUser": security.run_as_user,
                "runAsGroup": security.run_as_group,
                "fsGroup": security.run_as_group,
                "seccompProfile": seccomp,
            },
            {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        )
    if security.profile == "default":
        container_context: dict[str, Any] = (
            {} if sshd else {"allowPrivilegeEscalation": False}
        )
        container_context["capabilities"] = {"drop": ["NET_RAW"]}
        return {"seccompProfile": seccomp}, container_context
    return None, None


def jvm_memory_mb(memory: Quantity) -> int:
    """JVM heap in MiB (``JVM_MEMORY_MB``): ``memory`` x :data:`names.JVM_MEMORY_FRACTION`, rounded down.

    Twister2 ``RequestObjectBuilder.constructContainer`` computes it from one
    worker's memory (``ComputeResource.getRamMegaBytes``), also with OpenMPI.
    """
    return int(memory.mebibytes() * names.JVM_MEMORY_FRACTION)


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
    memory: Quantity,
    worker_port: int | None = None,
    job_master_ip: str | None = None,
) -> list[dict[str, Any]]:
    """A container's whole environment, in the runtime's order, then ``spec.env``.

    Args:
        job: the job.
        container_name: ``CONTAINER_NAME``.
        class_to_run: ``CLASS_TO_RUN`` (one of the ``names.CLASS_*``).
        memory: the memory the JVM heap is a share of (:func:`jvm_memory_mb`).
        worker_port: ``WORKER_PORT``; None for the job master.
        job_master_ip: ``JOB_MASTER_IP`` when the job master runs outside the cluster.

    Returns:
        ``[{name, value}]`` or ``[{name, valueFrom}]`` entries.
    """
    env = [*_common_env(job), _env("CONTAINER_NAME", container_name)]
    if job_master_ip:
        env.append(_env("JOB_MASTER_IP", job_master_ip))
    env.append(_env("CLASS_TO_RUN", class_to_run))
    if worker_port is not None:
        env.append(_env("WORKER_PORT", worker_port))
    env.append(_env("JVM_MEMORY_MB", jvm_memory_mb(memory)))
    return env + _user_env(job.spec)


def _user_env(spec: JobSpec) -> list[dict[str, str]]:
    return [_env(variable.name, variable.value) for variable in spec.env]


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
) -> dict[str, Any]:
    """One Twister2 container: the job's image running ``/bin/bash -c <script>``.

    Returns:
        ``{name, image, imagePullPolicy, command, args, ports, env, resources,
        securityContext?, volumeMounts}``, in the order written.
    """
    result: dict[str, Any] = {
        "name": name,
        "image": job.spec.image,
        "imagePullPolicy": job.spec.image_pull_policy,
        "command": ["/bin/bash"],
        "args": ["-c", script],
        "ports": ports,
        "env": env,
        "resources": resources,
    }
    if security_context:
        result["securityContext"] = security_context
    result["volumeMounts"] = volume_mounts
    return result


def pod_volumes(
    job: Job, *, volatile: Quantity, claim: bool, ssh_key: bool
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Volumes of a pod and the mounts of each of its containers.

    Args:
        job: the job.
        volatile: the pod's scratch space in bytes; zero for none.
        claim: mount the job's PersistentVolumeClaim ``<job>`` at ``/persistent``.
        ssh_key: mount the OpenMPI SSH key Secret (mode 0400).

    Returns:
        ``(volumes, volumeMounts)``: always the memory volume (its ``sizeLimit``
        is ``spec.storage.memoryVolumeSize``: tmpfs pages count against the
        pod's memory), then the others
        asked for, with the names and paths of ``KubernetesConstants``.
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
    if not volatile.is_zero():
        volumes.append(
            {
                "name": names.VOLATILE_VOLUME,
                "emptyDir": {"sizeLimit": str(volatile.rounded_up())},
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
    return volumes, mounts


def worker_volumes(job: Job, volatile: Quantity) -> tuple[list[Any], list[Any]]:
    """Volumes and mounts of a worker pod (claim when the job has one, SSH key with OpenMPI)."""
    return pod_volumes(
        job, volatile=volatile, claim=has_claim(job.spec), ssh_key=job.spec.mpi.enabled
    )


def _requirement(requirement: NodeSelectorRequirement) -> dict[str, Any]:
    """A NodeSelectorRequirement; Exists/DoesNotExist carry no ``values``."""
    expression: dict[str, Any] = {
        "key": requirement.key,
        "operator": requirement.operator,
    }
    if requirement.operator not in ("Exists", "DoesNotExist"):
        expression["values"] = list(requirement.values)
    return expression


def required_expressions(placement: Placement) -> list[dict[str, Any]]:
    """The required term's expressions: ``required``, then ``nodeSelector`` as ``key In [value]``.

    A ``nodeSelector`` entry is ANDed into the required node-affinity term
    (rather than written as the pod's ``nodeSelector``) so that one place holds
    every node requirement (https://kubernetes.io/docs/concepts/scheduling-eviction/assign-pod-node/#nodeselector).
    """
    return [_requirement(r) for r in placement.required] + [
        {"key": key, "operator": "In", "values": [value]}
        for key, value in placement.node_selector
    ]


def node_affinity(placement: Placement) -> dict[str, Any] | None:
    """``nodeAffinity`` of a placement: the required term and the preferences, or None."""
    result: dict[str, Any] = {}
    required = required_expressions(placement)
    if required:
        result["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [{"matchExpressions": required}]
        }
    if placement.preferred:
        result["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {
                "weight": p.weight,
                "preference": {"matchExpressions": [_requirement(p.requirement)]},
            }
            for p in placement.preferred
        ]
    return result or None


def tolerations(*lists: tuple[Toleration, ...]) -> list[dict[str, Any]]:
    """The tolerations of a pod, in order, each once (e.g. job-wide, then the group's)."""
    seen: list[dict[str, Any]] = []
    for items in lists:
        for item in items:
            manifest = item.as_manifest()
            if manifest not in seen:
                seen.append(manifest)
    return seen


def affinity(job: Job) -> dict[str, Any] | None:
    """Pod affinity of every worker group: node affinity plus uniform mapping.

    Unlike the Twister2 launcher (``RequestObjectBuilder.constructAffinity``),
    which set it on worker group 0 only, every group gets the same affinity:
    ``spec.placement.uniform`` concerns all worker pods of the job (README.md,
    "Binding and placement"). The pod (anti-)affinity selector ``t2-wp: <job>`` matches
    every worker pod of this job and no pod of another job (namespaces default
    to the pod's own).

    Returns:
        ``{nodeAffinity?, podAffinity? | podAntiAffinity?}``, or None when empty.
    """
    placement = job.spec.placement
    result: dict[str, Any] = {}
    nodes = node_affinity(placement)
    if nodes:
        result["nodeAffinity"] = nodes
    if placement.uniform != "none":
        term = {
            "labelSelector": {"matchLabels": names.worker_pods_selector(job.name)},
            "topologyKey": "kubernetes.io/hostname",
        }
        kind = (
            "podAffinity" if placement.uniform == "all-same-node" else "podAntiAffinity"
        )
        result[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    return result or None


def pod_template(
    job: Job,
    *,
    labels: dict[str, str],
    containers: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
    affinity: dict[str, Any] | None,
    scheduling: PodScheduling | None = None,
    tolerations: list[dict[str, Any]] | None = None,
    pod_security_context: dict[str, Any] | None = None,
    annotations: dict[str, str] | None = None,
) -> dict[str, Any]:
    """A StatefulSet's whole pod template, ready for ``templates/k8s/_pod.yaml.j2``.

    Args:
        job: the job.
        labels: the pod's own labels (the job's labels are added).
        containers: from :func:`container`.
        volumes: from :func:`pod_volumes`.
        affinity: from :func:`affinity`, or None.
        scheduling: from :func:`t2gen.render.context.scheduling.pod_scheduling`:
            labels, annotations and spec fields of ``spec.scheduling``.
        tolerations: from :func:`tolerations`; empty or None for none.
        pod_security_context: the pod part of :func:`security_contexts`.
        annotations: t2gen's own pod annotations (after the job's).

    Returns:
        ``{metadata, spec}``; the spec holds ``serviceAccountName``,
        ``imagePullSecrets``, the scheduling fields (``schedulerName``,
        ``priorityClassName``, ``workloadRef`` or ``schedulingGroup``),
        ``securityContext``, ``affinity`` and ``tolerations`` only when set,
        ``terminationGracePeriodSeconds`` always (Kubernetes' default of 30 s
        only delays the end of a Twister2 job), then ``containers`` and
        ``volumes``.
    """
    scheduling = scheduling or PodScheduling()
    settings = pod_settings(job)
    spec: dict[str, Any] = {}
    if settings["serviceAccountName"]:
        spec["serviceAccountName"] = settings["serviceAccountName"]
    if settings["imagePullSecrets"]:
        spec["imagePullSecrets"] = settings["imagePullSecrets"]
    spec.update(scheduling.spec)
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
