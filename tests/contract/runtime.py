"""What the unmodified Twister2 runtime does with the objects it runs in, from its sources.

Everything here is read from DSC-SPIDAL/twister2 at commit
``c6844d2496ab87ff18ae41aa7dd49237e74ffba0`` (0.8.0-SNAPSHOT, the code of the
``twister2/twister2-k8s:0.8.0`` image), never from t2gen's code. Paths are
abbreviated:

- ``K8S/`` = ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
- ``IMG/`` = ``docker/kubernetes/image/rootfs/twister2/`` (the container's scripts;
  ``IMG/../start_sshd.sh`` is ``docker/kubernetes/image/rootfs/start_sshd.sh``)
- ``BASE/`` = ``docker/kubernetes/baseimage/Dockerfile``

Three processes run inside the pods and call the Kubernetes API with the pod's
ServiceAccount (``ClientBuilder.standard()``, ``K8S/KubernetesController.java:85-98``,
in-cluster credentials): the worker (``K8S/worker/K8sWorkerStarter.java``, or with
OpenMPI ``K8S/mpi/MPIMasterStarter.java`` in pod ``<job>-0-0`` and
``K8S/mpi/MPIWorkerStarter.java`` under ``mpirun``) and the job master
(``K8S/master/JobMasterStarter.java`` with ``JobTerminator``, ``K8sScaler`` and
``JobKillWatcher``). :data:`API_CALLS` lists every call they make.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

SOURCE_COMMIT = "c6844d2496ab87ff18ae41aa7dd49237e74ffba0"
SOURCE_URL = f"https://github.com/DSC-SPIDAL/twister2/blob/{SOURCE_COMMIT}/"

# Names and paths (constants of the runtime).
MEMORY_VOLUME = "twister2-memory-dir"  # K8S/KubernetesConstants.java:19
MEMORY_MOUNT = "/twister2-memory-dir"  # K8S/KubernetesConstants.java:20
VOLATILE_VOLUME = "twister2-volatile-dir"  # K8S/KubernetesConstants.java:21
VOLATILE_MOUNT = "/twister2-volatile"  # K8S/KubernetesConstants.java:22
PERSISTENT_VOLUME = "persistent-volume"  # K8S/KubernetesConstants.java:25
PERSISTENT_MOUNT = "/persistent"  # K8S/KubernetesConstants.java:26
SECRET_VOLUME = "kube-openmpi-ssh-key"  # K8S/KubernetesConstants.java:27
SECRET_MOUNT = "/ssh-key/openmpi"  # K8S/KubernetesConstants.java:28, BASE/:70-71
TMP_DIR = "/tmp"  # the JVM's java.io.tmpdir and hsperfdata (not a Twister2 constant)
WRITTEN_PATHS = (MEMORY_MOUNT, VOLATILE_MOUNT, TMP_DIR)
"""Where a non-MPI Twister2 container writes besides a claim at PERSISTENT_MOUNT: the job
package and its unpacked directory (IMG/get_job_package.sh:21,26,49,51,80,89,92), the
volatile root, logs and spilled data (twister2/api/src/java/edu/iu/dsc/tws/api/config/
FileSystemContext.java:56-61, twister2/common/src/java/edu/iu/dsc/tws/common/logging/
LoggingContext.java:156-180, K8S/worker/K8sWorkerUtils.java:105-114), and the JVM's /tmp."""
CONTAINER_PREFIX = "twister2-container-"  # K8S/KubernetesConstants.java:23
JOB_MASTER_CONTAINER = (
    "twister2-job-master-0"  # K8S/master/JobMasterRequestObject.java:158
)
JOB_ARCHIVE_DIRECTORY = "twister2-job"  # twister2/api/.../config/Context.java:81
LOGGER_PROPERTIES_FILE = (
    "common/logger.properties"  # twister2/common/.../LoggingContext.java:29
)
SSHD_PORT = 2022  # IMG/../start_sshd.sh:44, IMG/../etc/ssh/ssh_config:3

