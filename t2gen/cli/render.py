"""``t2gen render``: validated, checked manifests to stdout or a kustomize directory."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.cli._options import (
    JobFiles,
    Namespace,
    TemplateDirs,
    check_kube_version,
    template_dirs,
)
from t2gen.cli.commands import run_render
from t2gen.kube.versions import DEFAULT_KUBE_VERSION, supported_range
from t2gen.pipeline.batch import MIN_JOBS

__all__ = ["EPILOG", "OutputFormat", "render"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen render job.yaml | kubectl apply -f -\n\n"
    "  t2gen render job.yaml -o manifests/ && kubectl apply -k manifests/\n\n"
    "  t2gen render job.yaml --namespace analytics --format json\n\n"
    "  t2gen render job.yaml --validate --kube-version 1.30\n\n"
    "  t2gen render gang-job.yaml --kube-version 1.36\n\n"
    "  t2gen render job.yaml --format helm > chart/templates/job.yaml"
)


class OutputFormat(str, Enum):
    """Formats ``render`` can write."""

    yaml = "yaml"
    json = "json"
    helm = "helm"


def render(
    jobs: JobFiles,
    output: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output-dir",
            "-o",
            help="Write one file per object plus kustomization.yaml into this directory (replaced atomically).",
            file_okay=False,
        ),
    ] = None,
    namespace: Namespace = None,
    output_format: Annotated[
        OutputFormat,
        typer.Option(
            "--format",
            "-f",
            help="yaml: a `---` stream; json: one v1 List; helm: YAML for a chart's templates/, with `{{` "
            "escaped and no namespace (Helm places the objects).",
            case_sensitive=False,
        ),
    ] = OutputFormat.yaml,
    job_object: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--job-object",
            help="The job's serialised Twister2 Job object (<job>.job of its package); "
            "stored as TWISTER2_JOB_OBJECT in the ConfigMap. One job file only.",
            metavar="FILE",
        ),
    ] = None,
    templates: TemplateDirs = None,
    kube_validate: Annotated[
        bool,
        typer.Option(
            "--validate",
            help="Also check every object against Kubernetes' OpenAPI schemas (strict, offline; "
            "needs kubernetes-validate: the t2gen\\[validate] extra).",
        ),
    ] = False,
    kube_version: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--kube-version",
            callback=check_kube_version,
            help="Kubernetes version to render for (the Workload API of `gang: kubernetes` differs "
            "between 1.35, 1.36 and 1.37) and, with --validate, whose OpenAPI schemas to check "
            f"against ({supported_range()}; default {DEFAULT_KUBE_VERSION}).",
            metavar="VERSION",
        ),
    ] = None,
    processes: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Processes to render many job files with: at most N, and at most one per usable "
            f"CPU (default: one per usable CPU from {MIN_JOBS} job files up; 1: one process). "
            "The output is the same either way.",
            metavar="N",
        ),
    ] = None,
) -> None:
    """Render the manifests of one or more jobs.

    Nothing is written unless every job is valid and every object passes
    t2gen's checks, so `| kubectl apply -f -` never applies half a job.

    With bindWorkersToCpu the workers get Guaranteed QoS with whole cores; they
    own those cores only on nodes whose kubelet runs the static CPU manager
    policy (--cpu-manager-policy=static with a CPU reservation).
    """
    if output is not None and output_format is not OutputFormat.yaml:
        raise typer.BadParameter(
            "-o writes YAML files for kustomize; --format applies to standard output only",
            param_hint="'--format'",
        )
    if namespace is not None and output_format is OutputFormat.helm:
        raise typer.BadParameter(
            "--format helm leaves the namespace to Helm: use `helm install --namespace NS`",
            param_hint="'--namespace'",
        )
    code = run_render(
        jobs,
        output=output,
        namespace=namespace,
        output_format=output_format.value,
        job_object=job_object,
        templates=template_dirs(templates),
        kube_validate=kube_validate,
        kube_version=kube_version,
        processes=processes,
    )
    if code:
        raise typer.Exit(code)
