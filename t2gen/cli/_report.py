"""How every command reports: errors to stderr with exit code 1, output as UTF-8 bytes."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import typer

from t2gen.errors import T2genError
from t2gen.problems import Warning_

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
    """
    try:
        yield
    except T2genError as err:
        _print_warnings(warnings)
        for line in err.lines():
            typer.echo(line, err=True)
        raise typer.Exit(1) from None
    _print_warnings(warnings)


def _print_warnings(warnings: Sequence[Warning_]) -> None:
    """Print each located warning on stderr, in order, once."""
    for warning in sorted(set(warnings)):
        typer.echo(str(warning), err=True)


def write_stdout(text: str) -> None:
    """Write UTF-8 text with LF line ends to stdout, whatever the locale."""
    sys.stdout.flush()
    sys.stdout.buffer.write(text.encode("utf-8"))
    sys.stdout.buffer.flush()


def warn(lines: list[str]) -> None:
    """Print each line on stderr as ``warning: <line>`` (the exit code is not changed)."""
    for line in lines:
        typer.echo(f"warning: {line}", err=True)