WORKER_CLASS = "edu.iu.dsc.tws.rsched.schedulers.k8s.worker.K8sWorkerStarter"
MPI_MASTER_CLASS = "edu.iu.dsc.tws.rsched.schedulers.k8s.mpi.MPIMasterStarter"
JOB_MASTER_CLASS = "edu.iu.dsc.tws.rsched.schedulers.k8s.master.JobMasterStarter"

KILL_JOB_KEY = "KILL_JOB"  # K8S/master/JobKillWatcher.java:62
JOB_OBJECT_KEY = "TWISTER2_JOB_OBJECT"  # K8S/KubernetesConstants.java:17
RESTART_KEY = re.compile(
    r"RESTART_COUNT_FOR_(WORKER_\d+|JOB_MASTER)"
)  # K8S/KubernetesUtils.java:171-181


def job_label_selector(job: str) -> dict[str, str]:
    """``t2-job=<job>``: ConfigMap, StatefulSet, Service, claim and pod queries (``K8S/KubernetesUtils.java:117-119``)."""
    return {"t2-job": job}


def twister2_label_selector() -> dict[str, str]:
    """``app=twister2``: the client's list of running jobs and claims (``K8S/KubernetesUtils.java:113-115``)."""
    return {"app": "twister2"}


def worker_pod_selector(job: str) -> dict[str, str]:
    """``t2-wp=<job>``: the MPI master's watch of the worker pods (``K8S/KubernetesUtils.java:125-127``)."""
    return {"t2-wp": job}


def job_master_pod_selector(job: str) -> dict[str, str]:
    """``t2-mp=<job>``: the watch for the job master's pod (``K8S/KubernetesUtils.java:121-123``)."""
    return {"t2-mp": job}


def index_from_name(name: str) -> int:
    """The number after the last ``-`` of a name (``K8S/KubernetesUtils.java:38-40``).

    Raises:
        ValueError: the name does not end in ``-<integer>`` (Java's
            ``Integer.parseInt`` throws ``NumberFormatException``).
    """
    tail = name[name.rindex("-") + 1 :]
    if not re.fullmatch(r"[+-]?\d+", tail):
        raise ValueError(f"{name!r} does not end in -<integer>")
    return int(tail)


def remove_index_from_name(name: str) -> str:
    """The name without its last ``-<index>`` (``K8S/KubernetesUtils.java:48-50``)."""
    return name[: name.rindex("-")]


@dataclass(frozen=True)
class ComputeResource:
    """A worker StatefulSet as the runtime's job object describes it (``twister2/proto/job.proto``)."""

    index: int
    instances: int
    workers_per_pod: int


def worker_id(
    resources: list[ComputeResource], pod_name: str, container_name: str
) -> int:
    """A worker's ID, computed as ``K8S/worker/K8sWorkerUtils.java:135-169`` does.

    The StatefulSet index comes from the pod name ``<job>-<i>-<k>``, the pod
    index ``k`` likewise, the container index from ``twister2-container-<c>``;
    the compute resources are looked up by their ``index`` field
    (``twister2/resource-scheduler/.../rsched/utils/JobUtils.java:169-177``),
    so a missing index is a ``NullPointerException`` in the worker.

    Raises:
        LookupError: no compute resource has the index the pod name gives.
        ValueError: a name does not end in ``-<integer>``.
    """
    by_index = {resource.index: resource for resource in resources}
    statefulset = remove_index_from_name(pod_name)
    index = index_from_name(statefulset)
    if any(i not in by_index for i in range(index + 1)):
        raise LookupError(f"no compute resource with index <= {index} for {pod_name}")
    before = sum(
        by_index[i].instances * by_index[i].workers_per_pod for i in range(index)
    )
    return (
        before
        + index_from_name(pod_name) * by_index[index].workers_per_pod
        + index_from_name(container_name)
    )


@dataclass(frozen=True)
class Facts:
    """What the API calls depend on, read from a job's objects and job file."""

    job: str
    job_master: bool
    mpi: bool
    worker_statefulsets: tuple[str, ...]  # by index
    scalable: bool


