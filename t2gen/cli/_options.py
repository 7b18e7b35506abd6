"""Options and arguments several commands share, with the checks Typer runs on them.

Kubernetes' name rules come from :mod:`t2gen.kube.validators`.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.cli.commands import warn
from t2gen.kube.validators import is_dns1123_label
from t2gen.kube.versions import (
    DEFAULT_KUBE_VERSION,
    KubeVersionError,
    format_version,
    require_kube_version,
    supported_kube_versions,
    supported_range,
)

__all__ = [
    "KUBE_VERSION_HELP",
    "SETTINGS",
    "FileNames",
    "JobFiles",
    "KubeVersion",
    "Namespace",
    "PackageFile",
    "Recursive",
    "TemplateDirs",
    "check_kube_version",
    "check_namespace",
    "complete_kube_versions",
    "job_files",
    "template_dirs",
]

SETTINGS = {"help_option_names": ["-h", "--help"]}
"""Click context settings of every command: ``-h`` works like ``--help``."""

KUBE_VERSION_HELP = (
    "Kubernetes version whose OpenAPI schemas to check against "
    f"({supported_range()}; default {DEFAULT_KUBE_VERSION})."
)
"""The ``--kube-version`` help; the range comes from :mod:`t2gen.kube.versions`, so
``--help`` needs no import of the optional kubernetes-validate."""


def check_namespace(value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """Check ``--namespace`` is a DNS-1123 label, as Kubernetes requires of namespace names.

    Raises:
        typer.BadParameter: it is not (a usage error, exit code 2).
    """
    if value is not None and not is_dns1123_label(value):
        raise typer.BadParameter(
            f"{value!r} is not a namespace name: use at most 63 lower-case letters, digits and '-', "
            "starting and ending with a letter or digit"
        )
    return value


def check_kube_version(value: Optional[str]) -> Optional[str]:  # noqa: UP045 - Typer reads the annotation at run time
    """Check ``--kube-version`` is a supported Kubernetes version; return it as ``1.36``.

    The range is :func:`t2gen.kube.versions.supported_range`, the same with or
    without the optional kubernetes-validate, so every command exits the same way.

    Raises:
        typer.BadParameter: a malformed or unsupported version (a usage error,
            exit code 2), naming the supported range.
    """
    if value is None:
        return value
    try:
        return format_version(require_kube_version(value))
    except KubeVersionError as err:
        raise typer.BadParameter(str(err)) from None


def complete_kube_versions(incomplete: str) -> list[str]:
    """Shell completion of ``--kube-version``: the supported versions, newest first."""
    return [
        version
        for version in reversed(supported_kube_versions())
        if version.startswith(incomplete.removeprefix("v"))
    ]


def job_files(
    arguments: list[str] | None,
    filenames: list[str] | None,
    *,
    formats: tuple[str, ...] = (),
    noun: str = "job file",
) -> tuple[list[str], str | None]:
    """The files a command reads: its arguments, then every ``-f FILE``, as kubectl's ``-f``.

    Until t2gen 0.2, ``-f`` was the short form of ``--format``. For one release
    a ``-f`` value that is one of ``formats`` (``-f json``) is still read as
    the output format, with a warning that names ``-o``; any other value is a
    file. A file with a format's name is ``-f ./json``.

    Args:
        arguments: the positional files (None when none were given).
        filenames: the values of ``-f``/``--filename`` in order (None when none).
        formats: the command's output formats, lower case; empty when the
            command has no ``-o``.
        noun: what a file is, for the message when there is none.

    Returns:
        The files, positional ones first, and the deprecated ``-f`` format (the
        last one given) or None.

    Raises:
        typer.BadParameter: no file at all (a usage error, exit code 2).
    """
    files = list(arguments or ())
    deprecated: str | None = None
    for value in filenames or ():
        if value.lower() in formats:
            deprecated = value.lower()
            _warn_deprecated_format(value)
        else:
            files.append(value)
    if not files:
        raise typer.BadParameter(
            f"give a {noun}: `FILE` or `-f FILE` (`-` reads standard input)",
            param_hint="'JOB...'" if noun == "job file" else "'FILE...'",
        )
    return files, deprecated


def _warn_deprecated_format(value: str) -> None:
    """Teach the change of ``-f``: it is a file now; the format is ``-o``."""
    warn(
        [
            f"-f {value} as the output format is deprecated and stops working in t2gen 0.3: "
            f"-f is a file, as in kubectl (`-f job.yaml`); use -o {value.lower()} "
            f"(a file named {value}: -f ./{value})"
        ]
    )


def check_template_dirs(value: list[Path] | None) -> list[Path] | None:
    """At most :data:`~t2gen.render.overlays.MAX_OVERLAY_DIRS` ``--templates`` (a usage error, before any is read).

    Raises:
        typer.BadParameter: more directories than that (exit code 2).
    """
    from t2gen.render.overlays import MAX_OVERLAY_DIRS

    if value is not None and len(value) > MAX_OVERLAY_DIRS:
        raise typer.BadParameter(
            f"given {len(value):,} times; at most {MAX_OVERLAY_DIRS} template directories "
            "are read: put the templates in fewer directories"
        )
    return value


def template_dirs(templates: list[Path] | None) -> list[str]:
    """``--templates`` directories as the user named them (shown in ``# Source:`` lines)."""
    return [str(path) for path in templates or ()]


JobFiles = Annotated[
    Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Argument(
        help="Job files (YAML or JSON), or directories whose job files to read (see "
        "`t2gen find`); `-` reads one from standard input. Or -f FILE.",
        metavar="JOB...",
        show_default=False,
    ),
]
FileNames = Annotated[
    Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--filename",
        "-f",
        help="A job file, or a directory whose job files to read, as kubectl's -f "
        "(repeatable; `-` reads standard input).",
        metavar="FILE",
        show_default=False,
    ),
]
Namespace = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--namespace",
        "-n",
        callback=check_namespace,
        help="Namespace for every object; overrides metadata.namespace of the job file.",
    ),
]
PackageFile = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--package",
        help="The job's package (<job>.tar.gz from `t2gen package` or `twister2 submit`): "
        "refused unless it agrees with the job file (job ID, compute resources, namespace, "
        "jar, ports); sets jobPackage.fileSize and sizes the memory volume from it. One job file only.",
        metavar="PKG",
    ),
]
KubeVersion = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--kube-version",
        callback=check_kube_version,
        help=KUBE_VERSION_HELP,
        metavar="VERSION",
        autocompletion=complete_kube_versions,
    ),
]
TemplateDirs = Annotated[
    Optional[list[Path]],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--templates",
        "-t",
        callback=check_template_dirs,
        help="A directory of templates laid over the built-in ones: a file with a built-in "
        "template's name replaces it, a new file adds objects. Repeatable (at most 16); "
        "the first wins.",
        file_okay=False,
        metavar="DIR",
    ),
]


