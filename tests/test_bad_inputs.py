"""The bad-input corpus: every file in tests/bad_inputs/ is refused clearly.

For each file, `t2gen validate` and `t2gen render` exit 1, print nothing on
stdout, no traceback, and exactly the lines of ``<file>.expected`` on stderr
(``{file}`` stands for the path). ``pytest --update-golden`` rewrites them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli import app
from t2gen.jobfile.loader import MAX_FILE_BYTES
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "bad_inputs"
FILES = sorted(path for path in CORPUS.iterdir() if path.suffix in (".yaml", ".json"))
runner = CliRunner()


def test_the_corpus_is_large() -> None:
    assert len(FILES) >= 60


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize("command", ["validate", "render"])
def test_bad_input_is_refused_clearly(
    path: Path, command: str, update_golden: bool
) -> None:
    relative = str(path.relative_to(ROOT))
    result = runner.invoke(app, [command, str(path)], catch_exceptions=False)
    assert result.exit_code == 1
    assert result.stdout == ""
    stderr = result.stderr.replace(str(path), "{file}")
    assert "Traceback" not in stderr
    expected_path = path.with_name(path.name + ".expected")
    if update_golden and command == "validate":
        expected_path.write_text(stderr, encoding="utf-8", newline="\n")
    expected = expected_path.read_text(encoding="utf-8")
    assert stderr == expected, f"{relative}: stderr differs (`make golden` rewrites it)"
    for line in expected.splitlines():
        assert line.startswith("{file}:"), (
            line
        )  # every problem names the file (and where)


def test_every_expected_file_has_its_input() -> None:
    inputs = {path.name for path in FILES}
    for expected in CORPUS.glob("*.expected"):
        assert expected.name.removesuffix(".expected") in inputs


def test_billion_laughs_is_refused_fast_and_small() -> None:
    # tracemalloc's peak counts what t2gen allocates; an expansion of the nine
    # levels of aliases would need gigabytes.
    code = (
        "import sys, time, tracemalloc\n"
        "tracemalloc.start()\n"
        "from t2gen.cli import main\n"
        f"sys.argv = ['t2gen', 'validate', {str(CORPUS / 'billion-laughs.yaml')!r}]\n"
        "start = time.perf_counter()\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print(code, time.perf_counter() - start, tracemalloc.get_traced_memory()[1], file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    code_text, seconds, peak_bytes = result.stderr.strip().splitlines()[-1].split()
    assert code_text == "1"
    assert float(seconds) < 2.0
    assert int(peak_bytes) < 64 * 1024 * 1024  # bounded memory: nothing was expanded


def test_a_very_large_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    path.write_text("a: '" + "x" * MAX_FILE_BYTES + "'\n", encoding="utf-8")
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1 and result.stdout == ""
    assert (
        result.stderr
        == f"{path}: larger than 1024 KiB; a job file is a few hundred bytes\n"
    )


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + (ROOT / "examples/wordcount.yaml").read_bytes())
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 0 and result.stdout.endswith(
        "valid: job wordcount, 8 workers in 4 pods\n"
    )


CLI_MISUSE = [
    (["render", "--bogus", "examples/wordcount.yaml"], 2, "t2gen render: No such option: --bogus (see 't2gen render --help')"),
    (["render"], 2, "t2gen render: Missing argument 'JOB...' (see 't2gen render --help')"),
    (["frobnicate"], 2, "t2gen: No such command 'frobnicate' (see 't2gen --help')"),
    (["render", "missing.yaml"], 1, "missing.yaml: no such file"),
    (["render", "examples"], 1, "examples: is a directory, not a job file"),
    (["render", "examples/wordcount.yaml", "--kube-version", "1.2", "--validate"], 1, "Kubernetes 1.2 has no bundled schema; use one of 1.25 to 1.37"),
    (["render", "examples/wordcount.yaml", "-o", "examples/wordcount.yaml"], 2, "t2gen render: Invalid value for '--output-dir' / '-o': Directory 'examples/wordcount.yaml' is a file (see 't2gen render --help')"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "code", "line"),
    CLI_MISUSE,
    ids=lambda v: " ".join(v) if isinstance(v, list) else None,
)
def test_cli_misuse_is_one_clear_line(argv: list[str], code: int, line: str) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "t2gen", *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert (result.returncode, result.stdout, result.stderr) == (code, "", line + "\n")


def test_an_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "secret.yaml"
    path.write_text("a: 1\n", encoding="utf-8")
    path.chmod(0)
    try:
        path.read_bytes()
    except PermissionError:
        result = runner.invoke(app, ["validate", str(path)])
        assert (result.exit_code, result.stderr) == (1, f"{path}: permission denied\n")
    else:  # running as root: permissions do not apply, so fake the OS error
        from unittest import mock

        with mock.patch(
            "pathlib.Path.open", side_effect=PermissionError(13, "Permission denied")
        ):
            result = runner.invoke(app, ["validate", str(path)])
        assert (result.exit_code, result.stderr) == (1, f"{path}: permission denied\n")
    finally:
        path.chmod(0o644)


def test_a_closed_stdout_ends_quietly() -> None:
    # `t2gen render ... | head -1` where head is gone before t2gen writes.
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "t2gen",
            "render",
            *(str(p) for p in sorted((ROOT / "examples").glob("*.yaml"))),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    with process.stderr:
        stderr = process.stderr.read().decode("utf-8")
    assert process.wait() == 1
    assert stderr == ""


def test_nothing_reaches_stdout_when_a_later_job_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        (ROOT / "examples/wordcount.yaml")
        .read_text(encoding="utf-8")
        .replace("count: 8", "count: 9"),
        encoding="utf-8",
    )
    result = runner.invoke(
        app, ["render", str(ROOT / "examples/heterogeneous.yaml"), str(bad)]
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert "9 is not divisible by perPod 2" in result.stderr
