"""Does a job package agree with the job file, and what does it change in the manifests?

:func:`disagreements` gives one located problem per item that differs,
naming both sides: the job ID, the compute resources (order, counts, workers
per pod, cpu, memory, disk, scalable), the namespace of the package's
configuration, the jar, the ports, and the classes and JobConfig the job file
states. Each is something the runtime reads from the package while the objects
come from the job file, so a difference makes pods crash or wait for ever
(docs/package.md). :func:`with_package` then sizes the job from the real
package (:mod:`t2gen.package.sizing`).
"""

from __future__ import annotations

from typing import Any

from t2gen._generated import twister2_job_pb2 as pb
from t2gen.errors import Problem, SchemaError, T2genError, Warning_, format_json_path
from t2gen.inputs.package import PackageContents
from t2gen.inputs.twister2conf import ConfSetting, package_settings
from t2gen.inputs.yaml import SourceDoc
from t2gen.inputs.yaml.loader import JsonPath
from t2gen.inputs.yaml.source import MAX_ENTRIES
from t2gen.model import Job
from t2gen.package.described import description_problems, package_warnings
from t2gen.package.job import compute_resources
from t2gen.package.keptlogs import kept_logs_warnings
from t2gen.package.pinning import package_digest, pinned_job, source_problems
from t2gen.package.runtime import restart_problems
from t2gen.package.settings import destination_warnings, render_reads
from t2gen.package.sizing import size_problems, size_warnings, sized_job
from t2gen.record import replace
from t2gen.twister2 import confkeys as k
from t2gen.twister2 import kryo

__all__ = [
    "disagreements",
    "with_package",
]


def _problem(doc: SourceDoc, path: JsonPath, message: str) -> Problem:
    line, col = doc.position(path)
    return Problem(doc.path, line, col, message, format_json_path(path))


def _resource_problems(
    job: Job, doc: SourceDoc, message: Any, where: str
) -> list[Problem]:
    theirs = list(message.compute_resource)
    ours = compute_resources(job)
    if len(theirs) != len(ours):
        return [
            _problem(
                doc,
                ("spec", "workers"),
                f"{len(ours)} worker group(s) here, but the package's {where} has "
                f"{len(theirs)} compute resource(s): package this job file again (t2gen package)",
            )
        ]
    problems = []
    fields = (
        ("index", "index", None, ""),
        ("instances", "instances", "count", " pods"),
        ("workers_per_pod", "workers per pod", "perPod", ""),
        ("cpu", "cpu", "cpu", " cores"),
        ("ram_mega_bytes", "ram", "memory", " MB"),
        ("disk_giga_bytes", "disk", "volatileDisk", " GB"),
        ("scalable", "scalable", "scalable", ""),
    )
    for i, (cr, mine) in enumerate(zip(theirs, ours, strict=True)):
        for attr, label, field, unit in fields:
            value = getattr(cr, attr)
            if value != mine[attr]:
                path: JsonPath = ("spec", "workers", i) + ((field,) if field else ())
                problems.append(
                    _problem(
                        doc,
                        path,
                        f"worker group {i}: {label} {mine[attr]}{unit} here, but compute resource "
                        f"{i} of the package's {where} has {value}{unit}: the pods would run with "
                        "the package's; package this job file again (t2gen package)",
                    )
                )
    return problems


def disagreements(job: Job, doc: SourceDoc, contents: PackageContents) -> list[Problem]:
    """Every item where the package and the job file differ, located in the job file.

    Args:
        job: the validated job (``--namespace`` applied).
        doc: its job file as read (for positions).
        contents: the package.

    Returns:
        One problem per differing item, each naming both sides; a package
        whose ``.job`` is missing or unreadable gives one problem.
    """
    from google.protobuf.message import DecodeError

    from t2gen.package.job import parse_job_message

    wanted = f"{job.name}.job"
    jobs = dict(contents.job_files)
    problems: list[Problem] = []
    if wanted not in jobs:
        found = ", ".join(f"twister2-job/{name}" for name in sorted(jobs)) or "none"
        problems.append(
            _problem(
                doc,
                ("metadata", "name"),
                f"job ID {job.name!r} here, but {contents.path} has no twister2-job/{wanted} "
                f"(its job description: {found}); the pods read twister2-job/<JOB_ID>.job: "
                "give this job's package (t2gen package)",
            )
        )
        if len(jobs) != 1:
            return problems
        wanted = next(iter(jobs))  # compare the rest with the one it has
    where = f"{contents.path}:twister2-job/{wanted}"
    try:
        message = parse_job_message(jobs[wanted])
    except DecodeError as err:
        return [
            Problem(
                contents.path,
                0,
                0,
                f"twister2-job/{wanted} is not a Twister2 job description (tws.proto.job.Job): {err}",
            )
        ]
    if message.job_id != job.name:
        problems.append(
            _problem(
                doc,
                ("metadata", "name"),
                f"job ID {job.name!r} here, but {where} has job_id {message.job_id!r}",
            )
        )
    problems += _resource_problems(job, doc, message, where)
    jar = job.spec.job_package.jar_file or f"{job.name}.jar"
    packed_jar = message.job_format.job_file
    if packed_jar != jar:
        problems.append(
            _problem(
                doc,
                ("spec", "jobPackage", "jarFile"),
                f"jar {jar!r} here (jobPackage.jarFile), but {where} names {packed_jar!r}: "
                "set jobPackage.jarFile to the package's jar",
            )
        )
    elif f"twister2-job/{jar}" not in contents.members:
        problems.append(
            _problem(
                doc,
                ("spec", "jobPackage", "jarFile"),
                f"jar {jar!r} is named by {where} but {contents.path} has no twister2-job/{jar}",
            )
        )
    problems += size_problems(job, doc, contents)
    problems += _class_problems(job, doc, message, where)
    problems += description_problems(job, doc, message, where)
    problems += _config_problems(job, doc, package_settings(contents))
    return problems


