"""docs/gitops.md's Flux patch (issue 42, item 4): it adds Flux's ``force`` annotation to the
supervisor Job and keeps every annotation the Job had.

The kustomization is taken from the page itself and built with the real ``kubectl
kustomize`` over ``t2gen render --output-dir`` of the supervised example, once as the
example is (its Job carries ``argocd.argoproj.io/sync-options``) and once with its own
annotations and no Argo CD hooks (its Job carries the job file's annotations only).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

GITOPS = ROOT / "docs" / "gitops.md"
FORCE = "kustomize.toolkit.fluxcd.io/force"


def _documented_kustomization() -> str:
    """The page's kustomization next to a t2gen --output-dir directory, as printed."""
    blocks = re.findall(r"^```yaml\n(.*?)^```", GITOPS.read_text("utf-8"), re.M | re.S)
    (block,) = [b for b in blocks if b.startswith("# kustomization.yaml next to")]
    return block


def _build(tmp_path: Path, kubectl: Any, job_text: str) -> dict[str, Any]:
    (tmp_path / "job.yaml").write_text(job_text, encoding="utf-8")
    subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "job.yaml", "--output-dir", "wordcount"],
        cwd=tmp_path, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    (tmp_path / "kustomization.yaml").write_text(
        _documented_kustomization(), encoding="utf-8"
    )
    built = kubectl("kustomize", str(tmp_path))
    assert built.returncode == 0, built.stderr
    (job,) = [
        obj for obj in yaml.safe_load_all(built.stdout) if obj and obj["kind"] == "Job"
    ]
    return job


@pytest.mark.parametrize(
    "hooks", [True, False], ids=["argocd-hooks", "own-annotations"]
)
def test_the_flux_patch_keeps_the_jobs_other_annotations(
    tmp_path: Path, kubectl: Any, hooks: bool
) -> None:
    text = (ROOT / "examples" / "supervised.yaml").read_text(encoding="utf-8")
    # The page's patch names Job/wordcount-supervisor: name the job so.
    text = text.replace("name: wordcount-supervised\n", "name: wordcount\n")
    if not hooks:
        text = text.replace("    argoCDHooks: true\n", "").replace(
            "  namespace: twister2\n",
            "  namespace: twister2\n  annotations: {team.example.com/owner: data}\n",
        )
    rendered = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "-"], input=text,
        capture_output=True, text=True, encoding="utf-8", check=True, timeout=120,
    ).stdout  # fmt: skip
    (before,) = [
        obj for obj in yaml.safe_load_all(rendered) if obj and obj["kind"] == "Job"
    ]
    had = before["metadata"]["annotations"]
    assert had and FORCE not in had
    job = _build(tmp_path, kubectl, text)
    assert job["metadata"]["name"] == "wordcount-supervisor"
    assert job["metadata"]["annotations"] == {**had, FORCE: "enabled"}


_OUTPUT_DIR_COMMAND = re.compile(
    r"(?:mkdir -p \S+ && )?t2gen render [^`\n#]*--output-dir [\w.-]+/[^`\n#]*"
)
"""A documented render into a directory below another (``jobs/wordcount``), with the
``mkdir -p`` of its parent when the same line has it."""


def _output_dir_commands() -> list[tuple[str, str]]:
    """``(page, command)`` for every ``render --output-dir PARENT/DIR`` of the README and docs/."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text("utf-8").replace("&&\n", "&& ")  # a span wrapped after &&
        for match in _OUTPUT_DIR_COMMAND.finditer(text):
            found.append((page.name, match[0].strip()))
    return found


def test_every_documented_output_dir_below_a_directory_runs_in_a_fresh_repository(
    tmp_path: Path,
) -> None:
    """``--output-dir jobs/wordcount`` needs ``jobs`` (t2gen creates only the last directory).

    A fresh-clone review ran the README's and docs/gitops.md's commands in a new
    repository: "parent directory jobs does not exist". Each documented command
    runs here, as written, in a new Git repository holding the example job.
    """
    commands = _output_dir_commands()
    pages = {page for page, _ in commands}
    assert {"README.md", "gitops.md"} <= pages, commands
    for index, (page, command) in enumerate(commands):
        repo = tmp_path / str(index)
        repo.mkdir()
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        (repo / "job.yaml").write_bytes((ROOT / "examples/wordcount.yaml").read_bytes())
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=repo,
            env={
                **os.environ,
                "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            },
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
            timeout=120,
        )
        assert done.returncode == 0, (page, command, done.stderr)
