"""``t2gen find`` and ``render``/``validate`` of a directory (issue 42, item 1): kubectl's ``-f DIR``
and ``-R``, the job files as ``render`` reads them, and completion."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.helpers import Completed, run_cli

BIN = Path(sys.executable).parent


def _t2gen(*args: str, cwd: Path) -> Completed:
    """``t2gen ARGS`` run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(args), cwd=cwd)


def _process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *args], capture_output=True, text=True,
        encoding="utf-8", cwd=cwd, check=False, timeout=120,
    )  # fmt: skip


def _tree(tmp_path: Path) -> Path:
    jobs = tmp_path / "jobs"
    (jobs / "team").mkdir(parents=True)
    wordcount = (ROOT / "examples/wordcount.yaml").read_text("utf-8")
    (jobs / "wordcount.yaml").write_text(wordcount, encoding="utf-8")
    (jobs / "kustomization.yaml").write_text("resources: []\n", encoding="utf-8")
    (jobs / "team" / "volcano.yml").write_text(
        (ROOT / "examples/volcano-gang.yaml").read_text("utf-8"), encoding="utf-8"
    )
    return jobs


def test_find_prints_the_job_files_one_a_line(tmp_path: Path) -> None:
    _tree(tmp_path)
    assert _t2gen("find", "jobs", cwd=tmp_path).stdout == "jobs/wordcount.yaml\n"
    both = _t2gen("find", "-R", "-f", "jobs", cwd=tmp_path)
    assert (both.returncode, both.stdout) == (  # lexical, as filepath.Walk
        0,
        "jobs/team/volcano.yml\njobs/wordcount.yaml\n",
    )
    # -f names what is looked at (not the default "."): one subdirectory alone
    team = _t2gen("find", "-f", "jobs/team", cwd=tmp_path)
    assert (team.returncode, team.stdout) == (0, "jobs/team/volcano.yml\n")
    here = _t2gen("find", cwd=tmp_path / "jobs")  # the current directory by default
    assert here.stdout == "wordcount.yaml\n"
    named = _t2gen(
        "find", "jobs/kustomization.yaml", "jobs/wordcount.yaml", cwd=tmp_path
    )
    assert named.stdout == "jobs/wordcount.yaml\n"


def test_python_m_t2gen_finds_what_the_tests_find_in_process(tmp_path: Path) -> None:
    """The other tests run t2gen in this process; ``python -m t2gen`` prints the same."""
    _tree(tmp_path)
    for args in (["find", "-R", "jobs"], ["render", "-R", "-f", "jobs"]):
        process = _process(*args, cwd=tmp_path)
        assert process.returncode == 0, process.stderr
        in_process = _t2gen(*args, cwd=tmp_path)
        assert (in_process.returncode, in_process.stdout, in_process.stderr) == (
            process.returncode,
            process.stdout,
            process.stderr,
        )


def test_finding_none_is_no_error(tmp_path: Path) -> None:
    (tmp_path / "cm.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    none = _t2gen("find", ".", cwd=tmp_path)
    assert (none.returncode, none.stdout, none.stderr) == (
        0,
        "",
        "No job files found in ..\n",
    )
    missing = _t2gen("find", "nowhere", cwd=tmp_path)
    assert (missing.returncode, missing.stderr) == (
        1,
        "nowhere: no such file or directory\n",
    )
    stdin = _t2gen("find", "-", cwd=tmp_path)
    assert stdin.returncode == 2
    assert "use `t2gen validate -`" in stdin.stderr


def test_render_and_validate_read_a_directory_as_find_does(tmp_path: Path) -> None:
    _tree(tmp_path)
    found = _t2gen("find", "-R", "jobs", cwd=tmp_path).stdout.split()
    expected = _t2gen("render", *found, cwd=tmp_path)
    for args in (["render", "-R", "-f", "jobs"], ["render", "jobs", "--recursive"]):
        rendered = _t2gen(*args, cwd=tmp_path)
        assert rendered.returncode == 0, rendered.stderr
        assert rendered.stdout == expected.stdout
    only_top = _t2gen("render", "jobs", cwd=tmp_path)  # the fast path, no -R
    assert (
        only_top.stdout == _t2gen("render", "jobs/wordcount.yaml", cwd=tmp_path).stdout
    )
    validated = _t2gen("validate", "-R", "jobs", cwd=tmp_path)
    assert validated.stdout.splitlines() == [
        "jobs/team/volcano.yml: valid: job volcano-gang, 8 workers in 5 pods",
        "jobs/wordcount.yaml: valid: job wordcount, 8 workers in 4 pods",
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    refused = _t2gen("render", "-f", "empty", cwd=tmp_path)
    assert (refused.returncode, refused.stdout) == (1, "")
    assert refused.stderr.startswith("empty: no job file in this directory")


def test_find_is_completed_and_its_paths_are_the_shells(tmp_path: Path) -> None:
    script = BIN / "kubectl_complete-t2gen"

    def run(*words: str) -> list[str]:
        done = subprocess.run(
            [str(script), *words], capture_output=True, text=True, encoding="utf-8",
            cwd=tmp_path, check=False, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    assert run("fin") == ["find", ":4"]
    assert run("find", "") == [":0"]  # files and directories: the shell completes them
    assert run("find", "--rec") == ["--recursive", ":4"]
