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
from tests.helpers import Completed, run_cli

JOB = str(ROOT / "examples/wordcount.yaml")
BIN = Path(sys.executable).parent


def _t2gen(*args: str, cwd: Path) -> Completed:
    """``t2gen ARGS`` run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(args), cwd=cwd)


def _process(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """``python -m t2gen ARGS`` as a process: for completion and the entry point itself."""
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *args],
        input=input,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env={**os.environ, **(env or {})},
        check=False,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "stdin", "code"),
    [
        (["render", JOB, "-o", "json"], False, 0),
        (["render", "-f", "-", "-o", "helm"], True, 0),
        (["render", JOB, "-o", "base"], False, 2),
    ],
    ids=["typer", "stdin", "usage-error"],
)
def test_python_m_t2gen_prints_what_the_tests_run_in_process(
    tmp_path: Path, argv: list[str], stdin: bool, code: int
) -> None:
    """The tests below run t2gen in this process; ``python -m t2gen`` gives the same bytes."""
    text = Path(JOB).read_text(encoding="utf-8") if stdin else None
    process = _process(*argv, cwd=tmp_path, input=text)
    in_process = run_cli(argv, cwd=tmp_path, input=text)
    assert process.returncode == code, process.stderr
    assert (in_process.returncode, in_process.stdout, in_process.stderr) == (
        process.returncode,
        process.stdout,
        process.stderr,
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
        result = _process(
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


# Issue 34, item 3: `-f FILE` is a job file, as kubectl's `-f, --filename`
# (https://kubernetes.io/docs/reference/kubectl/generated/kubectl_apply/); `--format`
# lost its `-f`, and for one release a `-f` value that is a format still works with a
# warning naming `-o`.


@pytest.mark.parametrize("command", ["render", "validate", "plan"])
def test_f_is_a_job_file(tmp_path: Path, command: str) -> None:
    by_argument = _t2gen(command, JOB, cwd=tmp_path)
    by_f = _t2gen(command, "-f", JOB, cwd=tmp_path)
    by_filename = _t2gen(command, f"--filename={JOB}", cwd=tmp_path)
    assert by_argument.returncode == 0, by_argument.stderr
    assert (by_f.returncode, by_f.stdout, by_f.stderr) == (0, by_argument.stdout, "")
    assert by_filename.stdout == by_argument.stdout


def test_f_reads_standard_input_and_repeats(tmp_path: Path) -> None:
    text = Path(JOB).read_text(encoding="utf-8")
    piped = run_cli(["render", "-f", "-"], input=text, cwd=tmp_path)
    assert piped.returncode == 0, piped.stderr
    other = str(ROOT / "examples/mixed-cpu-gpu.yaml")
    both = _t2gen("validate", "-f", JOB, "-f", other, cwd=tmp_path)
    assert both.returncode == 0, both.stderr
    assert len(both.stdout.splitlines()) == 2


def test_check_takes_f(tmp_path: Path) -> None:
    rendered = tmp_path / "out.yaml"
    rendered.write_text(_t2gen("render", JOB, cwd=tmp_path).stdout, encoding="utf-8")
    result = _t2gen("check", "-f", str(rendered), cwd=tmp_path)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("command", "fmt"), [("render", "json"), ("render", "HELM"), ("plan", "json")]
)
def test_f_with_a_format_is_deprecated_and_teaches_o(
    tmp_path: Path, command: str, fmt: str
) -> None:
    result = _t2gen(command, JOB, "-f", fmt, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == _t2gen(command, JOB, "-o", fmt.lower(), cwd=tmp_path).stdout
    assert result.stderr == (
        f"warning: -f {fmt} as the output format is deprecated and stops working in t2gen "
        f"0.3: -f is a file, as in kubectl (`-f job.yaml`); use -o {fmt.lower()} "
        f"(a file named {fmt}: -f ./{fmt})\n"
    )


def test_f_without_a_format_name_is_a_file_never_a_format(tmp_path: Path) -> None:
    result = _t2gen("render", JOB, "-f", "xml", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (1, "")
    assert "xml: no such file" in result.stderr
    assert "deprecated" not in result.stderr


def test_o_with_a_job_file_teaches_f(tmp_path: Path) -> None:
    """The message of issue 34 suggested `--output-dir job.yaml` for this."""
    result = _t2gen("render", "-o", "job.yaml", cwd=tmp_path)
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        "-o is the format, as in kubectl; a job file is an argument or -f job.yaml"
        in (result.stderr)
    )
    assert "--output-dir" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_no_job_file_is_a_usage_error(tmp_path: Path) -> None:
    for command in ("render", "validate", "plan", "check"):
        result = (
            _t2gen(command, "-n", "ns", cwd=tmp_path)
            if command != "check"
            else (_t2gen(command, "--kube-version", "1.30", cwd=tmp_path))
        )
        assert result.returncode == 2, (command, result.stderr)
        assert "`-f FILE`" in result.stderr


def test_plan_takes_one_job(tmp_path: Path) -> None:
    result = _t2gen("plan", JOB, "-f", JOB, cwd=tmp_path)
    assert result.returncode == 2
    assert "plans one job at a time; got 2" in result.stderr


def _complete(words: str, cwd: Path) -> list[str]:
    return _process(
        cwd=cwd,
        env={
            "_T2GEN_COMPLETE": "complete_bash",
            "COMP_WORDS": words,
            "COMP_CWORD": str(len(words.split(" ")) - 1),
        },
    ).stdout.split()


def test_completion_of_rule_ids_templates_and_versions(tmp_path: Path) -> None:
    from t2gen.jobfile.rules import REGISTRY
    from t2gen.kube.versions import supported_kube_versions
    from t2gen.pipeline.job import make_template_set

    assert _complete("t2gen explain ", tmp_path) == list(REGISTRY)
    assert _complete("t2gen explain workers-d", tmp_path) == ["workers-divisible"]
    templates = [name for name, _ in make_template_set([]).all_templates()]
    assert _complete("t2gen templates show ", tmp_path) == templates
    assert _complete("t2gen templates show service-", tmp_path) == [
        name for name in templates if name.startswith("service-")
    ]
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "networkpolicy.yaml.j2").write_text(
        "kind: NetworkPolicy\n", encoding="utf-8"
    )
    assert "networkpolicy.yaml.j2" in _complete(
        "t2gen templates show --templates mine n", tmp_path
    )
    versions = list(reversed(supported_kube_versions()))
    for command in ("render", "plan", "check"):
        assert _complete(f"t2gen {command} --kube-version ", tmp_path) == versions
    assert _complete("t2gen render --kube-version 1.3", tmp_path) == [
        v for v in versions if v.startswith("1.3")
    ]


def test_kubectl_complete_script(tmp_path: Path) -> None:
    """``kubectl_complete-t2gen WORD... LAST`` prints choices and a Cobra directive.

    kubectl's protocol: ``staging/src/k8s.io/kubectl/pkg/cmd/plugin/plugin_completion.go``.
    """
    script = BIN / "kubectl_complete-t2gen"
    assert script.is_file(), (
        "pip install -e . installs the kubectl_complete-t2gen script"
    )

    def run(*words: str) -> list[str]:
        result = subprocess.run(
            [str(script), *words],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=tmp_path,
            check=False,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout.splitlines()

    assert run("explain", "workers-d") == ["workers-divisible", ":4"]
    assert run("ren") == ["render", ":4"]
    assert run("render", "-o", "") == ["yaml", "json", "helm", ":4"]
    assert run("render", "") == [":0"]  # a job file: the shell completes file names


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_kubectl_completes_the_plugin_and_runs_f(tmp_path: Path) -> None:
    """``kubectl t2gen render -f job.yaml`` works, and kubectl's own completion reaches t2gen's."""
    kubectl = shutil.which("kubectl")
    assert kubectl is not None
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [kubectl, *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            cwd=tmp_path,
            env=env,
            check=False,
            timeout=120,
        )

    rendered = run("t2gen", "render", "-f", JOB, "-o", "json")
    assert rendered.returncode == 0, rendered.stderr
    assert json.loads(rendered.stdout)["kind"] == "List"
    completed = run("__complete", "t2gen", "explain", "workers-d")
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines()[:2] == ["workers-divisible", ":4"]
