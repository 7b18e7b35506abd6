"""The job as typed, frozen data, built only from documents that passed validation."""

from __future__ import annotations

from typing import Any

from t2gen.kube.quantity import Quantity, parse_quantity
from t2gen.record import Record

__all__ = [
    "EnvVar",
    "Job",
    "JobMaster",
    "JobPackage",
    "JobSpec",
    "Mpi",
    "Network",
    "NodeSelectorRequirement",
    "PersistentStorage",
    "Placement",
    "PreferredRequirement",
    "Rbac",
    "Scheduling",
    "Security",
    "Toleration",
    "WorkerGroup",
    "build_job",
]


class Toleration(Record):
    """A Kubernetes Toleration; unset fields are None (written only when set).

    Source: https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/
    """

    key: str | None
    operator: str
    value: str | None
    effect: str | None
    toleration_seconds: int | None

    def as_manifest(self) -> dict[str, Any]:
        """The toleration as written in a pod spec: ``{key?, operator, value?, effect?, tolerationSeconds?}``."""
        out: dict[str, Any] = {}
        if self.key:
            out["key"] = self.key
        out["operator"] = self.operator
        if self.value is not None:
            out["value"] = self.value
        if self.effect is not None:
            out["effect"] = self.effect
        if self.toleration_seconds is not None:
            out["tolerationSeconds"] = self.toleration_seconds
        return out


class WorkerGroup(Record):
    """One group of identical workers (a Twister2 compute resource).

    Attributes:
        index: position in ``spec.workers``; the StatefulSet is ``<job>-<index>``.
        name: the group's task name (``spec.workers[].name``, default ``str(index)``).
        count: workers in the group.
        per_pod: workers per pod; ``count`` is a multiple of it.
        cpu: cores per worker.
        memory: bytes per worker.
        volatile_disk: scratch bytes per worker; zero for none.
        cpu_limit: cores per worker the container may use at most; None for no limit.
        memory_limit: bytes per worker the container may use at most; None for no limit.
        extended_resources: ``(name, count)`` per worker, sorted by name
            (e.g. ``("nvidia.com/gpu", 1)``).
        tolerations: this group's own tolerations (after ``spec.placement.tolerations``).
    """

    index: int
    name: str
    count: int
    per_pod: int
    cpu: Quantity
    memory: Quantity
    volatile_disk: Quantity
    cpu_limit: Quantity | None
    memory_limit: Quantity | None
    extended_resources: tuple[tuple[str, int], ...]
    tolerations: tuple[Toleration, ...]

    @property
    def replicas(self) -> int:
        """Pods in the group: ``count / per_pod``."""
        return self.count // self.per_pod


class NodeSelectorRequirement(Record):
    """A node-label expression; ``values`` are strings, as Kubernetes needs them."""

    key: str
    operator: str
    values: tuple[str, ...]


class PreferredRequirement(Record):
    """A weighted (1-100) node-label preference."""

    weight: int
    requirement: NodeSelectorRequirement


class Placement(Record):
    """Node affinity, node selector, tolerations and uniform mapping of a set of pods.

    Attributes:
        required: required node expressions (one term, ANDed).
        preferred: weighted node preferences.
        uniform: ``none``, ``all-same-node`` or ``all-separate-nodes`` (workers only).
        node_selector: ``(key, value)`` pairs, sorted; each is ANDed into the
            required term as ``key In [value]``.
        tolerations: tolerations of every pod placed this way.
    """

    required: tuple[NodeSelectorRequirement, ...]
    preferred: tuple[PreferredRequirement, ...]
    uniform: str
    node_selector: tuple[tuple[str, str], ...]
    tolerations: tuple[Toleration, ...]


class Security(Record):
    """The security profile of every pod: ``default``, ``restricted`` or ``none``.

    Attributes:
        profile: the profile name (``spec.security.profile``).
        run_as_user: user ID with ``restricted``.
        run_as_group: group ID (and ``fsGroup``) with ``restricted``.
    """

    profile: str
    run_as_user: int
    run_as_group: int


