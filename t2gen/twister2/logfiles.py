"""Where Twister2's file logging writes, and the claim that keeps those files after the job.

Twister2 0.8 (DSC-SPIDAL/twister2 at c6844d2; ``LC`` is
``twister2/common/src/java/edu/iu/dsc/tws/common/logging/LoggingContext.java``,
``KWU`` is ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/worker/K8sWorkerUtils.java``):

- every worker and the job master log to a file only when the
  ``common/logger.properties`` that ``init.sh`` hands the JVM
  (``docker/kubernetes/image/rootfs/twister2/init.sh:23,28``) names
  ``Twister2FileLogHandler`` among its ``handlers`` (``LC:71-80``,
  ``KWU:88-92``);
- the directory is ``<root>/logs`` (``LC:160-181``), the root the volatile
  storage root ``/twister2-volatile`` on Kubernetes
  (``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:56-61``)
  for ``twister2.logging.storage.type: volatile``, the default (``LC:64,156-158``);
  ``persistent`` would write to ``/persistent/logs``, on the job's claim ``<job>``
  that the job master deletes;
- a worker's file is ``worker-<worker ID>.log.<n>`` (``KWU:80-82,117-120``), the
  job master's ``jobMaster.log.<n>`` (``K8S/master/JobMasterStarter.java:91-92``),
  through a ``java.util.logging.FileHandler`` on the pattern
  ``<dir>/<name>.log.%g`` with the handler's ``limit``, ``count`` and
  ``append`` properties
  (``twister2/common/src/java/edu/iu/dsc/tws/common/logging/Twister2FileLogHandler.java:42-56``,
  ``LC:82-110``): Twister2's shipped ``conf/common/logger.properties:73,77``
  keeps 50,000 bytes in one file, which ``FileHandler`` truncates when full, so
  a kept log needs ``limit=0`` (no limit) and ``append=true`` (a restarted
  worker adds to its file instead of truncating it).

The job master's ``JobTerminator`` deletes the claim named after the job only
(``K8S/master/JobTerminator.java:54-65``, ``controller.deletePersistentVolumeClaim(jobID)``),
and its Role may delete no other claim (:mod:`t2gen.render.context.rbac`), so
the claim :func:`logs_claim_name` outlives the job.
"""

from __future__ import annotations

import re

from t2gen.twister2.names import VOLATILE_VOLUME_PATH

__all__ = [
    "JOB_MASTER_LOG",
    "KEPT_LOGGER_PROPERTIES",
    "LOGS_MOUNT_PATH",
    "LOGS_VOLUME",
    "LOG_FILE_PATTERN",
    "log_file_name",
    "logs_claim_name",
]

LOGS_MOUNT_PATH = VOLATILE_VOLUME_PATH + "/logs"
"""Twister2's log directory for the default ``volatile`` storage type (``LC:160-181``)."""

LOGS_VOLUME = "twister2-kept-logs"
"""The pod volume of the kept-logs claim."""

JOB_MASTER_LOG = "jobMaster"
"""The job master's log file name before ``.log.<n>`` (``JobMasterStarter.java:91-92``)."""

LOG_FILE_PATTERN = (
    r"(worker-(0|[1-9][0-9]{0,8})|jobMaster|mpiMaster)\.log\.(0|[1-9][0-9]{0,3})"
)
"""A log file Twister2 writes in the log directory: ``<name>.log.<generation>``."""

KEPT_LOGGER_PROPERTIES = """\
# java.util.logging configuration of the Twister2 JVMs (init.sh passes it as
# -Djava.util.logging.config.file); written by t2gen package for spec.logs:
# every record also goes to <log directory>/worker-<ID>.log.0 (jobMaster.log.0),
# on the claim that outlives the job, with no size limit (limit 0), added to
# by a restarted worker (append true).
handlers = edu.iu.dsc.tws.common.logging.Twister2FileLogHandler, java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = ALL
java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.level = ALL
edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.limit = 0
edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.count = 1
edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.append = true
edu.iu.dsc.tws.common.logging.Twister2FileLogHandler.sysouterr = false
"""
"""``common/logger.properties`` of a job with kept logs.

``sysouterr`` stays false: true would send ``System.out`` and ``System.err``
to the file but remove the console handler (``LoggingHelper.java:65-87``), so
``kubectl logs`` and the supervisor's tail would show nothing."""


def logs_claim_name(job: str) -> str:
    """The claim that keeps the job's log files: ``<job>-logs`` (at most 54 characters)."""
    return f"{job}-logs"


def log_file_name(worker: int | None, generation: int = 0) -> str:
    """The log file of a worker (by worker ID) or, for None, of the job master.

    Raises:
        ValueError: a negative worker ID or generation.
    """
    if (worker is not None and worker < 0) or generation < 0:
        raise ValueError("worker IDs and generations are not negative")
    name = JOB_MASTER_LOG if worker is None else f"worker-{worker}"
    text = f"{name}.log.{generation}"
    assert re.fullmatch(LOG_FILE_PATTERN, text) is not None
    return text
