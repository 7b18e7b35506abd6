"""The configuration in a job package: ``twister2-job/common/`` and ``twister2-job/kubernetes/``.

Every worker and the job master load these two directories with
``ConfigLoader.loadConfig`` (``common`` first, then ``kubernetes``; in each,
task, resource, network, core, data and checkpoint ``.yaml``, a later key
replacing an earlier one; a missing file is skipped) before they read the
``.job`` (DSC-SPIDAL/twister2 at c6844d2:
``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java:70-138``,
``K8S/worker/K8sWorkerUtils.java:57-75``, ``K8S/worker/K8sWorkerStarter.java:84-100``,
``K8S/master/JobMasterStarter.java:69-88``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).

:func:`agreeing_keys` are the keys whose value must equal the manifests' (or
the job file's): with ``--conf`` they are rewritten in the user's files, each
change reported; without it :func:`minimal_config` writes only them, plus
``common/logger.properties``, which ``init.sh`` hands every JVM
(``docker/kubernetes/image/rootfs/twister2/init.sh:23,28``). Every other key
the runtime reads on Kubernetes has a default in its code or is read
null-safely (docs/package.md lists them); the one default that is wrong for
a t2gen job is the channel class, OpenMPI's (``SchedulerContext.java:43-44``),
so it is always written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from t2gen.errors import ConfigError, Problem, SchemaError
from t2gen.jobfile.yaml import SourceDoc, parse_job
from t2gen.model import Job
from t2gen.package.job import compute_resources
from t2gen.package.runtime import fault_tolerance_keys
from t2gen.record import Record
from t2gen.textfile import decode_source, read_source
from t2gen.twister2 import confkeys as k
from t2gen.twister2 import names

__all__ = [
    "CONF_DIRS",
    "LOAD_ORDER",
    "MAX_CONF_FILES",
    "Change",
    "ConfFile",
    "agreeing_keys",
    "conf_with_job",
    "minimal_config",
    "yaml_value",
]

CONF_DIRS = ("common", "kubernetes")
"""The configuration directories a pod loads, in order (``ConfigLoader.java:124-138``)."""
LOAD_ORDER = (
    "task.yaml",
    "resource.yaml",
    "network.yaml",
    "core.yaml",
    "data.yaml",
    "checkpoint.yaml",
)
"""The files of one directory in load order (``ConfigLoader.java:77-84``)."""
MAX_CONF_FILES = 64
"""Files per configuration directory: Twister2 ships 7 in ``common/``."""

LOGGER_PROPERTIES = """\
# java.util.logging configuration of the Twister2 JVMs (init.sh passes it as
# -Djava.util.logging.config.file); written by t2gen package.
handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = ALL
java.util.logging.ConsoleHandler.formatter = java.util.logging.SimpleFormatter
"""


class ConfFile(Record):
    """One configuration file of the package: ``twister2-job/<directory>/<name>``."""

    directory: str
    name: str
    data: bytes


class Change(Record):
    """A key ``--conf``'s files get from the job file: ``file:line: key: old -> new``."""

    path: str
    line: int
    key: str
    old: str
    new: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.key}: {self.old} -> {self.new}"


