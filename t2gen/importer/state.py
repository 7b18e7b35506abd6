"""The state of one conversion, and the first step: type-check and resolve every key.

A :class:`Conversion` holds the job being built, where each field came from (for
the comments and for locating t2gen's own refusals), and the findings. The
modules :mod:`.job`, :mod:`.workers`, :mod:`.placement`, :mod:`.network`,
:mod:`.job_master` and :mod:`.storage` each fill one part of the job from it.
"""

from __future__ import annotations

from typing import Any

from t2gen.errors import Problem
from t2gen.importer.keys import (
    LEGACY_WORKER_KEYS,
    MPI_CHANNEL,
    is_kubernetes_key,
    suggest,
)
from t2gen.importer.model import ImportWarning, Origin, Setting, Twister2Config
from t2gen.importer.values import BadValue, decimal_text, gib, shown, typed
from t2gen.inputs.yaml import JsonPath

__all__ = ["Conversion", "resolve"]


class Conversion:
    """The state of one conversion: the job, where each field came from, findings.

    A plain class: it changes as the conversion goes (records are immutable).

    Attributes:
        config: the merged configuration.
        job: the job document being built (plain data).
        comments: the comment of each field, by its path in the job.
        origins: the Twister2 key and position behind each field.
        values: the typed value of each known key that is set, by its 0.8 name
            (or its legacy worker-key name), with its setting.
        problems: errors; the import fails when there are any.
        warnings: semantic differences.
        unmapped: keys with no job-file field.
        agree: keys whose job-package value must agree with the job file.
    """

    def __init__(self, config: Twister2Config) -> None:
        self.config = config
        self.job: dict[str, Any] = {}
        self.comments: dict[JsonPath, str] = {}
        self.origins: dict[JsonPath, tuple[str, Origin | None]] = {}
        self.values: dict[str, tuple[Setting, Any]] = {}
        self.problems: list[Problem] = []
        self.warnings: list[ImportWarning] = []
        self.unmapped: list[ImportWarning] = []
        self.agree: list[ImportWarning] = []

    def error(self, origin: Origin, key: str, message: str) -> None:
        """Record a located error."""
        self.problems.append(
            Problem(origin.path, origin.line, origin.col, message, key)
        )

    def missing(self, message: str, *keys: str) -> Problem:
        """A problem about a key that no file sets, where the user would set it.

        At the first of ``keys`` that a file shows commented out (Twister2 ships
        the compute resources and the job name so, in ``conf/kubernetes/
        resource.yaml``), saying which lines to uncomment; otherwise at the last
        ``resource.yaml`` read (the file Twister2 ships such keys in), else at
        the last file read.

        Args:
            message: what is missing and how to supply it.
            keys: the keys that would supply it, most likely first.

        Returns:
            The problem.
        """
        for key in keys:
            example = self.config.commented.get(key)
            if example is not None:
                origin = example.origin
                return Problem(
                    origin.path,
                    origin.line,
                    origin.col,
                    f"{message} ({key} is commented out here, {example.lines()})",
                    key,
                )
        files = self.config.files
        resource = [f for f in files if f.replace("\\", "/").endswith("resource.yaml")]
        path = (resource or list(files) or ["-"])[-1]
        return Problem(path, 0, 0, message, keys[0] if keys else "")

    def commented_at(self, key: str) -> Origin | None:
        """Where a file shows ``key`` commented out (a warning about the unset key goes there), or None."""
        example = self.config.commented.get(key)
        return None if example is None else example.origin

    def warn(self, origin: Origin | None, key: str, message: str) -> None:
        """Record a warning."""
        self.warnings.append(ImportWarning(origin, key, message))

    def skip(self, setting: Setting, why: str) -> None:
        """List a set key as having no effect on the job file, saying why."""
        self.unmapped.append(ImportWarning(setting.origin, setting.name, why))

    def get(self, name: str) -> tuple[Setting, Any] | None:
        """The setting and typed value of a 0.8 key (or of a legacy worker key)."""
        return self.values.get(name)

    @property
    def is_mpi(self) -> bool:
        """Whether the job is an OpenMPI job: the channel class is TWSMPIChannel, or unset (its default)."""
        channel = self.get("twister2.network.channel.class")
        return channel is None or channel[1] == MPI_CHANNEL

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

    def field(
        self, name: str, where: JsonPath, value: Any | None = None, note: str = ""
    ) -> bool:
        """Copy a key's value (or ``value``) to a field; False when the key is not set."""
        got = self.get(name)
        if got is None:
            return False
        setting, typed_value = got
        self.put(
            where,
            typed_value if value is None else value,
            named(setting),
            setting.at(),
            note,
        )
        return True

    def disk_field(self, name: str, where: JsonPath) -> bool:
        """Copy a size in GB to a quantity field when it is above 0 (0 means none)."""
        got = self.get(name)
        if got is None or not got[1] > 0:
            return False
        return self.field(name, where, gib(got[1]), f"{decimal_text(got[1])} (GB)")


def named(setting: Setting) -> str:
    """The key as cited: its name as written, with the 0.8 name for a legacy alias."""
    key = setting.key
    if (
        key is not None
        and setting.name != key.name
        and setting.name not in LEGACY_WORKER_KEYS
    ):
        return f"{setting.name} (0.8: {key.name})"
    return setting.name


def resolve(conv: Conversion) -> None:
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
            value = typed(key.kind, setting.value)
        except BadValue as err:
            conv.error(
                setting.value_at(), setting.name, f"{err}, not {shown(setting.value)}"
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
