"""The Twister2 configuration keys that matter on Kubernetes, as data.

Every key here is one the Twister2 0.8 Kubernetes launcher or runtime reads
(cylondata/twister2, ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/
schedulers/k8s/KubernetesContext.java``, ``twister2/api/src/java/edu/iu/dsc/tws/api/
config/SchedulerContext.java``, ``twister2/master/src/java/edu/iu/dsc/tws/master/
JobMasterContext.java``), with its code default, the legacy names older
configuration directories and the Twister2 design documents still use, and the
t2gen job-file field it becomes (or why it has none). The shipped files are
``twister2/config/src/yaml/conf/{common,kubernetes}/*.yaml``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from enum import Enum

__all__ = [
    "COMPUTE_RESOURCE_FIELDS",
    "CONF_DIRS",
    "JVM_MEMORY_FRACTION",
    "KEYS",
    "KUBERNETES_PREFIXES",
    "LEGACY_WORKER_KEYS",
    "LOAD_ORDER",
    "MPI_CHANNEL",
    "ComputeField",
    "Key",
    "Kind",
    "Use",
    "is_kubernetes_key",
    "lookup",
    "suggest",
]

LOAD_ORDER: tuple[str, ...] = (
    "task.yaml",
    "resource.yaml",
    "network.yaml",
    "core.yaml",
    "data.yaml",
    "checkpoint.yaml",
)
"""Files of one configuration directory, in the order Twister2 reads them; later wins.

ConfigLoader.loadConfig (``twister2/common/src/java/edu/iu/dsc/tws/common/config/
ConfigLoader.java``) puts task, resource, network, core (the "system" file), data
and checkpoint into one Config, key by key.
"""

CONF_DIRS: tuple[str, ...] = ("common", "kubernetes")
"""Sub-directories of a configuration root: ``common`` first, ``kubernetes`` overrides it."""

MPI_CHANNEL = "edu.iu.dsc.tws.comms.mpi.TWSMPIChannel"
"""The channel class that makes a job an OpenMPI job; also the code default (SchedulerContext)."""

JVM_MEMORY_FRACTION = 0.8
"""t2gen's fixed JVM heap fraction, Twister2's default (KubernetesContext)."""

KUBERNETES_PREFIXES: tuple[str, ...] = (
    "kubernetes.",
    "twister2.kubernetes.",
    "twister2.resource.kubernetes.",
)
"""Key prefixes that only the Kubernetes launcher uses: an unknown key with one is a typo."""


class Kind(str, Enum):
    """The value type a key holds, as Twister2's TypeUtils converts it."""

    BOOL = "boolean"
    INT = "integer"
    NUMBER = "number"
    STRING = "string"
    STRING_LIST = "list of strings"
    COMPUTE_RESOURCES = "list of compute resources"
    ANY = "any value"


class Use(str, Enum):
    """What the importer does with a key."""

    FIELD = "field"
    """Converted to a job-file field."""
    PACKAGE = "package"
    """Read by the runtime from the job package's configuration; no manifest effect."""
    CLIENT = "client"
    """Read only by the Twister2 client (``twister2 submit``); no manifest effect."""
    UNUSED = "unused"
    """Not read on Kubernetes (another launcher's key, or dead code)."""


@dataclass(frozen=True)
class Key:
    """One Twister2 configuration key.

    Attributes:
        name: the key as Twister2 0.8 reads it.
        kind: its value type.
        default: Twister2's code default; None when there is none.
        use: what the importer does with it.
        field: the job-file field it becomes (``spec.network.basePort``), or None.
        aliases: legacy names (renamed on 2019-09-13 or removed on 2018-11-08)
            accepted in their place.
        note: how the value converts, or why the key has no field.
        agree: when set, the runtime also reads the key from the job package, and
            this says what must agree between the package and the job file.
        source: where Twister2 defines the key and its default.
    """

    name: str
    kind: Kind
    default: object
    use: Use
    field: str | None = None
    aliases: tuple[str, ...] = ()
    note: str = ""
    agree: str = ""
    source: str = ""


