"""The console script (t2gen/cli/launch.py): which lines skip Typer, and what the process does.

Every golden command line and input case runs through the console script's
choice with and without the Typer-free start (the ``fast_paths`` fixture of
tests/conftest.py); here are the fast lines those suites lack, the narrow shape
of the fast path (anything else must go to Typer), and what only a real process
shows (imports, ``-OO``, Ctrl-C).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.cli.launch import fast_command
from tests.conftest import GOLDEN, ROOT

runner = CliRunner()

EXAMPLES = sorted(
    p.relative_to(ROOT).as_posix() for p in (ROOT / "examples").glob("*.yaml")
)
RENDERED = sorted(
    p.relative_to(ROOT).as_posix()
    for p in GOLDEN.glob("*/expected.stdout")
    if not p.parent.name.startswith("invalid-")
)
INVALID = [
    "tests/golden/invalid-three-mistakes/config.yaml",
    "tests/golden/invalid-operator-case/config.yaml",
]

# The golden and case suites run every one of their command lines through the
# console script's choice (tests/helpers.run_console) with and without the fast
# paths. These are the fast lines they do not hold: several files at once, and
# `render --validate` with the flag anywhere, on valid and invalid jobs.
LINES = [
    ["validate", *EXAMPLES],
    ["render", *EXAMPLES],
    ["check", "-"],
    ["check", *RENDERED],
    ["render", "--validate", *EXAMPLES],
    ["render", *EXAMPLES, "--validate"],
    ["render", EXAMPLES[0], "--validate", EXAMPLES[1]],
    *(["render", "--validate", path] for path in INVALID),
    *(["render", path, "--validate"] for path in INVALID),
]


def _fast(argv: list[str]) -> tuple[int, str, str]:
    command = fast_command(argv)
    assert command is not None
    with runner.isolation() as (stdout, stderr, _):
        code = command()
        return code, stdout.getvalue().decode(), stderr.getvalue().decode()


@pytest.mark.parametrize("argv", LINES, ids=lambda argv: " ".join(argv)[:60])
def test_both_paths_give_the_same_bytes(argv: list[str], in_root: Path) -> None:
    typer_result = runner.invoke(app, argv, catch_exceptions=False)
    fast = _fast(argv)
    assert fast == (typer_result.exit_code, typer_result.stdout, typer_result.stderr)


def test_the_switch_sends_every_line_to_typer(monkeypatch: pytest.MonkeyPatch) -> None:
    assert fast_command(["render", "job.yaml"]) is not None
    monkeypatch.setenv("T2GEN_NO_FAST_START", "1")
    assert fast_command(["render", "job.yaml"]) is None


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["render"],
        ["render", "-"],
        ["render", "--", "job.yaml"],
        ["render", "job.yaml", "--output-dir", "out"],
        ["render", "job.yaml", "--validate"],
        ["render", "--validate", "-"],
        ["render", "--validate"],
        ["render", "--validate", "--validate"],
        ["render", "job.yaml", "--validate=true"],
        ["render", "job.yaml", "--Validate"],
        ["render", "job.yaml", "--validate", "--output-dir", "out"],
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
    """Typer, dataclasses, copy, the -o writer and the batch layer are not loaded by a render to stdout of one job."""
    unused = (
        "typer",
        "dataclasses",
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
        # A job started in the background by a non-interactive shell inherits
        # SIGINT ignored, and Python then installs no KeyboardInterrupt handler:
        # give the child the default disposition a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(1.5)  # past the imports
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=30)
    assert process.stdin is not None
    process.stdin.close()
    assert (process.returncode, out, err) == (130, b"", b"")


def test_a_valid_job_with_warnings_is_validated_once() -> None:
    """The rules' warnings come back from the fast path as found: jsonschema is not run on a valid job."""
    result = _run_script(
        "validate",
        "tests/cases/deprecated-node-label/config.yaml",
        loaded=("jsonschema", "ruamel"),
    )
    assert result.returncode == 0
    assert result.stderr.count(": warning: ") == 2
    assert result.stderr.splitlines()[-1] == "[]"


