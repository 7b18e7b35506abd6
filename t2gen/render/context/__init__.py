"""The template context: every name, label, sum and quantity computed in Python.

Templates only lay values out; what a value *is* is decided here (Helm's
``ToRenderValues``). ``build_context`` is pure: the same job gives the same
context, with no clock, randomness or environment involved. ``docs/templates.md``
describes each key (generated from :data:`CONTEXT_DOC`).
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

from t2gen.jobfile.model import Job, JobSpec, NodeSelectorRequirement, WorkerGroup
from t2gen.kube.quantity import Quantity
from t2gen.twister2 import names

__all__ = ["CONTEXT_DOC", "build_context"]

CONTEXT_DOC: dict[str, str] = {
    "job": "`{name, namespace, source}`: the job ID, its namespace (null: none written) and the job file.",
    "metadata": "Ready-made `metadata` of each object, by object: `serviceAccount`, `role`, `roleBinding`, "
    "`configMap`, `persistentVolumeClaim`, `workerService`, `nodePortService`, `jobMasterService` "
    "(`{name, namespace?, labels, annotations?}`). StatefulSets carry theirs in `jobMaster` and `workerGroups`.",
    "labels": "`{job, workerPods, jobMasterPods}`: labels for a new object of the job (`job`: the runtime's "
    "`app`/`t2-job`, the `app.kubernetes.io/*` labels without a component, and the job's own labels), and "
    "selectors matching every worker pod or the job master pod of this job.",
    "annotations": "The job's own annotations (may be empty).",
    "pod": "`{serviceAccountName, imagePullSecrets}`: shared pod settings (null/empty: omit).",
    "rbac": "`{create, rules}`: whether to render the ServiceAccount, Role and RoleBinding, and the Role's rules.",
    "configMap": "`{data}`: the ConfigMap's data (`JOB_ID`, and `TWISTER2_JOB_OBJECT` with `--job-object`).",
    "persistentVolumeClaim": "null, or `{storageClassName, accessModes, storage}` of the job's claim.",
    "workerService": "`{selector}`: the headless Service governing every worker StatefulSet.",
    "nodePortService": "null, or `{selector, ports}` of the NodePort Service `<job>-np`.",
    "jobMaster": "null, or the job master StatefulSet: `{metadata, serviceName, selector, podMetadata, "
    "containers, volumes, affinity, service: {selector, ports}}` (a container as in `workerGroups`).",
    "workerGroups": "One entry per worker group: `{index, metadata, replicas, serviceName, selector, podMetadata, "
    "containers, volumes, affinity}`. A container is `{name, image, imagePullPolicy, command, args, ports, env, "
    "resources, volumeMounts}`.",
}
"""What each top-level context key holds; the source of ``docs/templates.md``."""


def _metadata(
    job: Job, name: str, component: str, **extra_labels: str
) -> dict[str, Any]:
    """Object metadata: name, namespace when known, labels, annotations when any."""
    metadata: dict[str, Any] = {"name": name}
    if job.namespace:
        metadata["namespace"] = job.namespace
    metadata["labels"] = {
        **names.common_labels(job.name, component),
        **extra_labels,
        **dict(job.labels),
    }
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return metadata


def _pod_metadata(job: Job, labels: dict[str, str]) -> dict[str, Any]:
    """Pod template metadata: the pod's labels plus the job's labels and annotations."""
    metadata: dict[str, Any] = {"labels": {**labels, **dict(job.labels)}}
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return metadata


def _resources(cpu: Quantity, memory: Quantity, *, bound: bool) -> dict[str, Any]:
    """Container resources: requests, and limits equal to them when bound to cores.

    Binding (seed: worker binding; kubelet static CPU manager) needs the
    Guaranteed QoS class: cpu and memory requests equal to limits, whole CPUs.
    """
    requests = {"cpu": str(cpu), "memory": str(memory.rounded_up())}
    return (
        {"requests": requests, "limits": dict(requests)}
        if bound
        else {"requests": requests}
    )


def _jvm_memory_mb(memory: Quantity) -> int:
    """JVM heap in MiB: 80% of the container's memory, rounded down (``JVM_MEMORY_MB``)."""
    return int(memory.mebibytes() * Decimal(names.JVM_MEMORY_FRACTION))


