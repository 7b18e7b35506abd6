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
from tests.package.cases import jar_bytes

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


def _end_to_end_blocks() -> list[str]:
    """The ``sh`` blocks of "Running a job end to end", in order."""
    text = README.read_text("utf-8")
    section = text[text.index("## Running a job end to end") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"^```sh\n(.*?)^```", section, re.M | re.S)


def test_the_end_to_end_steps_run_up_to_the_push(tmp_path: Path) -> None:
    """A new user's way from a fresh clone: package, and the push step the README shows is printed."""
    text = README.read_text("utf-8")
    section = text[text.index("## Running a job end to end") :]
    section = section[: section.index("\n## ", 1)]
    assert "kubectl cp" not in section
    package, push = _end_to_end_blocks()[:2]
    assert "--oci" in package
    shutil.copy(ROOT / "examples" / "wordcount.yaml", tmp_path / "job.yaml")
    (tmp_path / "wordcount.jar").write_bytes(jar_bytes())
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    result = subprocess.run(
        ["bash", "-e", "-c", package],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "wordcount-oci" / "index.json").is_file()
    # the README's push is the printed one, with the user's repository in place
    printed = [
        line.strip()
        for line in result.stderr.splitlines()
        if line.strip().startswith("oras cp")
    ]
    (command,) = push.strip().splitlines()
    assert [
        p.replace("REGISTRY/REPOSITORY", "registry.example.com/analytics/wordcount")
        for p in printed
    ] == [command]
    assert "oci: REGISTRY/REPOSITORY@sha256:" in result.stderr


def test_no_kubectl_cp_outside_the_methods_that_need_it() -> None:
    """``kubectl cp`` appears only where Twister2's own delivery (its uploader, ``client-to-pods``) is described."""
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text("utf-8")
        for found in re.finditer(r"kubectl cp", text):
            near = text[max(0, found.start() - 600) : found.end() + 200]
            assert re.search(r"client-to-pods|uploader|webserver", near), (
                page.name,
                text[found.start() - 80 : found.end() + 80],
            )
