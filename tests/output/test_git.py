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
from tests.helpers import Completed, run_cli

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


def _render(
    repo: Path, *, process: bool = False
) -> Completed | subprocess.CompletedProcess[str]:
    """``t2gen render job.yaml --output-dir base`` in ``repo``.

    In the test's process (:func:`tests.helpers.run_cli`), or with ``process``
    as ``python -m t2gen`` (the first render of the first test).
    """
    argv = ["render", "job.yaml", "--output-dir", "base"]
    if not process:
        return run_cli(argv, cwd=repo)
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *argv],
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
    result = _render(repo, process=True)
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


# Issue 34, item 2: under a gang the rendered files hold totals derived from every
# group's count (Volcano's PodGroup minMember and minTaskMember, Kueue's
# kueue.x-k8s.io/pod-group-total-count on every StatefulSet), so two branches that
# change different groups' counts conflict in the rendered directory, though the job
# file itself merges cleanly. The rule (README, docs/gitops.md): merge the job file,
# render it again, commit; the CI check `render --output-dir` + `git diff
# --exit-code` catches a directory that does not match its job file.

GANG_JOB = """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata:
  name: wordcount
spec:
  image: twister2/twister2-k8s:0.8.0
  jobPackage:
    jarFile: wordcount.jar
  scheduling:
    gang: {gang}
    queue: team-a
  workers:
    - name: map
      count: 4
      cpu: 1
      memory: 1Gi
    - name: reduce
      count: 2
      cpu: 1
      memory: 1Gi
"""


def _git_may_fail(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True,
        encoding="utf-8", env=env, check=False, timeout=60,
    )  # fmt: skip


def _ci_check(repo: Path) -> int:
    """The CI recipe of docs/gitops.md: render into the tree, then `git diff --exit-code`."""
    assert _render(repo).returncode == 0
    return _git_may_fail(repo, "diff", "--exit-code", "--quiet", "base").returncode


@pytest.mark.parametrize(
    ("gang", "derived"),
    [
        ("volcano", "base/podgroup-wordcount.yaml"),
        ("kueue", "base/statefulset-wordcount-0.yaml"),
    ],
)
def test_gang_totals_conflict_in_git_and_rendering_the_merged_job_resolves_them(
    tmp_path: Path, gang: str, derived: str
) -> None:
    repo = tmp_path / "jobs"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "job.yaml").write_text(GANG_JOB.format(gang=gang), encoding="utf-8")
    assert _render(repo).returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "wordcount")
    assert (repo / derived).is_file()

    _change(repo, "more-maps", "      count: 4\n", "      count: 6\n")
    _change(repo, "more-reduces", "      count: 2\n", "      count: 3\n")

    # The conflict: the job file merges, the derived totals do not.
    _git(repo, "checkout", "-q", "more-maps")
    merge = _git_may_fail(repo, "merge", "--no-edit", "more-reduces")
    assert merge.returncode == 1, merge.stdout + merge.stderr
    conflicted = _git(repo, "diff", "--name-only", "--diff-filter=U").split()
    assert "job.yaml" not in conflicted
    assert derived in conflicted
    merged = (repo / "job.yaml").read_text(encoding="utf-8")
    assert "count: 6" in merged and "count: 3" in merged  # both changes, no markers
    assert "<<<<<<<" not in merged
    assert "<<<<<<<" in (repo / derived).read_text(encoding="utf-8")

    # The fix: render the merged job file again, over the conflicted directory.
    result = _render(repo)
    assert result.returncode == 0, result.stderr
    text = (repo / derived).read_text(encoding="utf-8")
    assert "<<<<<<<" not in text
    # Every pod of the job, the job master's included: 6 + 3 + 1.
    total = "minMember: 10" if gang == "volcano" else 'pod-group-total-count: "10"'
    assert total in text, text
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "--no-edit")
    assert _ci_check(repo) == 0  # the directory is what the merged job renders

    # The CI check catches a job file changed without rendering again.
    (repo / "job.yaml").write_text(
        merged.replace("count: 3", "count: 4"), encoding="utf-8"
    )
    _git(repo, "commit", "-q", "-am", "job file only")
    assert _ci_check(repo) == 1