# `t2gen package JOB --jar FILE [--output-file FILE] [--conf DIR]`: the one
# command line with options the launcher takes (issue 41: its fixed cost).
PACKAGE_JOB = str(ROOT / "examples" / "wordcount.yaml")
PACKAGE_LINES = {
    "plain": ["package", PACKAGE_JOB, "--jar", "user.jar", "--output-file", "out.tgz"],
    "options first": ["package", "--output-file", "out.tgz", "--jar", "user.jar", PACKAGE_JOB],
    "default output": ["package", PACKAGE_JOB, "--jar", "user.jar"],
    "conf": [
        "package",
        str(ROOT / "tests/fixtures/package/scalable/job.yaml"),
        "--jar",
        "user.jar",
        "--conf",
        str(ROOT / "tests/fixtures/package/scalable/conf"),
        "--output-file",
        "out.tgz",
    ],
    "missing jar": ["package", PACKAGE_JOB, "--jar", "missing.jar"],
    "not a jar": ["package", PACKAGE_JOB, "--jar", "notes.txt"],
    "output is the jar": ["package", PACKAGE_JOB, "--jar", "user.jar", "--output-file", "user.jar"],
    "output not t2gen's": ["package", PACKAGE_JOB, "--jar", "user.jar", "--output-file", "notes.txt"],
    "output in no directory": ["package", PACKAGE_JOB, "--jar", "user.jar", "--output-file", "no/out.tgz"],
    "escape in output": ["package", PACKAGE_JOB, "--jar", "user.jar", "--output-file", "a\x1b]0;x\x07.tgz"],
    "invalid job": ["package", str(ROOT / INVALID[0]), "--jar", "user.jar"],
    "missing job": ["package", "missing.yaml", "--jar", "user.jar"],
    "missing conf": ["package", PACKAGE_JOB, "--jar", "user.jar", "--conf", "no-conf"],
}  # fmt: skip


def _package_dir(root: Path) -> Path:
    from tests.package.cases import jar_bytes

    root.mkdir()
    (root / "user.jar").write_bytes(jar_bytes(200_000))
    (root / "notes.txt").write_text("not a package\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("name", sorted(PACKAGE_LINES))
def test_package_both_paths_give_the_same_bytes_and_files(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = PACKAGE_LINES[name]
    results, files = [], []
    for way in ("typer", "fast"):
        monkeypatch.chdir(_package_dir(tmp_path / way))
        if way == "typer":
            result = runner.invoke(app, argv, catch_exceptions=False)
            results.append((result.exit_code, result.stdout, result.stderr))
        else:
            results.append(_fast(argv))
        files.append({p.name: p.read_bytes() for p in Path().iterdir() if p.is_file()})
    assert results[0] == results[1]
    assert files[0] == files[1]
    assert (results[1][0] == 0) == (
        name in {"plain", "options first", "default output", "conf", "escape in output"}
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["package"],
        ["package", "job.yaml"],
        ["package", "--jar", "a.jar"],
        ["package", "job.yaml", "--jar"],
        ["package", "job.yaml", "--jar", "a.jar", "other.yaml"],
        ["package", "job.yaml", "--jar", "a.jar", "--jar", "b.jar"],
        ["package", "job.yaml", "--jar=a.jar"],
        ["package", "job.yaml", "--jar", "-"],
        ["package", "-", "--jar", "a.jar"],
        ["package", "job.yaml", "--jar", "a.jar", "--force"],
        ["package", "job.yaml", "--jar", "a.jar", "-n", "ns"],
        ["package", "job.yaml", "--jar", "a.jar", "--namespace", "ns"],
        ["package", "job.yaml", "--jar", "a.jar", "--oci", "dir"],
        ["package", "job.yaml", "--jar", "a.jar", "--output-file", "--force"],
        ["package", "job.yaml", "--jar", "a.jar", "--help"],
        ["package", "--", "job.yaml", "--jar", "a.jar"],
        ["package", "job.yaml", "--Jar", "a.jar"],
        ["Package", "job.yaml", "--jar", "a.jar"],
        ["package", "job.yaml", "--jar", "a.jar"],
        ["package", "--jar", "a.jar", "job.yaml"],
        ["package", "job.yaml", "--jar", "a.jar", "--output-file", "o", "--conf", "c"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_only_plain_package_lines_are_fast(argv: list[str]) -> None:
    expected = argv in (
        ["package", "job.yaml", "--jar", "a.jar"],
        ["package", "--jar", "a.jar", "job.yaml"],
        ["package", "job.yaml", "--jar", "a.jar", "--output-file", "o", "--conf", "c"],
    )
    assert (fast_command(argv) is not None) == expected


def test_package_without_typer() -> None:
    result = _run_script("package", "examples/wordcount.yaml", "--jar", "missing.jar")
    assert (result.returncode, result.stderr) == (
        1,
        "missing.jar: no such jar file\nFalse\n",
    )