def _class_problems(
    job: Job, doc: SourceDoc, message: pb.Job, where: str
) -> list[Problem]:
    """The worker class, driver class and JobConfig the job file states, against the ``.job``'s.

    The pods run the package's classes (``K8sWorkerStarter`` reads them from
    the ``.job``) and see its JobConfig (``JobUtils.overrideConfigs``,
    ``JobUtils.java:122-138``); a job file that states other ones describes
    another job. Only what the job file states is compared: a package made by
    ``twister2 submit`` for a job file without these fields agrees.
    """
    problems = []
    for field, mine, theirs in (
        ("workerClass", job.spec.worker_class, message.worker_class_name),
        ("driverClass", job.spec.driver_class, message.driver_class_name),
    ):
        if mine is not None and mine != theirs:
            problems.append(
                _problem(
                    doc,
                    ("spec", field),
                    f"{field} {mine!r} here, but {where} names {theirs or 'none'!r}: "
                    "the pods would run the package's; package this job file again (t2gen package)",
                )
            )
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    if not (isinstance(spec, dict) and "jobConfig" in spec):
        return problems
    if len(message.config.config_byte_map) > MAX_ENTRIES:
        # A job file's jobConfig holds at most MAX_ENTRIES entries, so such a
        # package never agrees: one problem at once, not one per key (100,000
        # entries were refused after 49x a plain render's CPU, issue 41).
        return [
            *problems,
            _problem(
                doc,
                ("spec", "jobConfig"),
                f"{where} sets {len(message.config.config_byte_map):,} jobConfig entries, more "
                f"than the {MAX_ENTRIES:,} a job file can state: it was made from another job "
                "file; package this job file again (t2gen package)",
            ),
        ]
    packed = dict(message.config.config_byte_map)
    for key, value in job.spec.job_config:
        plain: kryo.Value = list(value) if isinstance(value, tuple) else value
        theirs_bytes = packed.pop(key, None)
        if theirs_bytes == kryo.encode(plain):
            continue
        if theirs_bytes is None:
            said = "has no such key"
        else:
            try:
                said = f"has {kryo.decode(theirs_bytes)!r}"
            except kryo.KryoError:
                said = "has a value t2gen does not read"
        problems.append(
            _problem(
                doc,
                ("spec", "jobConfig", key),
                f"jobConfig {key} is {plain!r} here ({kryo.java_type(plain)}), but {where} {said}: "
                "workers read the package's; package this job file again (t2gen package)",
            )
        )
    for key in sorted(packed.keys() - k.POD_KEYS.keys()):  # those: description_problems
        problems.append(
            _problem(
                doc,
                ("spec", "jobConfig"),
                f"{where} sets jobConfig {key}, which this job file does not: workers would "
                "see it; add it here or package this job file again (t2gen package)",
            )
        )
    return problems


