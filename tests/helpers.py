"""Helpers for building job files inline and reading their problems."""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.cli.launch import fast_command
from t2gen.errors import SchemaError
from t2gen.inputs.jobfile import parse_job
from t2gen.model import Job
from t2gen.pipeline.load import validate

BASE = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata:
  name: job
spec:
  image: twister2/twister2-k8s:0.8.0
"""


def job_text(spec: str = "workers:\n  - count: 2\n", *, metadata: str = "") -> str:
    """A job file: BASE plus ``spec`` (indented under spec:) and extra metadata lines."""
    text = BASE.replace(
        "  name: job\n",
        "  name: job\n" + textwrap.indent(textwrap.dedent(metadata), "  "),
    )
    return text + textwrap.indent(textwrap.dedent(spec), "  ")


def valid_job(text: str) -> Job:
    return validate(parse_job(text, path="job.yaml"))


def problems(text: str) -> list[tuple[int, int, str, str]]:
    """Every problem of a job file as (line, col, json_path, message)."""
    with pytest.raises(SchemaError) as info:
        validate(parse_job(text, path="job.yaml"))
    return [(p.line, p.col, p.json_path, p.message) for p in info.value.problems]


def one_problem(text: str) -> tuple[tuple[int, int], str, str]:
    (found,) = problems(text)
    return (found[0], found[1]), found[2], found[3]


class ConsoleResult:
    """What a command line printed and returned: ``exit_code``, ``stdout``, ``stderr``."""

    def __init__(self, exit_code: int, stdout: str, stderr: str) -> None:
        self.exit_code, self.stdout, self.stderr = exit_code, stdout, stderr


def run_console(argv: list[str]) -> ConsoleResult:
    """Run a command line in this process as the ``t2gen`` console script chooses.

    The Typer-free start (:func:`t2gen.cli.launch.fast_command`) when it takes the
    line and ``T2GEN_NO_FAST_START`` is not set; else the Typer app.
    """
    runner = CliRunner()
    command = fast_command(argv)
    if command is None:
        result = runner.invoke(app, argv, catch_exceptions=False)
        return ConsoleResult(result.exit_code, result.stdout, result.stderr)
    with runner.isolation() as (stdout, stderr, _):
        code = command()
        return ConsoleResult(
            code, stdout.getvalue().decode(), stderr.getvalue().decode()
        )


class Completed:
    """What :func:`run_cli` ran: ``args``, ``returncode``, ``stdout``, ``stderr``.

    The attributes of :class:`subprocess.CompletedProcess` in text mode, so a test
    can swap ``subprocess.run([sys.executable, "-m", "t2gen", ...])`` for it.
    """

    def __init__(
        self, args: list[str], returncode: int, stdout: str, stderr: str
    ) -> None:
        self.args, self.returncode, self.stdout, self.stderr = (
            args,
            returncode,
            stdout,
            stderr,
        )


def _universal_newlines(text: str) -> str:
    """``text`` as ``subprocess.run(..., text=True)`` reads it: ``\\r\\n`` and ``\\r`` are ``\\n``."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def run_cli(
    argv: list[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str | None] | None = None,
    input: str | None = None,
) -> Completed:
    """Run ``t2gen ARGV`` in this process as the console script's ``main`` does.

    The same dispatch as a ``t2gen`` process (:func:`t2gen.cli.launch._run`:
    ``--version``/``--help``, the fast start, else :func:`t2gen.cli.app.main` with
    its one-line usage errors and exit codes), with ``sys.argv``, standard
    input (``input``, else empty), standard output and error, the working
    directory (``cwd``) and the variables in ``env`` (None removes one) set for
    the run and put back after. A ``SystemExit`` is the exit code, as in
    :func:`t2gen.cli.launch.main`; any other exception reaches the test (where a
    process would print a traceback and exit 1).

    Not a process: no interpreter start or shutdown, no real file descriptors,
    and module state (caches) is shared with the test. Tests whose subject is the
    process itself (closed or full streams, signals, encodings of stdio or argv,
    the entry points) run ``python -m t2gen`` or the console script instead.
    """
    from t2gen.cli.launch import _run

    runner = CliRunner()
    old_argv, old_cwd = sys.argv, Path.cwd()
    with runner.isolation(input=input, env=env) as (stdout, stderr, _):
        sys.argv = ["t2gen", *argv]
        try:
            if cwd is not None:
                os.chdir(cwd)
            try:
                code = _run(list(argv))
            except SystemExit as exit:
                if exit.code is not None and not isinstance(exit.code, int):
                    raise
                code = exit.code or 0
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            sys.argv = old_argv
            os.chdir(old_cwd)
        return Completed(
            list(argv),
            code,
            _universal_newlines(stdout.getvalue().decode()),
            _universal_newlines(stderr.getvalue().decode("utf-8", "backslashreplace")),
        )