def _env(name: str, value: str | int) -> dict[str, str]:
    return {"name": name, "value": str(value)}


def _field_env(name: str, field_path: str) -> dict[str, Any]:
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": field_path}}}


def _common_env(job: Job) -> list[dict[str, Any]]:
    """The environment every Twister2 container reads (``K8sEnvVariables``, positions 1-15).

    Left out, because they would change between two renders or are unknown
    offline: ``ENCODED_NODE_INFO_LIST`` (the runtime falls back to the pod's
    host IP) and ``JOB_SUBMISSION_TIME`` (a timestamp).
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
    if package.jar_file is not None:
        env.append(_env("USER_JOB_JAR_FILE", package.jar_file))
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
    env += [
        _env("LOGGER_PROPERTIES_FILE", names.LOGGER_PROPERTIES_FILE),
        _env("RESTORE_JOB", "false"),
    ]
    return env


def _user_env(spec: JobSpec) -> list[dict[str, str]]:
    return [_env(variable.name, variable.value) for variable in spec.env]


def _requirement(requirement: NodeSelectorRequirement) -> dict[str, Any]:
    """A NodeSelectorRequirement; Exists/DoesNotExist carry no ``values``."""
    expression: dict[str, Any] = {
        "key": requirement.key,
        "operator": requirement.operator,
    }
    if requirement.operator not in ("Exists", "DoesNotExist"):
        expression["values"] = list(requirement.values)
    return expression


def _affinity(job: Job) -> dict[str, Any] | None:
    """Pod affinity of every worker group: node affinity plus uniform mapping.

    Unlike the legacy launcher, which set it on worker group 0 only, every group
    gets the same affinity: the seed's uniform mapping concerns all pods of the job.
    The pod (anti-)affinity selector ``t2-wp: <job>`` matches every worker pod of
    this job and no pod of another job (namespaces default to the pod's own).
    """
    placement = job.spec.placement
    affinity: dict[str, Any] = {}
    node_affinity: dict[str, Any] = {}
    if placement.required:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
            "nodeSelectorTerms": [
                {"matchExpressions": [_requirement(r) for r in placement.required]}
            ]
        }
    if placement.preferred:
        node_affinity["preferredDuringSchedulingIgnoredDuringExecution"] = [
            {
                "weight": p.weight,
                "preference": {"matchExpressions": [_requirement(p.requirement)]},
            }
            for p in placement.preferred
        ]
    if node_affinity:
        affinity["nodeAffinity"] = node_affinity
    if placement.uniform != "none":
        term = {
            "labelSelector": {"matchLabels": {"t2-wp": job.name}},
            "topologyKey": "kubernetes.io/hostname",
        }
        kind = (
            "podAffinity" if placement.uniform == "all-same-node" else "podAntiAffinity"
        )
        affinity[kind] = {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    return affinity or None


def _worker_volumes(
    job: Job, group: WorkerGroup
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Volumes of a worker pod and the mounts of each of its containers."""
    volumes: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "emptyDir": {"medium": "Memory"}}
    ]
    mounts: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "mountPath": names.MEMORY_VOLUME_PATH}
    ]
    if not group.volatile_disk.is_zero():
        size = group.volatile_disk * group.per_pod
        volumes.append(
            {
                "name": names.VOLATILE_VOLUME,
                "emptyDir": {"sizeLimit": str(size.rounded_up())},
            }
        )
        mounts.append(
            {"name": names.VOLATILE_VOLUME, "mountPath": names.VOLATILE_VOLUME_PATH}
        )
    if _has_claim(job.spec):
        volumes.append(
            {
                "name": names.PERSISTENT_VOLUME,
                "persistentVolumeClaim": {"claimName": job.name},
            }
        )
        mounts.append(
            {"name": names.PERSISTENT_VOLUME, "mountPath": names.PERSISTENT_VOLUME_PATH}
        )
    if job.spec.mpi.enabled:
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


