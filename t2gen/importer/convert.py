"""Import a Twister2 configuration directory (or YAML files) as a t2gen job file.

The files are read the way Twister2's ConfigLoader reads them
(``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigLoader.java``):
``common/`` first, then ``kubernetes/``, and within each directory task, resource,
network, core, data and checkpoint, a later top-level key replacing an earlier one.
The merged keys are converted by the table in :mod:`t2gen.importer.keys`; the job
file written has one comment per field naming the Twister2 key and the file:line it
came from. Semantics that differ are converted or warned about, keys with no t2gen
equivalent are listed, and the result is validated like any job file, with every
problem located at the Twister2 key that caused it.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import IO, Any

from t2gen.errors import ConfigError, SchemaError
from t2gen.importer.keys import (
    COMPUTE_RESOURCE_FIELDS,
    CONF_DIRS,
    JVM_MEMORY_FRACTION,
    LEGACY_WORKER_KEYS,
    LOAD_ORDER,
    MPI_CHANNEL,
    Key,
    Kind,
    Use,
    is_kubernetes_key,
    lookup,
    suggest,
)
from t2gen.jobfile.loader import (
    JsonPath,
    SourceDoc,
    decode_source,
    parse_config,
    read_source,
)
from t2gen.problems import Problem, format_json_path

__all__ = [
    "ImportResult",
    "ImportWarning",
    "Origin",
    "Setting",
    "Twister2Config",
    "config_files",
    "convert",
    "import_config",
    "load_config_files",
    "report_lines",
]

_JOB_NAME_ARG = "the job name argument"
_JAR_FILE_ARG = "the jar file argument"
_COMMENT_COLUMN = 40


@dataclass(frozen=True, order=True)
class Origin:
    """Where a Twister2 key (or value) is written: a file and a 1-based line and column."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        """``path:line`` as the job file's comments cite it."""
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Setting:
    """One top-level key of a Twister2 configuration file, after merging.

    Attributes:
        name: the key as written (a 0.8 name, a legacy alias or another key).
        key: what it stands for in the key table; None for keys that do not
            concern Kubernetes.
        value: its value, plain data.
        origin: the position of the key.
        doc: the parsed file, for the positions of nested values.
    """

    name: str
    key: Key | None
    value: Any
    origin: Origin
    doc: SourceDoc

    def value_at(self) -> Origin:
        """The position of this setting's value."""
        line, col = self.doc.position((self.name,))
        return Origin(self.origin.path, line, col)

    def at(self, *inner: str | int) -> Origin:
        """The position of a value inside this setting (``at(0, "cpu")``), or of the key."""
        if not inner:
            return self.origin
        line, col = self.doc.position((self.name, *inner))
        return Origin(self.origin.path, line, col)


@dataclass(frozen=True, order=True)
class ImportWarning:
    """A finding that does not stop the import, at the Twister2 key it concerns.

    Attributes:
        origin: where the key is written; None for findings about a missing key.
        key: the Twister2 key (or a job-file field for findings with no key).
        message: what differs, and what to do about it.
    """

    origin: Origin | None
    key: str
    message: str

    def __str__(self) -> str:
        """``path:line:col: key: message`` (``key: message`` without a position)."""
        if self.origin is None:
            return f"{self.key}: {self.message}"
        where = f"{self.origin.path}:{self.origin.line}:{self.origin.col}"
        return f"{where}: {self.key}: {self.message}"


@dataclass(frozen=True)
class Twister2Config:
    """A merged Twister2 configuration.

    Attributes:
        files: the files read, in load order, as the user would name them.
        settings: the merged top-level keys by name as written, in load order.
        problems: errors found while reading (unreadable files, not YAML).
    """

    files: tuple[str, ...]
    settings: dict[str, Setting]
    problems: tuple[Problem, ...] = ()


@dataclass(frozen=True)
class ImportResult:
    """The job file imported from a Twister2 configuration.

    Attributes:
        job: the job document (plain data, schema defaults not applied).
        text: the job file: YAML with a comment per field naming its Twister2 key,
            and the warning blocks as trailing comments.
        warnings: semantic differences, each at the key concerned.
        unmapped: keys with no t2gen equivalent (they stay in the job package).
        agree: keys the runtime also reads from the job package, with what must agree.
        files: the files read, in load order.
    """

    job: dict[str, Any]
    text: str
    warnings: tuple[ImportWarning, ...]
    unmapped: tuple[ImportWarning, ...]
    agree: tuple[ImportWarning, ...]
    files: tuple[str, ...]


# --------------------------------------------------------------------------------------
# Reading and merging
# --------------------------------------------------------------------------------------


def config_files(paths: Sequence[str]) -> tuple[list[str], list[Problem], list[str]]:
    """Expand import arguments into files in Twister2's load order.

    A directory holding ``common/`` or ``kubernetes/`` is a configuration root:
    ``common/`` then ``kubernetes/``. Any other directory is one configuration
    directory. A file (or ``-``) is read as it is. Arguments are merged left to right.

    Args:
        paths: files and directories as the user named them.

    Returns:
        The files, problems (a missing path), and notes about YAML files Twister2
        would not read (not in :data:`t2gen.importer.keys.LOAD_ORDER`).
    """
    files: list[str] = []
    problems: list[Problem] = []
    skipped: list[str] = []
    for raw in paths:
        if raw == "-":
            files.append(raw)
            continue
        path = Path(raw)
        if path.is_dir():
            subdirs = [path / name for name in CONF_DIRS if (path / name).is_dir()]
            found = len(files)
            for directory in subdirs or [path]:
                files += [
                    _join(raw, directory, name)
                    for name in LOAD_ORDER
                    if (directory / name).is_file()
                ]
                skipped += sorted(
                    _join(raw, directory, other.name)
                    for other in directory.iterdir()
                    if other.suffix in (".yaml", ".yml")
                    and other.name not in LOAD_ORDER
                )
            if len(files) == found:
                problems.append(
                    Problem(
                        raw,
                        0,
                        0,
                        "holds no Twister2 configuration file: give a configuration root "
                        f"(with {' or '.join(f'{d}/' for d in CONF_DIRS)}) or a directory "
                        f"holding {', '.join(LOAD_ORDER)}",
                    )
                )
        elif path.exists():
            files.append(raw)
        else:
            problems.append(Problem(raw, 0, 0, "no such file or directory"))
    return files, problems, skipped