@dataclass(frozen=True)
class ApiCall:
    """One Kubernetes API call the runtime makes from inside a pod.

    ``names`` None: a call on the collection (list or watch with a label
    selector), which RBAC cannot narrow by ``resourceNames``
    (https://kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources).
    A watch is ``GET ...?watch=true`` on the collection: RBAC verb ``watch``
    (https://kubernetes.io/docs/reference/access-authn-authz/authorization/#determine-the-request-verb).
    ``needed``: the call is certain to be made (a test requires the permission);
    ``possible``: it can be made (a permission without a possible call is excess).
    """

    role: str  # "worker" or "job-master"
    source: str
    what: str
    group: str
    resource: str
    verb: str
    names: Callable[[Facts], tuple[str, ...]] | None
    possible: Callable[[Facts], bool]
    needed: Callable[[Facts], bool] | None = None

    def is_needed(self, facts: Facts) -> bool:
        """Whether the call is certainly made for this job."""
        return (self.needed or self.possible)(facts)


def _always(facts: Facts) -> bool:
    return True


def _job_master(facts: Facts) -> bool:
    return facts.job_master


def _own_config_map(facts: Facts) -> tuple[str, ...]:
    return (facts.job,)


API_CALLS: tuple[ApiCall, ...] = (
    # --- workers (and, with OpenMPI, the MPI master and workers in the worker pods) ---
    ApiCall(
        "worker",
        "K8S/worker/K8sWorkerStarter.java:235-244, K8S/mpi/MPIMasterStarter.java:123-130 -> K8S/PodWatchUtils.java:483-503",
        "watch the job master's pod (t2-mp=<job>) when its Service name does not resolve",
        "", "pods", "watch", None,
        possible=_job_master,
        # Made only when DNS fails; required so that the fallback works.
    ),
    ApiCall(
        "worker",
        "K8S/mpi/MPIMasterStarter.java:140-141 -> K8S/PodWatchUtils.java:555-576",
        "OpenMPI: pod <job>-0-0 watches the worker pods (t2-wp=<job>) to write the hostfile",
        "", "pods", "watch", None,
        possible=lambda facts: facts.mpi,
    ),
    ApiCall(
        "worker",
        "K8S/worker/K8sWorkerStarter.java:164, K8S/mpi/MPIWorkerStarter.java:192 -> K8S/worker/K8sWorkerUtils.java:297-304,360 -> K8S/KubernetesController.java:906-911",
        "read the restart count: list the ConfigMaps labelled t2-job=<job>",
        "", "configmaps", "list", None,
        possible=_always,
    ),
    ApiCall(
        "worker",
        "K8S/worker/K8sWorkerUtils.java:367-368,375-376 -> K8S/KubernetesController.java:972-981,1004-1013",
        "add or replace RESTART_COUNT_FOR_WORKER_<id> (JSON patch)",
        "", "configmaps", "patch", _own_config_map,
        possible=_always,
    ),
    # --- the job master ---
    ApiCall(
        "job-master",
        "K8S/master/JobMasterStarter.java:120-121 -> K8S/worker/K8sWorkerUtils.java:360 -> K8S/KubernetesController.java:906-911",
        "read its restart count: list the ConfigMaps labelled t2-job=<job>",
        "", "configmaps", "list", None,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/worker/K8sWorkerUtils.java:367-368,375-376 -> K8S/KubernetesController.java:972-981,1004-1013",
        "add or replace RESTART_COUNT_FOR_JOB_MASTER (JSON patch)",
        "", "configmaps", "patch", _own_config_map,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobMasterStarter.java:148-150 -> K8S/master/JobKillWatcher.java:64-74",
        "watch the ConfigMaps labelled t2-job=<job> for KILL_JOB",
        "", "configmaps", "watch", None,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:39 -> K8S/KubernetesController.java:154-158,195-207",
        "list the StatefulSets labelled t2-job=<job> (keeps those named <job>-<n>)",
        "apps", "statefulsets", "list", None,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:41-42 -> K8S/KubernetesController.java:241-247",
        "delete every worker StatefulSet",
        "apps", "statefulsets", "delete", lambda facts: facts.worker_statefulsets,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:74-77 -> K8S/KubernetesController.java:241-247",
        "delete the job master's StatefulSet <job>-jm",
        "apps", "statefulsets", "delete", lambda facts: (f"{facts.job}-jm",),
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:45-47,70-72 -> K8S/KubernetesController.java:374-380",
        "delete the Services <job> and <job>-jm",
        "", "services", "delete", lambda facts: (facts.job, f"{facts.job}-jm"),
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:54-65 -> K8S/KubernetesController.java:542-560",
        "delete the claim <job>, whether or not there is one (404 is success, 403 a failed termination)",
        "", "persistentvolumeclaims", "delete", _own_config_map,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/master/JobTerminator.java:67-68 -> K8S/KubernetesController.java:821-829",
        "delete the ConfigMap <job>",
        "", "configmaps", "delete", _own_config_map,
        possible=_job_master,
    ),
    ApiCall(
        "job-master",
        "K8S/driver/K8sScaler.java:47-54,86,118 -> K8S/KubernetesController.java:279-286",
        "scale the last worker StatefulSet (JSON patch of /spec/replicas on its scale subresource)",
        "apps", "statefulsets/scale", "patch",
        lambda facts: facts.worker_statefulsets[-1:],
        # OpenMPI jobs are never scaled (K8S/driver/K8sScaler.java:64-67); whether
        # a job is scalable is in its job object, which t2gen may not see.
        possible=lambda facts: facts.job_master and not facts.mpi,
        needed=lambda facts: facts.job_master and not facts.mpi and facts.scalable,
    ),
    ApiCall(
        "job-master",
        "K8S/driver/K8sScaler.java:141-148,125-133 -> K8S/KubernetesController.java:1004-1013,1033-1037,1043-1051",
        "replace TWISTER2_JOB_OBJECT and remove restart counts after scaling (JSON patch)",
        "", "configmaps", "patch", _own_config_map,
        possible=lambda facts: facts.job_master and not facts.mpi,
        needed=lambda facts: facts.job_master and not facts.mpi and facts.scalable,
    ),
)  # fmt: skip
"""Every Kubernetes API call made from inside a job's pods, by role.

Calls of the submitting client (``K8S/KubernetesLauncher.java``,
``K8S/ClientJobKillHandler.java``, uploaders, loggers) use the user's own
credentials and are not listed.
"""

