"""The README's commands (issue 24, item 7): every ``$ `` line of its ``console`` blocks runs.

The blocks run in order in one scratch directory holding a copy of ``examples/``, with
t2gen and the bundled kubectl on PATH; a line's exit code must be 0, or the number in a
trailing ``# exit N``; lines printed under a command (up to the next ``$``) must be exactly
its output. ``make`` lines are checked with ``make -n`` (``make test`` is this suite).
Commands that act on a cluster (the ``sh`` blocks of "Running a job end to end") are not
run here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

README = ROOT / "README.md"


def _console_commands() -> list[tuple[str, list[str]]]:
    """``(command, expected output lines)`` for each ``$`` line of the console blocks."""
    commands: list[tuple[str, list[str]]] = []
    for block in re.findall(
        r"^```console\n(.*?)^```", README.read_text("utf-8"), re.M | re.S
    ):
        for line in block.splitlines():
            if line.startswith("$ "):
                commands.append((line[2:], []))
            elif commands:
                commands[-1][1].append(line)
    return commands


def test_the_readme_is_a_short_user_guide() -> None:
    size = len(README.read_bytes())
    assert size <= 20_500, f"README.md is {size} bytes; move detail to docs/"
    for link in re.findall(r"\]\((docs/[^)#]+)", README.read_text("utf-8")):
        assert (ROOT / link).exists(), link


def test_every_console_command_of_the_readme_runs(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONIOENCODING": "utf-8",
    }
    commands = _console_commands()
    assert len(commands) >= 15
    for command, expected in commands:
        code = re.search(r"#\s*exit (\d+)\s*$", command)
        if command.startswith("make "):
            target = command.split()[1]
            result = subprocess.run(
                ["make", "-n", "-C", str(ROOT), target],
                capture_output=True,
                text=True,
                encoding="utf-8",
                check=False,
            )
            assert result.returncode == 0, (command, result.stderr)
            continue
        result = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            timeout=120,
        )
        assert result.returncode == (int(code[1]) if code else 0), (
            command,
            result.stderr,
        )
        if expected:
            assert (result.stdout + result.stderr).splitlines() == expected, command
