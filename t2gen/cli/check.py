"""``t2gen check``: any manifests against Kubernetes' schemas and t2gen's semantic checks."""

from __future__ import annotations

from typing import Annotated

import typer

from t2gen.cli._options import KubeVersion
from t2gen.cli.commands import run_check

__all__ = ["EPILOG", "check"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen check manifests.yaml\n\n"
    "  kubectl kustomize overlays/prod | t2gen check - --kube-version 1.30"
)


def check(
    manifests: Annotated[
        list[str],
        typer.Argument(
            help="Manifest files (a YAML stream or JSON); `-` reads standard input.",
            metavar="FILE...",
        ),
    ],
    kube_version: KubeVersion = None,
) -> None:
    """Check any manifests: Kubernetes' OpenAPI schemas (strict) plus t2gen's semantic checks.

    Every error of every object is printed as `file:line: Kind/name: field:
    message`, where line is the object's first line; exit code 1 if there is
    any. Objects of kinds without a schema (custom resources) are named in a
    warning and not checked; a kind of Kubernetes' own API groups that the
    version does not serve is an error.
    """
    code = run_check(manifests, kube_version)
    if code:
        raise typer.Exit(code)
