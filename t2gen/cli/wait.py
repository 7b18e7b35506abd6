"""``t2gen wait``: wait until a job has ended, for CI: exit 0 when it succeeded, non-zero with the reason."""

from __future__ import annotations

from typing import Annotated

import typer

from t2gen.cli._options import (
    Context,
    Interval,
    Kubeconfig,
    Namespace,
    check_duration,
)
from t2gen.cli._report import reporting, write_stdout
from t2gen.cli.commands import echo
from t2gen.errors import Warning_

__all__ = ["EPILOG", "wait"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen render job.yaml | kubectl apply -f - && t2gen wait job.yaml --timeout 2h\n\n"
    "  t2gen wait job.yaml --context prod -n analytics --timeout 30m --interval 30s"
)


def wait(
    job: Annotated[
        str,
        typer.Argument(
            help="The job file the objects were rendered from; `-` reads it from standard input.",
            metavar="JOB",
        ),
    ],
    timeout: Annotated[
        str,
        typer.Option(
            "--timeout",
            help="How long to wait at most: seconds, or 90s, 30m, 2h.",
            metavar="DURATION",
        ),
    ] = "1h",
    interval: Interval = "10s",
    namespace: Namespace = None,
    kubeconfig: Kubeconfig = None,
    context: Context = None,
) -> None:
    """Wait until a job has ended, by running `kubectl get` every --interval.

    Prints `<job>: <phase>: <reason>` once the job has ended. Exit code:
    0 the job succeeded; 3 it failed (the supervisor's reason is printed:
    spec.lifecycle.supervise keeps it); 4 it ended, and no supervisor kept
    whether it succeeded; 5 the timeout passed first (the last phase seen
    is printed); 1 invalid input or a failed kubectl; 2 usage error. A job
    not found yet is waited for.
    """
    seconds, every = check_duration(timeout), check_duration(interval)
    assert seconds is not None and every is not None
    warnings: list[Warning_] = []
    with reporting(warnings):
        from t2gen.errors import inert
        from t2gen.pipeline.status import wait_for_job
        from t2gen.status.fetch import Kubectl

        outcome = wait_for_job(
            job,
            kubectl=Kubectl(kubeconfig=kubeconfig, context=context),
            timeout=seconds,
            interval=every,
            namespace=namespace,
            warnings=warnings,
        )
        if outcome.exit_code == 0:
            write_stdout(inert(outcome.message + "\n"))
        else:
            echo(inert(outcome.message), err=True)
    if outcome.exit_code:
        raise typer.Exit(outcome.exit_code)