def check_duration(value: Optional[str]) -> Optional[float]:  # noqa: UP045 - Typer reads the annotation at run time
    """``--timeout``/``--interval`` as seconds: ``90``, ``90s``, ``15m``, ``2h`` (as kubectl's durations).

    Raises:
        typer.BadParameter: anything else, or not positive (a usage error, exit code 2).
    """
    if value is None:
        return None
    found = re.fullmatch(r"([0-9]{1,9}(?:\.[0-9]{1,3})?)(s|m|h)?", value.strip())
    if found is None or float(found[1]) <= 0:
        raise typer.BadParameter(
            f"{value!r} is not a duration: write seconds, or a number with s, m or h (90s, 15m, 2h)"
        )
    return float(found[1]) * {"s": 1, "m": 60, "h": 3600}[found[2] or "s"]


Kubeconfig = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--kubeconfig",
        help="kubectl's --kubeconfig, for the kubectl t2gen runs (default: kubectl's own).",
        metavar="FILE",
    ),
]
Context = Annotated[
    Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--context",
        help="kubectl's --context, for the kubectl t2gen runs (default: the current context).",
        metavar="NAME",
    ),
]
Interval = Annotated[
    str,
    typer.Option(
        "--interval",
        help="How often kubectl is run: seconds, or 10s, 1m.",
        metavar="DURATION",
    ),
]


Recursive = Annotated[
    bool,
    typer.Option(
        "--recursive",
        "-R",
        help="Also read the job files of a directory's subdirectories, as kubectl's -R.",
    ),
]