_KC = "KubernetesContext.java"
_SC = "SchedulerContext.java"
_JMC = "JobMasterContext.java"

KEYS: tuple[Key, ...] = (
    # --- image and pull policy ------------------------------------------------------
    Key(
        "twister2.resource.kubernetes.docker.image",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.image",
        aliases=("twister2.docker.image.for.kubernetes",),
        note="image of the job master and the workers",
        source=f"{_KC}:21-22",
    ),
    Key(
        "kubernetes.image.pull.policy",
        Kind.STRING,
        "IfNotPresent",
        Use.FIELD,
        "spec.imagePullPolicy",
        source=f"{_KC}:46-47",
    ),
    Key(
        "kubernetes.namespace",
        Kind.STRING,
        "default",
        Use.FIELD,
        "metadata.namespace",
        agree="the runtime makes every API call in the namespace of the job package's "
        "kubernetes.namespace; render into that same namespace (no different -n)",
        source=f"{_KC}:24-25",
    ),
    # --- job identity ---------------------------------------------------------------
    Key(
        "twister2.job.id",
        Kind.STRING,
        None,
        Use.FIELD,
        "metadata.name",
        note="the job ID; Twister2 generates one with a timestamp when it is absent",
        agree="the job ID in the job package must equal metadata.name",
        source="Context.java:72",
    ),
    Key(
        "twister2.resource.job.name",
        Kind.STRING,
        None,
        Use.FIELD,
        "metadata.name",
        aliases=("twister2.job.name",),
        note="used for metadata.name only when twister2.job.id is absent",
        source="Context.java:70",
    ),
    Key(
        "twister2.user.name",
        Kind.STRING,
        None,
        Use.CLIENT,
        note="part of a generated job ID",
        source="Context.java:73",
    ),
    # --- worker groups --------------------------------------------------------------
    Key(
        "twister2.resource.worker.compute.resources",
        Kind.COMPUTE_RESOURCES,
        None,
        Use.FIELD,
        "spec.workers",
        aliases=("worker.compute.resources",),
        note="one worker group per compute resource, same order; count = instances x workersPerPod",
        agree="the job package's compute resources must equal spec.workers, group by group",
        source=f"{_SC}:54-55; Twister2Job.java:395-421",
    ),
    Key(
        "twister2.resource.worker.additional.ports",
        Kind.STRING_LIST,
        None,
        Use.FIELD,
        "spec.network.additionalPorts",
        aliases=("twister2.worker.additional.ports",),
        note="names converted to Kubernetes port names (IANA service names, at most 15 characters)",
        agree="workers derive their extra ports from the length of the job package's list; keep it as long as additionalPorts",
        source=f"{_SC}:94,221-228",
    ),
    Key(
        "kubernetes.bind.worker.to.cpu",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.bindWorkersToCpu",
        source=f"{_KC}:56-57",
    ),
    # --- placement ------------------------------------------------------------------
    Key(
        "kubernetes.worker.to.node.mapping",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.placement.nodeAffinity.required",
        note="enables the node-affinity expression; Twister2 applies it to compute resource 0 only",
        source=f"{_KC}:59-60; RequestObjectBuilder.java:229-231",
    ),
    Key(
        "twister2.resource.kubernetes.worker.mapping.key",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.placement.nodeAffinity.required[0].key",
        aliases=("kubernetes.worker.mapping.key",),
        source=f"{_KC}:62-63",
    ),
    Key(
        "twister2.resource.kubernetes.worker.mapping.operator",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.placement.nodeAffinity.required[0].operator",
        aliases=("kubernetes.worker.mapping.operator",),
        source=f"{_KC}:64-65",
    ),
    Key(
        "twister2.resource.kubernetes.worker.mapping.values",
        Kind.STRING_LIST,
        None,
        Use.FIELD,
        "spec.placement.nodeAffinity.required[0].values",
        aliases=("kubernetes.worker.mapping.values",),
        source=f"{_KC}:66-67",
    ),
    Key(
        "kubernetes.worker.mapping.uniform",
        Kind.STRING,
        "none",
        Use.FIELD,
        "spec.placement.uniform",
        note="Twister2 applies it to compute resource 0 only",
        source=f"{_KC}:69-71; RequestObjectBuilder.java:238-257",
    ),
    # --- network --------------------------------------------------------------------
    Key(
        "kubernetes.worker.base.port",
        Kind.INT,
        9000,
        Use.FIELD,
        "spec.network.basePort",
        agree="OpenMPI workers compute their port from the job package's base port; keep it equal",
        source=f"{_KC}:30-31",
    ),
    Key(
        "kubernetes.worker.transport.protocol",
        Kind.STRING,
        "TCP",
        Use.FIELD,
        "spec.network.protocol",
        source=f"{_KC}:43-44",
    ),
    Key(
        "kubernetes.node.port.service.requested",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.network.service.type",
        note="NodePort; t2gen adds <job>-np beside the headless Service instead of replacing it",
        source=f"{_KC}:37-38",
    ),
    Key(
        "kubernetes.service.node.port",
        Kind.INT,
        0,
        Use.FIELD,
        "spec.network.service.nodePort",
        note="0 means Kubernetes picks one (omitted)",
        source=f"{_KC}:40-41",
    ),
    # --- OpenMPI --------------------------------------------------------------------
    Key(
        "twister2.network.channel.class",
        Kind.STRING,
        MPI_CHANNEL,
        Use.FIELD,
        "spec.mpi.enabled",
        note="TWSMPIChannel, the code default, makes an OpenMPI job",
        source=f"{_SC}:43-44,209-211",
    ),
    Key(
        "kubernetes.secret.name",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.mpi.sshSecretName",
        note="used only by OpenMPI jobs",
        source=f"{_KC}:73",
    ),
    Key(
        "twister2.kubernetes.check.pwd.free.ssh",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="the MPI master checks SSH before mpirun",
        source=f"{_KC}:93-94",
    ),
    Key(
        "twister2.resource.scheduler.mpi.params",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="extra mpirun arguments",
        source="MPIContext.java:33",
    ),
    Key(
        "twister2.kubernetes.jvm.memory.fraction",
        Kind.NUMBER,
        0.8,
        Use.FIELD,
        None,
        note="t2gen fixes the JVM heap at 80% of a worker's memory; only 0.8 can be imported",
        source=f"{_KC}:96-97",
    ),
    # --- storage --------------------------------------------------------------------
    Key(
        "twister2.resource.persistent.volume.per.worker",
        Kind.NUMBER,
        0.0,
        Use.FIELD,
        "spec.storage.persistent.perWorker",
        aliases=("persistent.volume.per.worker",),
        note="GB per worker; 0 means no claim",
        agree="workers mount /persistent only when the job package's value is above 0; keep it equal",
        source=f"{_SC}:85-87",
    ),
    Key(
        "twister2.resource.kubernetes.persistent.storage.class",
        Kind.STRING,
        None,
        Use.FIELD,
        "spec.storage.persistent.storageClassName",
        aliases=("kubernetes.persistent.storage.class",),
        note="used only when there is a claim",
        source=f"{_KC}:49-50",
    ),
    Key(
        "twister2.resource.kubernetes.storage.access.mode",
        Kind.STRING,
        "ReadWriteMany",
        Use.FIELD,
        "spec.storage.persistent.accessMode",
        aliases=("kubernetes.storage.access.mode",),
        note="used only when there is a claim",
        source=f"{_KC}:52-54",
    ),
    # --- job master -----------------------------------------------------------------
    Key(
        "twister2.job.master.runs.in.client",
        Kind.BOOL,
        False,
        Use.FIELD,
        "spec.jobMaster.enabled",
        note="jobMaster.enabled is its negation",
        agree="workers start a job master client only as the job package's value says; keep it equal",
        source=f"{_JMC}:26-27",
    ),
    Key(
        "twister2.job.master.provided.ip",
        Kind.STRING,
        "",
        Use.FIELD,
        "spec.jobMaster.address",
        note="used only when the job master runs in the client",
        source=f"{_SC}:107,276-278",
    ),
    Key(
        "twister2.job.master.port",
        Kind.INT,
        11011,
        Use.FIELD,
        "spec.jobMaster.port",
        agree="the job master listens, and workers dial, on the job package's port; keep it equal",
        source=f"{_JMC}:29-30",
    ),
    Key(
        "twister2.job.master.cpu",
        Kind.NUMBER,
        0.2,
        Use.FIELD,
        "spec.jobMaster.cpu",
        source=f"{_JMC}:42-43",
    ),
    Key(
        "twister2.job.master.ram",
        Kind.INT,
        1024,
        Use.FIELD,
        "spec.jobMaster.memory",
        note="MB; Twister2's heap is ram (request ram + 128Mi), t2gen's is 80% of memory",
        source=f"{_JMC}:46-47",
    ),
    Key(
        "twister2.job.master.volatile.volume.size",
        Kind.NUMBER,
        0.0,
        Use.FIELD,
        "spec.jobMaster.volatileDisk",
        note="GB; 0 means none",
        source=f"{_JMC}:50-51",
    ),
    Key(
        "twister2.job.master.persistent.volume.size",
        Kind.NUMBER,
        0.0,
        Use.FIELD,
        "spec.jobMaster.persistentDisk",
        note="GB; 0 means none",
        source=f"{_JMC}:54-55",
    ),
    Key(
        "twister2.job.master.used",
        Kind.BOOL,
        True,
        Use.UNUSED,
        note="ignored by the Kubernetes launcher",
        source=f"{_JMC}:22-23",
    ),
    # --- job package ----------------------------------------------------------------
    Key(
        "twister2.kubernetes.uploader.web.server",
        Kind.STRING,
        "http://twister2-uploader.default.svc.cluster.local",
        Use.FIELD,
        "spec.jobPackage.uri",
        note="uri = <web server>/<job>.tar.gz",
        source=f"{_KC}:77-80",
    ),
    Key(
        "twister2.resource.class.uploader",
        Kind.STRING,
        None,
        Use.CLIENT,
        note="K8sUploader picks the web server when uploader pods exist, else kubectl cp; "
        "choose spec.jobPackage.uploadMethod (default webserver) yourself",
        source=f"{_SC}:37",
    ),
    Key(
        "twister2.kubernetes.uploader.web.server.directory",
        Kind.STRING,
        "/usr/share/nginx/html",
        Use.CLIENT,
        note="uploader-side setting",
        source=f"{_KC}:84-85",
    ),
    Key(
        "twister2.kubernetes.uploader.web.server.label",
        Kind.STRING,
        "app=twister2-uploader",
        Use.CLIENT,
        note="uploader-side setting",
        source=f"{_KC}:88-91",
    ),
    Key(
        "twister2.s3.bucket.name",
        Kind.STRING,
        None,
        Use.CLIENT,
        note="S3 upload; give spec.jobPackage.uri yourself",
        source="S3Context.java:18-24",
    ),
    Key(
        "twister2.s3.link.expiration.duration.sec",
        Kind.INT,
        7200,
        Use.CLIENT,
        note="S3 upload",
        source="S3Context.java:18-24",
    ),
    Key(
        "twister2.resource.class.launcher",
        Kind.STRING,
        None,
        Use.CLIENT,
        note="the client's launcher class",
        source=f"{_SC}:35",
    ),
    Key(
        "kubernetes.log.in.client",
        Kind.BOOL,
        False,
        Use.CLIENT,
        note="the client streams pod logs",
        source=f"{_KC}:27-28",
    ),
    # --- runtime settings read from the job package -----------------------------------
    Key(
        "kubernetes.check.pods.reachable",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="workers ping each other before starting",
        source=f"{_SC}:102-103",
    ),
    Key(
        "twister2.resource.kubernetes.node.locations.from.config",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        aliases=("kubernetes.node.locations.from.config",),
        note="without it the runtime falls back to the pod's host IP; spec.env may set ENCODED_NODE_INFO_LIST",
        source=f"{_KC}:33-35",
    ),
    Key(
        "twister2.resource.rack.labey.key",
        Kind.STRING,
        None,
        Use.CLIENT,
        aliases=("rack.labey.key",),
        note="node label of the rack",
        source=f"{_SC}:89",
    ),
    Key(
        "twister2.resource.datacenter.labey.key",
        Kind.STRING,
        None,
        Use.CLIENT,
        aliases=("datacenter.labey.key",),
        note="node label of the data center",
        source=f"{_SC}:90",
    ),
    Key(
        "twister2.resource.racks.list",
        Kind.ANY,
        None,
        Use.PACKAGE,
        aliases=("racks.list",),
        note="IP to rack map",
        source=f"{_SC}:91",
    ),
    Key(
        "twister2.resource.datacenters.list",
        Kind.ANY,
        None,
        Use.PACKAGE,
        aliases=("datacenters.list",),
        note="rack to data center map",
        source=f"{_SC}:92",
    ),
    Key(
        "twister2.resource.zookeeper.server.addresses",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="ZooKeeper group management",
        agree="with ZooKeeper every worker and the job master parse JOB_SUBMISSION_TIME; "
        "add it (a number, milliseconds) to spec.env",
        source="ZKContext.java:37",
    ),
    Key(
        "twister2.resource.zookeeper.root.node.path",
        Kind.STRING,
        "/twister2",
        Use.PACKAGE,
        aliases=("twister2.zookeeper.root.node.path",),
        note="ZooKeeper root node (the shipped common/resource.yaml spells it without .resource)",
        source="ZKContext.java:32",
    ),
    Key(
        "twister2.checkpointing.enable",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="keeps the claim after a failure",
        source="CheckpointingContext.java:23",
    ),
    Key(
        "twister2.checkpointing.restore.job",
        Kind.BOOL,
        False,
        Use.PACKAGE,
        note="t2gen always sets RESTORE_JOB=false, so a restore cannot be started through t2gen",
        source="CheckpointingContext.java:32,61",
    ),
    Key(
        "twister2.fault.tolerance.max.worker.restarts",
        Kind.INT,
        5,
        Use.PACKAGE,
        note="restart budget",
        source="FaultToleranceContext.java:30-36",
    ),
    Key(
        "twister2.fault.tolerance.max.mpijob.restarts",
        Kind.INT,
        1,
        Use.PACKAGE,
        note="restart budget",
        source="FaultToleranceContext.java:30-36",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.for.all.workers.to.join",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="join timeout (ms); raise it when pods queue",
        source="common/core.yaml:43-46",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.on.barrier",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="barrier timeout (ms)",
        source="common/core.yaml:48-51",
    ),
    Key(
        "twister2.worker.controller.max.wait.time.on.init.barrier",
        Kind.INT,
        600000,
        Use.PACKAGE,
        note="init barrier timeout (ms)",
        source="common/core.yaml:53-56",
    ),
    Key(
        "twister2.worker.to.job.master.response.wait.duration",
        Kind.INT,
        100000,
        Use.PACKAGE,
        note="request timeout (ms)",
        source=f"{_JMC}:37-38",
    ),
    Key(
        "twister2.persistent.storage.type",
        Kind.STRING,
        "mounted",
        Use.PACKAGE,
        note="runtime storage choice",
        source="FileSystemContext.java:24-26",
    ),
    Key(
        "twister2.persistent.storage.root",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="runtime storage choice",
        source="FileSystemContext.java:24-26",
    ),
    Key(
        "twister2.logging.storage.type",
        Kind.STRING,
        "volatile",
        Use.PACKAGE,
        note="runtime storage choice",
        source="LoggingContext.java:64",
    ),
    Key(
        "twister2.checkpointing.store.fs.dir",
        Kind.STRING,
        None,
        Use.PACKAGE,
        note="checkpoint store",
        source="conf/kubernetes/checkpoint.yaml:2",
    ),
    Key(
        "twister2.resource.nfs.server.address",
        Kind.STRING,
        None,
        Use.UNUSED,
        note="dead code: the PersistentVolume builder is never called",
        source=f"{_SC}:81",
    ),
    Key(
        "twister2.resource.nfs.server.path",
        Kind.STRING,
        None,
        Use.UNUSED,
        note="dead code: the PersistentVolume builder is never called",
        source=f"{_SC}:82",
    ),
    Key(
        "twister2.resource.worker.instances",
        Kind.INT,
        1,
        Use.UNUSED,
        note="read only by the Aurora launcher",
        source="Context.java:83-84",
    ),
)
"""Every Kubernetes-relevant Twister2 0.8 key, in the order of the reference table."""


