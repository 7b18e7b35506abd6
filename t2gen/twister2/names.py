"""Names, labels, paths and environment variable names shared with the Twister2 runtime.

Everything the Twister2 runtime looks up by name (object names derived from
the job ID, the ``app``/``t2-job``/``t2-wp``/``t2-mp`` labels, volume paths,
environment variables) follows the real launcher, cylondata/twister2
0.8.0-SNAPSHOT, in ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``:
``KubernetesUtils.java`` (names, label queries), ``RequestObjectBuilder.java``
(labels, volumes, ports), ``KubernetesConstants.java`` (mount paths) and
``K8sEnvVariables.java`` (environment variables). The worker ID and port
formulas live in :mod:`t2gen.twister2.topology`.
"""

from __future__ import annotations

from decimal import Decimal

__all__ = [
    "APP_LABEL",
    "APP_NAME",
    "BIND_WORKERS_ANNOTATION",
    "CLASS_JOB_MASTER",
    "CLASS_MPI_MASTER",
    "CLASS_WORKER",
    "COMPONENT_LABEL",
    "DEFAULT_JOB_SUBMISSION_TIME",
    "DERIVED_NAME_SUFFIXES",
    "ENV_SET_BY_T2GEN",
    "ENV_SET_BY_THE_JOB",
    "HOME_PATH",
    "INSTANCE_LABEL",
    "JOB_LABEL",
    "JOB_MASTER_CONTAINER",
    "JOB_MASTER_MEMORY_OVERHEAD_MIB",
    "JOB_MASTER_POD_LABEL",
    "JOB_MASTER_STATEFULSET_LABEL",
    "JOB_MASTER_SUFFIX",
    "JOB_MASTER_TASK",
    "JOB_MASTER_TASK_KEYWORD",
    "JOB_NAMESPACE_UPLOADER",
    "JOB_OBJECT_KEY",
    "JOB_PACKAGE_ANNOTATION",
    "JVM_MEMORY_FRACTION",
    "MANAGED_BY_LABEL",
    "MANAGER",
    "NAME_LABEL",
    "PACKAGE_NAMESPACE_ANNOTATION",
    "RESERVED_ENV_NAMES",
    "RESERVED_LABEL_KEYS",
    "SECURITY_PROFILE_ANNOTATION",
    "TASK_LABEL",
    "WORKER_GROUP_LABEL",
    "WORKER_POD_LABEL",
    "WORKER_STATEFULSET_LABEL",
    "common_labels",
    "job_master_account_name",
    "job_master_pod_labels",
    "job_master_selector",
    "job_master_service_name",
    "job_master_statefulset_name",
    "node_port_service_name",
    "ssh_secret_name",
    "statefulset_pod_name",
    "task_name",
    "uploader_server",
    "worker_account_name",
    "worker_container_name",
    "worker_pod_labels",
    "worker_pods_selector",
    "worker_selector",
    "worker_service_name",
    "worker_statefulset_name",
]

# Volumes and where they are mounted (KubernetesConstants).
MEMORY_VOLUME = "twister2-memory-dir"
MEMORY_VOLUME_PATH = "/twister2-memory-dir"
VOLATILE_VOLUME = "twister2-volatile-dir"
VOLATILE_VOLUME_PATH = "/twister2-volatile"
PERSISTENT_VOLUME = "persistent-volume"
PERSISTENT_VOLUME_PATH = "/persistent"
SSH_KEY_VOLUME = "kube-openmpi-ssh-key"
SSH_KEY_VOLUME_PATH = "/ssh-key/openmpi"
SSH_KEY_MODE = 0o400
SSH_KEY_TYPES = ("rsa", "ed25519")
"""Key types ``t2gen secret ssh --key-type`` makes (the first is the default; RSA is 3072-bit).

The one list of them, here rather than in :mod:`t2gen.twister2.sshkeys`, which
imports ``cryptography`` (slow to import): the command line builds its
``--key-type`` choices from it whatever command runs."""
TMP_VOLUME = "twister2-tmp"
"""t2gen's emptyDir at :data:`TMP_VOLUME_PATH` with ``spec.security.readOnlyRootFilesystem``."""
HOME_PATH = VOLATILE_VOLUME_PATH
"""``HOME`` and the JVM's ``user.home`` in containers that do not run as root: the volatile
volume, writable by any user, where the image's ``/`` (a user with no passwd entry gets
``HOME=/``) and the JVM's default are not."""
TMP_VOLUME_PATH = "/tmp"
"""The JVM's ``java.io.tmpdir`` and ``hsperfdata_<user>`` directory, and native libraries
unpacked at start-up: the one path outside the volumes above that a Twister2 container
writes to (the image's scripts write only to ``$POD_MEMORY_VOLUME``: DSC-SPIDAL/twister2
c6844d2, ``docker/kubernetes/image/rootfs/twister2/get_job_package.sh`` lines 21-92)."""

