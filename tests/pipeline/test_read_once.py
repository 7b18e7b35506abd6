"""``plan`` and ``status`` read the job file and a ``--package`` once, and standard input within its bound.

Issue 38: both read and validated the job file twice (once to validate, once to
render), read a ``--package`` of up to 2 GiB twice, and read all of standard
input before any bound (``sys.stdin.buffer.read()``). Counted, not timed.
"""

from __future__ import annotations

import io
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import t2gen.inputs.package
import t2gen.pipeline.load
from t2gen.errors import T2genError
from t2gen.inputs.jobfile import MAX_JOB_FILE_BYTES
from t2gen.pipeline.plan import plan_job
from t2gen.pipeline.status import status_report
from tests.conftest import ROOT
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"
JOB = str(ROOT / "examples" / "supervised.yaml")
NODES = str(ROOT / "examples" / "nodes.json")


def _counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str) -> list[str]:
    calls: list[str] = []
    real: Callable[..., Any] = getattr(owner, name)

    def spy(path: str, *args: Any, **kwargs: Any) -> Any:
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(owner, name, spy)
    return calls


@pytest.mark.parametrize(
    "run",
    [
        lambda: plan_job(JOB),
        lambda: plan_job(JOB, nodes=NODES),
        lambda: status_report(JOB),
        lambda: status_report(
            JOB, cluster=str(ROOT / "tests/fixtures/status/running.json")
        ),
    ],
    ids=["plan", "plan-nodes", "status", "status-cluster"],
)
def test_the_job_file_is_read_once(
    monkeypatch: pytest.MonkeyPatch, run: Callable[[], object]
) -> None:
    reads = _counting(monkeypatch, t2gen.pipeline.load, "read_job")
    run()
    assert reads == [JOB]


def test_a_package_is_read_once_by_plan(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    job = tmp_path / "wordcount.yaml"
    job.write_text((ROOT / "examples/wordcount.yaml").read_text(encoding="utf-8"))
    jar = tmp_path / "wordcount.jar"
    jar.write_bytes(jar_bytes())
    done = subprocess.run(
        [str(T2GEN), "package", str(job), "--jar", str(jar)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    package = str(tmp_path / "wordcount.tar.gz")
    reads = _counting(monkeypatch, t2gen.inputs.package, "read_package")
    jobs = _counting(monkeypatch, t2gen.pipeline.load, "read_job")
    plan_job(str(job), package=package)
    assert (reads, jobs) == ([package], [str(job)])


class _Endless(io.RawIOBase):
    """Standard input that never ends; a read of everything (``read()``, ``read(-1)``) is a bug."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        assert size is not None and size >= 0, "standard input read without a bound"
        self.sizes.append(size)
        return b"#" * size


@pytest.mark.parametrize(
    "run",
    [lambda: plan_job("-"), lambda: status_report("-")],
    ids=["plan", "status"],
)
def test_standard_input_is_read_within_the_job_files_bound(
    monkeypatch: pytest.MonkeyPatch, run: Callable[[], object]
) -> None:
    stdin = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))  # type: ignore[arg-type]
    with pytest.raises(T2genError) as raised:
        run()
    assert any("larger than 1024 KiB" in line for line in raised.value.lines())
    assert stdin.sizes == [MAX_JOB_FILE_BYTES + 1]


@pytest.mark.parametrize("command", ["plan", "status"])
def test_the_command_line_reads_standard_input_within_its_bound(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Was: ``io.BytesIO(sys.stdin.buffer.read())`` in cli/plan.py and cli/status.py, before any bound."""
    import typer

    from t2gen.cli.app import app

    stdin = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(stdin))  # type: ignore[arg-type]
    # standalone_mode=False: click returns the exit code instead of exiting
    code = typer.main.get_command(app).main([command, "-"], standalone_mode=False)
    assert code == 1
    assert "larger than 1024 KiB" in capsys.readouterr().err
    assert stdin.sizes == [MAX_JOB_FILE_BYTES + 1]