class Network(Record):
    """Worker ports and the Service type (``Headless`` or ``NodePort``)."""

    base_port: int
    protocol: str
    additional_ports: tuple[str, ...]
    service_type: str
    node_port: int | None


class JobMaster(Record):
    """The job master: in the cluster (``enabled``) or in the client at ``address``."""

    enabled: bool
    address: str | None
    cpu: Quantity
    memory: Quantity
    port: int
    volatile_disk: Quantity
    persistent_disk: Quantity
    cpu_limit: Quantity | None
    memory_limit: Quantity | None
    placement: Placement


class PersistentStorage(Record):
    """The job's shared PersistentVolumeClaim; ``per_worker`` zero means none.

    ``memory_volume_size`` is the ``sizeLimit`` of every pod's memory-backed
    emptyDir (``spec.storage.memoryVolumeSize``).
    """

    per_worker: Quantity
    storage_class_name: str | None
    access_mode: str
    memory_volume_size: Quantity


class Mpi(Record):
    """OpenMPI mode and the SSH key Secret it mounts."""

    enabled: bool
    ssh_secret_name: str


class JobPackage(Record):
    """How pods fetch the job package: ``webserver`` or ``client-to-pods``."""

    upload_method: str
    uri: str | None
    file_size: int | None
    jar_file: str | None


class EnvVar(Record):
    """An extra environment variable for every container."""

    name: str
    value: str


class Rbac(Record):
    """Whether to render the job's ServiceAccount, Role and RoleBinding."""

    create: bool
    service_account_name: str | None


class Scheduling(Record):
    """``spec.scheduling``: priority, gang scheduling and task topology.

    Attributes:
        priority_class_name: PriorityClass of every pod, or None.
        gang: ``volcano``, ``coscheduling``, ``kueue``, ``kubernetes`` or None (no gang).
        min_member: the explicit group minimum, or None for every pod of the job.
        queue: Volcano Queue or Kueue LocalQueue, or None.
        schedule_timeout_seconds: coscheduling's wait for the group, or None.
        scheduler_name: the explicit scheduler name, or None for the mechanism's default.
        preemptable: Volcano may preempt the job's pods.
        affinity: task groups whose pods should share nodes; tasks are
            ``jobMaster`` or worker group names, as written.
        anti_affinity: task groups whose pods should not share nodes.
        topology_mode: ``preferred`` or ``required`` (native inter-pod affinity).
        topology_weight: weight of each preferred term, 1-100.
    """

    priority_class_name: str | None
    gang: str | None
    min_member: int | None
    queue: str | None
    schedule_timeout_seconds: int | None
    scheduler_name: str | None
    preemptable: bool
    affinity: tuple[tuple[str, ...], ...]
    anti_affinity: tuple[tuple[str, ...], ...]
    topology_mode: str
    topology_weight: int

    @property
    def has_topology(self) -> bool:
        """Whether any task (anti-)affinity is asked for."""
        return bool(self.affinity or self.anti_affinity)


class JobSpec(Record):
    """Everything under ``spec`` of the job file."""

    image: str
    image_pull_policy: str
    image_pull_secrets: tuple[str, ...]
    workers: tuple[WorkerGroup, ...]
    bind_workers_to_cpu: bool
    placement: Placement
    network: Network
    job_master: JobMaster
    storage: PersistentStorage
    mpi: Mpi
    job_package: JobPackage
    env: tuple[EnvVar, ...]
    rbac: Rbac
    scheduling: Scheduling
    security: Security
    termination_grace_period_seconds: int

    @property
    def total_workers(self) -> int:
        """Workers in the whole job, over every group."""
        return sum(group.count for group in self.workers)

    @property
    def total_pods(self) -> int:
        """Worker pods in the whole job."""
        return sum(group.replicas for group in self.workers)

    @property
    def job_pods(self) -> int:
        """Every pod of the job: the worker pods plus the job master pod when it runs in the cluster."""
        return self.total_pods + (1 if self.job_master.enabled else 0)


