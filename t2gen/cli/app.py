"""The ``t2gen`` command line: the Typer app, one module per command.

Each command lives in its own module (``validate``, ``render``, ``check``,
``find``, ``plan``, ``status``, ``wait``, ``import_`` (the ``import`` command), ``schema``, ``init``,
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
from typing import Annotated, NoReturn

import typer

from t2gen.cli import (
    check,
    explain,
    find,
    import_,
    init,
    logs,
    package,
    plan,
    render,
    schema,
    secret,
    status,
    templates,
    validate,
    wait,
)
from t2gen.cli._options import SETTINGS

__all__ = ["app", "main"]

app = typer.Typer(
    name="t2gen",
    help="Render the Kubernetes manifests of a Twister2 job from one small, validated job file.\n\n"
    "Start with `t2gen init > job.yaml`, then `t2gen render job.yaml | kubectl apply -f -`.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,  # rich in sys.excepthook hangs on a huge COLUMNS
    pretty_exceptions_show_locals=False,
    context_settings=SETTINGS,
)
app.command(epilog=validate.EPILOG)(validate.validate)
app.command(epilog=render.EPILOG)(render.render)
app.command(epilog=check.EPILOG)(check.check)
app.command(epilog=find.EPILOG)(find.find)
app.command(epilog=plan.EPILOG)(plan.plan)
app.command(epilog=status.EPILOG)(status.status)
app.command(epilog=wait.EPILOG)(wait.wait)
app.command(epilog=logs.EPILOG)(logs.logs)
app.command(epilog=package.EPILOG)(package.package)
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
    A file error no command reported (``--install-completion`` when
    ``~/.bashrc`` is a directory, a name too long for the file system) is one
    line and exit 1. Help asked for by no arguments (``t2gen``,
    ``kubectl-t2gen``, ``t2gen templates``) is a usage error: it goes to
    stderr, exit 2. ``COLUMNS`` and ``LINES`` are capped (:func:`_cap_terminal_size`).
    """
    if sys.stdout is None or sys.stdin is None:  # started with >&- or <&-
        from t2gen.cli.commands import guard_closed_streams

        guard_closed_streams()
    _cap_terminal_size()
    import contextlib
    import os

    arguments = sys.argv[1:]
    # Typer's rich help prints itself on stdout as the error is made: send it to stderr.
    # (Not when a shell asks for completions, ``_T2GEN_COMPLETE``: they are on stdout.)
    completing = any(name.endswith("_COMPLETE") for name in os.environ)
    bare = not completing and (
        not arguments or arguments in (["templates"], ["secret"])
    )
    try:
        with (
            contextlib.redirect_stdout(sys.stderr) if bare else contextlib.nullcontext()
        ):
            result = app(standalone_mode=False, prog_name="t2gen")
    except typer.TyperException as err:  # every Click error: Typer 0.27+ vendors Click
        _report_click_error(err)
    except typer.Abort:
        typer.echo("t2gen: aborted", err=True)
        sys.exit(1)
    except OSError as err:
        from t2gen.cli.commands import os_error_exit

        sys.exit(os_error_exit(err))
    sys.exit(result if isinstance(result, int) else 0)


_MAX_COLUMNS = 1000
"""The widest ``COLUMNS`` (and tallest ``LINES``) the help is laid out for:
rich lays out a line per column, so ``COLUMNS=100000000`` hangs and
``COLUMNS=99999999999999999999`` overflows (``OverflowError``)."""


def _cap_terminal_size() -> None:
    """Cap ``COLUMNS`` and ``LINES`` at :data:`_MAX_COLUMNS` for rich (which reads them when it prints)."""
    import os

    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and (len(value) > 6 or int(value) > _MAX_COLUMNS):
            os.environ[name] = str(_MAX_COLUMNS)


def _report_click_error(err: typer.TyperException) -> NoReturn:
    """One line on stderr for a Click error, then its exit code, through Typer's public API.

    Typer 0.27+ vendors Click (``typer._click``, private), whose exceptions all
    derive from the public :class:`typer.TyperException`; Click tells them apart
    by their public parts: a usage error (``UsageError`` and its kin: an unknown
    option, a missing argument, a bad value) has exit code 2 and the ``ctx`` of
    its command, and ``NoArgsIsHelpError`` (Click's public name for it), whose
    message is that command's help, is printed as it is (click ``exceptions.py``).
    """
    from t2gen.errors import inert, one_line

    message = err.format_message()
    context = getattr(err, "ctx", None)
    if type(err).__name__ == "NoArgsIsHelpError":  # no arguments: the command's help
        typer.echo(inert(message), err=True)
        sys.exit(err.exit_code)
    if err.exit_code == _USAGE_ERROR:
        command = context.command_path if context is not None else "t2gen"
        typer.echo(
            one_line(f"{command}: {message.rstrip('.')} (see '{command} --help')"),
            err=True,
        )
    else:
        typer.echo(one_line(f"t2gen: {message.rstrip('.')}"), err=True)
    sys.exit(err.exit_code)


_USAGE_ERROR = 2
"""Click's ``UsageError.exit_code``, t2gen's exit code for a usage error."""