ENV_READERS: dict[str, str] = {
    "JOB_ID": "K8S/worker/K8sWorkerStarter.java:77-82, K8S/master/JobMasterStarter.java:64, K8S/mpi/MPIMasterStarter.java:71-74",
    "POD_NAME": "K8S/worker/K8sWorkerStarter.java:72,131 (worker ID from the pod name), K8S/mpi/MPIMasterStarter.java:69",
    "HOST_IP": "K8S/worker/K8sWorkerStarter.java:73,124-126, K8S/master/JobMasterStarter.java:66, IMG/init_openmpi.sh:43",
    "HOST_NAME": "K8S/worker/K8sWorkerStarter.java:74",
    "CONTAINER_NAME": "K8S/worker/K8sWorkerStarter.java:71,131 (worker ID), IMG/get_job_package.sh:109-114",
    "POD_MEMORY_VOLUME": "IMG/get_job_package.sh:21,26,49, IMG/init.sh:22-23, IMG/init_openmpi.sh:39-40",
    "JOB_ARCHIVE_DIRECTORY": "IMG/init.sh:22-23, IMG/init_openmpi.sh:39-40",
    "USER_JOB_JAR_FILE": "IMG/init.sh:22, IMG/init_openmpi.sh:39",
    "LOGGER_PROPERTIES_FILE": "IMG/init.sh:23, IMG/init_openmpi.sh:40",
    "JOB_PACKAGE_FILENAME": "IMG/get_job_package.sh:26",
    "UPLOAD_METHOD": "IMG/get_job_package.sh:117-124",
    "JOB_PACKAGE_URI": "IMG/get_job_package.sh:80 (webserver)",
    "JOB_PACKAGE_FILE_SIZE": "IMG/get_job_package.sh:39 (client-to-pods)",
    "CLASS_TO_RUN": "IMG/init.sh:29, IMG/init_openmpi.sh:63",
    "JVM_MEMORY_MB": "IMG/init.sh:27, K8S/mpi/MPIMasterStarter.java:70,255-256",
    "WORKER_PORT": "K8S/worker/K8sWorkerStarter.java:70 (Integer.parseInt)",
    "RESTORE_JOB": "K8S/worker/K8sWorkerStarter.java:78, K8S/master/JobMasterStarter.java:67, K8S/mpi/MPIMasterStarter.java:229",
    "JOB_SUBMISSION_TIME": "K8S/master/JobMasterStarter.java:240 (Long.parseLong), K8S/mpi/MPIMasterStarter.java:228",
    "JOB_MASTER_IP": "K8S/worker/K8sWorkerStarter.java:75,227-231, K8S/mpi/MPIMasterStarter.java:68",
    "ENCODED_NODE_INFO_LIST": "K8S/worker/K8sWorkerStarter.java:76,124-126 (null is allowed: twister2/proto/utils/.../NodeInfoUtils.java:129-132)",
}
"""Every environment variable the starters and the image's scripts read, and where."""


