"""The package configuration keys of a job's fault tolerance: checkpointing, ZooKeeper, restart limit.

The runtime reads them from the package (DSC-SPIDAL/twister2 at c6844d2:
``twister2/checkpointing/src/java/edu/iu/dsc/tws/checkpointing/util/CheckpointingContext.java:23,37-40``,
``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:24-25,36-46``,
``twister2/common/src/java/edu/iu/dsc/tws/common/zk/ZKContext.java:32-61``,
``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:30-31,46-48``),
while t2gen's rules on restore and on the job master read ``spec.checkpointing`` and
``spec.zooKeeper``, and the supervisor ``spec.lifecycle.maxWorkerRestarts``: :func:`t2gen.package.confagree.agreeing_keys` writes them into the
package, and ``--package`` checks a package's against the job file.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from t2gen.errors import Problem, format_json_path
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job
from t2gen.twister2 import confkeys as k

__all__ = [
    "MAX_MPIJOB_RESTARTS_DEFAULT",
    "fault_tolerance_keys",
    "restart_limit",
    "restart_problems",
]

MAX_MPIJOB_RESTARTS_DEFAULT = 1
"""Twister2's ``twister2.fault.tolerance.max.mpijob.restarts`` default, which t2gen never changes
(``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:36``)."""


def restart_limit(job: Job) -> int:
    """The restart count at which Twister2 fails one of the job's workers, and so the job.

    An OpenMPI job's ranks fail at ``twister2.fault.tolerance.max.mpijob.restarts``,
    which t2gen leaves at Twister2's default 1 (``K8S/mpi/MPIWorkerStarter.java:203-207``,
    ``K8S/`` = ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``);
    any other job's at ``lifecycle.maxWorkerRestarts``, which t2gen writes into the
    package (``K8S/worker/K8sWorkerStarter.java:175``).
    """
    if job.spec.mpi.enabled:
        return MAX_MPIJOB_RESTARTS_DEFAULT
    return job.spec.lifecycle.max_worker_restarts


def fault_tolerance_keys(job: Job) -> list[tuple[str, str, Any]]:
    """``(file, key, value)`` of the job's checkpointing and ZooKeeper settings that differ from Twister2's defaults.

    Checkpointing's two keys when it is on or stores elsewhere than
    ``mounted``; ``twister2.fault.tolerance.max.worker.restarts`` for a
    supervised job or one that sets ``lifecycle.maxWorkerRestarts``;
    ZooKeeper's servers and root node when the job names servers.
    """
    checkpointing, zoo_keeper = job.spec.checkpointing, job.spec.zoo_keeper
    keys: list[tuple[str, str, Any]] = []
    if checkpointing.enabled or checkpointing.storage_type != "mounted":
        keys.append(("core.yaml", k.CHECKPOINTING_ENABLED, checkpointing.enabled))
        keys.append(
            ("core.yaml", k.PERSISTENT_STORAGE_TYPE, checkpointing.storage_type)
        )
    lifecycle = job.spec.lifecycle
    if (
        lifecycle.supervise
        or lifecycle.max_worker_restarts != k.DEFAULTS[k.MAX_WORKER_RESTARTS]
    ):
        # the supervisor's reading of a restart count must be the pods' (issue 40)
        keys.append(("core.yaml", k.MAX_WORKER_RESTARTS, lifecycle.max_worker_restarts))
    if zoo_keeper.server_addresses is not None:
        keys.append(("resource.yaml", k.ZOOKEEPER_SERVERS, zoo_keeper.server_addresses))
        keys.append(("resource.yaml", k.ZOOKEEPER_ROOT_NODE, zoo_keeper.root_node))
    return keys


AT = ("spec", "lifecycle", "maxWorkerRestarts")
"""Where a restart limit that disagrees is reported."""

MPI_AT = ("spec", "mpi", "enabled")
"""Where an OpenMPI job's restart limit that disagrees is reported: no field sets it."""


def restart_problems(
    job: Job, doc: SourceDoc, value: Callable[[str], tuple[Any, str]]
) -> list[Problem]:
    """The package's restart limit is the one the supervisor reads (issue 40).

    Args:
        job: the job file's job (supervised).
        doc: the job file, for positions.
        value: ``(value, "file:line")`` of a key of the package's configuration.

    Returns:
        One problem, at ``spec.lifecycle.maxWorkerRestarts``, when they differ.

    With ``maxWorkerRestarts: 2`` and a package saying 7, Twister2 completed a
    job whose worker failed twice while the supervisor reported ``WorkerFailed``.
    An OpenMPI job's ranks fail at ``twister2.fault.tolerance.max.mpijob.restarts``
    (:func:`t2gen.package.runtime.restart_limit`), which t2gen reads as Twister2's
    default and ``t2gen package`` writes back into a ``--conf`` that says otherwise
    (:func:`t2gen.package.confagree.defaulted_keys`), so the advice to package the
    job file again gives a package this accepts.
    """
    if job.spec.mpi.enabled:
        key, mine, where = k.MAX_MPIJOB_RESTARTS, restart_limit(job), MPI_AT
        field = "an OpenMPI job's limit (Twister2's default, which t2gen keeps)"
    else:
        key, where = k.MAX_WORKER_RESTARTS, AT
        mine, field = (
            job.spec.lifecycle.max_worker_restarts,
            "lifecycle.maxWorkerRestarts",
        )
    theirs, at = value(key)
    if isinstance(theirs, int) and not isinstance(theirs, bool) and theirs == mine:
        return []
    line, col = doc.position(where)
    message = (
        f"{field} is {mine} here, but the package sets {key} {theirs!r} ({at}): the pods "
        "fail a worker at the package's count and the supervisor at this one; package "
        f"this job file again (t2gen package, which writes {key}: {mine}, with --conf too)"
    )
    return [Problem(doc.path, line, col, message, format_json_path(where))]
