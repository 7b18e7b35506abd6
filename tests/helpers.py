"""Helpers for building job files inline and reading their problems."""

from __future__ import annotations

import textwrap

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