# Classes the container scripts run (CLASS_TO_RUN).
CLASS_WORKER = "edu.iu.dsc.tws.rsched.schedulers.k8s.worker.K8sWorkerStarter"
CLASS_MPI_MASTER = "edu.iu.dsc.tws.rsched.schedulers.k8s.mpi.MPIMasterStarter"
CLASS_JOB_MASTER = "edu.iu.dsc.tws.rsched.schedulers.k8s.master.JobMasterStarter"

JOB_MASTER_CONTAINER = "twister2-job-master-0"
JOB_OBJECT_KEY = "TWISTER2_JOB_OBJECT"
"""ConfigMap key of the base64 job object, which the job master replaces on every scale
(``KubernetesConstants.JOB_OBJECT_CM_PARAM``, ``KubernetesController.updateConfigMapJobParam``)."""
JOB_ARCHIVE_DIRECTORY = "twister2-job"
LOGGER_PROPERTIES_FILE = "common/logger.properties"
DEFAULT_UPLOADER = "http://twister2-uploader.default.svc.cluster.local"
"""Twister2's uploader web server (``KubernetesContext.K8S_UPLOADER_WEB_SERVER_DEFAULT``): in namespace ``default``."""
JOB_NAMESPACE_UPLOADER = "http://twister2-uploader"
"""The uploader Service of the pod's own namespace: a one-label name resolves through the
pod's DNS search list, whose first entry is ``<namespace>.svc.<cluster domain>``
(https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#namespaces-of-services)."""
DEFAULT_JOB_SUBMISSION_TIME = "0"
"""``JOB_SUBMISSION_TIME`` unless ``spec.env`` sets it: fixed, so renders stay
byte-identical; the runtime only needs a number (``Long.parseLong`` in
``WorkerRuntime`` and ``JobMasterStarter`` with ZooKeeper)."""
BIND_WORKERS_ANNOTATION = "t2gen.dev/bind-workers-to-cpu"
"""Pod annotation (``"true"``) marking a worker pod bound to whole cores; checked by ``bound-worker-guaranteed``."""
PACKAGE_NAMESPACE_ANNOTATION = "t2gen.dev/package-namespace"
"""Annotation of the job's ConfigMap: the namespace the job package's runtime looks it up in
(``kubernetes.namespace``: ``KubernetesContext.java:24-25``; "Could not get ConfigMap from K8s
master", ``KubernetesController.java:941-946``), so that ``t2gen check`` can refuse objects moved
to another namespace after the render (check ``package-namespace``); docs/gitops.md."""
SECURITY_PROFILE_ANNOTATION = "t2gen.dev/security-profile"
"""Pod annotation (``restricted``) claiming Pod Security Admission ``restricted``; checked by ``pod-security-restricted``."""
JOB_PACKAGE_ANNOTATION = "t2gen.dev/job-package-sha256"
"""The job package's SHA-256 on every pod template, when known (``jobPackage.source.sha256`` or
``render --package``): a review sees which package runs, and a new package rolls the pods."""
JVM_MEMORY_FRACTION = Decimal("0.8")
"""Share of a worker's memory given to its JVM heap (Twister2 ``twister2.kubernetes.jvm.memory.fraction``,
``KubernetesContext.jvmMemoryFraction``; ``JVM_MEMORY_MB`` = memory in MiB x this, rounded down)."""
JOB_MASTER_MEMORY_OVERHEAD_MIB = 128
"""MiB the launcher requests for the job master beyond its heap: the container asks for
``twister2.job.master.ram`` + 128 Mi and the JVM's heap is the whole ram
(``JobMasterRequestObject.java:170-173,204``, ``JVM_MEMORY_MB`` at ``:223-225``)."""

