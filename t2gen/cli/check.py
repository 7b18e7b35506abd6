"""``t2gen check``: any manifests against Kubernetes' schemas and t2gen's semantic checks."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from t2gen.cli._options import KubeVersion, job_files
from t2gen.cli.commands import run_check

__all__ = ["EPILOG", "check"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen check manifests.yaml\n\n"
    "  t2gen check --strict -f manifests.yaml\n\n"
    "  kubectl kustomize overlays/prod | t2gen check - --kube-version 1.30"
)


def check(
    manifests: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Argument(
            help="Manifest files (a YAML stream or JSON); `-` reads standard input. Or -f FILE.",
            metavar="FILE...",
            show_default=False,
        ),
    ] = None,
    filenames: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--filename",
            "-f",
            help="A manifest file, as kubectl's -f (repeatable; `-` reads standard input).",
            metavar="FILE",
            show_default=False,
        ),
    ] = None,
    kube_version: KubeVersion = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Hold every object to t2gen's own standard (canonical quantities, disjoint "
            "StatefulSet selectors), as t2gen's objects (app.kubernetes.io/managed-by: t2gen) "
            "always are; without it those findings on others' objects are notes.",
        ),
    ] = False,
) -> None:
    """Check any manifests: Kubernetes' OpenAPI schemas (strict) plus t2gen's semantic checks.

    Every error of every object is printed as `file:line: Kind/name: field:
    message`, where line is the object's first line; exit code 1 if there is
    any. Objects of kinds without a schema (custom resources) are named in a
    warning and not checked; a kind of Kubernetes' own API groups that the
    version does not serve is an error. Kubernetes' rules apply to every
    object; t2gen's stricter ones to t2gen's objects, and to all with --strict.
    """
    files, _ = job_files(manifests, filenames, noun="manifest file")
    code = run_check(files, kube_version, strict=strict)
    if code:
        raise typer.Exit(code)
