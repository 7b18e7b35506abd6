"""The package's configuration agreeing with the job file: which keys, and ``--conf``'s files made to agree.

Every worker and the job master load ``twister2-job/common/`` then
``twister2-job/kubernetes/`` with ``ConfigLoader.loadConfig`` before they read
the ``.job`` (DSC-SPIDAL/twister2 at c6844d2:
``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java:70-138``,
``K8S/worker/K8sWorkerUtils.java:57-75``, ``K8S/worker/K8sWorkerStarter.java:84-100``,
``K8S/master/JobMasterStarter.java:69-88``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).

:func:`agreeing_keys` are the keys whose value must equal the manifests' (or
the job file's): with ``--conf`` they are set in the user's files, each change
reported (:func:`conf_with_job`); without it :func:`minimal_config` writes only
them, plus ``common/logger.properties``. Every other key the runtime reads on
Kubernetes has a default in its code or is read null-safely (docs/package.md
lists them); the one default that is wrong for a t2gen job is the channel
class, OpenMPI's (``SchedulerContext.java:43-44``), so it is always written.
The files are read by :mod:`t2gen.inputs.twister2conf` and written by
:mod:`t2gen.package.confwrite`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from t2gen.errors import ConfigError, InputError, Problem
from t2gen.inputs.textfile import decode_source
from t2gen.inputs.twister2conf import directory_files, parse_conf
from t2gen.inputs.yaml import SourceDoc
from t2gen.model import Job, JobPackage
from t2gen.package.confwrite import (
    LOGGER_PROPERTIES,
    ConfFile,
    conf_file_text,
    set_key,
    yaml_value,
)
from t2gen.package.job import compute_resources
from t2gen.package.runtime import MAX_MPIJOB_RESTARTS_DEFAULT, fault_tolerance_keys
from t2gen.record import Record
from t2gen.twister2 import confkeys as k
from t2gen.twister2 import names
from t2gen.twister2.confkeys import CONF_DIRS, LOAD_ORDER
from t2gen.twister2.logfiles import KEPT_LOGGER_PROPERTIES

__all__ = [
    "Change",
    "agreeing_keys",
    "conf_with_job",
    "defaulted_keys",
    "minimal_config",
]


class Change(Record):
    """A key ``--conf``'s files get from the job file: ``file:line: key: old -> new``."""

    path: str
    line: int
    key: str
    old: str
    new: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.key}: {self.old} -> {self.new}"


def _resources(job: Job) -> list[dict[str, Any]]:
    """The compute-resource list as a ``main()`` would load it (``Twister2Job.java:395-421``)."""
    return [
        {
            "cpu": r["cpu"],
            "ram": r["ram_mega_bytes"],
            "disk": r["disk_giga_bytes"],
            "instances": r["instances"],
            "scalable": r["scalable"],
            "workersPerPod": r["workers_per_pod"],
        }
        for r in compute_resources(job)
    ]


def agreeing_keys(job: Job) -> list[tuple[str, str, Any]]:
    """The keys the package's configuration takes from the job file: ``(file, key, value)``.

    ``file`` is the one Twister2 ships the key in (``conf/kubernetes/<file>``).
    """
    spec = job.spec
    keys: list[tuple[str, str, Any]] = [
        ("resource.yaml", k.NAMESPACE, job.package_namespace),
        ("resource.yaml", k.JOB_NAME, job.name),
        ("resource.yaml", k.DOCKER_IMAGE, spec.image),
        ("resource.yaml", k.COMPUTE_RESOURCES, _resources(job)),
        ("resource.yaml", k.ADDITIONAL_PORTS, list(spec.network.additional_ports)),
        (
            "resource.yaml",
            k.PERSISTENT_VOLUME_PER_WORKER,
            float(spec.storage.per_worker.value / 2**30),
        ),
        ("resource.yaml", k.UPLOADING_METHOD, _delivery(job)[0]),
        (
            "network.yaml",
            k.CHANNEL_CLASS,
            k.MPI_CHANNEL if spec.mpi.enabled else k.TCP_CHANNEL,
        ),
        ("network.yaml", k.BASE_PORT, spec.network.base_port),
        ("network.yaml", k.TRANSPORT_PROTOCOL, spec.network.protocol),
        ("network.yaml", k.NODE_PORT_SERVICE, spec.network.service_type == "NodePort"),
        ("core.yaml", k.JOB_MASTER_RUNS_IN_CLIENT, not spec.job_master.enabled),
        ("core.yaml", k.JOB_MASTER_PORT, spec.job_master.port),
        *(
            [("core.yaml", k.LOGGING_STORAGE_TYPE, "volatile")]
            if spec.logs is not None
            else []
        ),
        *fault_tolerance_keys(job),
    ]
    if spec.network.node_port is not None:
        keys.append(("network.yaml", k.NODE_PORT, spec.network.node_port))
    if spec.mpi.enabled:
        keys.append(("network.yaml", k.SSH_SECRET_NAME, spec.mpi.ssh_secret_name))
    method, uri, uploader = _delivery(job)
    suffix = f"/{job.name}.tar.gz"
    if method == "webserver":
        server = uri[: -len(suffix)] if uri and uri.endswith(suffix) else None
        server = server or names.uploader_server(uploader)
        keys.append(("resource.yaml", k.UPLOADER_WEB_SERVER, server))
    return keys


