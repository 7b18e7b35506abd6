"""``t2gen check``: any manifests against Kubernetes' schemas and t2gen's semantic checks."""

from __future__ import annotations

from typing import Annotated

import typer

from t2gen.cli._options import KubeVersion
from t2gen.cli._report import reporting, warn

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

    Every error of every object is printed as `Kind/name: field: message`; exit
    code 1 if there is any. Objects of kinds without a schema (custom resources)
    are named in a warning and not checked.
    """
    with reporting():
        from t2gen.kube.openapi import schema_versions
        from t2gen.pipeline import check_manifests

        count, warnings = check_manifests(manifests, kube_version)
        version = kube_version or schema_versions()[-1]
        warn(warnings)
        checked = count - len(warnings)
        summary = f"{checked} object{'s' if checked != 1 else ''} valid for Kubernetes {version} (strict)"
        if warnings:
            summary += f"; {len(warnings)} not checked (no schema)"
        typer.echo(summary)
