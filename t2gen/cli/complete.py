"""``kubectl_complete-t2gen``: kubectl's shell completion of ``kubectl t2gen ...``.

kubectl (1.26+) completes a plugin's arguments by running
``kubectl_complete-<plugin>`` from ``PATH`` with the words typed after the
plugin's name, the last one being the word to complete (``""`` for a new
word). It reads one choice a line, and an optional last line ``:<n>`` that is
a Cobra ``ShellCompDirective`` (kubernetes ``staging/src/k8s.io/kubectl/pkg/cmd/plugin/plugin_completion.go``,
``pluginCompletion`` and ``getPluginCompletions``; Cobra ``completions.go``:
``ShellCompDirectiveDefault = 0``, ``ShellCompDirectiveNoFileComp = 4``).

The choices are the ones ``t2gen``'s own completion gives (Typer's, the
commands' ``autocompletion`` functions), asked through Click's documented
completion protocol: ``_T2GEN_COMPLETE=complete_bash`` with ``COMP_WORDS`` and
``COMP_CWORD``, as the bash script of ``t2gen --show-completion`` sets them.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import sys
from collections.abc import Iterator, Sequence

__all__ = ["completions", "kubectl_main"]

NO_FILE_COMPLETION = 4
"""Cobra's ``ShellCompDirectiveNoFileComp``: the choices are all there is."""

DEFAULT_COMPLETION = 0
"""Cobra's ``ShellCompDirectiveDefault``: the shell completes file names."""


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """Set environment variables for the block, then restore them."""
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def completions(words: Sequence[str]) -> list[str]:
    """The choices ``t2gen`` completes for a command line.

    Args:
        words: the words after ``t2gen``; the last is the word being completed
            (``""`` for a new one), as kubectl passes them.

    Returns:
        The choices, in t2gen's order; empty where t2gen offers none (a file
        argument, which the shell completes itself).
    """
    from t2gen.cli.app import app

    typed = ["t2gen", *words] if words else ["t2gen", ""]
    output = io.StringIO()
    with (
        _environment(
            {
                "_T2GEN_COMPLETE": "complete_bash",
                "COMP_WORDS": shlex.join(typed),
                "COMP_CWORD": str(len(typed) - 1),
            }
        ),
        contextlib.redirect_stdout(output),
        contextlib.suppress(SystemExit),
    ):
        app(prog_name="t2gen")
    return [line for line in output.getvalue().splitlines() if line]


def kubectl_main() -> None:
    """Print the choices for ``sys.argv[1:]`` and the Cobra directive, for kubectl.

    A choice list ends with ``:4`` (no file names); no choice ends with ``:0``,
    so the shell completes a file name, which is what a job file argument wants.
    """
    choices = completions(sys.argv[1:])
    directive = NO_FILE_COMPLETION if choices else DEFAULT_COMPLETION
    sys.stdout.write("".join(f"{choice}\n" for choice in choices) + f":{directive}\n")
    sys.stdout.flush()