# Label keys the runtime selects objects by (KubernetesUtils, RequestObjectBuilder).
APP_LABEL = "app"
"""``app: twister2`` on every object of every job."""
JOB_LABEL = "t2-job"
"""``t2-job: <job>`` on every object of the job; the runtime lists ConfigMaps and StatefulSets by it."""
WORKER_POD_LABEL = "t2-wp"
"""``t2-wp: <job>`` on every worker pod of the job (pod watches, the worker Service, uniform mapping)."""
JOB_MASTER_POD_LABEL = "t2-mp"
"""``t2-mp: <job>`` on the job master pod (its Service's selector)."""
WORKER_STATEFULSET_LABEL = "t2-wss"
"""``t2-wss: <job>`` on every worker StatefulSet."""
JOB_MASTER_STATEFULSET_LABEL = "t2-mss"
"""``t2-mss: <job>`` on the job master StatefulSet."""
WORKER_GROUP_LABEL = "t2-worker-group"
"""Pod label holding the worker group index; with ``t2-wp`` it makes each StatefulSet's selector unique."""
TASK_LABEL = "t2-task"
"""``t2-task: <task>`` on every pod of a job with a task topology (``spec.scheduling.affinity``/
``antiAffinity``): the task name (:func:`task_name`) that the native inter-pod (anti-)affinity terms
select. A t2gen label; the Twister2 runtime does not read it."""

JOB_MASTER_TASK_KEYWORD = "jobMaster"
"""How a job file names the job master in a task topology (``spec.scheduling.affinity``)."""
JOB_MASTER_TASK = "jm"
"""The job master's task name in rendered objects (``t2-task``, Volcano's ``volcano.sh/task-spec`` and
``minTaskMember``): the suffix of its StatefulSet ``<job>-jm``, so that Volcano releases that derive a
task from the pod name (``<job>-jm-0``) agree."""

# Kubernetes' recommended labels (kubernetes.io/docs/concepts/overview/working-with-objects/common-labels/).
NAME_LABEL = "app.kubernetes.io/name"
INSTANCE_LABEL = "app.kubernetes.io/instance"
COMPONENT_LABEL = "app.kubernetes.io/component"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
APP_NAME = "twister2"
"""Value of ``app`` and ``app.kubernetes.io/name``."""
MANAGER = "t2gen"
"""Value of ``app.kubernetes.io/managed-by``."""

RESERVED_LABEL_KEYS = frozenset(
    {
        APP_LABEL,
        JOB_LABEL,
        WORKER_POD_LABEL,
        JOB_MASTER_POD_LABEL,
        WORKER_STATEFULSET_LABEL,
        JOB_MASTER_STATEFULSET_LABEL,
        WORKER_GROUP_LABEL,
        TASK_LABEL,
        NAME_LABEL,
        INSTANCE_LABEL,
        COMPONENT_LABEL,
        MANAGED_BY_LABEL,
    }
)
"""Label keys t2gen sets itself; a job's own labels may not override them."""