@dataclass(frozen=True)
class ComputeField:
    """One field of a compute resource (an item of the compute-resources list).

    Attributes:
        name: the field name.
        kind: its type (Twister2 casts it: ``(Double)``, ``(Integer)``, ``(Boolean)``).
        required: whether Twister2 needs it.
        default: its default when optional.
    """

    name: str
    kind: Kind
    required: bool
    default: object = None


COMPUTE_RESOURCE_FIELDS: dict[str, ComputeField] = {
    field.name: field
    for field in (
        ComputeField("cpu", Kind.NUMBER, True),
        ComputeField("ram", Kind.INT, True),
        ComputeField("disk", Kind.NUMBER, True),
        ComputeField("instances", Kind.INT, True),
        ComputeField("scalable", Kind.BOOL, False, False),
        ComputeField("workersPerPod", Kind.INT, False, 1),
    )
}
"""Fields of a compute resource (Twister2Job.loadComputeResources)."""

LEGACY_WORKER_KEYS: dict[str, Key] = {
    key.name: key
    for key in (
        Key(
            "twister2.worker.instances",
            Kind.INT,
            None,
            Use.FIELD,
            "spec.workers[0].count",
            note="legacy: total workers of the single group (not pods)",
        ),
        Key(
            "kubernetes.workers.per.pod",
            Kind.INT,
            1,
            Use.FIELD,
            "spec.workers[0].perPod",
            note="legacy (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.cpu",
            Kind.NUMBER,
            1.0,
            Use.FIELD,
            "spec.workers[0].cpu",
            note="legacy (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.ram",
            Kind.INT,
            200,
            Use.FIELD,
            "spec.workers[0].memory",
            note="legacy, MB (removed 2018-11-08)",
        ),
        Key(
            "twister2.worker.volatile.disk",
            Kind.NUMBER,
            0.0,
            Use.FIELD,
            "spec.workers[0].volatileDisk",
            note="legacy, GB (removed 2018-11-08)",
        ),
    )
}
"""Pre-0.8 keys describing one worker group; read only when no compute-resources list is given."""

_BY_NAME: dict[str, Key] = {}
for _key in KEYS:
    _BY_NAME[_key.name] = _key
    for _alias in _key.aliases:
        _BY_NAME[_alias] = _key
_BY_NAME.update(LEGACY_WORKER_KEYS)


def lookup(name: str) -> Key | None:
    """Return the key a configuration name stands for, by its 0.8 name or a legacy alias.

    Args:
        name: a top-level key of a Twister2 configuration file.

    Returns:
        The key, or None when it is not Kubernetes-relevant (or unknown).
    """
    return _BY_NAME.get(name)


def is_kubernetes_key(name: str) -> bool:
    """Whether a name looks like a Kubernetes launcher key (one of :data:`KUBERNETES_PREFIXES`)."""
    return name.startswith(KUBERNETES_PREFIXES)


def suggest(name: str) -> str | None:
    """The known key closest to ``name`` (a likely typo), or None."""
    matches = difflib.get_close_matches(name, list(_BY_NAME), n=1, cutoff=0.8)
    return matches[0] if matches else None
