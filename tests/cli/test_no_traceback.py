"""Command lines that ended in a traceback or misled (issue 41): one line, the right stream and exit code."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.helpers import Completed, run_cli

BIN = Path(sys.executable).parent
JOB = str(ROOT / "examples/wordcount.yaml")
BASH = shutil.which("bash") or "/bin/bash"


def _run(
    *argv: str, cwd: Path, script: str = "t2gen", **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [script if os.sep in script else str(BIN / script), *argv],
        cwd=cwd,
        env={**os.environ, "T2GEN_NO_FAST_START": "1", **env},
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=300,  # a guard against a hang, never a measure of speed
        check=False,
    )


def _in_process(*argv: str, cwd: Path, **env: str) -> Completed:
    """``t2gen ARGV`` run in this process (:func:`tests.helpers.run_cli`), as ``_run`` sets it.

    For messages and exit codes; what belongs to the process (``COLUMNS``, the
    scripts, ``--install-completion`` finding its shell) runs in ``_run``.
    """
    return run_cli(list(argv), cwd=cwd, env={"T2GEN_NO_FAST_START": "1", **env})


@pytest.mark.parametrize("columns", ["100000000", "99999999999999999999"])
def test_a_huge_columns_value_still_prints_the_help(
    tmp_path: Path, columns: str
) -> None:
    result = _run("render", "--help", cwd=tmp_path, COLUMNS=columns, LINES=columns)
    assert (result.returncode, result.stderr) == (0, "")
    assert "--output-dir" in result.stdout


@pytest.mark.parametrize(
    ("script", "argv"),
    [("t2gen", ()), ("kubectl-t2gen", ()), ("t2gen", ("templates",))],
)
def test_help_for_no_arguments_is_a_usage_error_on_stderr(
    tmp_path: Path, script: str, argv: tuple[str, ...]
) -> None:
    result = (
        _in_process(*argv, cwd=tmp_path)
        if script == "t2gen"
        else _run(*argv, cwd=tmp_path, script=script)
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert "Usage:" in result.stderr


def test_a_templates_directory_name_too_long_is_one_line(tmp_path: Path) -> None:
    result = _in_process("render", JOB, "--templates", "a" * 300, cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.endswith(": File name too long\n"), result.stderr
    assert len(result.stderr.splitlines()) == 1


@pytest.mark.parametrize(
    ("make", "where", "reason"),
    [
        (
            lambda home: (home / ".bash_completions").write_text(""),
            ".bash_completions",
            "File exists",
        ),
        (lambda home: (home / ".bashrc").mkdir(), ".bashrc", "Is a directory"),
    ],
)
def test_install_completion_into_a_broken_home_is_one_line(
    tmp_path: Path, make: object, where: str, reason: str
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    make(home)  # type: ignore[operator]
    # Typer asks shellingham which shell runs t2gen, from the parent processes: under
    # `make test` the nearest is make's sh ("Shell sh is not supported"). So bash
    # starts t2gen here, and stays its parent; without shellingham the option
    # takes the shell's name instead.
    shell = "" if importlib.util.find_spec("shellingham") else " bash"
    command = f"{shlex.quote(str(BIN / 't2gen'))} --install-completion{shell}; exit $?"
    result = _run(
        "-c", command, cwd=tmp_path, script=BASH, HOME=str(home), SHELL="/bin/bash"
    )
    assert (result.returncode, result.stderr) == (
        1,
        f"t2gen: {home / where}: {reason}\n",
    ), result.stdout


def test_an_equals_sign_after_a_short_option_says_how_to_write_it(
    tmp_path: Path,
) -> None:
    result = _in_process("render", JOB, "-o=json", cwd=tmp_path)
    process = _run("render", JOB, "-o=json", cwd=tmp_path)  # the script: the same
    assert (process.returncode, process.stdout, process.stderr) == (
        result.returncode,
        result.stdout,
        result.stderr,
    )
    assert (result.returncode, result.stdout) == (2, "")
    assert "write -o json or --output=json" in result.stderr
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("value", "advice"),
    [
        (".", "a directory is --output-dir . (never -o)"),
        ("out/", "a directory is --output-dir out/ (never -o)"),
        ("job.yaml", "a job file is an argument or -f job.yaml (never -o)"),
        ("toml", "the formats are yaml, json and helm"),
    ],
)
def test_an_equals_sign_before_what_is_no_format_says_what_it_is(
    tmp_path: Path, value: str, advice: str
) -> None:
    # `-o=.` once wrote into a directory named "=." (or, for `-o=/`, tried to
    # replace one, "Device or resource busy"); then it advised `-o .`, no format either.
    result = _in_process("render", JOB, f"-o={value}", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert f"`-o={value}` gives -o the value '={value}'; " in result.stderr
    assert advice in result.stderr, result.stderr
    assert list(tmp_path.iterdir()) == []
