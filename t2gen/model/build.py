"""Build the typed :class:`~t2gen.model.job.Job` from a validated job document."""

from __future__ import annotations

from decimal import Decimal
from typing import Any, TypedDict

from t2gen.kube.quantity import Quantity, parse_quantity
from t2gen.model.isolation import network_policy
from t2gen.model.job import Job, JobSpec
from t2gen.model.lifecycle import Lifecycle
from t2gen.model.placement import (
    NodeSelectorRequirement,
    Placement,
    PreferredRequirement,
    Toleration,
)
from t2gen.model.pods import JobMaster, WorkerGroup
from t2gen.model.runtime import (
    Checkpointing,
    EnvVar,
    JobPackage,
    KeptLogs,
    Mpi,
    Network,
    PackageSource,
    PersistentStorage,
    ZooKeeper,
)
from t2gen.model.scheduling import Scheduling
from t2gen.model.security import Rbac, Security
from t2gen.model.surface import ExtraVolume, PodSurface, freeze
from t2gen.twister2 import names

__all__ = ["build_job"]


def _requirement(raw: dict[str, Any]) -> NodeSelectorRequirement:
    """Build a node-label expression; integer values become strings (Gt/Lt)."""
    return NodeSelectorRequirement(
        key=raw["key"],
        operator=raw["operator"],
        values=tuple(str(value) for value in raw.get("values", ())),
    )


def _scheduling(raw: dict[str, Any]) -> Scheduling:
    """Build ``spec.scheduling``; task names stay as written (``jobMaster`` or a group name)."""
    return Scheduling(
        priority_class_name=raw.get("priorityClassName"),
        gang=raw.get("gang"),
        min_member=raw.get("minMember"),
        queue=raw.get("queue"),
        schedule_timeout_seconds=raw.get("scheduleTimeoutSeconds"),
        scheduler_name=raw.get("schedulerName"),
        preemptable=raw["preemptable"],
        affinity=tuple(tuple(group) for group in raw["affinity"]),
        anti_affinity=tuple(tuple(group) for group in raw["antiAffinity"]),
        topology_mode=raw["topologyMode"],
        topology_weight=raw["topologyWeight"],
    )


def _limit(raw: Any, request: Quantity) -> Quantity | None:
    """A ``cpuLimit``/``memoryLimit``: ``request`` is the request, ``none`` (or omitted) is no limit."""
    if raw is None:
        return None
    if raw == "request":
        return request
    if raw == "none":
        return None
    return parse_quantity(raw)


def _ephemeral_limit(raw: dict[str, Any]) -> Quantity | None:
    """``ephemeralStorageLimit``: ``request`` is ``volatileDisk`` (none when that is 0)."""
    limit = _limit(
        raw.get("ephemeralStorageLimit", "none"), parse_quantity(raw["volatileDisk"])
    )
    return None if limit is None or limit.is_zero() else limit


def _tolerations(raw: list[dict[str, Any]]) -> tuple[Toleration, ...]:
    return tuple(
        Toleration(
            key=item.get("key"),
            operator=item["operator"],
            value=item.get("value"),
            effect=item.get("effect"),
            toleration_seconds=item.get("tolerationSeconds"),
        )
        for item in raw
    )


def _placement(raw: dict[str, Any], uniform: str) -> Placement:
    affinity = raw["nodeAffinity"]
    return Placement(
        required=tuple(_requirement(r) for r in affinity["required"]),
        preferred=tuple(
            PreferredRequirement(weight=r["weight"], requirement=_requirement(r))
            for r in affinity["preferred"]
        ),
        uniform=uniform,
        node_selector=tuple(sorted(raw["nodeSelector"].items())),
        tolerations=_tolerations(raw["tolerations"]),
    )


class _Compute(TypedDict):
    """The compute fields shared by :class:`WorkerGroup` and :class:`JobMaster`."""

    cpu: Quantity
    memory: Quantity
    volatile_disk: Quantity
    cpu_limit: Quantity | None
    memory_limit: Quantity | None


def _compute(raw: dict[str, Any], *, bound: bool = False) -> _Compute:
    """``cpu``, ``memory``, ``volatile_disk`` and the two limits of a worker group or the job master.

    An omitted ``cpuLimit`` (worker groups have no schema default) is the
    request when the workers are ``bound`` to cores, else no limit: the Twister2
    launcher sets limits only when binding and requests otherwise
    (``K8S/RequestObjectBuilder.java:319-326``; ``K8S/`` is
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
    of DSC-SPIDAL/twister2), so an unbound worker never owns cores.
    """
    cpu = parse_quantity(raw["cpu"])
    memory = parse_quantity(raw["memory"])
    return {
        "cpu": cpu,
        "memory": memory,
        "volatile_disk": parse_quantity(raw["volatileDisk"]),
        "cpu_limit": _limit(raw.get("cpuLimit", "request" if bound else None), cpu),
        "memory_limit": _limit(raw["memoryLimit"], memory),
    }


