"""``t2gen validate``: check job files, print a one-line summary of each valid job."""

from __future__ import annotations

import typer

from t2gen.cli._options import JobFiles, Namespace
from t2gen.cli._report import reporting
from t2gen.problems import Warning_

__all__ = ["EPILOG", "validate"]

EPILOG = (
    "Examples:\n\n  t2gen validate examples/*.yaml\n\n  cat job.yaml | t2gen validate -"
)


def validate(jobs: JobFiles, namespace: Namespace = None) -> None:
    """Check job files against the schema and Twister2's rules.

    Every problem of every file is printed as `file:line:col: field: message`;
    exit code 1 if there is any.
    """
    warnings: list[Warning_] = []
    with reporting(warnings):
        from t2gen.pipeline import validate_files

        for job in validate_files(jobs, namespace=namespace, warnings=warnings):
            workers, pods = job.spec.total_workers, job.spec.total_pods
            typer.echo(
                f"{job.source}: valid: job {job.name}, {workers} worker{'s' if workers != 1 else ''} "
                f"in {pods} pod{'s' if pods != 1 else ''}"
            )
