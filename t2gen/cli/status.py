"""``t2gen status``: a job's phase, its workers by worker ID and its leftovers, from a saved ``kubectl get``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from t2gen.cli._options import Namespace
from t2gen.cli._report import reporting, write_stdout
from t2gen.errors import Warning_

__all__ = ["EPILOG", "StatusFormat", "status"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen status job.yaml          # prints the kubectl get to run\n\n"
    "  kubectl get pods,statefulsets,services,configmaps,persistentvolumeclaims,serviceaccounts,"
    "roles,rolebindings,jobs -n twister2 -l app.kubernetes.io/instance=wordcount -o json > state.json\n\n"
    "  t2gen status job.yaml --cluster state.json"
)


class StatusFormat(str, Enum):
    """Formats ``status`` can write."""

    table = "table"
    json = "json"


def status(
    job: Annotated[
        str,
        typer.Argument(
            help="The job file the objects were rendered from; `-` reads it from standard input.",
            metavar="JOB",
        ),
    ],
    cluster: Annotated[
        Optional[str],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--cluster",
            help="The job's objects in the cluster: the output of the `kubectl get ... -o json` that "
            "`t2gen status JOB` prints. Without it, that command is printed.",
            metavar="FILE",
        ),
    ] = None,
    output_format: Annotated[
        StatusFormat,
        typer.Option(
            "--output",
            "-o",
            "--format",
            help="table: for people; json: for scripts.",
            case_sensitive=False,
        ),
    ] = StatusFormat.table,
    namespace: Namespace = None,
) -> None:
    """Say what happened to a job: its phase, each worker's state by worker ID, and what is left over.

    Offline, like `plan --nodes`: reads a saved `kubectl get -o json` of
    the objects labelled app.kubernetes.io/instance=<job>. Phases:
    Pending (with the scheduler's reason per pod), Running, Restarting
    (restart counts and the last exit), Suspended, Succeeded or Failed
    (from the supervisor Job of spec.lifecycle.supervise, with its
    reason), Ended (the job master cleaned up, and no supervisor kept
    the outcome), NotFound. After the end, the objects left over and the
    command that deletes them. Exit code 0 when the state was read, 1
    for invalid input.
    """
    warnings: list[Warning_] = []
    with reporting(warnings):
        from t2gen.pipeline.status import status_report

        # what the cluster says, never a terminal's command; JSON stays JSON
        from t2gen.plan.text import inert, inert_json

        escape = inert_json if output_format is StatusFormat.json else inert
        write_stdout(
            escape(
                status_report(
                    job,
                    cluster=cluster,
                    namespace=namespace,
                    json_output=output_format is StatusFormat.json,
                    warnings=warnings,
                )
            )
        )
