"""Twister2 configuration key names shared by ``t2gen package`` (writes them) and ``t2gen import`` (reads them).

Every name is Twister2 0.8's (DSC-SPIDAL/twister2 at c6844d2);
``KC`` is ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/KubernetesContext.java``,
``SC`` ``twister2/api/src/java/edu/iu/dsc/tws/api/config/SchedulerContext.java``,
``JMC`` ``twister2/master/src/java/edu/iu/dsc/tws/master/JobMasterContext.java``.
The importer's key table (``t2gen/importer/keys/``) documents each one further.
"""

from __future__ import annotations

__all__ = [
    "ADDITIONAL_PORTS",
    "BASE_PORT",
    "CHANNEL_CLASS",
    "CHECKPOINTING_ENABLED",
    "COMPUTE_RESOURCES",
    "CONF_DIRS",
    "DASHBOARD_HOST",
    "DEFAULTS",
    "DOCKER_IMAGE",
    "HDFS_NAMENODE",
    "HDFS_NAMENODE_PORT",
    "JOB_ID",
    "JOB_MASTER_CPU",
    "JOB_MASTER_IP",
    "JOB_MASTER_PERSISTENT_VOLUME",
    "JOB_MASTER_PORT",
    "JOB_MASTER_RAM",
    "JOB_MASTER_RUNS_IN_CLIENT",
    "JOB_NAME",
    "LOAD_ORDER",
    "LOGGING_STORAGE_TYPE",
    "MAX_MPIJOB_RESTARTS",
    "MAX_WORKER_RESTARTS",
    "MPI_CHANNEL",
    "NAMESPACE",
    "NODE_PORT",
    "NODE_PORT_SERVICE",
    "PERSISTENT_STORAGE_TYPE",
    "PERSISTENT_VOLUME_PER_WORKER",
    "POD_KEYS",
    "POD_KEY_ADVICE",
    "SSH_SECRET_NAME",
    "TCP_CHANNEL",
    "TRANSPORT_PROTOCOL",
    "UPLOADER_WEB_SERVER",
    "UPLOADING_METHOD",
    "ZOOKEEPER_ROOT_NODE",
    "ZOOKEEPER_SERVERS",
]

CONF_DIRS: tuple[str, ...] = ("common", "kubernetes")
"""The configuration directories every pod loads, in order: ``kubernetes/`` overrides ``common/``.

``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java:124-138``
(``loadConfig`` of ``common`` then of the platform's directory), called by
``K8S/worker/K8sWorkerUtils.java:57-75`` and ``K8S/master/JobMasterStarter.java:69-88``."""

LOAD_ORDER: tuple[str, ...] = (
    "task.yaml",
    "resource.yaml",
    "network.yaml",
    "core.yaml",
    "data.yaml",
    "checkpoint.yaml",
)
"""The files of one configuration directory in the order Twister2 reads them; a later key wins.

``ConfigLoader.loadConfig`` (``ConfigLoader.java:77-84``) puts task, resource,
network, core (the "system" file), data and checkpoint into one Config, key by
key; a missing file is skipped."""

