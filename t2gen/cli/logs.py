"""``t2gen logs``: print the log files ``spec.logs`` kept, of every worker and the job master."""

from __future__ import annotations

import sys
from typing import Annotated, Optional

import typer

from t2gen.cli._options import Context, Kubeconfig, Namespace, check_duration
from t2gen.cli._report import reporting
from t2gen.errors import Warning_

__all__ = ["EPILOG", "logs"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen logs job.yaml                 # the job master's log, then every worker's\n\n"
    "  t2gen logs job.yaml --worker 3      # worker 3's (worker IDs as Twister2 numbers them)\n\n"
    "  t2gen logs job.yaml --job-master --context prod -n analytics"
)


def logs(
    job: Annotated[
        str,
        typer.Argument(
            help="The job file the objects were rendered from; `-` reads it from standard input.",
            metavar="JOB",
        ),
    ],
    worker: Annotated[
        Optional[int],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--worker",
            help="Only this worker's log, by worker ID (0 to the job's workers - 1).",
            min=0,
            metavar="ID",
        ),
    ] = None,
    job_master: Annotated[
        bool,
        typer.Option("--job-master", help="Only the job master's log."),
    ] = False,
    timeout: Annotated[
        str,
        typer.Option(
            "--timeout",
            help="How long to wait for the reader pod to start: seconds, or 90s, 5m.",
            metavar="DURATION",
        ),
    ] = "5m",
    namespace: Namespace = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
) -> None:
    """Print the log files that spec.logs kept: every worker's and the job master's, even after the job.

    Twister2 writes each worker's log to worker-<ID>.log.0 and the job
    master's to jobMaster.log.0 on the claim <job>-logs, which the job
    master's clean-up leaves. This runs kubectl: it applies a pod
    <job>-logs-reader that mounts the claim read-only (the job's image),
    waits until it is Ready, prints the files with kubectl exec, and
    deletes the pod. Each file is headed `==> NAME <==` when several are
    printed. Exit code: 0 printed; 1 invalid input, no spec.logs, no such
    file, or a failed kubectl; 2 usage error.
    """
    if worker is not None and job_master:
        raise typer.BadParameter(
            "--worker and --job-master each choose one log: give one",
            param_hint="'--job-master'",
        )
    seconds = check_duration(timeout)
    assert seconds is not None
    warnings: list[Warning_] = []
    with reporting(warnings):
        from t2gen.pipeline.logs import job_logs
        from t2gen.status.fetch import Kubectl

        sys.stdout.flush()
        job_logs(
            job,
            sys.stdout.buffer,
            kubectl=Kubectl(kubeconfig=kubeconfig, context=context),
            worker=worker,
            job_master=job_master,
            timeout=max(1, int(seconds)),
            namespace=namespace,
            warnings=warnings,
        )
        sys.stdout.buffer.flush()
