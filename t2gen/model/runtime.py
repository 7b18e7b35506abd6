"""What the Twister2 runtime is given: ports, storage, OpenMPI, the job package and extra environment."""

from __future__ import annotations

from t2gen.kube.quantity import Quantity
from t2gen.model.isolation import NetworkPolicy
from t2gen.model.surface import Frozen
from t2gen.record import Record

__all__ = [
    "Checkpointing",
    "EnvVar",
    "JobPackage",
    "KeptLogs",
    "Mpi",
    "Network",
    "PackageSource",
    "PersistentStorage",
    "ZooKeeper",
]


class Network(Record):
    """Worker ports and the Service type (``Headless`` or ``NodePort``)."""

    base_port: int
    protocol: str
    additional_ports: tuple[str, ...]
    service_type: str
    node_port: int | None
    policy: NetworkPolicy = NetworkPolicy()
    """``network.policy``: the opt-in NetworkPolicy of the job."""


class PersistentStorage(Record):
    """The job's shared PersistentVolumeClaim; ``per_worker`` zero means none.

    ``memory_volume_size`` is the ``sizeLimit`` of every pod's memory-backed
    emptyDir (``spec.storage.memoryVolumeSize``, default twice
    ``jobPackage.maxSize``), in bytes; the pod's first container requests it too.
    """

    per_worker: Quantity
    storage_class_name: str | None
    access_mode: str
    memory_volume_size: Quantity


class KeptLogs(Record):
    """``spec.logs``: the claim ``<job>-logs`` that keeps every Twister2 log file after the job.

    Mounted at Twister2's log directory in every worker and job master pod
    (:mod:`t2gen.twister2.logfiles`); the job master never deletes it.

    Attributes:
        size: the claim's ``storage`` request, in bytes (above zero).
        storage_class_name: its StorageClass; None: the cluster's default.
        access_mode: ``ReadWriteMany`` (pods on many nodes) or ``ReadWriteOnce``.
    """

    size: Quantity
    storage_class_name: str | None
    access_mode: str


class Mpi(Record):
    """OpenMPI mode and the SSH key Secret it mounts."""

    enabled: bool
    ssh_secret_name: str  # default <job>-ssh: names.ssh_secret_name


class PackageSource(Record):
    """``jobPackage.source``: the job package named by digest, placed by an init container.

    Attributes:
        oci: ``REGISTRY/REPOSITORY@sha256:<64 hex>``, an OCI artifact holding
            ``<job>.tar.gz`` (mounted as an ``image`` volume); None with ``url``.
        url: where the init container downloads the package; None with ``oci``.
        sha256: the package file's SHA-256 (64 lowercase hex digits); None
            when unknown (``oci`` without it).
        size: the package file's size in bytes; None until ``render
            --package`` gives it (the rules refuse a render without either).
        deadline_seconds: how long the init container tries before it fails.
        image_volume: ``oci`` is mounted as an ``image`` volume (Kubernetes 1.35+).
    """

    oci: str | None = None
    url: str | None = None
    sha256: str | None = None
    size: int | None = None
    deadline_seconds: int = 600
    image_volume: bool = True


class JobPackage(Record):
    """How pods fetch the job package: ``webserver`` or ``client-to-pods``.

    ``max_size`` bounds the package, packed and unpacked, in bytes
    (``jobPackage.maxSize``). With a :attr:`source` the upload method is
    ``client-to-pods`` and ``file_size`` is the source's size: an init
    container places the package where Twister2's wait loop takes it
    (``get_job_package.sh:30-54``). ``sha256`` is the package file's digest
    when known (the source's, or the file ``render --package`` read); the
    pod templates carry it.
    """

    upload_method: str
    uri: str | None
    file_size: int | None
    jar_file: str | None
    max_size: Quantity | None = None
    uploader: str = "default-namespace"
    """``jobPackage.uploader``: ``default-namespace`` or ``job-namespace`` (used without ``uri``)."""
    source: PackageSource | None = None
    """``jobPackage.source``: the package named by digest; None for Twister2's own delivery."""
    sha256: str | None = None
    """The package file's SHA-256 when known (``source.sha256`` or ``render --package``)."""


class EnvVar(Record):
    """An extra environment variable: a literal ``value``, or ``value_from`` (a frozen ``EnvVarSource``)."""

    name: str
    value: str
    value_from: Frozen | None = None


class Checkpointing(Record):
    """Twister2's checkpointing and restore (``spec.checkpointing``).

    Attributes:
        enabled: the job checkpoints (``twister2.checkpointing.enable``).
        storage_type: ``mounted`` (the claim at ``/persistent``) or ``hdfs``
            (``twister2.persistent.storage.type``).
        restore: start from the last checkpoint of a failed run (``RESTORE_JOB``).
    """

    enabled: bool = False
    storage_type: str = "mounted"
    restore: bool = False

    @property
    def restores_from_claim(self) -> bool:
        """The run restores checkpoints kept in the earlier run's claim (the launcher then creates no claim)."""
        return self.restore and self.storage_type == "mounted"


class ZooKeeper(Record):
    """The ZooKeeper ensemble of the job (``spec.zooKeeper``); ``server_addresses`` None for none."""

    server_addresses: str | None = None
    root_node: str = "/twister2"