def _has_claim(spec: JobSpec) -> bool:
    """True when the job has a PersistentVolumeClaim (perWorker above 0)."""
    return not spec.storage.per_worker.is_zero()


def _worker_containers(
    job: Job, group: WorkerGroup, mounts: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Containers of a worker pod: ``perPod`` of them, or one holding them all with OpenMPI.

    Container c listens on ``basePort + c * (len(additionalPorts) + 1)``; its
    additional ports follow it (Twister2 ``K8sWorkerUtils``).
    """
    spec = job.spec
    network = spec.network
    stride = len(network.additional_ports) + 1
    mpi = spec.mpi.enabled
    bound = spec.bind_workers_to_cpu
    count = 1 if mpi else group.per_pod
    cpu = group.cpu * group.per_pod if mpi else group.cpu
    memory = group.memory * group.per_pod if mpi else group.memory
    containers = []
    for index in range(count):
        name = names.worker_container_name(index)
        port = network.base_port + index * stride
        ports = [
            {"name": "worker", "containerPort": port, "protocol": network.protocol}
        ]
        if not mpi:
            ports += [
                {
                    "name": extra,
                    "containerPort": port + offset,
                    "protocol": network.protocol,
                }
                for offset, extra in enumerate(network.additional_ports, start=1)
            ]
        env = [*_common_env(job), _env("CONTAINER_NAME", name)]
        if not spec.job_master.enabled and spec.job_master.address:
            env.append(_env("JOB_MASTER_IP", spec.job_master.address))
        env += [
            _env("CLASS_TO_RUN", names.CLASS_MPI_MASTER if mpi else names.CLASS_WORKER),
            _env("WORKER_PORT", port),
            _env("JVM_MEMORY_MB", _jvm_memory_mb(group.memory)),
        ]
        containers.append(
            {
                "name": name,
                "image": spec.image,
                "imagePullPolicy": spec.image_pull_policy,
                "command": ["/bin/bash"],
                "args": ["-c", "./init_openmpi.sh" if mpi else "./init.sh"],
                "ports": ports,
                "env": env + _user_env(spec),
                "resources": _resources(cpu, memory, bound=bound),
                "volumeMounts": mounts,
            }
        )
    return containers


def _worker_group(
    job: Job, group: WorkerGroup, affinity: dict[str, Any] | None
) -> dict[str, Any]:
    """Context of one worker StatefulSet."""
    name = names.worker_statefulset_name(job.name, group.index)
    volumes, mounts = _worker_volumes(job, group)
    return {
        "index": group.index,
        "metadata": _metadata(job, name, "worker", **{"t2-wss": job.name}),
        "replicas": group.replicas,
        "serviceName": names.worker_service_name(job.name),
        "selector": names.worker_selector(job.name, group.index),
        "podMetadata": _pod_metadata(
            job, names.worker_pod_labels(job.name, group.index)
        ),
        "containers": _worker_containers(job, group, mounts),
        "volumes": volumes,
        "affinity": affinity,
    }


def _job_master(job: Job) -> dict[str, Any] | None:
    """Context of the job master StatefulSet and its Service; None when it runs in the client."""
    master = job.spec.job_master
    if not master.enabled:
        return None
    volumes: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "emptyDir": {"medium": "Memory"}}
    ]
    mounts: list[dict[str, Any]] = [
        {"name": names.MEMORY_VOLUME, "mountPath": names.MEMORY_VOLUME_PATH}
    ]
    if not master.volatile_disk.is_zero():
        volumes.append(
            {
                "name": names.VOLATILE_VOLUME,
                "emptyDir": {"sizeLimit": str(master.volatile_disk.rounded_up())},
            }
        )
        mounts.append(
            {"name": names.VOLATILE_VOLUME, "mountPath": names.VOLATILE_VOLUME_PATH}
        )
    if _has_claim(job.spec) and not master.persistent_disk.is_zero():
        volumes.append(
            {
                "name": names.PERSISTENT_VOLUME,
                "persistentVolumeClaim": {"claimName": job.name},
            }
        )
        mounts.append(
            {"name": names.PERSISTENT_VOLUME, "mountPath": names.PERSISTENT_VOLUME_PATH}
        )
    env = [
        *_common_env(job),
        _env("CONTAINER_NAME", names.JOB_MASTER_CONTAINER),
        _env("CLASS_TO_RUN", names.CLASS_JOB_MASTER),
        _env("JVM_MEMORY_MB", _jvm_memory_mb(master.memory)),
    ]
    name = names.job_master_statefulset_name(job.name)
    port = {"name": "job-master", "containerPort": master.port, "protocol": "TCP"}
    return {
        "metadata": _metadata(job, name, "job-master", **{"t2-mss": job.name}),
        "serviceName": names.job_master_service_name(job.name),
        "selector": names.job_master_selector(job.name),
        "podMetadata": _pod_metadata(job, names.job_master_pod_labels(job.name)),
        "containers": [
            {
                "name": names.JOB_MASTER_CONTAINER,
                "image": job.spec.image,
                "imagePullPolicy": job.spec.image_pull_policy,
                "command": ["/bin/bash"],
                "args": ["-c", "./init.sh"],
                "ports": [port],
                "env": env + _user_env(job.spec),
                "resources": _resources(master.cpu, master.memory, bound=False),
                "volumeMounts": mounts,
            }
        ],
        "volumes": volumes,
        "affinity": None,
        "service": {
            "selector": names.job_master_selector(job.name),
            "ports": [
                {
                    "name": "job-master",
                    "port": master.port,
                    "targetPort": master.port,
                    "protocol": "TCP",
                }
            ],
        },
    }


def _persistent_volume_claim(job: Job) -> dict[str, Any] | None:
    """The job's claim: perWorker x workers, plus the job master's share when it runs in the cluster."""
    spec = job.spec
    if not _has_claim(spec):
        return None
    size = spec.storage.per_worker * spec.total_workers
    if spec.job_master.enabled:
        size = size + spec.job_master.persistent_disk
    return {
        "storageClassName": spec.storage.storage_class_name,
        "accessModes": [spec.storage.access_mode],
        "storage": str(size.rounded_up()),
    }


def _role_rules(job: Job) -> list[dict[str, Any]]:
    """The least privilege the Twister2 runtime needs inside the cluster.

    From the runtime's calls (cylondata/twister2 ``JobTerminator``,
    ``K8sScaler``, ``K8sWorkerUtils``, ``JobKillWatcher``, ``PodWatchUtils``):
    watch pods (worker discovery, waiting for the job master); list and watch
    ConfigMaps and list StatefulSets by the ``t2-job`` label (RBAC cannot narrow
    a label query, so these are namespace-wide reads); and get/patch/delete of
    this job's own objects by name.
    """
    spec = job.spec
    worker_sets = [
        names.worker_statefulset_name(job.name, g.index) for g in spec.workers
    ]
    sets = worker_sets + (
        [names.job_master_statefulset_name(job.name)] if spec.job_master.enabled else []
    )
    # The job master deletes exactly these at job end (JobTerminator): the worker
    # and job master Services, and the claim <job>, whether or not it exists (a
    # 404 is fine; a 403 would fail the termination).
    services = [names.worker_service_name(job.name)]
    if spec.job_master.enabled:
        services.append(names.job_master_service_name(job.name))
    rules: list[dict[str, Any]] = [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list", "watch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [job.name], "verbs": ["get", "patch", "delete"]},
        {"apiGroups": [""], "resources": ["services"], "resourceNames": sorted(services), "verbs": ["get", "delete"]},
    ]  # fmt: skip
    rules.append(
        {
            "apiGroups": [""],
            "resources": ["persistentvolumeclaims"],
            "resourceNames": [job.name],
            "verbs": ["get", "delete"],
        }
    )
    rules += [
        {"apiGroups": ["apps"], "resources": ["statefulsets"], "verbs": ["list"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets"], "resourceNames": sets, "verbs": ["get", "patch", "delete"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets/scale"], "resourceNames": worker_sets, "verbs": ["get", "patch"]},
    ]  # fmt: skip
    return rules


def _config_map_data(job: Job, job_object: bytes | None) -> dict[str, str]:
    """The ConfigMap's data: never empty, since the runtime JSON-patches keys into it."""
    data = {"JOB_ID": job.name}
    if job_object is not None:
        data["TWISTER2_JOB_OBJECT"] = base64.b64encode(job_object).decode("ascii")
    return data


