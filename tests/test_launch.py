"""The console script's Typer-free path (t2gen/cli/launch.py) answers exactly as the Typer app does.

Every input case and golden command line runs through both; stdout, stderr and
the exit code must be the same bytes. Command lines outside the narrow fast
shape (``render|validate|check FILE...``, ``render`` also with ``--validate``)
must go to Typer.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.cli.launch import fast_command
from tests.conftest import GOLDEN, INPUT_CASES, ROOT

runner = CliRunner()


def _command_lines() -> list[list[str]]:
    lines: list[list[str]] = []
    for case in INPUT_CASES:
        (config,) = [p for p in case.iterdir() if p.stem == "config"]
        file = config.relative_to(ROOT).as_posix()
        args = case / "args"
        texts = (
            [args.read_text(encoding="utf-8").strip()]
            if args.is_file()
            else ["validate {file}", "render {file}"]
        )
        where = case.relative_to(ROOT).as_posix()
        lines += [
            [p.replace("{file}", file).replace("{case}", where) for p in shlex.split(t)]
            for t in texts
        ]
    for case in sorted(GOLDEN.iterdir()):
        args = case / "args"
        if args.is_file() and "{out}" not in args.read_text(encoding="utf-8"):
            text = args.read_text(encoding="utf-8").strip()
            lines.append(
                [
                    p.replace("{case}", f"tests/golden/{case.name}")
                    for p in shlex.split(text)
                ]
            )
    examples = sorted(
        p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").glob("*.yaml")
    )
    rendered = sorted(
        p.relative_to(ROOT).as_posix()
        for p in GOLDEN.glob("*/expected.stdout")
        if not p.parent.name.startswith("invalid-")
    )
    lines += [["validate", *examples], ["render", *examples], ["check", "-"]]
    # render --validate, the flag anywhere: every example (valid) and every job-file
    # input case (invalid jobs: the same messages), through both paths
    lines += [["render", "--validate", *examples], ["render", *examples, "--validate"]]
    lines += [
        [*line[:2], "--validate", *line[2:]]
        for line in lines
        if line[0] == "render" and len(line) == 2
    ]
    lines += [["render", example, "--validate", example] for example in examples[:3]]
    lines += [["check", path] for path in rendered] + [["check", *rendered]]
    return lines


LINES = _command_lines()


def _fast(argv: list[str]) -> tuple[int, str, str]:
    command = fast_command(argv)
    assert command is not None
    with runner.isolation() as (stdout, stderr, _):
        code = command()
        return code, stdout.getvalue().decode(), stderr.getvalue().decode()


def test_most_command_lines_take_the_fast_path() -> None:
    fast = [line for line in LINES if fast_command(line) is not None]
    assert len(fast) > 300, len(fast)


@pytest.mark.parametrize(
    "argv",
    # Lines with options are Typer's alone (the test below shows they get no fast path).
    [line for line in LINES if fast_command(line) is not None],
    ids=lambda argv: " ".join(argv),
)
def test_both_paths_give_the_same_bytes(argv: list[str], in_root: Path) -> None:
    typer_result = runner.invoke(app, argv, catch_exceptions=False)
    fast = _fast(argv)
    assert fast == (typer_result.exit_code, typer_result.stdout, typer_result.stderr)


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["render"],
        ["render", "-"],
        ["render", "--", "job.yaml"],
        ["render", "job.yaml", "-o", "out"],
        ["render", "job.yaml", "--validate"],
        ["render", "--validate", "-"],
        ["render", "--validate"],
        ["render", "--validate", "--validate"],
        ["render", "job.yaml", "--validate=true"],
        ["render", "job.yaml", "--Validate"],
        ["render", "job.yaml", "--validate", "-o", "out"],
        ["validate", "--validate", "job.yaml"],
        ["check", "--validate", "job.yaml"],
        ["render", "-h"],
        ["validate", "--namespace=x", "job.yaml"],
        ["init"],
        ["schema", "job.yaml"],
        ["Render", "job.yaml"],
        ["secret", "ssh"],
    ],
    ids=lambda argv: " ".join(argv) or "(none)",
)
def test_only_plain_file_lists_are_fast(argv: list[str]) -> None:
    expected = argv in (
        ["render", "-"],
        ["render", "job.yaml", "--validate"],
        ["render", "--validate", "-"],
    )
    assert (fast_command(argv) is not None) == expected


def _run_script(
    *argv: str, stdout: object = subprocess.PIPE, loaded: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run the console script's main; stderr ends with whether Typer was imported,
    or with which of the modules ``loaded`` were."""
    report = (
        f"[m for m in {loaded!r} if m in sys.modules]"
        if loaded
        else "'typer' in sys.modules"
    )
    code = (
        "import sys, atexit\n"
        f"atexit.register(lambda: print({report}, file=sys.stderr))\n"
        f"sys.argv = ['t2gen', *{list(argv)!r}]\n"
        "from t2gen.cli.launch import main\n"
        "main()\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
        check=False,
    )