def _join(raw: str, directory: Path, name: str) -> str:
    """A file in ``directory`` named relative to the argument ``raw`` the user gave."""
    return str(Path(raw) / directory.relative_to(Path(raw)) / name)


def _parse(path: str, text: str) -> SourceDoc | None:
    """Parse one configuration file; None for a file with no keys (only comments)."""
    if not any(
        line.strip() and not line.lstrip().startswith(("#", "---", "..."))
        for line in text.splitlines()
    ):
        return None
    try:
        return parse_config(text, path=path)
    except ConfigError as err:
        problems = [
            Problem(
                p.path,
                p.line,
                p.col,
                "a Twister2 configuration file must be a mapping of keys to values"
                if "not a mapping" in p.message
                else p.message.replace("a job file", "a configuration file").replace(
                    "job file", "configuration file"
                ),
                p.json_path,
            )
            for p in err.problems
        ]
        raise SchemaError(problems=problems) from None


def load_config_files(
    paths: Sequence[str], *, stdin: IO[bytes] | None = None
) -> Twister2Config:
    """Read and merge Twister2 configuration files and directories.

    Args:
        paths: configuration roots, directories or YAML files (``-`` for stdin).
        stdin: the stream read for ``-``.

    Returns:
        The merged configuration; reading problems are in ``problems``.
    """
    files, problems, _ = config_files(paths)
    settings: dict[str, Setting] = {}
    for path in files:
        try:
            doc = _parse(path, decode_source(path, read_source(path, stdin=stdin)))
        except (ConfigError, SchemaError) as err:
            problems += err.problems
            continue
        if doc is None:
            continue
        for name, value in doc.data.items():
            line, col = doc.position((name,), key=True)
            settings.pop(name, None)  # re-insert: the later file's order wins
            settings[name] = Setting(
                name, lookup(name), value, Origin(path, line, col), doc
            )
    return Twister2Config(tuple(files), settings, tuple(problems))


# --------------------------------------------------------------------------------------
# Values
# --------------------------------------------------------------------------------------


class _BadValue(Exception):
    """A value of the wrong type; the message says what was expected."""


def _typed(kind: Kind, value: Any) -> Any:
    """Convert a value as Twister2's TypeUtils does, refusing what it would not read.

    Raises:
        _BadValue: the value is not of ``kind``.
    """
    if kind is Kind.ANY:
        return value
    if kind is Kind.BOOL:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise _BadValue("must be true or false")
    if kind in (Kind.INT, Kind.NUMBER):
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise _BadValue(
                f"must be {'an integer' if kind is Kind.INT else 'a number'}"
            )
        try:
            number = (
                (int(value) if isinstance(value, int) else int(str(value).strip()))
                if kind is Kind.INT
                else float(value)
            )
        except ValueError:
            raise _BadValue(
                f"must be {'an integer' if kind is Kind.INT else 'a number'}"
            ) from None
        if isinstance(number, float) and not math.isfinite(number):
            raise _BadValue("must be a finite number")
        return number
    if kind is Kind.STRING:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise _BadValue("must be a string")
        return str(value)
    if kind is Kind.STRING_LIST:
        if not isinstance(value, list) or not all(
            isinstance(item, (str, int)) and not isinstance(item, bool)
            for item in value
        ):
            raise _BadValue("must be a list of strings, e.g. ['a', 'b']")
        return list(value)
    if not isinstance(value, list) or not all(isinstance(i, dict) for i in value):
        raise _BadValue(
            "must be a list of compute resources (mappings with cpu, ram, disk and instances)"
        )
    return value


def _decimal_text(number: float) -> str:
    """A float as the shortest exact decimal: 1.0 -> "1", 0.5 -> "0.5"."""
    text = format(Decimal(repr(number)).normalize(), "f")
    return text


def _gib(number: float) -> str:
    """GB (Twister2's unit, binary) as a quantity: 2.0 -> "2Gi", 0.5 -> "512Mi"."""
    mib = Decimal(repr(number)) * 1024
    if mib == mib.to_integral_value() and mib % 1024:
        return f"{int(mib)}Mi"
    return f"{_decimal_text(number)}Gi"


def _mib(megabytes: int) -> str:
    """MB (Twister2's unit, binary) as a quantity: 4096 -> "4Gi", 200 -> "200Mi"."""
    if megabytes and megabytes % 1024 == 0:
        return f"{megabytes // 1024}Gi"
    return f"{megabytes}Mi"


def _cpu(number: float) -> int | float:
    """Cores as the job file writes them: 2.0 -> 2, 0.2 -> 0.2."""
    return int(number) if float(number).is_integer() else number


_PORT_NAME_RE = re.compile(r"^(?=.*[a-z])[a-z0-9]([a-z0-9]|-(?!-))*[a-z0-9]$|^[a-z]$")