NAMESPACE = "kubernetes.namespace"
"""Every API call of the runtime goes to this namespace (``KC:24-25``, default ``default``)."""
JOB_NAME = "twister2.resource.job.name"
"""The job name (``Context.java:70``); ``updateConfigs`` overwrites it from the ``.job`` in the pods."""
JOB_ID = "twister2.job.id"
"""The job ID (``Context.java:72``); ``updateConfigs`` overwrites it from the ``.job`` in the pods."""
DOCKER_IMAGE = "twister2.resource.kubernetes.docker.image"
"""The image of the job's pods (``KC:21-22``); read by the client only."""
COMPUTE_RESOURCES = "twister2.resource.worker.compute.resources"
"""The compute resources a ``main()`` loads (``SC:54``, ``Twister2Job.java:395-421``)."""
ADDITIONAL_PORTS = "twister2.resource.worker.additional.ports"
"""Names of each worker's extra ports; workers derive the ports from its length (``SC:94,221-228``)."""
PERSISTENT_VOLUME_PER_WORKER = "twister2.resource.persistent.volume.per.worker"
"""GB of the job's claim per worker; above 0 the workers log to ``/persistent`` (``K8sWorkerStarter.java:146-150``)."""
JOB_MASTER_PERSISTENT_VOLUME = "twister2.job.master.persistent.volume.size"
"""The job master's share of the claim, GB (``JMC``)."""
UPLOADING_METHOD = "twister2.kubernetes.uploading.method"
"""``webserver`` or ``client-to-pods`` (``KC``)."""
UPLOADER_WEB_SERVER = "twister2.kubernetes.uploader.web.server"
"""The uploader's address the pods download from (``KC``)."""
CHANNEL_CLASS = "twister2.network.channel.class"
"""The communication channel; its code default is OpenMPI's (``SC:43-44,122-124``)."""
TCP_CHANNEL = "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"
"""The TCP channel, as Twister2's shipped ``conf/kubernetes/network.yaml`` sets it."""
MPI_CHANNEL = "edu.iu.dsc.tws.comms.mpi.TWSMPIChannel"
"""The OpenMPI channel: ``SchedulerContext.usingOpenMPI`` (``SC:209-211``)."""
BASE_PORT = "kubernetes.worker.base.port"
"""The first worker port (``KC``)."""
TRANSPORT_PROTOCOL = "kubernetes.worker.transport.protocol"
"""TCP or UDP (``KC``)."""
NODE_PORT_SERVICE = "kubernetes.node.port.service.requested"
"""A NodePort Service for the workers (``KC``); the job master deletes it at the end."""
NODE_PORT = "kubernetes.service.node.port"
"""The NodePort's number, 0 for any (``KC``)."""
SSH_SECRET_NAME = "kubernetes.secret.name"
"""The OpenMPI SSH key Secret (``KC``)."""
JOB_MASTER_RUNS_IN_CLIENT = "twister2.job.master.runs.in.client"
"""The job master runs in the submitting client, not in a pod (``JMC``)."""
JOB_MASTER_PORT = "twister2.job.master.port"
"""The job master's port; workers connect to it (``JMC``)."""
JOB_MASTER_IP = "twister2.job.master.ip"
"""The address a worker connects to the job master at (``JMC:32,70-72``, read at
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/WorkerRuntime.java:95``);
``K8sWorkerStarter`` sets it from the job master's Service or ``JOB_MASTER_IP`` only when the
worker connects to the job master (``K8S/worker/K8sWorkerStarter.java:109-113,224-261``)."""
JOB_MASTER_CPU = "twister2.job.master.cpu"
"""The job master pod's cores (``JMC``); read by the client."""
JOB_MASTER_RAM = "twister2.job.master.ram"
"""The job master pod's MB (``JMC``); read by the client."""
CHECKPOINTING_ENABLED = "twister2.checkpointing.enable"
"""The job checkpoints (``twister2/checkpointing/src/java/edu/iu/dsc/tws/checkpointing/util/CheckpointingContext.java:23,37-40``)."""
PERSISTENT_STORAGE_TYPE = "twister2.persistent.storage.type"
"""Where checkpoints go: ``mounted`` (``/persistent``) or ``hdfs`` (``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:24-25``)."""
ZOOKEEPER_SERVERS = "twister2.resource.zookeeper.server.addresses"
"""The ZooKeeper servers; set, the runtime uses ZooKeeper (``twister2/common/src/java/edu/iu/dsc/tws/common/zk/ZKContext.java:37,54-61``)."""
ZOOKEEPER_ROOT_NODE = "twister2.resource.zookeeper.root.node.path"
"""The znode every job's znodes are under (``ZKContext.java:32-33``)."""
MAX_WORKER_RESTARTS = "twister2.fault.tolerance.max.worker.restarts"
"""Restarts after which a worker (TCP) is fully failed, and so the job: default 5
(``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:30-31,46-48``;
``K8S/worker/K8sWorkerStarter.java:175,191``)."""
MAX_MPIJOB_RESTARTS = "twister2.fault.tolerance.max.mpijob.restarts"
"""The same for an OpenMPI job's ranks: default 1, "we do not resubmit failed mpi jobs"
(``FaultToleranceContext.java:33-36,50-52``; ``K8S/mpi/MPIWorkerStarter.java:203-207``)."""

DASHBOARD_HOST = "twister2.dashboard.host"
"""The Twister2 dashboard's URL; unset, the job master does not connect to one
(``JMC:34,103-105``; ``twister2/master/src/java/edu/iu/dsc/tws/master/server/JobMaster.java:238-245``)."""
HDFS_NAMENODE = "twister2.data.hdfs.namenode"
"""The HDFS name node's host: ``fs.defaultFS`` is ``hdfs://<it>:<port>`` (``twister2/data/src/main/java/
edu/iu/dsc/tws/data/utils/HdfsDataContext.java:33-35,44-46``, ``FileSystemUtils.java:276,294-298``)."""
HDFS_NAMENODE_PORT = "twister2.data.hdfs.namenode.port"
"""The HDFS name node's port (``HdfsDataContext.java:37-38,48-51``)."""

LOGGING_STORAGE_TYPE = "twister2.logging.storage.type"
"""Where file logging writes: ``volatile`` (the default) ``/twister2-volatile/logs``, ``persistent``
``/persistent/logs`` (``twister2/common/src/java/edu/iu/dsc/tws/common/logging/LoggingContext.java:64,156-181``);
``spec.logs`` mounts its claim at the first (:mod:`t2gen.twister2.logfiles`)."""

