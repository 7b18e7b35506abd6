"""The tree of input cases: every job file t2gen must refuse (or accept) at a boundary.

One case is one directory (the example-folder style of check-jsonschema's
``tests/example-files/``, https://github.com/python-jsonschema/check-jsonschema):

- ``config.yaml`` (or ``config.json``): the job file;
- ``args`` (optional): the command line after ``t2gen``, where ``{file}`` is the
  job file and ``{case}`` the case directory; without it the case runs both
  ``t2gen validate {file}`` and ``t2gen render {file}``, which must agree;
- ``expected.stderr``, ``expected.stdout`` and ``expected.exit_code`` (each
  absent when empty or 0); ``{file}`` in them stands for the job file's path;
- ``templates/`` (optional): a template overlay, which ``args`` names as
  ``--templates {case}/templates`` (hostile overlays: what they render is read
  as any manifest is).

Every case lives in ``tests/cases/<name>/``, except the ten that predate the
tree: ``tests/golden/invalid-*/`` has the same layout and is run here too, but
stays where it is because every file under ``tests/golden/`` is a frozen,
byte-for-byte contract (their expectations spell the path out instead of
``{file}``). Add a new case as ``tests/cases/<name>/config.yaml`` and run
``pytest tests/suites/test_cases.py --update-golden`` (``make golden``) to write its
expectations; review them before committing.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.inputs.jobfile import MAX_JOB_FILE_BYTES as MAX_FILE_BYTES
from tests.conftest import INPUT_CASES, ROOT
from tests.helpers import run_console

CASE_TREE = ROOT / "tests" / "cases"
runner = CliRunner()


def _input(case: Path) -> Path:
    (found,) = [p for p in case.iterdir() if p.stem == "config"]
    return found


def _command_lines(case: Path) -> list[str]:
    args = case / "args"
    if args.is_file():
        return [args.read_text(encoding="utf-8").strip()]
    return ["validate {file}", "render {file}"]


RUNS = [
    pytest.param(case, line, id=f"{case.name}:{line.split()[0]}")
    for case in INPUT_CASES
    for line in _command_lines(case)
]


def _read(path: Path, file: str) -> str:
    if not path.exists():
        return ""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    return text.replace("{file}", file)


def _write(path: Path, actual: str, file: str, placeholder: bool) -> None:
    if not actual:
        path.unlink(missing_ok=True)
        return
    text = actual.replace(file, "{file}") if placeholder else actual
    path.write_text(text, encoding="utf-8", newline="\n")


def test_every_case_has_one_input_and_an_expectation() -> None:
    # The tree began with 139: 92 from tests/bad_inputs/, 37 from the rule tests'
    # inline CASES dict and the 10 tests/golden/invalid-*/. Never lose one.
    assert len(INPUT_CASES) >= 139
    for case in INPUT_CASES:
        _input(case)
        names = {p.name for p in case.iterdir()} - {
            "args",
            "templates",
            _input(case).name,
        }
        expected = {"expected.stdout", "expected.stderr", "expected.exit_code"}
        assert names <= expected, case
        assert names & {"expected.stdout", "expected.stderr"}, f"{case}: no expectation"


@pytest.mark.parametrize(("case", "line"), RUNS)
def test_case(
    case: Path, line: str, in_root: Path, update_golden: bool, fast_paths: str
) -> None:
    """Each input case, with the fast paths and then with every switch set."""
    update_golden = update_golden and fast_paths == "fast"
    file = _input(case).relative_to(ROOT).as_posix()
    argv = [
        part.replace("{file}", file).replace(
            "{case}", case.relative_to(ROOT).as_posix()
        )
        for part in shlex.split(line)
    ]
    result = run_console(argv)
    assert "Traceback" not in result.stderr
    code = f"{result.exit_code}\n" if result.exit_code else ""
    actual = {"stdout": result.stdout, "stderr": result.stderr, "exit_code": code}
    first = line == _command_lines(case)[0]
    if update_golden and first:  # later command lines must agree with the first
        for name, text in actual.items():
            _write(case / f"expected.{name}", text, file, case.parent == CASE_TREE)
    expected = {name: _read(case / f"expected.{name}", file) for name in actual}
    assert actual == expected, (
        f"{case.relative_to(ROOT)}: `{line}` differs (`make golden` rewrites it)"
    )
    if result.exit_code:
        assert result.stdout == "", "nothing may reach stdout when t2gen fails"
        overlay = f"{case.relative_to(ROOT).as_posix()}/templates/"
        for problem in result.stderr.splitlines():  # every problem names the file
            assert problem.startswith((f"{file}:", overlay)), problem


def test_billion_laughs_is_refused_without_expanding() -> None:
    # tracemalloc's peak counts what t2gen allocates; an expansion of the nine
    # levels of aliases would need gigabytes. Time is not asserted here (a
    # loaded CI machine makes any wall-clock bound flaky): `make bench` measures it.
    code = (
        "import sys, tracemalloc\n"
        "tracemalloc.start()\n"
        "from t2gen.cli.app import main\n"
        f"sys.argv = ['t2gen', 'validate', {str(CASE_TREE / 'billion-laughs' / 'config.yaml')!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print(code, tracemalloc.get_traced_memory()[1], file=sys.stderr)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    code_text, peak_bytes = result.stderr.strip().splitlines()[-1].split()
    assert code_text == "1"
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
    (["render", "--bogus", "examples/wordcount.yaml"], 2, "t2gen render: No such option: --bogus (Possible options: --jobs) (see 't2gen render --help')"),
    (["render"], 2, "t2gen render: Invalid value for 'JOB...': give a job file: `FILE` or `-f FILE` (`-` reads standard input) (see 't2gen render --help')"),
    (["frobnicate"], 2, "t2gen: No such command 'frobnicate' (see 't2gen --help')"),
    (["render", "missing.yaml"], 1, "missing.yaml: no such file"),
    (["render", "examples"], 1, "examples: is a directory, not a job file"),
    (["render", "examples/wordcount.yaml", "--kube-version", "1.24", "--validate"], 2, "t2gen render: Invalid value for '--kube-version': Kubernetes 1.24 has no bundled schema; use one of 1.25 to 1.37 (see 't2gen render --help')"),
    (["check", "--kube-version", "1.2", "examples/wordcount.yaml"], 2, "t2gen check: Invalid value for '--kube-version': Kubernetes 1.2 has no bundled schema; use one of 1.25 to 1.37 (see 't2gen check --help')"),
    (["render", "examples/wordcount.yaml", "--format", "helm", "-n", "jobs"], 2, "t2gen render: Invalid value for '--namespace': -o helm leaves the namespace to Helm: use `helm install --namespace NS` (see 't2gen render --help')"),
    (["render", "examples/wordcount.yaml", "--output-dir", "examples/wordcount.yaml"], 2, "t2gen render: Invalid value for '--output-dir': Directory 'examples/wordcount.yaml' is a file (see 't2gen render --help')"),
    (["render", "examples/wordcount.yaml", "-o", "examples/wordcount.yaml"], 2, "t2gen render: Invalid value for '--output' / '-o': 'examples/wordcount.yaml' is not an output format (yaml, json, helm): -o is the format, as in kubectl; a job file is an argument or -f examples/wordcount.yaml (see 't2gen render --help')"),
    (["render", "examples/wordcount.yaml", "-o", "yml"], 2, "t2gen render: Invalid value for '--output' / '-o': 'yml' is not an output format: use yaml, json or helm (a directory is --output-dir yml) (see 't2gen render --help')"),
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
            "t2gen.inputs.textfile.os.open",
            side_effect=PermissionError(13, "Permission denied"),
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


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
@pytest.mark.parametrize(
    "argv",
    [
        ["render", "examples/wordcount.yaml"],
        ["render", "examples/wordcount.yaml", "--format", "json"],
        ["validate", "examples/wordcount.yaml"],
    ],
    ids=" ".join,
)
def test_a_full_stdout_is_one_line_and_exit_1(argv: list[str]) -> None:
    # `t2gen render job.yaml > /dev/full`: every write fails with ENOSPC.
    with Path("/dev/full").open("wb") as full:
        result = subprocess.run(
            [sys.executable, "-m", "t2gen", *argv],
            cwd=ROOT,
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            check=False,
        )
    assert (result.returncode, result.stderr) == (
        1,
        "t2gen: cannot write to standard output: No space left on device\n",
    )


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


@pytest.mark.parametrize(
    "config",
    sorted(p for p in CASE_TREE.glob("*/config.*")),
    ids=lambda p: p.parent.name,
)
def test_check_reads_every_hostile_input_without_a_traceback(config: Path) -> None:
    # `t2gen check` reads any manifests; the job-file cases are hostile input to it
    # too (complex keys, lists where strings belong, binary files, deep nesting).
    result = runner.invoke(app, ["check", str(config), "--kube-version", "1.37"])
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        result.exception
    )
    assert result.exit_code in (0, 1), result.stderr
    if result.exit_code:
        assert result.stdout == "" and result.stderr
        for line in result.stderr.splitlines():  # every finding names the file
            assert line.startswith((str(config), "warning: ")), line