def _delivery(job: Job) -> tuple[str, str | None, str]:
    """The package's delivery keys: the job file's ``uploadMethod``, ``uri`` and ``uploader``.

    Never ``jobPackage.source``: the package is built before its digest can be
    written into the job file, and building it again afterwards must give the
    same bytes, or the digest just written would no longer name it. Only
    Twister2's client reads these keys (``RequestObjectBuilder.uploadMethod``,
    set by ``uploaders/k8s/K8sUploader.java:75`` and read by
    ``KubernetesLauncher.java:578`` and ``core/ResourceAllocator.java:457``; the
    pods' scripts take the method from the manifests' environment), so a
    package delivered by an init container may say what the job file says
    without a ``source``: ``source`` replaces ``uploadMethod``, ``uri`` and
    ``uploader``, which therefore keep their defaults.
    """
    package = job.spec.job_package
    if package.source is not None:
        default = JobPackage(
            upload_method="webserver", uri=None, file_size=None, jar_file=None
        )
        return default.upload_method, default.uri, default.uploader
    return package.upload_method, package.uri, package.uploader


def defaulted_keys(job: Job) -> list[tuple[str, str, Any]]:
    """The runtime keys :func:`agreeing_keys` leaves out because the job keeps Twister2's default.

    Checkpointing off and no ZooKeeper are Twister2's defaults, so
    :func:`t2gen.package.runtime.fault_tolerance_keys` writes nothing for them; a
    ``--conf`` file that sets them otherwise would make the runtime checkpoint or
    use ZooKeeper while the manifests and t2gen's rules follow the job file (and
    ``render --package`` refuses the package): :func:`conf_with_job` sets them
    back, each change reported. So for an OpenMPI job with
    ``twister2.fault.tolerance.max.mpijob.restarts``: its ranks fail at that count
    (``K8S/mpi/MPIWorkerStarter.java:203-207``), and the rendered supervisor and
    rule ``lifecycle-backoff-limit`` assume Twister2's default 1
    (:data:`t2gen.package.runtime.MAX_MPIJOB_RESTARTS_DEFAULT`), which no job-file
    field changes. (``twister2.persistent.storage.type`` is kept:
    the job file states it only for checkpointing, ``render --package`` does not
    compare it, and the runtime also reads it for the persistent root and
    logging, ``FileSystemContext.java:36-53``, ``LoggingContext.java:160-178``.)
    """
    written = {key for _, key, _ in agreeing_keys(job)}
    defaults: list[tuple[str, str, Any]] = [
        ("core.yaml", k.CHECKPOINTING_ENABLED, False),
        ("resource.yaml", k.ZOOKEEPER_SERVERS, None),
    ]
    if job.spec.mpi.enabled:
        # the ranks fail at it (K8S/mpi/MPIWorkerStarter.java:203-207); the supervisor
        # (T2_MAX_RESTARTS) and rule lifecycle-backoff-limit assume Twister2's default
        defaults.append(
            ("core.yaml", k.MAX_MPIJOB_RESTARTS, MAX_MPIJOB_RESTARTS_DEFAULT)
        )
    return [entry for entry in defaults if entry[1] not in written]


def minimal_config(job: Job) -> list[ConfFile]:
    """The smallest configuration the runtime loads correctly for ``job``.

    Returns:
        ``common/logger.properties`` and ``kubernetes/{resource,network,core}.yaml``
        holding :func:`agreeing_keys` (an empty additional-ports list and a zero
        persistent volume are left out: they are Twister2's defaults; every
        other key is written, default or not, so the file says what the
        manifests assume).
    """
    by_file: dict[str, list[tuple[str, Any]]] = {}
    for file, key, value in agreeing_keys(job):
        if key in (k.ADDITIONAL_PORTS, k.PERSISTENT_VOLUME_PER_WORKER) and not value:
            continue
        by_file.setdefault(file, []).append((key, value))
    files = [ConfFile("common", "logger.properties", _logger_properties(job))]
    files += [
        ConfFile("kubernetes", name, conf_file_text(name, by_file[name]))
        for name in LOAD_ORDER
        if name in by_file
    ]
    return files


def _logger_properties(job: Job) -> bytes:
    """``common/logger.properties``: to the console only, or also to the kept files of ``spec.logs``."""
    if job.spec.logs is not None:
        return KEPT_LOGGER_PROPERTIES.encode()
    return LOGGER_PROPERTIES.encode()


def _same(old: Any, new: Any) -> bool:
    """Whether a configured value already equals the job's (numbers by value, lists item by item)."""
    if isinstance(new, bool) or isinstance(old, bool):
        return old is new
    if isinstance(new, (int, float)) and isinstance(old, (int, float)):
        return type(old) is type(new) and old == new
    if isinstance(new, list) and isinstance(old, list):
        return len(old) == len(new) and all(
            _same(a, b) for a, b in zip(old, new, strict=True)
        )
    if isinstance(new, dict) and isinstance(old, dict):
        return old.keys() == new.keys() and all(_same(old[x], new[x]) for x in new)
    return bool(old == new)