class Job(Record):
    """A validated Twister2 job.

    Attributes:
        name: the job ID; every object name starts with it.
        namespace: where the objects go, or None to leave it to kubectl/kustomize.
        labels: extra labels for every object and pod (sorted by key).
        annotations: extra annotations for every object and pod (sorted by key).
        spec: the job's specification.
        source: the job file it came from, as the user named it.
    """

    name: str
    namespace: str | None
    labels: tuple[tuple[str, str], ...]
    annotations: tuple[tuple[str, str], ...]
    spec: JobSpec
    source: str = "-"


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
    """A ``cpuLimit``/``memoryLimit``: ``request`` is the request, ``none`` is no limit."""
    if raw == "request":
        return request
    if raw == "none":
        return None
    return parse_quantity(raw)


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


def _group(index: int, group: dict[str, Any]) -> WorkerGroup:
    cpu = parse_quantity(group["cpu"])
    memory = parse_quantity(group["memory"])
    return WorkerGroup(
        index=index,
        name=group.get("name", str(index)),
        count=group["count"],
        per_pod=group["perPod"],
        cpu=cpu,
        memory=memory,
        volatile_disk=parse_quantity(group["volatileDisk"]),
        cpu_limit=_limit(group["cpuLimit"], cpu),
        memory_limit=_limit(group["memoryLimit"], memory),
        extended_resources=tuple(sorted(group["extendedResources"].items())),
        tolerations=_tolerations(group["tolerations"]),
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
    job_master = spec["jobMaster"]
    persistent = spec["storage"]["persistent"]
    package = spec["jobPackage"]
    placement = spec["placement"]
    master_cpu = parse_quantity(job_master["cpu"])
    master_memory = parse_quantity(job_master["memory"])
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
                _group(index, group) for index, group in enumerate(spec["workers"])
            ),
            bind_workers_to_cpu=spec["bindWorkersToCpu"],
            placement=_placement(placement, placement["uniform"]),
            network=Network(
                base_port=network["basePort"],
                protocol=network["protocol"],
                additional_ports=tuple(network["additionalPorts"]),
                service_type=network["service"]["type"],
                node_port=network["service"].get("nodePort"),
            ),
            job_master=JobMaster(
                enabled=job_master["enabled"],
                address=job_master.get("address"),
                cpu=master_cpu,
                memory=master_memory,
                port=job_master["port"],
                volatile_disk=parse_quantity(job_master["volatileDisk"]),
                persistent_disk=parse_quantity(job_master["persistentDisk"]),
                cpu_limit=_limit(job_master["cpuLimit"], master_cpu),
                memory_limit=_limit(job_master["memoryLimit"], master_memory),
                placement=_placement(job_master["placement"], "none"),
            ),
            storage=PersistentStorage(
                per_worker=parse_quantity(persistent["perWorker"]),
                storage_class_name=persistent.get("storageClassName"),
                access_mode=persistent["accessMode"],
                memory_volume_size=parse_quantity(spec["storage"]["memoryVolumeSize"]),
            ),
            mpi=Mpi(
                enabled=spec["mpi"]["enabled"],
                ssh_secret_name=spec["mpi"]["sshSecretName"],
            ),
            job_package=JobPackage(
                upload_method=package["uploadMethod"],
                uri=package.get("uri"),
                file_size=package.get("fileSize"),
                jar_file=package.get("jarFile"),
            ),
            env=tuple(
                EnvVar(name=raw["name"], value=raw["value"]) for raw in spec["env"]
            ),
            rbac=Rbac(
                create=spec["rbac"]["create"],
                service_account_name=spec["rbac"].get("serviceAccountName"),
            ),
            scheduling=_scheduling(spec["scheduling"]),
            security=Security(
                profile=spec["security"]["profile"],
                run_as_user=spec["security"]["runAsUser"],
                run_as_group=spec["security"]["runAsGroup"],
            ),
            termination_grace_period_seconds=spec["terminationGracePeriodSeconds"],
        ),
    )