def build_context(job: Job, *, job_object: bytes | None = None) -> dict[str, Any]:
    """Compute everything the templates show, for one job.

    Args:
        job: a validated job.
        job_object: the serialised Twister2 ``JobAPI.Job`` (the ``<job>.job``
            file of the job package), stored base64 in the ConfigMap as
            ``TWISTER2_JOB_OBJECT``, where the Twister2 client keeps it.

    Returns:
        A JSON-like dict; its top-level keys are described in :data:`CONTEXT_DOC`.
        Quantities are canonical strings (``500m``, ``2Gi``), names and labels
        are final.
    """
    spec = job.spec
    affinity = _affinity(job)
    service_account = job.name if spec.rbac.create else spec.rbac.service_account_name
    worker_selector = {"t2-wp": job.name}
    job_labels = names.common_labels(job.name, "worker")
    del job_labels["app.kubernetes.io/component"]
    node_port = None
    if spec.network.service_type == "NodePort":
        port: dict[str, Any] = {"name": "worker", "port": spec.network.base_port,
                                "targetPort": spec.network.base_port, "protocol": spec.network.protocol}  # fmt: skip
        if spec.network.node_port is not None:
            port["nodePort"] = spec.network.node_port
        node_port = {"selector": worker_selector, "ports": [port]}
    return {
        "job": {"name": job.name, "namespace": job.namespace, "source": job.source},
        "metadata": {
            "serviceAccount": _metadata(job, job.name, "rbac"),
            "role": _metadata(job, job.name, "rbac"),
            "roleBinding": _metadata(job, job.name, "rbac"),
            "configMap": _metadata(job, job.name, "config"),
            "persistentVolumeClaim": _metadata(job, job.name, "storage"),
            "workerService": _metadata(
                job, names.worker_service_name(job.name), "worker"
            ),
            "nodePortService": _metadata(
                job, names.node_port_service_name(job.name), "worker"
            ),
            "jobMasterService": _metadata(
                job, names.job_master_service_name(job.name), "job-master"
            ),
        },
        "labels": {
            "job": {**job_labels, **dict(job.labels)},
            "workerPods": worker_selector,
            "jobMasterPods": names.job_master_selector(job.name),
        },
        "annotations": dict(job.annotations),
        "pod": {
            "serviceAccountName": service_account,
            "imagePullSecrets": [
                {"name": secret} for secret in spec.image_pull_secrets
            ],
        },
        "rbac": {"create": spec.rbac.create, "rules": _role_rules(job)},
        "configMap": {"data": _config_map_data(job, job_object)},
        "persistentVolumeClaim": _persistent_volume_claim(job),
        "workerService": {"selector": worker_selector},
        "nodePortService": node_port,
        "jobMaster": _job_master(job),
        "workerGroups": [_worker_group(job, group, affinity) for group in spec.workers],
    }
