"""``--output-dir`` in Git (issue 24, item 2): two branches that change different fields of
one job merge without a conflict, and rendering the merged job into the merged tree
neither refuses nor changes anything.

Runs the real ``git`` (skipped without it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

JOB = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata:
  name: wordcount
spec:
  image: twister2/twister2-k8s:0.8.0
  jobPackage:
    jarFile: wordcount.jar
  workers:
    - count: 4
      cpu: 1
      memory: 1Gi
"""


def _git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    result = subprocess.run(
        ["git", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, (
        f"git {' '.join(args)}: {result.stdout}{result.stderr}"
    )
    return result.stdout


def _render(repo: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "job.yaml", "--output-dir", "base"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
        timeout=120,
    )


def _change(repo: Path, branch: str, old: str, new: str) -> None:
    _git(repo, "checkout", "-q", "-b", branch, "main")
    job = repo / "job.yaml"
    job.write_text(job.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = _render(repo)
    assert result.returncode == 0, result.stderr
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", branch)


def test_two_branches_changing_different_fields_merge_and_render_again(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "jobs"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "job.yaml").write_text(JOB, encoding="utf-8")
    result = _render(repo)
    assert result.returncode == 0, result.stderr
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "wordcount")

    _change(repo, "more-workers", "count: 4", "count: 8")
    _change(repo, "new-image", "twister2-k8s:0.8.0", "twister2-k8s:0.8.1")
    changed = _git(repo, "diff", "--name-only", "more-workers", "new-image").split()
    assert any(name.startswith("base/statefulset-") for name in changed)

    _git(repo, "checkout", "-q", "more-workers")
    _git(repo, "merge", "-q", "--no-edit", "new-image")  # fails the test on a conflict
    merged = (repo / "job.yaml").read_text(encoding="utf-8")
    assert "count: 8" in merged and "0.8.1" in merged

    result = _render(
        repo
    )  # the record is more-workers' render; the tree is the merge's
    assert result.returncode == 0, result.stderr
    assert (
        _git(repo, "status", "--porcelain") == ""
    )  # the merge is what the merged job renders

    (repo / "job.yaml").write_text(merged.replace("cpu: 1", "cpu: 2"), encoding="utf-8")
    result = _render(repo)
    assert result.returncode == 0, result.stderr
    assert "base/statefulset-wordcount-0.yaml" in _git(repo, "status", "--porcelain")