_VOLUME_SOURCES = ("configMap", "secret", "persistentVolumeClaim", "emptyDir", "csi")


def _env(raw: list[dict[str, Any]]) -> tuple[EnvVar, ...]:
    return tuple(
        EnvVar(
            name=item["name"],
            value=item.get("value", ""),
            value_from=freeze(item["valueFrom"]) if "valueFrom" in item else None,
        )
        for item in raw
    )


def _surface(raw: dict[str, Any]) -> PodSurface:
    """The runtime class, extra volumes, env, envFrom, ``/dev/shm`` and service links of one scope."""
    volumes = []
    for item in raw.get("volumes", ()):
        kind = next(key for key in _VOLUME_SOURCES if key in item)
        volumes.append(
            ExtraVolume(
                name=item["name"],
                mount_path=item["mountPath"],
                sub_path=item.get("subPath"),
                read_only=item.get("readOnly", False),
                kind=kind,
                source=freeze(item[kind]),
            )
        )
    shm = raw.get("shmSize")
    return PodSurface(
        runtime_class_name=raw.get("runtimeClassName"),
        volumes=tuple(volumes),
        env=_env(raw.get("env", ())),
        env_from=tuple(freeze(item) for item in raw.get("envFrom", ())),
        shm_size=None if shm is None else parse_quantity(shm),
        enable_service_links=raw.get("enableServiceLinks"),
    )


def _group(
    index: int, group: dict[str, Any], job_wide: Placement, *, bound: bool
) -> WorkerGroup:
    return WorkerGroup(
        index=index,
        name=group.get("name", str(index)),
        count=group["count"],
        per_pod=group["perPod"],
        **_compute(group, bound=bound),
        extended_resources=tuple(sorted(group["extendedResources"].items())),
        placement=job_wide.merged(_placement(group, "none"), group.get("uniform")),
        surface=_surface(group),
        ephemeral_storage_limit=_ephemeral_limit(group),
        scalable=group.get("scalable", False),
    )


def _job_master(raw: dict[str, Any]) -> JobMaster:
    return JobMaster(
        enabled=raw["enabled"],
        address=raw.get("address"),
        **_compute(raw),
        port=raw["port"],
        persistent_disk=parse_quantity(raw["persistentDisk"]),
        placement=_placement(raw["placement"], "none"),
        surface=_surface(raw),
        ephemeral_storage_limit=_ephemeral_limit(raw),
    )


def _lifecycle(data: dict[str, Any]) -> Lifecycle:
    """``spec.lifecycle`` (schema defaults applied)."""
    return Lifecycle(
        supervise=data["supervise"],
        active_deadline_seconds=data.get("activeDeadlineSeconds"),
        backoff_limit=data.get("backoffLimit"),
        ttl_seconds_after_finished=data.get("ttlSecondsAfterFinished"),
        suspend=data["suspend"],
        image=data["image"],
        log_tail_lines=data["logTailLines"],
        max_worker_restarts=data["maxWorkerRestarts"],
        argo_cd_hooks=data["argoCDHooks"],
        placement=_placement(data["placement"], "none")
        if "placement" in data
        else None,
    )


def _job_package(package: dict[str, Any], max_size: Quantity) -> JobPackage:
    """``spec.jobPackage``; with a ``source`` the pods run Twister2's ``client-to-pods`` branch.

    The init container of :mod:`t2gen.render.context.package` places the
    package where that branch's wait loop takes it
    (``get_job_package.sh:30-54``), so the source's ``size`` is
    ``JOB_PACKAGE_FILE_SIZE``.
    """
    raw = package.get("source")
    if raw is None:
        return JobPackage(
            upload_method=package["uploadMethod"],
            uri=package.get("uri"),
            file_size=package.get("fileSize"),
            jar_file=package.get("jarFile"),
            max_size=max_size,
            uploader=package["uploader"],
        )
    source = PackageSource(
        oci=raw.get("oci"),
        url=raw.get("url"),
        sha256=raw.get("sha256"),
        size=raw.get("size"),
        deadline_seconds=raw["deadlineSeconds"],
        image_volume=raw["imageVolume"],
    )
    return JobPackage(
        upload_method="client-to-pods",
        uri=None,
        file_size=source.size,
        jar_file=package.get("jarFile"),
        max_size=max_size,
        source=source,
        sha256=source.sha256,
    )


