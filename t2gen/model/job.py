"""The job and its ``spec``: the root records of the model."""

from __future__ import annotations

from decimal import Decimal

from t2gen.model.lifecycle import Lifecycle
from t2gen.model.placement import Placement
from t2gen.model.pods import JobMaster, WorkerGroup
from t2gen.model.runtime import (
    Checkpointing,
    EnvVar,
    JobPackage,
    KeptLogs,
    Mpi,
    Network,
    PersistentStorage,
    ZooKeeper,
)
from t2gen.model.scheduling import Scheduling
from t2gen.model.security import Rbac, Security
from t2gen.model.surface import PodSurface
from t2gen.record import Record
from t2gen.twister2.confkeys import DEFAULTS, NAMESPACE

__all__ = ["Job", "JobSpec"]


JobConfigValue = str | int | float | bool | tuple[str | int | float | bool, ...]
"""A ``spec.jobConfig`` value as the typed job keeps it (a list becomes a tuple)."""


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
    surface: PodSurface = PodSurface()
    jvm_memory_fraction: Decimal = Decimal("0.8")
    """Share of a worker's memory given to its JVM heap (``spec.jvmMemoryFraction``)."""
    lifecycle: Lifecycle = Lifecycle()
    """``spec.lifecycle``: the supervisor Job and the job's bounds (docs/lifecycle.md)."""
    worker_class: str | None = None
    """``spec.workerClass``: the Twister2 worker class, for the job package's ``.job``."""
    driver_class: str | None = None
    """``spec.driverClass``: the optional Twister2 driver class."""
    job_config: tuple[tuple[str, JobConfigValue], ...] = ()
    checkpointing: Checkpointing = Checkpointing()
    """``spec.checkpointing``: checkpointing, and restoring a failed run."""
    zoo_keeper: ZooKeeper = ZooKeeper()
    """``spec.zooKeeper``: the ZooKeeper servers the runtime uses, if any."""
    logs: KeptLogs | None = None
    """``spec.logs``: the claim that keeps every log file after the job; None: logs go with the pods."""
    """``spec.jobConfig`` as sorted ``(key, value)`` pairs; a list value is a tuple."""

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
        """Every pod of the job: the worker pods plus the job master's (always in the cluster: rule ``job-master-in-client``)."""
        return self.total_pods + 1


class Job(Record):
    """A validated Twister2 job.

    Attributes:
        name: the job ID; every object name starts with it.
        namespace: where the objects go, or None to leave it to kubectl/kustomize.
        labels: extra labels for every object and pod (sorted by key).
        annotations: extra annotations for every object and pod (sorted by key).
        spec: the job's specification.
        source: the job file it came from, as the user named it.
        package_config: the settings of the job package given with ``--package``
            that the render reads, ``(key, value)`` sorted by key: its
            ``kubernetes.namespace`` (:attr:`package_namespace`) and the
            destinations its pods connect to (``twister2.dashboard.host``, the
            HDFS name node: :mod:`t2gen.model.destinations`); empty without one.
    """

    name: str
    namespace: str | None
    labels: tuple[tuple[str, str], ...]
    annotations: tuple[tuple[str, str], ...]
    spec: JobSpec
    source: str = "-"
    package_config: tuple[tuple[str, str | int | float | bool], ...] = ()

    @property
    def package_namespace(self) -> str:
        """The namespace the job package's runtime calls the API server in (``kubernetes.namespace``).

        The namespace of the job file (or ``-n``), which ``t2gen package``
        writes and ``--package`` checks; else the package's own
        (:attr:`package_config`); else
        Twister2's default, ``default`` (``KubernetesContext.java:24-25``). Every
        pod reads its ConfigMap there, and fails "Could not get ConfigMap from
        K8s master" (``KubernetesController.java:941-946``) when the objects were
        applied elsewhere.
        """
        packaged = dict(self.package_config).get(NAMESPACE)
        if self.namespace:
            return self.namespace
        return packaged if isinstance(packaged, str) else str(DEFAULTS[NAMESPACE])
