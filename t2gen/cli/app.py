"""The ``t2gen`` command line: the Typer app, one module per command.

Each command lives in its own module (``validate``, ``render``, ``check``,
``plan``, ``import_`` (the ``import`` command), ``schema``, ``init``,
``templates``, ``secret``); this one only collects them
in the order ``--help`` lists them, and runs the app with t2gen's usage-error
format. Shared options are in ``_options``, error reporting in ``_report``.
Heavy libraries (Jinja2, jsonschema, ruamel.yaml, PyYAML, cryptography) are
imported inside the commands that need them, so building the app stays cheap;
``t2gen --help`` and ``--version`` do not even build it (:mod:`t2gen.cli.launch`).
Exit codes: 0 ok, 1 invalid input (or a failed check), 2 usage error.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from t2gen.cli import (
    check,
    explain,
    import_,
    init,
    plan,
    render,
    schema,
    secret,
    templates,
    validate,
)
from t2gen.cli._options import SETTINGS

__all__ = ["app", "main"]

app = typer.Typer(
    name="t2gen",
    help="Render the Kubernetes manifests of a Twister2 job from one small, validated job file.\n\n"
    "Start with `t2gen init > job.yaml`, then `t2gen render job.yaml | kubectl apply -f -`.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_show_locals=False,
    context_settings=SETTINGS,
)
app.command(epilog=validate.EPILOG)(validate.validate)
app.command(epilog=render.EPILOG)(render.render)
app.command(epilog=check.EPILOG)(check.check)
app.command(epilog=plan.EPILOG)(plan.plan)
app.command(name="import", epilog=import_.EPILOG)(import_.import_)
app.command(epilog=schema.EPILOG)(schema.schema)
app.command(epilog=init.EPILOG)(init.init)
app.command(epilog=explain.EPILOG)(explain.explain)
app.add_typer(templates.app, name="templates")
app.add_typer(secret.app, name="secret")


def _version(value: bool) -> None:
    """Print the version and exit (an eager ``--version`` option)."""
    if value:
        from importlib.metadata import version

        from t2gen.cli.commands import echo

        echo(f"t2gen {version('t2gen')}")  # whole or an error, as all output
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_version,
            is_eager=True,
            help="Print t2gen's version and exit.",
        ),
    ] = False,
) -> None:
    """Render the Kubernetes manifests of a Twister2 job from one small, validated job file."""


def main() -> None:
    """Run the command line (the ``t2gen`` script and ``python -m t2gen``).

    Usage errors (an unknown option, a missing argument, a bad value) are one
    line on stderr naming the command, then exit code 2, instead of Click's
    usage block; a closed stdout (``t2gen render job.yaml | head``) ends quietly,
    and any other failure to write it (``> /dev/full``) is one line and exit 1.
    """
    from typer import _click  # typer 0.27-0.28 vendor Click here

    if sys.stdout is None or sys.stdin is None:  # started with >&- or <&-
        from t2gen.cli.commands import guard_closed_streams

        guard_closed_streams()

    try:
        result = app(standalone_mode=False, prog_name="t2gen")
    except _click.exceptions.NoArgsIsHelpError as err:
        typer.echo(err.format_message(), err=True)
        sys.exit(err.exit_code)
    except _click.exceptions.UsageError as err:
        command = err.ctx.command_path if err.ctx is not None else "t2gen"
        typer.echo(
            f"{command}: {err.format_message().rstrip('.')} (see '{command} --help')",
            err=True,
        )
        sys.exit(err.exit_code)
    except _click.exceptions.ClickException as err:
        typer.echo(f"t2gen: {err.format_message().rstrip('.')}", err=True)
        sys.exit(err.exit_code)
    except typer.Abort:
        typer.echo("t2gen: aborted", err=True)
        sys.exit(1)
    except OSError as err:
        if err.filename is not None:  # t2gen reports its own files' errors itself
            raise
        from t2gen.cli.commands import stdout_failed

        sys.exit(stdout_failed(err))
    sys.exit(result if isinstance(result, int) else 0)
