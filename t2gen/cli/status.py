"""``t2gen status``: a job's phase, its workers by worker ID and its leftovers, from kubectl or a saved ``kubectl get``."""

from __future__ import annotations

from enum import Enum
from typing import Annotated, Optional

import typer

from t2gen.cli._options import (
    Context,
    Interval,
    Kubeconfig,
    Namespace,
    check_duration,
)
from t2gen.cli._report import reporting, write_stdout
from t2gen.errors import Warning_

__all__ = ["EPILOG", "StatusFormat", "status"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen status job.yaml --live   # runs kubectl get itself\n\n"
    "  t2gen status job.yaml --watch  # again every --interval, until the job has ended\n\n"
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
            "`t2gen status JOB` prints. Without it (and --live or --watch), that command is printed.",
            metavar="FILE",
        ),
    ] = None,
    live: Annotated[
        bool,
        typer.Option(
            "--live",
            help="Run that kubectl get (kubectl on PATH) and say what it shows.",
        ),
    ] = False,
    watch: Annotated[
        bool,
        typer.Option(
            "--watch",
            "-w",
            help="As --live, again every --interval, printing each change, until the job "
            "has ended (Succeeded, Failed or Ended).",
        ),
    ] = False,
    interval: Interval = "5s",
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
    kubeconfig: Kubeconfig = None,
    context: Context = None,
) -> None:
    """Say what happened to a job: its phase, each worker's state by worker ID, and what is left over.

    Reads the objects labelled app.kubernetes.io/instance=<job>: with
    --live (once) or --watch (until the job has ended) by running `kubectl
    get` itself, with --cluster from a saved `kubectl get -o json`. Phases:
    Pending (with the scheduler's reason per pod), Running, Restarting
    (restart counts and the last exit), Suspended, Ending (the job master
    cleaned up; the supervisor records the outcome), Succeeded or Failed
    (from the supervisor Job of spec.lifecycle.supervise, with its
    reason), Ended (the job master cleaned up, and no supervisor kept
    the outcome), NotFound. After the end, the objects left over and the
    command that deletes them. Exit code by phase: 0 Succeeded, Pending,
    Running, Restarting, Suspended or Ending; 3 Failed; 4 Ended or NotFound; 1
    invalid input or a failed kubectl; 2 usage error. `t2gen wait` waits
    for the end.
    """
    if cluster is not None and (live or watch):
        raise typer.BadParameter(
            "reads a saved state; --live and --watch read the cluster",
            param_hint="'--cluster'",
        )
    seconds = check_duration(interval)
    assert seconds is not None
    warnings: list[Warning_] = []
    code = 0
    with reporting(warnings):
        # what the cluster says, never a terminal's command; JSON stays JSON
        from t2gen.errors import inert, inert_json
        from t2gen.pipeline.status import status_report, watch_status
        from t2gen.status.fetch import Kubectl

        escape = inert_json if output_format is StatusFormat.json else inert
        kubectl = (
            Kubectl(kubeconfig=kubeconfig, context=context) if live or watch else None
        )
        json_output = output_format is StatusFormat.json
        if watch and kubectl is not None:
            for outcome in watch_status(
                job,
                kubectl=kubectl,
                interval=seconds,
                namespace=namespace,
                json_output=json_output,
                warnings=warnings,
            ):
                write_stdout(escape(outcome.text))
                code = outcome.exit_code
        else:
            outcome = status_report(
                job,
                cluster=cluster,
                namespace=namespace,
                json_output=json_output,
                kubectl=kubectl,
                warnings=warnings,
            )
            write_stdout(escape(outcome.text))
            code = outcome.exit_code
            if (
                not outcome.phase
            ):  # only the command to save the state: say what comes next
                import shlex

                from t2gen.cli.commands import echo

                echo(
                    inert(
                        f"then: t2gen status {shlex.quote(job)} --cluster state.json "
                        "(or --live: t2gen runs that kubectl itself)"
                    ),
                    err=True,
                )
    if code:
        raise typer.Exit(code)
