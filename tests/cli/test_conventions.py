"""kubectl's and Helm's conventions (issue 24, item 5): ``-o`` is the output format,
``--output-dir`` a directory, ``import --output-file`` a file; shell completion; the
``kubectl t2gen`` plugin.

kubectl: ``-o, --output`` is the output format
(https://kubernetes.io/docs/reference/kubectl/#output-options); Helm:
``helm template --output-dir`` writes files (https://helm.sh/docs/helm/helm_template/);
kubectl runs a ``kubectl-NAME`` executable on PATH as ``kubectl NAME``
(https://kubernetes.io/docs/tasks/extend-kubectl/kubectl-plugins/).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

JOB = str(ROOT / "examples/wordcount.yaml")
BIN = Path(sys.executable).parent


def _t2gen(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize("fmt", ["yaml", "json", "helm", "JSON"])
def test_o_is_a_format_and_never_creates_a_directory(tmp_path: Path, fmt: str) -> None:
    result = _t2gen("render", JOB, "-o", fmt, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert list(tmp_path.iterdir()) == []  # no yaml/, json/ or helm/ directory
    if fmt.lower() == "json":
        assert json.loads(result.stdout)["kind"] == "List"
    else:
        assert result.stdout.startswith("---\n# Source: ")


def test_format_is_an_alias_of_o(tmp_path: Path) -> None:
    assert (
        _t2gen("render", JOB, "--format", "json", cwd=tmp_path).stdout
        == _t2gen("render", JOB, "--output", "json", cwd=tmp_path).stdout
    )


def test_output_dir_writes_a_kustomize_base(tmp_path: Path) -> None:
    result = _t2gen("render", JOB, "--output-dir", "base", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "base/kustomization.yaml").is_file()
    assert "deprecated" not in result.stderr


def test_o_dir_still_works_with_a_deprecation_warning(tmp_path: Path) -> None:
    (tmp_path / "base").mkdir()
    result = _t2gen("render", JOB, "-o", "base", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "base/kustomization.yaml").is_file()
    assert result.stderr.startswith(
        "warning: -o base as a directory is deprecated (-o is the output format, as in "
        "kubectl): use --output-dir base\n"
    )
    result = _t2gen("render", JOB, "-o", "./new", cwd=tmp_path)
    assert result.returncode == 0 and (tmp_path / "new/kustomization.yaml").is_file()


def test_a_word_that_is_neither_a_format_nor_a_path_is_refused(tmp_path: Path) -> None:
    result = _t2gen("render", JOB, "-o", "base", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert "'base' is not an output format: use yaml, json or helm" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_plan_takes_o_and_format(tmp_path: Path) -> None:
    for flag in ("-o", "--format"):
        result = _t2gen("plan", JOB, flag, "json", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        json.loads(result.stdout)


def test_import_writes_output_file_and_o_is_deprecated(tmp_path: Path) -> None:
    conf = str(ROOT / "examples/twister2-conf")
    stdout = _t2gen("import", conf, cwd=tmp_path).stdout
    result = _t2gen("import", conf, "--output-file", "job.yaml", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "job.yaml").read_text(encoding="utf-8") == stdout
    result = _t2gen("import", conf, "-o", "old.yaml", cwd=tmp_path)
    assert result.returncode == 0
    assert "use --output-file old.yaml" in result.stderr
    assert (tmp_path / "old.yaml").read_text(encoding="utf-8") == stdout


def test_shell_completion(tmp_path: Path) -> None:
    """Typer's completion protocol (``_T2GEN_COMPLETE``), as the script --show-completion prints uses it."""
    # Typer finds the shell among the process's parents (shellingham), as from a
    # user's bash; `; exit` keeps bash from replacing itself with python.
    script = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m t2gen --show-completion; exit $?'],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        check=False,
        timeout=120,
    )
    assert script.returncode == 0, script.stderr
    assert "_T2GEN_COMPLETE=complete_bash" in script.stdout
    for words, expected in (
        ("t2gen ren", ["render"]),
        (f"t2gen render {JOB} -o ", ["yaml", "json", "helm"]),
        (f"t2gen plan {JOB} -o j", ["json"]),
    ):
        result = _t2gen(
            cwd=tmp_path,
            env={
                "_T2GEN_COMPLETE": "complete_bash",
                "COMP_WORDS": words,
                "COMP_CWORD": str(len(words.split(" ")) - 1),
            },
        )
        assert result.stdout.split() == expected, words


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_kubectl_plugin(tmp_path: Path) -> None:
    """``kubectl t2gen render`` runs the ``kubectl-t2gen`` console script found on PATH."""
    plugin = BIN / "kubectl-t2gen"
    assert plugin.is_file(), "pip install -e . installs the kubectl-t2gen script"
    kubectl = shutil.which("kubectl")
    assert kubectl is not None
    result = subprocess.run(
        [kubectl, "t2gen", "render", JOB, "-o", "json"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=tmp_path,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["kind"] == "List"


def test_every_rule_error_says_where_to_read_more() -> None:
    """Each ``(t2gen explain <id>)`` in the cases' errors names a rule with a docs/rules.md section."""
    import re

    from t2gen.jobfile.rules import REGISTRY

    rules_md = (ROOT / "docs/rules.md").read_text(encoding="utf-8")
    named = {
        match
        for path in (ROOT / "tests/cases").glob("*/expected.stderr")
        for match in re.findall(
            r"\(t2gen explain ([a-z0-9-]+)\)$", path.read_text("utf-8"), re.M
        )
    }
    assert len(named) >= 20
    for rule_id in named:
        assert rule_id in REGISTRY
        assert f"### `{rule_id}`" in rules_md


def test_explain_prints_the_rules_documentation(tmp_path: Path) -> None:
    from t2gen.jobfile.rules import REGISTRY

    result = _t2gen("explain", "mpi-per-pod", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    doc = REGISTRY["mpi-per-pod"].doc.replace("``", "`")  # reST literals as Markdown's
    assert result.stdout.startswith(f"mpi-per-pod: {doc}\n")
    assert "``" not in _t2gen("explain", "read-only-root", cwd=tmp_path).stdout
    assert "See also: docs/rules.md#mpi-per-pod" in result.stdout
    listed = _t2gen("explain", "--list", cwd=tmp_path).stdout.splitlines()
    assert [line.split()[0] for line in listed] == list(REGISTRY)
    assert not [line for line in listed if "``" in line]  # titles as `x`, as the docs
    missing = _t2gen("explain", cwd=tmp_path)
    assert missing.returncode == 2
    assert "give a rule ID" in missing.stderr and "--list" in missing.stderr
    wrong = _t2gen("explain", "mpi-per-po", cwd=tmp_path)
    assert wrong.returncode == 2
    assert "no rule 'mpi-per-po'; did you mean 'mpi-per-pod'?" in wrong.stderr


def test_gpu_memory_and_gang_messages(tmp_path: Path) -> None:
    """Issue 24, item 6: the hint a GPU, a Twister2 ram number and a mis-cased gang need."""
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: job}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n"
        "  workers: [{count: 1, gpu: 1, memory: 2048}]\n"
        "  scheduling: {gang: Volcano, queue: analytics}\n",
        encoding="utf-8",
    )
    result = _t2gen("validate", str(job), cwd=tmp_path)
    assert result.returncode == 1
    assert "write extendedResources: {nvidia.com/gpu: 1}" in result.stderr
    assert "did you mean 'cpu'" not in result.stderr
    assert "write 2048Mi for 2048 MiB" in result.stderr
    assert "did you mean 'volcano'?" in result.stderr
    assert "queue applies only" not in result.stderr