def port_name(raw: str) -> tuple[str | None, str]:
    """Convert a Twister2 additional-port name into a Kubernetes port name.

    Kubernetes port names are IANA service names: at most 15 lower-case letters,
    digits and single ``-``, with at least one letter, not starting or ending with ``-``.

    Args:
        raw: the name as configured.

    Returns:
        The converted name (None when it cannot be converted) and what was changed,
        or why it was refused ("" when the name was already valid).
    """
    if len(raw) <= 15 and _PORT_NAME_RE.match(raw):
        return raw, ""
    name = re.sub(r"-{2,}", "-", re.sub(r"[^a-z0-9-]", "-", raw.lower())).strip("-")
    if not name:
        return None, "has no letters or digits to make a port name from"
    changes = []
    if name != raw:
        changes.append("lower-cased, other characters replaced by '-'")
    if not re.search("[a-z]", name):
        name = f"port-{name}"
        changes.append("'port-' prefixed (a port name needs a letter)")
    if len(name) > 15:
        name = name[:15].rstrip("-")
        changes.append("cut to 15 characters")
    return name, "; ".join(changes)


# --------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------


@dataclass
class _Conversion:
    """The state of one conversion: the job, where each field came from, findings."""

    config: Twister2Config
    job: dict[str, Any] = field(default_factory=dict)
    comments: dict[JsonPath, str] = field(default_factory=dict)
    origins: dict[JsonPath, tuple[str, Origin | None]] = field(default_factory=dict)
    values: dict[str, tuple[Setting, Any]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    warnings: list[ImportWarning] = field(default_factory=list)
    unmapped: list[ImportWarning] = field(default_factory=list)
    agree: list[ImportWarning] = field(default_factory=list)

    def error(self, origin: Origin, key: str, message: str) -> None:
        """Record a located error."""
        self.problems.append(
            Problem(origin.path, origin.line, origin.col, message, key)
        )

    def warn(self, origin: Origin | None, key: str, message: str) -> None:
        """Record a warning."""
        self.warnings.append(ImportWarning(origin, key, message))

    def get(self, name: str) -> tuple[Setting, Any] | None:
        """The setting and typed value of a 0.8 key (or of a legacy worker key)."""
        return self.values.get(name)

    def put(
        self,
        where: JsonPath,
        value: Any,
        key: str,
        origin: Origin | None,
        comment: str = "",
    ) -> None:
        """Set a job-file field and record where it came from."""
        node: Any = self.job
        for part in where[:-1]:
            node = node.setdefault(part, {}) if isinstance(part, str) else node[part]
        node[where[-1]] = value
        self.origins[where] = (key, origin)
        place = f" ({origin})" if origin is not None else ""
        self.comments[where] = f"from {key}{place}" + (
            f": {comment}" if comment else ""
        )


def _resolve(conv: _Conversion) -> None:
    """Type-check every known key, resolve legacy aliases, and sort out the rest."""
    others: list[Setting] = []
    chosen: dict[str, Setting] = {}
    for setting in conv.config.settings.values():
        key = setting.key
        if key is None:
            if is_kubernetes_key(setting.name):
                hint = suggest(setting.name)
                conv.error(
                    setting.origin,
                    setting.name,
                    "unknown Kubernetes key"
                    + (
                        f"; did you mean {hint}?"
                        if hint
                        else "; t2gen import knows the keys of Twister2 0.8"
                    ),
                )
            else:
                others.append(setting)
            continue
        if setting.value is None:  # `key:` with no value: Twister2 reads its default
            continue
        previous = chosen.get(key.name)
        if previous is not None:
            legacy, kept = (
                (previous, setting) if setting.name == key.name else (setting, previous)
            )
            conv.warn(
                legacy.origin,
                legacy.name,
                f"legacy name of {key.name}, which is also set ({kept.origin}); "
                "Twister2 0.8 reads only the new name, so this one is ignored",
            )
            if setting.name != key.name:
                continue
        chosen[key.name] = setting
    for name, setting in chosen.items():
        key = setting.key
        assert key is not None
        try:
            value = _typed(key.kind, setting.value)
        except _BadValue as err:
            conv.error(
                setting.value_at(), setting.name, f"{err}, not {_shown(setting.value)}"
            )
            continue
        conv.values[name] = (setting, value)
    if others:
        files = sorted({s.origin.path for s in others})
        conv.unmapped.append(
            ImportWarning(
                None,
                f"{len(others)} other key(s)",
                "networking, task and data settings that do not change the manifests "
                f"(in {', '.join(files)}); they stay in the job package's configuration",
            )
        )


def _shown(value: Any) -> str:
    """A value as a message shows it."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _named(setting: Setting) -> str:
    """The key as cited: its name as written, with the 0.8 name for a legacy alias."""
    key = setting.key
    if (
        key is not None
        and setting.name != key.name
        and setting.name not in LEGACY_WORKER_KEYS
    ):
        return f"{setting.name} (0.8: {key.name})"
    return setting.name


def _field(
    conv: _Conversion,
    name: str,
    where: JsonPath,
    value: Any | None = None,
    note: str = "",
) -> bool:
    """Copy a key's value (or ``value``) to a field; False when the key is not set."""
    got = conv.get(name)
    if got is None:
        return False
    setting, typed = got
    conv.put(
        where, typed if value is None else value, _named(setting), setting.at(), note
    )
    return True


def _convert_metadata(conv: _Conversion, job_name: str | None) -> None:
    conv.put(("apiVersion",), "t2gen/v1", "t2gen", None)
    conv.put(("kind",), "Twister2Job", "t2gen", None)
    conv.comments.pop(("apiVersion",))
    conv.comments.pop(("kind",))
    if job_name is not None:
        conv.put(("metadata", "name"), job_name, _JOB_NAME_ARG, None)
    elif not _field(conv, "twister2.job.id", ("metadata", "name")):
        got = conv.get("twister2.resource.job.name")
        if got is None:
            conv.problems.append(
                _missing(
                    conv,
                    "no job ID: set twister2.job.id (or twister2.resource.job.name), or give the job name",
                )
            )
        else:
            setting, value = got
            conv.put(
                ("metadata", "name"),
                value,
                _named(setting),
                setting.at(),
                "twister2.job.id not set",
            )
            conv.warn(
                setting.origin,
                setting.name,
                "twister2.job.id is not set, so Twister2 would generate [user]-[name]-[timestamp]; "
                "t2gen names the job after the job name itself, so set twister2.job.id in the job package to match",
            )
    _field(conv, "kubernetes.namespace", ("metadata", "namespace"))


def _missing(conv: _Conversion, message: str) -> Problem:
    """A problem about a key that no file sets, reported at the last file read."""
    path = conv.config.files[-1] if conv.config.files else "-"
    return Problem(path, 0, 0, message)


def _convert_workers(conv: _Conversion) -> None:
    got = conv.get("twister2.resource.worker.compute.resources")
    legacy = {name: conv.get(name) for name in LEGACY_WORKER_KEYS}
    present = {name: pair for name, pair in legacy.items() if pair is not None}
    if got is not None:
        for name, (setting, _) in present.items():
            conv.warn(
                setting.origin,
                name,
                "legacy single-group key, ignored: Twister2 0.8 reads the compute resources list "
                f"({got[0].origin})",
            )
        _convert_compute_resources(conv, *got)
    elif present:
        _convert_legacy_group(conv, present)
    else:
        conv.problems.append(
            _missing(
                conv, "no worker groups: set twister2.resource.worker.compute.resources"
            )
        )


def _convert_compute_resources(
    conv: _Conversion, setting: Setting, items: list[Any]
) -> None:
    name = _named(setting)
    if not items:
        conv.error(
            setting.at(),
            setting.name,
            "an empty list; give at least one compute resource",
        )
        return
    for index, item in enumerate(items):
        ok = True
        values: dict[str, Any] = {}
        for field_name, spec in COMPUTE_RESOURCE_FIELDS.items():
            origin = setting.at(index, field_name)
            if field_name not in item or item[field_name] is None:
                if spec.required:
                    conv.error(
                        setting.at(index),
                        setting.name,
                        f"compute resource {index} has no {field_name}; cpu, ram, disk and instances are required",
                    )
                    ok = False
                values[field_name] = spec.default
                continue
            raw = item[field_name]
            try:
                values[field_name] = _typed(spec.kind, raw)
            except _BadValue as err:
                conv.error(
                    origin,
                    f"{setting.name}[{index}].{field_name}",
                    f"{err}, not {_shown(raw)}",
                )
                ok = False
                continue
            wanted = {
                "cpu": float,
                "disk": float,
                "ram": int,
                "instances": int,
                "workersPerPod": int,
            }
            if field_name in wanted and type(raw) is not wanted[field_name]:
                conv.warn(
                    origin,
                    f"{setting.name}[{index}].{field_name}",
                    f"Twister2 casts {field_name} to {'Double' if wanted[field_name] is float else 'Integer'}; "
                    f"write {_java_literal(values[field_name], wanted[field_name])} or twister2 submit fails with a ClassCastException",
                )
        for extra in sorted(set(item) - set(COMPUTE_RESOURCE_FIELDS)):
            hint = [
                f for f in COMPUTE_RESOURCE_FIELDS if f.lower() == str(extra).lower()
            ]
            conv.error(
                setting.at(index, extra),
                f"{setting.name}[{index}]",
                f"unknown compute resource field {extra!r}"
                + (
                    f"; did you mean {hint[0]}?"
                    if hint
                    else f"; the fields are {', '.join(COMPUTE_RESOURCE_FIELDS)}"
                ),
            )
            ok = False
        if not ok:
            continue
        per_pod = values["workersPerPod"]
        instances = values["instances"]
        base: JsonPath = ("spec", "workers", index)
        if len(conv.job.get("spec", {}).get("workers", [])) <= index:
            conv.job.setdefault("spec", {}).setdefault("workers", []).append({})
        item_key = f"{name}[{index}]"
        conv.put(
            (*base, "count"),
            instances * per_pod,
            item_key,
            setting.at(index, "instances"),
            f"instances {instances} (pods) x workersPerPod {per_pod}",
        )
        conv.put(
            (*base, "perPod"),
            per_pod,
            item_key,
            setting.at(index, "workersPerPod")
            if "workersPerPod" in item
            else setting.at(index),
            "workersPerPod" + ("" if "workersPerPod" in item else " (default 1)"),
        )
        conv.put(
            (*base, "cpu"),
            _cpu(values["cpu"]),
            item_key,
            setting.at(index, "cpu"),
            "cpu (cores)",
        )
        conv.put(
            (*base, "memory"),
            _mib(values["ram"]),
            item_key,
            setting.at(index, "ram"),
            f"ram {values['ram']} (MB)",
        )
        if values["disk"] > 0:
            conv.put(
                (*base, "volatileDisk"),
                _gib(values["disk"]),
                item_key,
                setting.at(index, "disk"),
                f"disk {_decimal_text(values['disk'])} (GB)",
            )
        if values["scalable"]:
            conv.warn(
                setting.at(index, "scalable"),
                f"{setting.name}[{index}].scalable",
                "t2gen has no scalable field: Twister2 moves the scalable compute resource to the last "
                "index, so make it the last worker group, and render with --job-object to let the job master scale it",
            )


def _java_literal(value: Any, kind: type) -> str:
    """A number written so that SnakeYAML loads it as Double (``2.0``) or Integer (``2``)."""
    if kind is float:
        return repr(float(value))
    return str(int(value))


def _convert_legacy_group(
    conv: _Conversion, present: dict[str, tuple[Setting, Any]]
) -> None:
    base: JsonPath = ("spec", "workers", 0)
    conv.job.setdefault("spec", {}).setdefault("workers", [{}])
    instances = present.get("twister2.worker.instances")
    if instances is None:
        conv.problems.append(
            _missing(
                conv,
                "no worker count: set twister2.resource.worker.compute.resources (or the legacy twister2.worker.instances)",
            )
        )
        return
    setting, count = instances
    conv.put(
        (*base, "count"), count, setting.name, setting.at(), "legacy: total workers"
    )
    for name, where, make, unit in (
        ("kubernetes.workers.per.pod", "perPod", lambda v: v, ""),
        ("twister2.worker.cpu", "cpu", _cpu, " (cores)"),
        ("twister2.worker.ram", "memory", _mib, " (MB)"),
        ("twister2.worker.volatile.disk", "volatileDisk", _gib, " (GB)"),
    ):
        pair = present.get(name)
        key = LEGACY_WORKER_KEYS[name]
        if pair is None:
            if (
                name in ("twister2.worker.cpu", "twister2.worker.ram")
                and key.default is not None
            ):
                default: Any = key.default
                conv.put(
                    (*base, where),
                    make(default),
                    name,
                    None,
                    f"not set; Twister2's default {default}{unit}",
                )
            continue
        setting, value = pair
        if where == "volatileDisk" and not value > 0:
            continue
        conv.put(
            (*base, where),
            make(value),
            setting.name,
            setting.at(),
            f"{_decimal_text(value) if isinstance(value, float) else value}{unit}",
        )
    conv.warn(
        setting.origin,
        setting.name,
        "legacy worker keys (removed in 2018): twister2.worker.instances counts workers, not pods; "
        "Twister2 0.8 reads twister2.resource.worker.compute.resources instead",
    )


def _convert_bool_field(
    conv: _Conversion, name: str, where: JsonPath, default: bool
) -> None:
    got = conv.get(name)
    if got is not None and got[1] != default:
        _field(conv, name, where)


def _convert_placement(conv: _Conversion) -> None:
    mapping = conv.get("kubernetes.worker.to.node.mapping")
    parts = {
        part: conv.get(f"twister2.resource.kubernetes.worker.mapping.{part}")
        for part in ("key", "operator", "values")
    }
    groups = len(conv.job.get("spec", {}).get("workers", []))
    scoped: list[tuple[Setting, str]] = []
    if mapping is not None and mapping[1]:
        key_pair, op_pair, values_pair = (
            parts["key"],
            parts["operator"],
            parts["values"],
        )
        if key_pair is None or op_pair is None:
            conv.error(
                mapping[0].at(),
                mapping[0].name,
                "node mapping is on but twister2.resource.kubernetes.worker.mapping.key and .operator are not both set",
            )
            return
        base: JsonPath = ("spec", "placement", "nodeAffinity", "required", 0)
        conv.job.setdefault("spec", {}).setdefault("placement", {}).setdefault(
            "nodeAffinity", {}
        )["required"] = [{}]
        conv.put((*base, "key"), key_pair[1], _named(key_pair[0]), key_pair[0].at())
        operator = op_pair[1]
        fixed = {
            o.lower(): o for o in ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")
        }.get(operator.lower(), operator)
        conv.put((*base, "operator"), fixed, _named(op_pair[0]), op_pair[0].at())
        if fixed != operator:
            conv.warn(
                op_pair[0].at(),
                op_pair[0].name,
                f"operator {operator!r} written as {fixed!r}: Twister2 passes it through verbatim and the API server accepts only {fixed!r}",
            )
        if values_pair is not None and values_pair[1]:
            conv.put(
                (*base, "values"),
                values_pair[1],
                _named(values_pair[0]),
                values_pair[0].at(),
            )
        scoped.append((mapping[0], "node mapping"))
    else:
        for pair in parts.values():
            if pair is not None:
                conv.unmapped.append(
                    ImportWarning(
                        pair[0].origin,
                        pair[0].name,
                        "ignored: kubernetes.worker.to.node.mapping is not true",
                    )
                )
        if mapping is not None and parts["key"] is None:
            pass  # mapping off and nothing to map: the default
    uniform = conv.get("kubernetes.worker.mapping.uniform")
    if uniform is not None and uniform[1] != "none":
        _field(
            conv, "kubernetes.worker.mapping.uniform", ("spec", "placement", "uniform")
        )
        scoped.append((uniform[0], "uniform mapping"))
    if groups > 1:
        for setting, what in scoped:
            conv.warn(
                setting.origin,
                setting.name,
                f"Twister2 applies {what} to compute resource 0 only; t2gen applies it to all {groups} worker groups. "
                "To keep the old behaviour, render with -o DIR and remove the affinity from "
                + (
                    "StatefulSet <job>-1"
                    if groups == 2
                    else f"StatefulSets <job>-1 to <job>-{groups - 1}"
                )
                + " with a kustomize patch",
            )


def _convert_network(conv: _Conversion) -> None:
    _field(conv, "kubernetes.worker.base.port", ("spec", "network", "basePort"))
    got = conv.get("kubernetes.worker.transport.protocol")
    if got is not None:
        _field(
            conv,
            "kubernetes.worker.transport.protocol",
            ("spec", "network", "protocol"),
            got[1].upper(),
        )
    ports = conv.get("twister2.resource.worker.additional.ports")
    if ports is not None and ports[1]:
        setting, names = ports
        converted: list[str] = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(names):
            new, why = port_name(str(raw))
            origin = setting.at(index)
            if new is None:
                conv.error(
                    origin,
                    f"{setting.name}[{index}]",
                    f"port name {raw!r} {why}; rename it",
                )
                continue
            if new in seen:
                conv.error(
                    origin,
                    f"{setting.name}[{index}]",
                    f"port name {raw!r} is {new!r} as a Kubernetes port name, like port {seen[new]} ({names[seen[new]]!r}); rename one of them",
                )
                continue
            seen[new] = index
            if why:
                conv.warn(
                    origin,
                    f"{setting.name}[{index}]",
                    f"{raw!r} is not a Kubernetes port name, written as {new!r} ({why}); the runtime reads only how many ports there are, not their names",
                )
            converted.append(new)
        if converted and len(converted) == len(names):
            conv.put(
                ("spec", "network", "additionalPorts"),
                converted,
                _named(setting),
                setting.at(),
            )
    requested = conv.get("kubernetes.node.port.service.requested")
    node_port = conv.get("kubernetes.service.node.port")
    if requested is not None and requested[1]:
        conv.put(
            ("spec", "network", "service", "type"),
            "NodePort",
            _named(requested[0]),
            requested[0].at(),
        )
        conv.warn(
            requested[0].origin,
            requested[0].name,
            "Twister2's NodePort Service replaced the headless Service; t2gen adds <job>-np beside it, so pods keep their DNS names",
        )
        if node_port is not None and node_port[1] != 0:
            _field(
                conv,
                "kubernetes.service.node.port",
                ("spec", "network", "service", "nodePort"),
            )
    elif node_port is not None:
        conv.unmapped.append(
            ImportWarning(
                node_port[0].origin,
                node_port[0].name,
                "ignored: kubernetes.node.port.service.requested is not true",
            )
        )


def _convert_mpi(conv: _Conversion) -> None:
    channel = conv.get("twister2.network.channel.class")
    secret = conv.get("kubernetes.secret.name")
    if channel is None:
        conv.put(
            ("spec", "mpi", "enabled"),
            True,
            "twister2.network.channel.class",
            None,
            "not set; Twister2's default is TWSMPIChannel",
        )
        conv.warn(
            None,
            "twister2.network.channel.class",
            "not set, and Twister2's default channel is TWSMPIChannel: imported as an OpenMPI job "
            "(mpi.enabled: true); set it to edu.iu.dsc.tws.comms.tcp.TWSTCPChannel for a regular job",
        )
        enabled = True
    else:
        enabled = channel[1] == MPI_CHANNEL
        if enabled:
            _field(
                conv,
                "twister2.network.channel.class",
                ("spec", "mpi", "enabled"),
                True,
                "TWSMPIChannel",
            )
    if secret is not None:
        if enabled:
            _field(conv, "kubernetes.secret.name", ("spec", "mpi", "sshSecretName"))
        else:
            conv.unmapped.append(
                ImportWarning(
                    secret[0].origin,
                    secret[0].name,
                    "used only by OpenMPI jobs; this one uses "
                    + str(channel[1] if channel else ""),
                )
            )
    fraction = conv.get("twister2.kubernetes.jvm.memory.fraction")
    if fraction is not None and fraction[1] != JVM_MEMORY_FRACTION:
        conv.error(
            fraction[0].at(),
            fraction[0].name,
            f"t2gen sets every worker's JVM heap to 80% of its memory, not {fraction[1]}; set 0.8 (scale the workers' ram to keep the heap) or remove the key",
        )


def _convert_job_master(conv: _Conversion) -> None:
    in_client = conv.get("twister2.job.master.runs.in.client")
    address = conv.get("twister2.job.master.provided.ip")
    if in_client is not None and in_client[1]:
        conv.put(
            ("spec", "jobMaster", "enabled"),
            False,
            _named(in_client[0]),
            in_client[0].at(),
            "runs in the client",
        )
        if address is not None and address[1]:
            _field(
                conv,
                "twister2.job.master.provided.ip",
                ("spec", "jobMaster", "address"),
            )
        else:
            conv.error(
                in_client[0].at(),
                in_client[0].name,
                "the job master runs in the client, so the workers need its address: set twister2.job.master.provided.ip",
            )
        return
    if address is not None and address[1]:
        conv.unmapped.append(
            ImportWarning(
                address[0].origin,
                address[0].name,
                "ignored: the job master runs in the cluster",
            )
        )
    cpu = conv.get("twister2.job.master.cpu")
    if cpu is not None:
        _field(
            conv, "twister2.job.master.cpu", ("spec", "jobMaster", "cpu"), _cpu(cpu[1])
        )
    ram = conv.get("twister2.job.master.ram")
    if ram is not None:
        setting, megabytes = ram
        memory = math.ceil(megabytes / JVM_MEMORY_FRACTION)
        conv.put(
            ("spec", "jobMaster", "memory"),
            _mib(memory),
            _named(setting),
            setting.at(),
            f"ram {megabytes} (MB) / 0.8 keeps the heap",
        )
        conv.warn(
            setting.at(),
            setting.name,
            f"Twister2 runs the job master's heap at ram ({megabytes} MB) and requests ram + 128Mi; t2gen's heap is "
            f"80% of jobMaster.memory, so memory is ceil({megabytes} / 0.8) = {memory}Mi to keep the heap "
            f"(use {megabytes + 128}Mi instead to keep the request)",
        )
    _field(conv, "twister2.job.master.port", ("spec", "jobMaster", "port"))
    for name, where in (
        ("twister2.job.master.volatile.volume.size", "volatileDisk"),
        ("twister2.job.master.persistent.volume.size", "persistentDisk"),
    ):
        got = conv.get(name)
        if got is not None and got[1] > 0:
            _field(
                conv,
                name,
                ("spec", "jobMaster", where),
                _gib(got[1]),
                f"{_decimal_text(got[1])} (GB)",
            )


def _convert_storage(conv: _Conversion) -> None:
    per_worker = conv.get("twister2.resource.persistent.volume.per.worker")
    claim = per_worker is not None and per_worker[1] > 0
    base: JsonPath = ("spec", "storage", "persistent")
    if claim:
        assert per_worker is not None
        _field(
            conv,
            "twister2.resource.persistent.volume.per.worker",
            (*base, "perWorker"),
            _gib(per_worker[1]),
            f"{_decimal_text(per_worker[1])} (GB)",
        )
    for name, where in (
        ("twister2.resource.kubernetes.persistent.storage.class", "storageClassName"),
        ("twister2.resource.kubernetes.storage.access.mode", "accessMode"),
    ):
        got = conv.get(name)
        if got is None:
            continue
        if claim:
            _field(conv, name, (*base, where))
        else:
            conv.unmapped.append(
                ImportWarning(
                    got[0].origin,
                    got[0].name,
                    "used only with a persistent volume, and twister2.resource.persistent.volume.per.worker is 0",
                )
            )


def _convert_package(conv: _Conversion, jar_file: str | None) -> None:
    server = conv.get("twister2.kubernetes.uploader.web.server")
    name = conv.job.get("metadata", {}).get("name")
    if server is not None and name:
        _field(
            conv,
            "twister2.kubernetes.uploader.web.server",
            ("spec", "jobPackage", "uri"),
            f"{server[1].rstrip('/')}/{name}.tar.gz",
            "<server>/<job>.tar.gz",
        )
    if jar_file is not None:
        conv.put(("spec", "jobPackage", "jarFile"), jar_file, _JAR_FILE_ARG, None)
    else:
        conv.warn(
            None,
            "spec.jobPackage.jarFile",
            "the jar comes from twister2 submit's command line, not from the configuration: give its file name, or the workers' CLASSPATH lacks it (USER_JOB_JAR_FILE)",
        )


def _list_unmapped(conv: _Conversion) -> None:
    """Keys with no job-file field, and the keys whose value must agree with the job package."""
    for name, (setting, value) in conv.values.items():
        key = setting.key
        assert key is not None
        if key.use is not Use.FIELD and name not in LEGACY_WORKER_KEYS:
            why = {
                Use.PACKAGE: "read from the job package",
                Use.CLIENT: "read by the twister2 client only",
                Use.UNUSED: "not used on Kubernetes",
            }[key.use]
            conv.unmapped.append(
                ImportWarning(
                    setting.origin,
                    setting.name,
                    f"{why}: {key.note}" if key.note else why,
                )
            )
        if key.agree:
            conv.agree.append(ImportWarning(setting.origin, setting.name, key.agree))
        if name == "twister2.checkpointing.restore.job" and value:
            conv.warn(
                setting.origin,
                setting.name,
                "t2gen always sets RESTORE_JOB=false, so the job starts afresh instead of restoring",
            )
        if name == "twister2.resource.zookeeper.server.addresses" and value:
            conv.warn(
                setting.origin,
                setting.name,
                "with ZooKeeper the runtime parses JOB_SUBMISSION_TIME, which t2gen does not set: add it to spec.env",
            )


def convert(
    config: Twister2Config,
    *,
    job_name: str | None = None,
    jar_file: str | None = None,
) -> ImportResult:
    """Convert a merged Twister2 configuration into a t2gen job file.

    Args:
        config: the merged configuration (:func:`load_config_files`).
        job_name: the job name, overriding ``twister2.job.id``.
        jar_file: the job jar's file name (``twister2 submit`` takes it on its command line).

    Returns:
        The job, its text with comments, and the warnings.

    Raises:
        SchemaError: reading problems, keys of the wrong type, unknown Kubernetes keys,
            no Kubernetes keys at all, or a job that t2gen would refuse; each problem is
            at the Twister2 key that caused it (``file:line:col``).
    """
    conv = _Conversion(config)
    conv.problems += config.problems
    _resolve(conv)
    if config.problems:  # a file could not be read: the missing keys would only mislead
        raise SchemaError(problems=conv.problems)
    relevant = [
        name
        for name, (setting, _) in conv.values.items()
        if setting.key is not None
        and setting.key.use is Use.FIELD
        and name not in ("twister2.job.id", "twister2.resource.job.name")
    ]
    if not relevant and not conv.problems:
        where = config.files[0] if config.files else "-"
        raise SchemaError(
            problems=[
                Problem(
                    where,
                    0,
                    0,
                    f"no Kubernetes keys in {', '.join(config.files) or 'the arguments'}: "
                    "import a Twister2 configuration directory holding kubernetes/resource.yaml, or files with "
                    "keys such as twister2.resource.worker.compute.resources",
                )
            ]
        )
    _convert_metadata(conv, job_name)
    image = conv.get("twister2.resource.kubernetes.docker.image")
    if image is None:
        conv.problems.append(
            _missing(conv, "no image: set twister2.resource.kubernetes.docker.image")
        )
    else:
        _field(conv, "twister2.resource.kubernetes.docker.image", ("spec", "image"))
    _field(conv, "kubernetes.image.pull.policy", ("spec", "imagePullPolicy"))
    _convert_workers(conv)
    _convert_bool_field(
        conv, "kubernetes.bind.worker.to.cpu", ("spec", "bindWorkersToCpu"), False
    )
    _convert_placement(conv)
    _convert_network(conv)
    _convert_job_master(conv)
    _convert_storage(conv)
    _convert_mpi(conv)
    _convert_package(conv, jar_file)
    _list_unmapped(conv)
    if conv.problems:
        raise SchemaError(problems=conv.problems)
    job = _ordered(conv.job)
    body = _dump(job, conv.comments)
    _check_job(conv, body)
    text = _header(config) + body + _footer(conv)
    return ImportResult(
        job=job,
        text=text,
        warnings=tuple(sorted(conv.warnings, key=_warning_order)),
        unmapped=tuple(sorted(conv.unmapped, key=_warning_order)),
        agree=tuple(sorted(conv.agree, key=_warning_order)),
        files=config.files,
    )


def _warning_order(warning: ImportWarning) -> tuple[str, int, int, str]:
    origin = warning.origin
    return (
        (origin.path, origin.line, origin.col, warning.key)
        if origin
        else ("", 0, 0, warning.key)
    )


_SPEC_ORDER = (
    "image",
    "imagePullPolicy",
    "workers",
    "bindWorkersToCpu",
    "placement",
    "network",
    "jobMaster",
    "storage",
    "mpi",
    "jobPackage",
    "env",
)


def _ordered(job: dict[str, Any]) -> dict[str, Any]:
    """The job with its sections in the job file's usual order."""
    spec = job.get("spec", {})
    out: dict[str, Any] = {
        k: job[k] for k in ("apiVersion", "kind", "metadata") if k in job
    }
    out["spec"] = {k: spec[k] for k in _SPEC_ORDER if k in spec}
    return out


def _dump(job: dict[str, Any], comments: dict[JsonPath, str]) -> str:
    """The job as YAML, a comment at the end of each field's line."""
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def build(node: Any, where: JsonPath) -> Any:
        if isinstance(node, dict):
            out = CommentedMap()
            for key, value in node.items():
                child: JsonPath = (*where, key)
                out[key] = build(value, child)
                if child in comments:
                    out.yaml_add_eol_comment(
                        "# " + comments[child], key, column=_COMMENT_COLUMN
                    )
            return out
        if isinstance(node, list):
            seq = CommentedSeq(build(item, (*where, i)) for i, item in enumerate(node))
            if not any(isinstance(item, (dict, list)) for item in node):
                seq.fa.set_flow_style()
            return seq
        return node

    yaml = YAML()
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.width = 4096
    stream = io.StringIO()
    yaml.dump(build(job, ()), stream)
    return stream.getvalue()


def _header(config: Twister2Config) -> str:
    lines = [
        "# Imported by `t2gen import` from this Twister2 configuration (later files override earlier ones):"
    ]
    lines += [f"#   {path}" for path in config.files]
    lines.append("# Each field names the Twister2 key it came from.")
    return "\n".join(lines) + "\n"


def _footer(conv: _Conversion) -> str:
    blocks = report_lines(conv.warnings, conv.unmapped, conv.agree)
    if not blocks:
        return ""
    return "\n" + "\n".join(f"# {line}" if line else "#" for line in blocks) + "\n"


def report_lines(
    warnings: Sequence[ImportWarning],
    unmapped: Sequence[ImportWarning],
    agree: Sequence[ImportWarning],
) -> list[str]:
    """The import's findings as the lines a user reads (standard error, or the job file's end).

    Args:
        warnings: semantic differences.
        unmapped: keys with no t2gen equivalent.
        agree: keys whose job-package value must agree with the job file.

    Returns:
        Lines: each warning prefixed ``warning:``, then one block of unmapped keys,
        then one block of must-agree notes.
    """
    lines = [f"warning: {w}" for w in sorted(warnings, key=_warning_order)]
    if unmapped:
        lines.append(
            "warning: keys with no t2gen equivalent (they stay in the job package's configuration):"
        )
        lines += [f"  {w}" for w in sorted(unmapped, key=_warning_order)]
    if agree:
        lines.append(
            "note: the runtime reads these from the job package; keep the package's configuration equal to the job file:"
        )
        lines += [f"  {w}" for w in sorted(agree, key=_warning_order)]
    return lines


def _check_job(conv: _Conversion, text: str) -> None:
    """Validate the imported job; raise with each problem at the Twister2 key behind it."""
    from t2gen.pipeline import validate

    try:
        validate(parse_config(text, path="<import>"))
    except SchemaError as err:
        by_path = {
            format_json_path(where): origin for where, origin in conv.origins.items()
        }
        problems = []
        for problem in err.problems:
            json_path = problem.json_path
            probe = json_path
            while probe and probe not in by_path:
                probe = re.sub(r"(\[\d+\]|\.?[^.\[]+)$", "", probe)
            key, origin = by_path.get(probe, ("", None))
            message = f"becomes {json_path or 'the job'}, which t2gen refuses: {problem.message}"
            if origin is None:
                target = _missing(conv, message)
                problems.append(
                    Problem(target.path, 0, 0, f"{key + ': ' if key else ''}{message}")
                )
            else:
                problems.append(
                    Problem(origin.path, origin.line, origin.col, message, key)
                )
        raise SchemaError(problems=problems) from None


def import_config(
    paths: Sequence[str],
    *,
    job_name: str | None = None,
    jar_file: str | None = None,
    stdin: IO[bytes] | None = None,
) -> ImportResult:
    """Read Twister2 configuration directories or files and convert them to a job file.

    Args:
        paths: configuration roots (holding ``common/`` and ``kubernetes/``),
            configuration directories, or YAML files; ``-`` reads standard input.
            Merged left to right.
        job_name: the job name, overriding ``twister2.job.id``.
        jar_file: the job jar's file name.
        stdin: the stream read for ``-``.

    Returns:
        The imported job (:class:`ImportResult`).

    Raises:
        SchemaError: every problem found, each at ``file:line:col``.
    """
    return convert(
        load_config_files(paths, stdin=stdin), job_name=job_name, jar_file=jar_file
    )
