"""``t2gen status``: a job's phase, its workers by worker ID and its leftovers, from a saved ``kubectl get``."""

from __future__ import annotations

import io
import json
import sys
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
        from t2gen.pipeline.job import generate, validate_files
        from t2gen.plan.status import (
            collect_command,
            job_status,
            parse_objects,
            status_text,
        )
        from t2gen.plan.typedread import MAX_LIST_BYTES
        from t2gen.textfile import decode_source, read_source

        stdin = io.BytesIO(sys.stdin.buffer.read()) if job == "-" else None
        (loaded,) = validate_files(
            [job], namespace=namespace, stdin=stdin, warnings=warnings
        )
        if stdin is not None:
            stdin.seek(0)  # read twice: the job, then its render
        rendered = [d.obj for d in generate([job], namespace=namespace, stdin=stdin)]
        group_kinds = sorted(
            {
                f"{o['kind'].lower()}s.{o['apiVersion'].rpartition('/')[0]}"
                for o in rendered
                if "/" in o["apiVersion"]
                and o["apiVersion"].rpartition("/")[0].startswith("scheduling.")
            }
        )
        if cluster is None:
            write_stdout(collect_command(loaded, group_kinds) + " > state.json\n")
            return
        raw = read_source(
            cluster,
            limit=MAX_LIST_BYTES,
            what="file",
            advice="a job's objects are far less",
        )
        objects = parse_objects(decode_source(cluster, raw, what="file"), cluster)
        found = job_status(loaded, rendered, objects)
        from t2gen.plan.text import (
            inert,
        )  # what the cluster says, never a terminal's command

        if output_format is StatusFormat.json:
            write_stdout(inert(json.dumps(found, indent=2, ensure_ascii=False) + "\n"))
        else:
            write_stdout(inert(status_text(found)))