DEFAULTS: dict[str, object] = {
    LOGGING_STORAGE_TYPE: "volatile",
    NAMESPACE: "default",
    BASE_PORT: 9000,
    TRANSPORT_PROTOCOL: "TCP",
    NODE_PORT_SERVICE: False,
    JOB_MASTER_RUNS_IN_CLIENT: False,
    JOB_MASTER_PORT: 11011,
    PERSISTENT_VOLUME_PER_WORKER: 0.0,
    UPLOADING_METHOD: "webserver",
    UPLOADER_WEB_SERVER: "http://twister2-uploader.default.svc.cluster.local",
    CHANNEL_CLASS: MPI_CHANNEL,
    ADDITIONAL_PORTS: [],
    CHECKPOINTING_ENABLED: False,
    PERSISTENT_STORAGE_TYPE: "mounted",
    ZOOKEEPER_ROOT_NODE: "/twister2",
    HDFS_NAMENODE: "hostname.domain.name",
    HDFS_NAMENODE_PORT: 9000,
    MAX_WORKER_RESTARTS: 5,
    MAX_MPIJOB_RESTARTS: 1,
    ZOOKEEPER_SERVERS: None,
}
"""What the runtime uses for a key no file sets: the defaults in Twister2's code
(``KC``, ``JMC``, ``SC``; the importer's key table cites each line). No ZooKeeper server
is Twister2's default: ``ZKContext.serverAddresses`` reads the key without one, and null
means no ZooKeeper (``ZKContext.java:37,54-61``)."""

POD_KEYS: dict[str, str] = {
    NAMESPACE: "metadata.namespace",
    ADDITIONAL_PORTS: "spec.network.additionalPorts",
    PERSISTENT_VOLUME_PER_WORKER: "spec.storage.persistent.perWorker",
    CHANNEL_CLASS: "spec.mpi.enabled",
    BASE_PORT: "spec.network.basePort",
    TRANSPORT_PROTOCOL: "spec.network.protocol",
    NODE_PORT_SERVICE: "spec.network.service.type",
    NODE_PORT: "spec.network.service.nodePort",
    SSH_SECRET_NAME: "spec.mpi.sshSecretName",
    JOB_MASTER_RUNS_IN_CLIENT: "spec.jobMaster.enabled",
    JOB_MASTER_PORT: "spec.jobMaster.port",
    CHECKPOINTING_ENABLED: "spec.checkpointing.enabled",
    PERSISTENT_STORAGE_TYPE: "spec.checkpointing.storageType",
    ZOOKEEPER_SERVERS: "spec.zooKeeper.serverAddresses",
    ZOOKEEPER_ROOT_NODE: "spec.zooKeeper.rootNode",
    JOB_MASTER_PERSISTENT_VOLUME: "spec.jobMaster.persistentDisk",
    JOB_MASTER_IP: "spec.jobMaster.address",
    # t2gen package writes it from the field (t2gen.package.runtime.fault_tolerance_keys) and the
    # supervisor counts restarts against it; the pods read it after overrideConfigs
    # (K8S/worker/K8sWorkerStarter.java:175), so a JobConfig entry would move Twister2's limit
    # away from the supervisor's (issue 40's false "WorkerFailed")
    MAX_WORKER_RESTARTS: "spec.lifecycle.maxWorkerRestarts",
    # no field sets it: for an OpenMPI job t2gen keeps Twister2's default 1, which the supervisor
    # (T2_MAX_RESTARTS) and rule lifecycle-backoff-limit count with, and t2gen package sets it
    # back to 1 in a --conf file (t2gen.package.confagree.defaulted_keys); the ranks read it
    # after overrideConfigs (K8S/mpi/MPIWorkerStarter.java:203-207)
    MAX_MPIJOB_RESTARTS: "spec.mpi.enabled",
}
"""Keys the pods read that the job file decides (key -> the job-file field it comes from):
those ``t2gen package`` sets from the job file, the job master's share of the claim (the job
master logs under ``/persistent`` when it is above 0: ``K8S/master/JobMasterStarter.java:91-92``,
``JMC:87-92``) and the job master's address (:data:`JOB_MASTER_IP`); every one that Twister2's
shipped ``conf/`` and t2gen's key table (``t2gen/importer/keys/``, ``Use.FIELD``) name and a
pod reads after ``JobUtils.overrideConfigs`` (``tests/twister2/test_confkeys.py`` keeps the two
tables agreeing). A ``JobConfig`` key of the same name would replace the package's value
in every pod (``JobUtils.overrideConfigs``, ``RS/utils/JobUtils.java:122-138``, called at
``K8S/worker/K8sWorkerStarter.java:99`` and ``K8S/master/JobMasterStarter.java:84``), and
the pods would read a value the manifests do not have. Left out: the keys
``JobUtils.updateConfigs`` writes back from the ``.job`` after it (``JobUtils.java:153-163``:
the job name and ID, the worker class, the worker count) and those only the client reads
(the image, the compute resources, the upload method and server)."""

POD_KEY_ADVICE: dict[str, str] = {
    MAX_MPIJOB_RESTARTS: (
        "remove this key: for an OpenMPI job t2gen keeps Twister2's default 1 "
        "(FaultToleranceContext.java:36), the limit its supervisor and rule "
        "lifecycle-backoff-limit count with, and no job-file field changes it"
    ),
}
"""What to do instead of a ``JobConfig`` entry for a key of :data:`POD_KEYS` whose field
is not one to set to the value (the default advice: set the field, remove the key)."""
