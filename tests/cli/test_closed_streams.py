"""A closed standard input or output is one clear line and exit 1, never a traceback (issue 23, item 5)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

JOB = "examples/wordcount.yaml"

CASES = [
    (f"render {JOB} >&-", "t2gen: cannot write to standard output: standard output is closed"),
    (f"validate {JOB} >&-", "t2gen: cannot write to standard output: standard output is closed"),
    (f"plan {JOB} >&-", "t2gen: cannot write to standard output: standard output is closed"),
    ("--version >&-", "t2gen: cannot write to standard output: standard output is closed"),
    ("validate - <&-", "-: cannot read: standard input is closed"),
    ("render - <&-", "-: cannot read: standard input is closed"),
    ("check - <&-", "-: cannot read: standard input is closed"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "message"), CASES, ids=[c[0] for c in CASES])
def test_a_closed_stream_is_one_line_and_exit_1(line: str, message: str) -> None:
    done = subprocess.run(
        ["sh", "-c", f'"{sys.executable}" -m t2gen {line}'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert (done.returncode, done.stderr) == (1, message + "\n")