def _reparse(text: str, path: str) -> SourceDoc:
    """A file t2gen has just set a key in, parsed again (it has that key, so it is never empty)."""
    doc = parse_conf(text, path)
    assert doc is not None
    return doc


def conf_with_job(conf: str, job: Job) -> tuple[list[ConfFile], list[Change]]:
    """A Twister2 configuration root's ``common/`` and ``kubernetes/`` files, agreeing with ``job``.

    Each of :func:`agreeing_keys` is set in the file whose value the runtime
    takes (the last in load order that has it), or added to
    ``kubernetes/<its file>`` when no file has it; so is each of
    :func:`defaulted_keys` that a file sets otherwise. The rest of every file
    is copied byte for byte, and a root without ``common/logger.properties``
    gets t2gen's (:data:`t2gen.package.confwrite.LOGGER_PROPERTIES`), reported
    as a change: every JVM is started with it (``init.sh:23,28``).

    Args:
        conf: the configuration root (holding ``common/`` and/or ``kubernetes/``).
        job: the validated job.

    Returns:
        The files, and each change made, in key order.

    Raises:
        ConfigError: the root has neither directory, a file is unreadable, too
            large, not YAML or a symbolic link.
    """
    root = Path(conf)
    if not any((root / d).is_dir() for d in CONF_DIRS):
        raise ConfigError(
            path=conf,
            message="not a Twister2 configuration root: give the directory holding "
            "common/ and kubernetes/ (Twister2's conf/)",
        )
    files = {
        (d, name): ConfFile(d, name, raw)
        for d in CONF_DIRS
        for name, raw in directory_files(root, d)
    }
    texts: dict[tuple[str, str], str] = {}
    docs: dict[tuple[str, str], SourceDoc] = {}
    problems: list[Problem] = []
    for d in CONF_DIRS:
        for name in LOAD_ORDER:
            if (d, name) not in files:
                continue
            path = str(root / d / name)
            try:
                texts[d, name] = decode_source(
                    path, files[d, name].data, what="Twister2 configuration file"
                )
                doc = parse_conf(texts[d, name], path)
            except InputError as err:
                problems += err.problems
                continue
            if doc is not None:
                docs[d, name] = doc
    if problems:
        raise InputError(problems=problems)
    changes: list[Change] = []
    for home, key, value in agreeing_keys(job) + defaulted_keys(job):
        owner = None
        for d in CONF_DIRS:
            for name in LOAD_ORDER:
                held = docs.get((d, name))
                if (
                    held is not None
                    and isinstance(held.data, dict)
                    and key in held.data
                ):
                    owner = (d, name)
        if owner is not None:
            found = docs[owner]
            old = found.data[key]
            if _same(old, value):
                continue
            line, _ = found.position((key,), key=True)
            texts[owner] = set_key(texts[owner], found, key, value)
            docs[owner] = _reparse(texts[owner], found.path)
            changes.append(
                Change(
                    found.path,
                    line,
                    key,
                    yaml_value(old) if old is not None else "null",
                    yaml_value(value),
                )
            )
        elif key in k.DEFAULTS and _same(k.DEFAULTS[key], value):
            continue  # no file sets it, and the runtime's default is the job's
        else:
            owner = ("kubernetes", home)
            path = str(root / "kubernetes" / home)
            text = texts.get(owner, "")
            if text and not text.endswith("\n"):
                text += "\n"
            text += f"{key}: {yaml_value(value)}\n"
            texts[owner] = text
            docs[owner] = _reparse(text, path)
            changes.append(
                Change(
                    path, len(text.splitlines()), key, "(not set)", yaml_value(value)
                )
            )
    for (d, name), text in texts.items():
        files[d, name] = ConfFile(d, name, text.encode())
    if job.spec.logs is not None:
        logger = files.get(("common", "logger.properties"))
        if logger is None or logger.data != _logger_properties(job):
            files["common", "logger.properties"] = ConfFile(
                "common", "logger.properties", _logger_properties(job)
            )
            changes.append(
                Change(
                    str(root / "common" / "logger.properties"),
                    1,
                    "handlers",
                    "(the configuration's)" if logger is not None else "(not set)",
                    "Twister2FileLogHandler, limit 0, append true (spec.logs)",
                )
            )
    default_logger = ("common", names.LOGGER_PROPERTIES_FILE.split("/")[1])
    if default_logger not in files:
        # init.sh hands every JVM this file (DSC-SPIDAL/twister2
        # docker/kubernetes/image/rootfs/twister2/init.sh:23,28); Twister2's
        # shipped conf/ has one, a conf/ like examples/twister2-conf may not.
        files[default_logger] = ConfFile(*default_logger, LOGGER_PROPERTIES.encode())
        changes.append(
            Change(
                str(root / names.LOGGER_PROPERTIES_FILE),
                0,
                "java.util.logging.config.file",
                "(no such file)",
                "t2gen's default (console, level INFO), as without --conf",
            )
        )
    return sorted(files.values(), key=lambda f: (f.directory, f.name)), changes