def yaml_value(value: Any) -> str:
    """A value as YAML flow text that SnakeYAML (YAML 1.1) reads back with Twister2's types.

    Strings are double-quoted (``"yes"`` stays a string), floats always carry a
    point (``1.0``: Twister2 casts compute-resource ``cpu`` to ``Double``,
    ``Twister2Job.java:403``), integers are plain (``Integer``).
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        text = repr(value) if math.isfinite(value) else "0.0"
        if "e" in text or "E" in text:
            text = format(value, "f")
        return text if "." in text else text + ".0"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(yaml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return (
            "{" + ", ".join(f"{key}: {yaml_value(v)}" for key, v in value.items()) + "}"
        )
    raise TypeError(f"no YAML form for {type(value).__name__}")


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
        ("resource.yaml", k.NAMESPACE, job.namespace or "default"),
        ("resource.yaml", k.JOB_NAME, job.name),
        ("resource.yaml", k.DOCKER_IMAGE, spec.image),
        ("resource.yaml", k.COMPUTE_RESOURCES, _resources(job)),
        ("resource.yaml", k.ADDITIONAL_PORTS, list(spec.network.additional_ports)),
        (
            "resource.yaml",
            k.PERSISTENT_VOLUME_PER_WORKER,
            float(spec.storage.per_worker.value / 2**30),
        ),
        ("resource.yaml", k.UPLOADING_METHOD, spec.job_package.upload_method),
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
        *fault_tolerance_keys(job),
    ]
    if spec.network.node_port is not None:
        keys.append(("network.yaml", k.NODE_PORT, spec.network.node_port))
    if spec.mpi.enabled:
        keys.append(("network.yaml", k.SSH_SECRET_NAME, spec.mpi.ssh_secret_name))
    uri = spec.job_package.uri
    suffix = f"/{job.name}.tar.gz"
    if spec.job_package.upload_method == "webserver":
        server = uri[: -len(suffix)] if uri and uri.endswith(suffix) else None
        server = server or names.uploader_server(spec.job_package.uploader)
        keys.append(("resource.yaml", k.UPLOADER_WEB_SERVER, server))
    return keys


def _file_text(name: str, entries: Sequence[tuple[str, Any]]) -> bytes:
    lines = [
        f"# Twister2 {name} for this job, written by t2gen package from the job file."
    ]
    lines += [f"{key}: {yaml_value(value)}" for key, value in entries]
    return ("\n".join(lines) + "\n").encode()


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
    files = [ConfFile("common", "logger.properties", LOGGER_PROPERTIES.encode())]
    files += [
        ConfFile("kubernetes", name, _file_text(name, by_file[name]))
        for name in LOAD_ORDER
        if name in by_file
    ]
    return files


def _read_dir(root: Path, directory: str) -> list[ConfFile]:
    """The regular files directly in ``root/directory``, as ``TarGzipPacker.addDirectoryToArchive`` takes them."""
    folder = root / directory
    if not folder.is_dir():
        return []
    entries = sorted(folder.iterdir())
    if len(entries) > MAX_CONF_FILES:
        raise ConfigError(
            path=str(folder),
            message=f"{len(entries)} entries; a Twister2 configuration directory holds a few "
            f"files (at most {MAX_CONF_FILES})",
        )
    files = []
    for entry in entries:
        if entry.is_symlink():
            raise ConfigError(
                path=str(entry),
                message="a symbolic link; copy the file it points to into the configuration "
                "directory (t2gen packages regular files only)",
            )
        if entry.is_dir():
            continue  # Twister2 packs one level only (TarGzipPacker.java:210-227)
        raw = read_source(
            str(entry),
            what="Twister2 configuration file",
            advice="Twister2's configuration files are a few KiB each",
        )
        files.append(ConfFile(directory, entry.name, raw))
    return files


def _has_keys(text: str) -> bool:
    """Whether a configuration file has a line that is not a comment (Twister2 ships some all comments)."""
    return any(
        line.strip() and not line.lstrip().startswith(("#", "---", "..."))
        for line in text.splitlines()
    )


def _value_span(text: str, line: int) -> tuple[int, int]:
    """Lines ``[line, end)`` (1-based) of the top-level key at ``line`` and its value."""
    lines = text.splitlines()
    end = line
    last_value = line
    while end < len(lines):
        current = lines[end]
        if current and not current[0].isspace() and not current.startswith("#"):
            break
        if current.strip() and not current.lstrip().startswith("#"):
            last_value = end + 1
        end += 1
    return line, last_value + 1


def _set_key(text: str, doc: SourceDoc, key: str, value: Any) -> str:
    """``text`` with the top-level ``key``'s value replaced by ``value`` (comments elsewhere kept)."""
    line, _ = doc.position((key,), key=True)
    start, end = _value_span(text, line)
    lines = text.splitlines(keepends=True)
    lines[start - 1 : end - 1] = [f"{key}: {yaml_value(value)}\n"]
    return "".join(lines)


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


def conf_with_job(conf: str, job: Job) -> tuple[list[ConfFile], list[Change]]:
    """A Twister2 configuration root's ``common/`` and ``kubernetes/`` files, agreeing with ``job``.

    Each of :func:`agreeing_keys` is set in the file whose value the runtime
    takes (the last in load order that has it), or added to
    ``kubernetes/<its file>`` when no file has it; the rest of every file is
    copied byte for byte.

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
    files = {(f.directory, f.name): f for d in CONF_DIRS for f in _read_dir(root, d)}
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
                if not _has_keys(texts[d, name]):
                    continue
                doc = parse_job(texts[d, name], path=path)
            except ConfigError as err:
                problems += err.problems
                continue
            if doc.data is not None and not isinstance(doc.data, dict):
                problems.append(
                    Problem(
                        path,
                        1,
                        1,
                        "a Twister2 configuration file must be a mapping of keys to values",
                    )
                )
                continue
            docs[d, name] = doc
    if problems:
        raise SchemaError(problems=problems)
    changes: list[Change] = []
    for home, key, value in agreeing_keys(job):
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
            texts[owner] = _set_key(texts[owner], found, key, value)
            docs[owner] = parse_job(texts[owner], path=found.path)
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
            docs[owner] = parse_job(text, path=path)
            changes.append(
                Change(
                    path, len(text.splitlines()), key, "(not set)", yaml_value(value)
                )
            )
    for (d, name), text in texts.items():
        files[d, name] = ConfFile(d, name, text.encode())
    return sorted(files.values(), key=lambda f: (f.directory, f.name)), changes