# --- a run's start over its ConfigMap (re-runs) ---


def restart_count_at_start(data: dict[str, str], key: str) -> int:
    """The restart count a worker or the job master starts with, read from its job's ConfigMap data.

    ``K8S/KubernetesController.java:960-967`` returns the key's value, or -1
    when it is missing; ``K8S/worker/K8sWorkerUtils.java:356-383`` adds one:
    0 is a first start, anything above a restart. The job master without
    ZooKeeper ends a restarted job at once as FAILED
    (``K8S/master/JobMasterStarter.java:118-133``); a worker at
    ``twister2.fault.tolerance.max.worker.restarts`` (5) or more reports
    FULLY_FAILED and stops (``K8S/worker/K8sWorkerStarter.java:173-180``).
    """
    value = data.get(key)
    return (-1 if value is None else int(value)) + 1


def killed_at_start(data: dict[str, str]) -> bool:
    """Whether the job master's kill watch ends the job as soon as it starts.

    The watch's first event is the ConfigMap as it is, and any ``KILL_JOB``
    key, whatever its value, kills the job (``K8S/master/JobKillWatcher.java:61-100``).
    """
    return KILL_JOB_KEY in data


def job_master_key() -> str:
    """``RESTART_COUNT_FOR_JOB_MASTER`` (``K8S/KubernetesUtils.java:171-181``)."""
    return "RESTART_COUNT_FOR_JOB_MASTER"


def worker_key(worker: int) -> str:
    """``RESTART_COUNT_FOR_WORKER_<id>`` (``K8S/KubernetesUtils.java:171-181``)."""
    return f"RESTART_COUNT_FOR_WORKER_{worker}"


def applied_data(
    live: dict[str, str] | None,
    last_applied: dict[str, str] | None,
    new: dict[str, str],
) -> dict[str, str]:
    """A ConfigMap's ``data`` after ``kubectl apply`` of ``new`` over ``live`` (client-side apply).

    kubectl's three-way merge sets every key of the new configuration, and
    deletes a live key only when the last-applied configuration (the
    ``kubectl.kubernetes.io/last-applied-configuration`` annotation) has it
    and the new one does not; keys someone else added (the runtime's JSON
    patches) are kept. With no live object, apply creates ``new``
    (https://kubernetes.io/docs/tasks/manage-kubernetes-objects/declarative-config/#how-apply-calculates-differences-and-merges-changes).
    Server-side apply keeps them too: they belong to another field manager
    (https://kubernetes.io/docs/reference/using-api/server-side-apply/#field-management).
    """
    if live is None:
        return dict(new)
    merged = {
        key: value
        for key, value in live.items()
        if key in new or key not in (last_applied or {})
    }
    merged.update(new)
    return merged
