"""The package's ``.job`` against the job file, beyond its classes and resources: worker count and JobConfig keys.

Two things every pod takes from the ``.job`` that :mod:`t2gen.package.agree`
leaves to this module (DSC-SPIDAL/twister2 at c6844d2; ``RS/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/``, ``K8S/``
``RS/schedulers/k8s/``):

* ``number_of_workers``: the job master waits for that many workers
  (``twister2/master/src/java/edu/iu/dsc/tws/master/server/WorkerMonitor.java:113``)
  and every worker gives it to its controller (``RS/core/WorkerRuntime.java:101,118,139``);
  it must be the job file's worker count, or the job master waits for ever for
  workers no StatefulSet creates (or starts without some).
* The JobConfig: every worker and the job master put each entry over the
  package's configuration (``JobUtils.overrideConfigs``,
  ``RS/utils/JobUtils.java:122-138``, called at ``K8S/worker/K8sWorkerStarter.java:99``
  and ``K8S/master/JobMasterStarter.java:84``). An entry whose key is one of
  :data:`t2gen.twister2.confkeys.POD_KEYS` makes the pods read a value the
  manifests do not have, whatever the job file says: a package
  ``twister2 submit`` built with such a JobConfig is refused, naming the
  JobConfig key and the job-file field (the job file's own ``jobConfig`` is
  refused by the rule ``job-config-runtime-key``).
"""

from __future__ import annotations

from t2gen._generated import twister2_job_pb2 as pb
from t2gen.errors import Problem, Warning_, format_json_path
from t2gen.inputs.package import PackageContents
from t2gen.inputs.yaml import SourceDoc
from t2gen.inputs.yaml.loader import JsonPath
from t2gen.model import Job
from t2gen.twister2 import names
from t2gen.twister2.confkeys import POD_KEY_ADVICE, POD_KEYS

__all__ = ["description_problems", "package_warnings"]


def _problem(doc: SourceDoc, path: JsonPath, message: str) -> Problem:
    line, col = doc.position(path)
    return Problem(doc.path, line, col, message, format_json_path(path))


def _config_path(doc: SourceDoc, key: str) -> JsonPath:
    """``spec.jobConfig.<key>`` when the job file states it, else ``spec.jobConfig`` or ``spec``."""
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    config = spec.get("jobConfig") if isinstance(spec, dict) else None
    if isinstance(config, dict) and key in config:
        return ("spec", "jobConfig", key)
    return ("spec", "jobConfig") if isinstance(config, dict) else ("spec",)


def description_problems(
    job: Job, doc: SourceDoc, message: pb.Job, where: str
) -> list[Problem]:
    """The ``.job``'s worker count and its JobConfig's runtime keys, against the job file.

    Args:
        job: the validated job.
        doc: its job file as read (for positions).
        message: the package's ``.job``.
        where: how to name it (``PKG:twister2-job/<job>.job``).

    Returns:
        One located problem per item, naming both sides.
    """
    problems = []
    workers = sum(g.count for g in job.spec.workers)
    if message.number_of_workers != workers:
        problems.append(
            _problem(
                doc,
                ("spec", "workers"),
                f"{workers} worker(s) here, but {where} has number_of_workers "
                f"{message.number_of_workers}: the job master would wait for that many "
                "workers; package this job file again (t2gen package)",
            )
        )
    for key in sorted(message.config.config_byte_map):
        field = POD_KEYS.get(key)
        if field is None:
            continue
        problems.append(
            _problem(
                doc,
                _config_path(doc, key),
                f"{where} sets JobConfig {key}, the Twister2 configuration key the pods take "
                f"from {field}: as a JobConfig entry it replaces the package's value in every "
                "pod (JobUtils.overrideConfigs), which the manifests would not have; "
                + POD_KEY_ADVICE.get(
                    key,
                    f"set {field} in the job file and package it without that JobConfig key",
                ),
            )
        )
    return problems


def package_warnings(doc: SourceDoc, contents: PackageContents) -> list[Warning_]:
    """A package without ``twister2-job/common/logger.properties`` (a warning).

    Every Twister2 container starts ``java`` with
    ``-Djava.util.logging.config.file=$POD_MEMORY_VOLUME/twister2-job/$LOGGER_PROPERTIES_FILE``
    (DSC-SPIDAL/twister2 ``docker/kubernetes/image/rootfs/twister2/init.sh:23,28``;
    t2gen sets ``LOGGER_PROPERTIES_FILE`` to ``common/logger.properties``): without
    the file the JVM reports it missing and logs with the JDK's defaults.
    ``t2gen package`` always writes one.
    """
    member = f"twister2-job/{names.LOGGER_PROPERTIES_FILE}"
    if member in contents.members:
        return []
    line, col = doc.position(("metadata", "name"))
    return [
        Warning_(
            doc.path,
            line,
            col,
            f"{contents.path} has no {member}, which every Twister2 container hands its JVM "
            "(init.sh: -Djava.util.logging.config.file): the JVM reports it missing and logs "
            "with the JDK's defaults; package it again with t2gen package, which writes one",
            format_json_path(("metadata", "name")),
        )
    ]