def build_job(
    data: dict[str, Any], *, source: str = "-", namespace: str | None = None
) -> Job:
    """Build a :class:`Job` from a document that passed the schema and the rules.

    Args:
        data: the job document with schema defaults applied.
        source: the job file's name, kept for messages and ``# Source:`` lines.
        namespace: overrides ``metadata.namespace`` when given (``--namespace``).

    Returns:
        The typed job.

    Raises:
        KeyError, ValueError: the document was not validated first (a t2gen bug).
    """
    meta = data["metadata"]
    spec = data["spec"]
    network = spec["network"]
    persistent = spec["storage"]["persistent"]
    package = spec["jobPackage"]
    placement = _placement(spec["placement"], spec["placement"]["uniform"])
    bound = spec["bindWorkersToCpu"]
    max_size = parse_quantity(package["maxSize"])
    volume = spec["storage"].get("memoryVolumeSize")
    return Job(
        name=meta["name"],
        namespace=namespace or meta.get("namespace"),
        labels=tuple(sorted(meta.get("labels", {}).items())),
        annotations=tuple(sorted(meta.get("annotations", {}).items())),
        source=source,
        spec=JobSpec(
            image=spec["image"],
            image_pull_policy=spec["imagePullPolicy"],
            image_pull_secrets=tuple(spec["imagePullSecrets"]),
            workers=tuple(
                _group(index, group, placement, bound=bound)
                for index, group in enumerate(spec["workers"])
            ),
            bind_workers_to_cpu=bound,
            placement=placement,
            network=Network(
                base_port=network["basePort"],
                protocol=network["protocol"],
                additional_ports=tuple(network["additionalPorts"]),
                service_type=network["service"]["type"],
                node_port=network["service"].get("nodePort"),
                policy=network_policy(network["policy"]),
            ),
            job_master=_job_master(spec["jobMaster"]),
            storage=PersistentStorage(
                per_worker=parse_quantity(persistent["perWorker"]),
                storage_class_name=persistent.get("storageClassName"),
                access_mode=persistent["accessMode"],
                memory_volume_size=(
                    max_size * 2 if volume is None else parse_quantity(volume)
                ),
            ),
            mpi=Mpi(
                enabled=spec["mpi"]["enabled"],
                ssh_secret_name=spec["mpi"].get("sshSecretName")
                or names.ssh_secret_name(meta["name"]),
            ),
            job_package=_job_package(package, max_size),
            env=_env(spec["env"]),
            rbac=Rbac(
                create=spec["rbac"]["create"],
                service_account_name=spec["rbac"].get("serviceAccountName"),
            ),
            scheduling=_scheduling(spec["scheduling"]),
            security=Security(
                profile=spec["security"]["profile"],
                run_as_user=spec["security"]["runAsUser"],
                run_as_group=spec["security"]["runAsGroup"],
                read_only_root_filesystem=spec["security"]["readOnlyRootFilesystem"],
                checkov_skips=spec["security"]["checkovSkips"],
            ),
            termination_grace_period_seconds=spec["terminationGracePeriodSeconds"],
            surface=_surface(spec),
            jvm_memory_fraction=Decimal(str(spec["jvmMemoryFraction"])),
            checkpointing=Checkpointing(
                enabled=spec["checkpointing"]["enabled"],
                storage_type=spec["checkpointing"]["storageType"],
                restore=spec["checkpointing"]["restore"],
            ),
            zoo_keeper=ZooKeeper(
                server_addresses=spec["zooKeeper"].get("serverAddresses"),
                root_node=spec["zooKeeper"]["rootNode"],
            ),
            lifecycle=_lifecycle(spec["lifecycle"]),
            logs=_kept_logs(spec["logs"]),
            worker_class=spec.get("workerClass"),
            driver_class=spec.get("driverClass"),
            job_config=tuple(
                (key, tuple(value) if isinstance(value, list) else value)
                for key, value in sorted(spec.get("jobConfig", {}).items())
            ),
        ),
    )


def _kept_logs(raw: dict[str, Any]) -> KeptLogs | None:
    """``spec.logs``: None when omitted or ``size`` is 0 (logs go with the pods)."""
    size = parse_quantity(raw["size"])
    if size.is_zero():
        return None
    return KeptLogs(
        size=size,
        storage_class_name=raw.get("storageClassName"),
        access_mode=raw["accessMode"],
    )
