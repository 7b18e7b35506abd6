"""Options and arguments several commands share, with the checks Typer runs on them.

Kubernetes' name rules come from :mod:`t2gen.kube.validators`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.kube.validators import is_dns1123_label
from t2gen.kube.versions import (
    DEFAULT_KUBE_VERSION,
    KubeVersionError,
    format_version,
    require_kube_version,
    supported_range,
)

__all__ = [
    "KUBE_VERSION_HELP",
    "SETTINGS",
    "JobFiles",
    "KubeVersion",
    "Namespace",
    "PackageFile",
    "TemplateDirs",
    "check_kube_version",
    "check_namespace",
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


def template_dirs(templates: list[Path] | None) -> list[str]:
    """``--templates`` directories as the user named them (shown in ``# Source:`` lines)."""
    return [str(path) for path in templates or ()]


JobFiles = Annotated[
    list[str],
    typer.Argument(
        help="Job files (YAML or JSON); `-` reads one from standard input.",
        metavar="JOB...",
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
    ),
]
TemplateDirs = Annotated[
    Optional[list[Path]],  # noqa: UP045 - Typer reads the annotation at run time
    typer.Option(
        "--templates",
        "-t",
        help="A directory of templates laid over the built-in ones: a file with a built-in "
        "template's name replaces it, a new file adds objects. Repeatable; the first wins.",
        file_okay=False,
        metavar="DIR",
    ),
]