def test_the_fast_path_imports_no_typer() -> None:
    result = _run_script("render", "examples/wordcount.yaml")
    assert (result.returncode, result.stderr) == (0, "False\n")
    assert result.stdout.startswith("---\n# Source: k8s/")
    result = _run_script("validate", "examples/wordcount.yaml", "missing.yaml")
    assert (result.returncode, result.stderr) == (
        1,
        "missing.yaml: no such file\nFalse\n",
    )


def test_a_plain_render_imports_only_what_it_uses() -> None:
    """pathlib (1.4 ms), copy, the -o writer, Typer and the batch layer are not loaded by a render to stdout of one job."""
    unused = (
        "typer",
        "pathlib",
        "copy",
        "t2gen.output.directory",
        "t2gen.output.atomicdir",
        "t2gen.cli.app",
        "t2gen.pipeline.batch",
    )
    result = _run_script("render", "examples/wordcount.yaml", loaded=unused)
    assert (result.returncode, result.stderr) == (0, "[]\n")


def test_python_OO_renders_the_same_objects() -> None:
    """Rules are documented by their docstrings, which ``-OO`` removes; they still run.

    (Under ``-OO`` a subcommand's ``--help`` is shorter: Typer takes its text from
    the command's docstring.)
    """
    plain = _run_script("render", "examples/wordcount.yaml")
    code = "import sys\nsys.argv = ['t2gen', 'render', 'examples/wordcount.yaml']\nfrom t2gen.cli.launch import main\nmain()\n"
    stripped = subprocess.run(
        [sys.executable, "-OO", "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert (stripped.returncode, stripped.stderr) == (0, "")
    assert stripped.stdout == plain.stdout


def test_a_usage_error_still_reaches_typer() -> None:
    result = _run_script("render", "--bogus", "examples/wordcount.yaml")
    assert result.returncode == 2
    assert result.stderr == (
        "t2gen render: No such option: --bogus (Possible options: --jobs) (see 't2gen render --help')\nTrue\n"
    )


def test_a_full_disk_is_not_a_silent_success() -> None:
    with Path("/dev/full").open("w", encoding="utf-8") as full:
        result = _run_script("render", "examples/wordcount.yaml", stdout=full)
    assert (result.returncode, result.stderr) == (
        1,
        "t2gen: cannot write to standard output: No space left on device\nFalse\n",
    )


@pytest.mark.parametrize("args", [["render", "-"], ["render", "-n", "x", "-"]])
def test_ctrl_c_exits_130_without_a_traceback_on_both_paths(args: list[str]) -> None:
    import signal
    import time

    process = subprocess.Popen(  # blocked reading a standard input that never ends
        [sys.executable, "-m", "t2gen", *args],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    time.sleep(1.5)  # past the imports
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.stdin is not None
    process.stdin.close()
    assert (process.returncode, out, err) == (130, b"", b"")
