"""``t2gen find``: the job files among files and directories, one path a line."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from t2gen.cli._options import Recursive
from t2gen.cli.commands import run_find

__all__ = ["EPILOG", "find"]

EPILOG = (
    "Examples:\n\n"
    "  t2gen find\n\n"
    "  t2gen find -R jobs/\n\n"
    "  t2gen render -f jobs/ -R | kubectl apply -f -   (what find prints, rendered)\n\n"
    "  kubectl t2gen find -f app/"
)


def find(
    paths: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Argument(
            help="Files and directories to look in (default: the current directory). "
            "Or -f PATH.",
            metavar="PATH...",
            show_default=False,
        ),
    ] = None,
    filenames: Annotated[
        Optional[list[str]],  # noqa: UP045 - Typer reads the annotation at run time
        typer.Option(
            "--filename",
            "-f",
            help="A file or directory, as kubectl's -f (repeatable).",
            metavar="PATH",
            show_default=False,
        ),
    ] = None,
    recursive: Recursive = False,
) -> None:
    """Print the job files among files and directories, one path a line.

    A job file is one whose kind is Twister2Job, however it is written (a
    comment after it, quoted, JSON), read as `render` reads it; one that
    `render` cannot read but whose YAML names that kind is printed too, so
    that `render` says what is wrong with it. A directory's .yaml, .yml and
    .json files are looked at, as kubectl's -f DIR reads them; its
    subdirectories too with -R. Finding none is no error (exit code 0, a note
    on stderr), as `kubectl get` says "No resources found". `render -f DIR`
    renders exactly the files find prints for DIR.
    """
    given = [*(paths or ()), *(filenames or ())] or ["."]
    if "-" in given:
        raise typer.BadParameter(
            "find looks at files and directories; to check standard input, "
            "use `t2gen validate -`",
            param_hint="'PATH...'",
        )
    code = run_find(given, recursive=recursive)
    if code:
        raise typer.Exit(code)