def _config_problems(
    job: Job, doc: SourceDoc, conf: dict[str, ConfSetting]
) -> list[Problem]:
    def value(key: str) -> tuple[Any, str]:
        """The value the pods read for ``key``, and where it is set (``package:member:line``)."""
        if key in conf:
            setting = conf[key]
            return setting.value, f"{setting.path}:{setting.line}"
        return k.DEFAULTS.get(key), "Twister2's default, no file sets it"

    problems = []
    namespace, at = value(k.NAMESPACE)
    if job.namespace is not None and namespace != job.namespace:
        problems.append(
            _problem(
                doc,
                ("metadata", "namespace"),
                f"namespace {job.namespace!r} here (metadata.namespace or -n), but the package "
                f"sets kubernetes.namespace {namespace!r} ({at}): the pods would look for their "
                "ConfigMap there and crash; package with -n, or render into that namespace",
            )
        )
    spec = job.spec
    checks: list[tuple[str, Any, JsonPath, str]] = [
        (
            k.BASE_PORT,
            spec.network.base_port,
            ("spec", "network", "basePort"),
            "network.basePort",
        ),
        (
            k.JOB_MASTER_PORT,
            spec.job_master.port,
            ("spec", "jobMaster", "port"),
            "jobMaster.port",
        ),
    ]
    for key, mine, path, field in checks:
        theirs, at = value(key)
        if theirs != mine:
            problems.append(
                _problem(
                    doc,
                    path,
                    f"{field} {mine} here, but the package sets {key} {theirs!r} ({at}): "
                    "the runtime would listen on the package's port",
                )
            )
    ports, at = value(k.ADDITIONAL_PORTS)
    count = len(ports) if isinstance(ports, list) else 0
    if count != len(spec.network.additional_ports):
        problems.append(
            _problem(
                doc,
                ("spec", "network", "additionalPorts"),
                f"{len(spec.network.additional_ports)} additional port(s) here, but the package "
                f"lists {count} in {k.ADDITIONAL_PORTS} ({at}): workers derive their ports from it",
            )
        )
    enabled, at = value(k.CHECKPOINTING_ENABLED)
    if bool(enabled) != spec.checkpointing.enabled:
        problems.append(
            _problem(
                doc,
                ("spec", "checkpointing", "enabled"),
                f"checkpointing.enabled {str(spec.checkpointing.enabled).lower()} here, but the "
                f"package sets {k.CHECKPOINTING_ENABLED} {enabled!r} ({at}): the runtime follows "
                "the package, and t2gen's rules on restore and the job master follow the job file",
            )
        )
    servers, at = value(k.ZOOKEEPER_SERVERS)
    if servers != spec.zoo_keeper.server_addresses:
        problems.append(
            _problem(
                doc,
                ("spec", "zooKeeper", "serverAddresses")
                if spec.zoo_keeper.server_addresses
                else ("spec",),
                f"zooKeeper.serverAddresses {spec.zoo_keeper.server_addresses!r} here, but the "
                f"package sets {k.ZOOKEEPER_SERVERS} {servers!r} ({at}): the runtime uses "
                "ZooKeeper only as the package says",
            )
        )
    if spec.lifecycle.supervise:
        problems += restart_problems(job, doc, value)
    channel, at = value(k.CHANNEL_CLASS)
    if (channel == k.MPI_CHANNEL) != spec.mpi.enabled:
        problems.append(
            _problem(
                doc,
                ("spec", "mpi", "enabled"),
                f"mpi.enabled {str(spec.mpi.enabled).lower()} here, but the package's "
                f"{k.CHANNEL_CLASS} is {channel!r} ({at}), which makes the job "
                f"{'an' if channel == k.MPI_CHANNEL else 'not an'} OpenMPI job",
            )
        )
    return problems


def with_package(
    loaded: list[tuple[Job, SourceDoc]],
    package: str,
    warnings: list[Warning_] | None = None,
) -> list[tuple[Job, SourceDoc]]:
    """Read ``package``, check it against the one job file and size the job from it.

    Args:
        loaded: the validated job and its job file as read; exactly one.
        package: the package file (``--package``).
        warnings: when given, the located warnings (:func:`size_warnings`, and a
            dashboard or HDFS the job's NetworkPolicy does not allow) are appended.

    Returns:
        The job with ``jobPackage.fileSize``, the package's SHA-256 (and a
        source's size) and the memory volume from the package (an explicit
        ``storage.memoryVolumeSize`` is kept), and, when neither the job file
        nor ``-n`` names a namespace, the package's settings the render reads
        (:attr:`~t2gen.model.Job.package_config`: its ``kubernetes.namespace``,
        dashboard and HDFS name node); and its file.

    Raises:
        T2genError: more than one job file.
        ConfigError: the package is unreadable or breaks a bound (:mod:`t2gen.inputs.package`).
        SchemaError: the package disagrees with the job file, one problem per item.
    """
    from t2gen.inputs.package import read_package

    if len(loaded) != 1:
        raise T2genError(
            f"--package {package}: a job package belongs to one job; give one job file "
            f"(got {len(loaded)})"
        )
    job, doc = loaded[0]
    contents = read_package(package)
    sha256, size = package_digest(package)
    problems = disagreements(job, doc, contents)
    problems += source_problems(job, doc, package, sha256, size)
    if problems:
        raise SchemaError(problems=problems)
    if warnings is not None:
        warnings += size_warnings(job, doc, contents) + package_warnings(doc, contents)
        warnings += kept_logs_warnings(job, doc, contents)
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    storage = spec.get("storage") if isinstance(spec, dict) else None
    explicit = isinstance(storage, dict) and "memoryVolumeSize" in storage
    sized = sized_job(job, contents, explicit_volume=explicit)
    conf = package_settings(contents)
    sized = replace(sized, package_config=render_reads(conf))
    if warnings is not None:
        warnings += destination_warnings(sized, doc, conf)
    return [(pinned_job(sized, sha256, size), doc)]
