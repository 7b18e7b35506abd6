"""``t2gen validate``: check job files, print a one-line summary of each valid job."""

from __future__ import annotations

import typer

from t2gen.cli._options import (
    FileNames,
    JobFiles,
    Namespace,
    PackageFile,
    Recursive,
    job_files,
)
from t2gen.cli.commands import run_validate

__all__ = ["EPILOG", "validate"]

EPILOG = (
    "Examples:\n\n  t2gen validate examples/*.yaml\n\n  cat job.yaml | t2gen validate -\n\n"
    "  kubectl t2gen validate -f job.yaml\n\n"
    "  t2gen validate -R -f jobs/\n\n"
    "  t2gen validate job.yaml --package wordcount.tar.gz"
)


def validate(
    jobs: JobFiles = None,
    filenames: FileNames = None,
    recursive: Recursive = False,
    namespace: Namespace = None,
    package: PackageFile = None,
) -> None:
    """Check job files against the schema and Twister2's rules.

    Every problem of every file is printed as `file:line:col: field: message`;
    exit code 1 if there is any.
    """
    files, _ = job_files(jobs, filenames)
    code = run_validate(files, namespace, package=package, recursive=recursive)
    if code:
        raise typer.Exit(code)
