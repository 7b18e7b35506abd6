"""``t2gen render``: validated, checked manifests to stdout or a kustomize directory."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from t2gen.cli._options import (
    FileNames,
    JobFiles,
    Namespace,
    PackageFile,
    Recursive,
    TemplateDirs,
    check_kube_version,
    complete_kube_versions,
    job_files,
    template_dirs,
)
from t2gen.cli._report import warn
from t2gen.cli.commands import run_render
from t2gen.kube.versions import DEFAULT_KUBE_VERSION, supported_range
from t2gen.pipeline.batch import MIN_JOBS

__all__ = ["EPILOG", "OutputFormat", "output_choice", "render"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen render job.yaml | kubectl apply -f -\n\n"
    "  t2gen render -f jobs/ | kubectl apply -f -   (every job file in jobs/: t2gen find jobs/)\n\n"
    "  kubectl t2gen render -f job.yaml -o json\n\n"
    "  t2gen render job.yaml --output-dir manifests && kubectl apply -k manifests\n\n"
    "  t2gen render job.yaml --namespace analytics -o json\n\n"
    "  t2gen render job.yaml --validate --kube-version 1.30\n\n"
    "  t2gen render gang-job.yaml --kube-version 1.36\n\n"
    "  t2gen render job.yaml -o helm > chart/templates/job.yaml\n\n"
    "  t2gen render job.yaml --package wordcount.tar.gz | kubectl apply -f -"
)


class OutputFormat(str, Enum):
    """Formats ``render`` can write."""

    yaml = "yaml"
    json = "json"
    helm = "helm"


def _formats(incomplete: str) -> list[str]:
    """Shell completion of ``-o``: the formats starting with what is typed."""
    return [
        item.value for item in OutputFormat if item.value.startswith(incomplete.lower())
    ]


def output_choice(value: str) -> tuple[OutputFormat, Path | None]:
    """Read ``-o VALUE``: an output format, or (deprecated) a directory that can never be one.

    kubectl's ``-o`` (and t2gen's ``plan -o``) is the output format; a
    directory is ``--output-dir``, as in ``helm template``. Before t2gen 0.x,
    ``render -o DIR`` wrote a directory, so a value that cannot be a format,
    because it names a path (holds a ``/``, starts with ``.`` or ``~``, or is an
    existing directory), still means that directory, with a warning. Any other
    value is an unknown format, never a new directory named after it.

    Returns:
        The format (yaml for a deprecated directory) and the directory or None.

    Raises:
        typer.BadParameter: neither a format nor a path (a usage error, exit code 2).
    """
    try:
        return OutputFormat(value.lower()), None
    except ValueError:
        pass
    if value.startswith("="):  # `-o=yaml`: a short option takes what follows it whole
        raise typer.BadParameter(
            f"{value!r} is not an output format: `-o{value}` gives -o the value "
            f"{value!r}; {_meant(value[1:])}",
            param_hint="'--output' / '-o'",
        )
    if value.lower().endswith((".yaml", ".yml", ".json")) or Path(value).is_file():
        raise typer.BadParameter(
            f"{value!r} is not an output format (yaml, json, helm): -o is the format, as in "
            f"kubectl; a job file is an argument or -f {value}",
            param_hint="'--output' / '-o'",
        )
    if "/" in value or value.startswith((".", "~")) or Path(value).is_dir():
        return OutputFormat.yaml, Path(value).expanduser()
    raise typer.BadParameter(
        f"{value!r} is not an output format: use yaml, json or helm (a directory is "
        f"--output-dir {value})",
        param_hint="'--output' / '-o'",
    )


def _meant(value: str) -> str:
    """What ``-o=VALUE`` should have been written as: the format, a directory or a job file."""
    if not value or value.lower() in {item.value for item in OutputFormat}:
        return f"write -o {value or 'yaml'} or --output={value or 'yaml'}"
    if value.lower().endswith((".yaml", ".yml", ".json")) or Path(value).is_file():
        return f"-o is the format, as in kubectl; a job file is an argument or -f {value} (never -o)"
    if "/" in value or value.startswith((".", "~")) or Path(value).is_dir():
        return f"-o is the format, as in kubectl; a directory is --output-dir {value} (never -o)"
    return "the formats are yaml, json and helm"


def render(
    jobs: JobFiles = None,
    filenames: FileNames = None,
    recursive: Recursive = False,
    output_dir: Annotated[
        Optional[Path],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--output-dir",
            help="Write one file per object plus kustomization.yaml into this directory "
            "(replaced atomically), as `helm template --output-dir`.",
            file_okay=False,
            metavar="DIR",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="With --output-dir: replace the directory even if it holds files t2gen did not "
            "write or that were changed by hand (they are lost).",
        ),
    ] = False,
    namespace: Namespace = None,
    output: Annotated[
        str,
        typer.Option(
            "--output",
            "-o",
            "--format",
            help="yaml: a `---` stream; json: one v1 List; helm: YAML for a chart's templates/, with `{{` "
            "escaped and no namespace (Helm places the objects). --format is an alias (no longer "
            "-f: that is a job file, as in kubectl). "
            "(`-o DIR` still writes a directory, with a deprecation warning: use --output-dir.)",
            metavar="[yaml|json|helm]",
            autocompletion=_formats,
        ),
    ] = "yaml",
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
    package: PackageFile = None,
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
            autocompletion=complete_kube_versions,
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
    output_format, deprecated_dir = output_choice(
        output
    )  # `-o job.yaml` first: it teaches -f
    jobs, deprecated_format = job_files(
        jobs, filenames, formats=tuple(item.value for item in OutputFormat)
    )
    if deprecated_format is not None:
        output = deprecated_format
        output_format, deprecated_dir = output_choice(output)
    if deprecated_dir is not None:
        if output_dir is not None:
            raise typer.BadParameter(
                f"{output!r} is not an output format (yaml, json, helm) and --output-dir is "
                "given too: use -o for the format only",
                param_hint="'--output' / '-o'",
            )
        warn(
            [
                f"-o {output} as a directory is deprecated (-o is the output format, as in "
                f"kubectl): use --output-dir {output}"
            ]
        )
        output_dir = deprecated_dir
    if force and output_dir is None:
        raise typer.BadParameter(
            "--force lets --output-dir replace a directory holding files t2gen did not "
            "write; standard output replaces nothing: drop --force, or add --output-dir DIR",
            param_hint="'--force'",
        )
    if output_dir is not None and output_format is not OutputFormat.yaml:
        raise typer.BadParameter(
            "--output-dir writes YAML files for kustomize; -o/--format applies to standard output only",
            param_hint="'--output' / '-o'",
        )
    if namespace is not None and output_format is OutputFormat.helm:
        raise typer.BadParameter(
            "-o helm leaves the namespace to Helm: use `helm install --namespace NS`",
            param_hint="'--namespace'",
        )
    code = run_render(
        jobs,
        output=output_dir,
        namespace=namespace,
        output_format=output_format.value,
        job_object=job_object,
        templates=template_dirs(templates),
        kube_validate=kube_validate,
        kube_version=kube_version,
        processes=processes,
        force=force,
        package=package,
        recursive=recursive,
    )
    if code:
        raise typer.Exit(code)