RESERVED_ENV_NAMES = frozenset(
    {
        "JOB_ID",
        "ENCODED_NODE_INFO_LIST",
        "POD_NAME",
        "HOST_IP",
        "HOST_NAME",
        "JOB_PACKAGE_FILE_SIZE",
        "USER_JOB_JAR_FILE",
        "POD_MEMORY_VOLUME",
        "JOB_ARCHIVE_DIRECTORY",
        "JOB_PACKAGE_FILENAME",
        "UPLOAD_METHOD",
        "JOB_PACKAGE_URI",
        "LOGGER_PROPERTIES_FILE",
        "JOB_SUBMISSION_TIME",
        "RESTORE_JOB",
        "CONTAINER_NAME",
        "JOB_MASTER_IP",
        "CLASS_TO_RUN",
        "WORKER_PORT",
        "JVM_MEMORY_MB",
    }
)
"""Every variable of Twister2's ``K8sEnvVariables``."""

ENV_SET_BY_T2GEN = RESERVED_ENV_NAMES - {
    "ENCODED_NODE_INFO_LIST",
    "JOB_SUBMISSION_TIME",
}
"""The runtime's variables t2gen sets, which a job's ``spec.env`` may not override.

``ENCODED_NODE_INFO_LIST`` and ``JOB_SUBMISSION_TIME`` may be set by the job: their
values are known only to the submitting side (node list, submission time);
t2gen writes ``JOB_SUBMISSION_TIME`` as :data:`DEFAULT_JOB_SUBMISSION_TIME` otherwise.
"""

ENV_SET_BY_THE_JOB = RESERVED_ENV_NAMES - ENV_SET_BY_T2GEN
"""The runtime's variables a job may set in ``spec.env``: ``ENCODED_NODE_INFO_LIST`` and ``JOB_SUBMISSION_TIME``.

They are the runtime's, not the user's: every pod of the job gets them, the job
master's too, which reads both (DSC-SPIDAL/twister2
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/master/JobMasterStarter.java``
lines 65 and 240), while the rest of ``spec.env`` reaches the workers only.
"""


JOB_MASTER_SUFFIX = "-jm"
"""Appended to the job ID for the job master's StatefulSet and Service (Twister2 ``KubernetesUtils``)."""
WORKER_ACCOUNT_SUFFIX = "-worker"
"""Appended to the job ID for the workers' ServiceAccount, Role and RoleBinding."""
SSH_SECRET_SUFFIX = "-ssh"
"""Appended to the job ID for an OpenMPI job's own SSH key Secret."""
DERIVED_NAME_SUFFIXES = (JOB_MASTER_SUFFIX,)
"""Suffixes of the object names t2gen derives from a job ID that are of the same kind as
another job's objects: a job named ``<x>-jm`` would own a Service ``<x>-jm``, job ``<x>``'s
job-master Service. (Worker StatefulSets ``<x>-<index>`` share no kind with another job's
objects of the same name: job ``<x>-0`` names only a Service, ConfigMap and claim ``<x>-0``.
The RBAC objects ``<x>-worker`` and ``<x>-jm`` and the Secret ``<x>-ssh`` cannot be another
job's: every job's RBAC objects and Secret end in one of those suffixes, and no job is
named ``<y>-jm``.)"""


def worker_service_name(job: str) -> str:
    """The workers' Service, governing every worker StatefulSet: ``<job>``.

    Headless, or the NodePort Service when one is requested: the Twister2
    launcher creates one or the other under this name
    (``KubernetesLauncher.java:365-377``), and the job master deletes it by
    this name when the job ends (``master/JobTerminator.java:45-47``).
    """
    return job


def job_master_service_name(job: str) -> str:
    """Headless Service of the job master: ``<job>-jm`` (workers resolve it by DNS)."""
    return job + JOB_MASTER_SUFFIX


def node_port_service_name(job: str) -> str:
    """The NodePort Service, when requested: the workers' Service ``<job>`` itself.

    Not a Service ``<job>-np`` beside the headless one: the job master deletes
    only ``<job>`` and ``<job>-jm`` (``master/JobTerminator.java:45-47,70-72``),
    so such a Service, and its node port, would outlive the job.
    """
    return worker_service_name(job)


