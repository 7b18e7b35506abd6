"""How the other commands report: errors to stderr with exit code 1, output as UTF-8 bytes.

``validate``, ``render`` and ``check`` report through :func:`t2gen.cli.commands.run`,
which this shares its printing with.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import typer

from t2gen.cli.commands import echo, print_warnings, warn
from t2gen.errors import T2genError, UsageError, Warning_, one_line
from t2gen.output import write_stdout

__all__ = ["reporting", "warn", "write_stdout"]


@contextmanager
def reporting(warnings: Sequence[Warning_] = ()) -> Iterator[None]:
    """Turn a :class:`T2genError` into its lines on stderr and exit code 1 (never a traceback).

    Args:
        warnings: a list the body fills with located warnings; they are printed
            on stderr, one a line, before any error lines, whether or not the
            body fails (a warning alone leaves the exit code at 0).

    Raises:
        typer.Exit: with code 1, when the body raised a T2genError.
        typer.BadParameter: the body raised a :class:`~t2gen.errors.UsageError`
            (exit code 2, with the usage line).
    """
    try:
        yield
    except UsageError as err:
        print_warnings(warnings)
        raise typer.BadParameter(str(err), param_hint=err.param_hint) from None
    except T2genError as err:
        print_warnings(warnings)
        for line in err.lines():
            echo(one_line(line), err=True)
        raise typer.Exit(1) from None
    print_warnings(warnings)
