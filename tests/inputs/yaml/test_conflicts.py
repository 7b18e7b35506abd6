"""A job file that still holds an unresolved Git merge says so (issue 42, item 9).

Before, YAML read the first conflict marker as a key and both readers failed on
the next line with "could not find expected ':'". Now both readers refuse the
file first, at the ``<<<<<<<`` line, naming the merge and the other markers'
lines; text that merely holds marker-like lines elsewhere is read as before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from t2gen.errors import ConfigError
from t2gen.inputs.yaml.fastload import fast_load_doc
from t2gen.inputs.yaml.loader import parse_config
from tests.conftest import ROOT

HEAD = "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: wc\nspec:\n"


def _both(text: str) -> tuple[list[str], list[str]]:
    with pytest.raises(ConfigError) as full:
        parse_config(text, path="j")
    with pytest.raises(ConfigError) as fast:
        fast_load_doc(text, path="j")
    return fast.value.lines(), full.value.lines()


@pytest.mark.parametrize(
    ("text", "where", "middle", "last"),
    [
        (HEAD + "<<<<<<< HEAD\n  image: a\n=======\n  image: b\n>>>>>>> other\n", "6:1", 8, 10),
        # diff3/zdiff3 style: the base's side between '|||||||' and '======='
        (HEAD + "<<<<<<< ours\n  image: a\n||||||| base\n  image: c\n=======\n"
         "  image: b\n>>>>>>> theirs\n", "6:1", 10, 12),
        # CRLF line ends, and a conflict in the middle of a list
        ((HEAD + "  workers:\n<<<<<<< HEAD\n    - count: 8\n=======\n    - count: 4\n"
          ">>>>>>> more\n      cpu: 1\n").replace("\n", "\r\n"), "7:1", 9, 11),
        # bare markers: `git merge-file -L ''` writes no side names
        ("a: 1\n<<<<<<<\nb: 2\n=======\nb: 3\n>>>>>>>\n", "2:1", 4, 6),
        # a second conflict is not needed to say there is one: the first is named
        ("<<<<<<< a\nx: 1\n=======\nx: 2\n>>>>>>> b\ny: 1\n<<<<<<< a\n=======\n>>>>>>> b\n",
         "1:1", 3, 5),
    ],
)  # fmt: skip
def test_conflict_markers_are_one_error_from_both_readers(
    text: str, where: str, middle: int, last: int
) -> None:
    fast, full = _both(text)
    assert fast == full
    assert len(fast) == 1
    assert fast[0].startswith(f"j:{where}: this file holds an unresolved merge:")
    assert f"======= at line {middle}, >>>>>>> at line {last}" in fast[0]


@pytest.mark.parametrize(
    "text",
    [
        # marker-like text inside a block scalar is indented: a value, not a merge
        HEAD
        + "  env:\n    - name: X\n      value: |\n        <<<<<<< a\n        =======\n"
        "        >>>>>>> b\n",
        # one marker alone, or the three out of order: YAML's own error, as before
        "a: 1\n=======\nb: 2\n",
        "a: 1\n>>>>>>> b\n=======\n<<<<<<< a\n",
        # seven characters and more text is no marker
        "a: 1\n<<<<<<<x\n=======\n>>>>>>> b\n",
    ],
)
def test_text_that_is_not_a_conflict_is_read_as_before(text: str) -> None:
    for read in (parse_config, fast_load_doc):
        try:
            read(text, path="j")
        except ConfigError as err:
            assert "unresolved merge" not in str(err)


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True,
        encoding="utf-8", env=env, check=False, timeout=60,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("fast", [True, False], ids=["fast-reader", "full-reader"])
def test_a_job_file_left_conflicted_by_git_merge_names_the_merge(
    tmp_path: Path, fast: bool
) -> None:
    repo = tmp_path / "jobs"
    repo.mkdir()
    job = repo / "job.yaml"
    job.write_text(
        HEAD + "  image: twister2/twister2-k8s:0.8.0\n  workers:\n    - count: 4\n"
        "      cpu: 1\n      memory: 1Gi\n",
        encoding="utf-8",
    )
    steps = [("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "wc"),
             ("checkout", "-q", "-b", "more")]  # fmt: skip
    for step in steps:
        assert _git(repo, *step).returncode == 0
    job.write_text(job.read_text("utf-8").replace("count: 4", "count: 8"), "utf-8")
    assert _git(repo, "commit", "-q", "-am", "more").returncode == 0
    assert _git(repo, "checkout", "-q", "main").returncode == 0
    job.write_text(job.read_text("utf-8").replace("count: 4", "count: 2"), "utf-8")
    assert _git(repo, "commit", "-q", "-am", "fewer").returncode == 0
    merge = _git(repo, "merge", "--no-edit", "more")
    assert merge.returncode == 1 and "CONFLICT" in merge.stdout  # a real conflict
    lines = job.read_text("utf-8").splitlines()
    first = next(i for i, line in enumerate(lines, 1) if line.startswith("<<<<<<<"))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not fast:
        env["T2GEN_NO_FAST_YAML"] = "1"
    result = subprocess.run(
        [sys.executable, "-m", "t2gen", "validate", "job.yaml"], capture_output=True,
        text=True, encoding="utf-8", cwd=repo, env=env, check=False, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"job.yaml:{first}:1: this file holds an unresolved merge: Git's conflict markers"
    ), result.stderr
    assert "could not find expected" not in result.stderr