def worker_account_name(job: str) -> str:
    """ServiceAccount, Role and RoleBinding of the worker pods: ``<job>-worker``.

    A job named ``<x>-worker`` owns ``<x>-worker-worker``, never ``<x>-worker``.
    """
    return job + WORKER_ACCOUNT_SUFFIX


def job_master_account_name(job: str) -> str:
    """ServiceAccount, Role and RoleBinding of the job master's pod: ``<job>-jm``."""
    return job + JOB_MASTER_SUFFIX


def ssh_secret_name(job: str) -> str:
    """The OpenMPI job's own SSH key Secret, the default of ``spec.mpi.sshSecretName``: ``<job>-ssh``."""
    return job + SSH_SECRET_SUFFIX


def worker_statefulset_name(job: str, index: int) -> str:
    """StatefulSet of worker group ``index``: ``<job>-<index>`` (the runtime parses it)."""
    return f"{job}-{index}"


def job_master_statefulset_name(job: str) -> str:
    """StatefulSet of the job master: ``<job>-jm``."""
    return job + JOB_MASTER_SUFFIX


def statefulset_pod_name(statefulset: str, ordinal: int) -> str:
    """Pod ``ordinal`` of a StatefulSet: ``<statefulset>-<ordinal>``.

    Kubernetes' stable pod names
    (kubernetes.io/docs/concepts/workloads/controllers/statefulset/#pod-identity);
    the runtime parses the worker group and pod index back out of them
    (``KubernetesUtils.indexFromName``).
    """
    return f"{statefulset}-{ordinal}"


def uploader_server(uploader: str) -> str:
    """The web server of ``jobPackage.uploader``: ``default-namespace`` (Twister2's) or ``job-namespace``."""
    return JOB_NAMESPACE_UPLOADER if uploader == "job-namespace" else DEFAULT_UPLOADER


def task_name(task: str) -> str:
    """The rendered task name of a job-file task: ``jm`` for ``jobMaster``, else the worker group's name."""
    return JOB_MASTER_TASK if task == JOB_MASTER_TASK_KEYWORD else task


def worker_container_name(index: int) -> str:
    """Container ``index`` of a worker pod: ``twister2-container-<index>``."""
    return f"twister2-container-{index}"


def common_labels(job: str, component: str) -> dict[str, str]:
    """Labels of every object of a job.

    Args:
        job: the job ID.
        component: ``worker``, ``job-master``, ``rbac``, ``config``, ``storage`` or ``ssh``.

    Returns:
        ``app`` and ``t2-job`` (the Twister2 runtime lists objects by them) and
        the recommended ``app.kubernetes.io/*`` labels.
    """
    return {
        APP_LABEL: APP_NAME,
        JOB_LABEL: job,
        NAME_LABEL: APP_NAME,
        INSTANCE_LABEL: job,
        COMPONENT_LABEL: component,
        MANAGED_BY_LABEL: MANAGER,
    }


def worker_selector(job: str, index: int) -> dict[str, str]:
    """Selector of worker StatefulSet ``index``: unique to the job and the group."""
    return {WORKER_POD_LABEL: job, WORKER_GROUP_LABEL: str(index)}


def worker_pod_labels(job: str, index: int) -> dict[str, str]:
    """Labels of a worker pod of group ``index``: common labels plus its selector."""
    return {**common_labels(job, "worker"), **worker_selector(job, index)}


def job_master_selector(job: str) -> dict[str, str]:
    """Selector of the job master StatefulSet and Service (``t2-mp``)."""
    return {JOB_MASTER_POD_LABEL: job}


def worker_pods_selector(job: str) -> dict[str, str]:
    """Selector matching every worker pod of the job, of any group (``t2-wp``)."""
    return {WORKER_POD_LABEL: job}


def job_master_pod_labels(job: str) -> dict[str, str]:
    """Labels of the job master pod: common labels plus its selector."""
    return {**common_labels(job, "job-master"), **job_master_selector(job)}
