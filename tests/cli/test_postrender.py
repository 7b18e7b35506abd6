"""Helm's post-renderer (issue 42, item 3): the plugin of ``integrations/helm`` installed
into the suite's real Helm 4 (``make tools``), a chart whose template renders a job file,
and t2gen's located error where Helm 4 shows the user something.

Helm 4 drops a post-renderer plugin's standard error (helm/helm
``internal/plugin/runtime_subprocess.go``, ``runPostrenderer``), so these tests read
Helm's own standard error, as a terminal or a CI log would show it.
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

from t2gen.pipeline.poststream import FILENAME_ANNOTATION, post_render, split_documents
from tests.conftest import ROOT

HELM = ROOT / ".tools" / "helm" / "helm"
CHART = ROOT / "examples" / "helm" / "wordcount"
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def helm(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A real Helm 4 with the t2gen plugin installed as the docs say, in a scratch home."""
    if not HELM.exists():
        pytest.skip("helm is not fetched: run `make tools` (make test does)")
    home = tmp_path_factory.mktemp("helm-home")
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / "cache"),
           "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
           "KUBECONFIG": str(home / "none"),
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    env.pop("HELM_PLUGINS", None)

    def run(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
        options = {"capture_output": True, **kwargs}
        return subprocess.run(
            [str(HELM), *args], text=True, encoding="utf-8", env=env, check=False,
            timeout=120, **options,
        )  # fmt: skip

    version = run("version", "--template", "{{ .Version }}")
    assert version.stdout.startswith("v4."), version.stdout  # a plugin name: Helm 4
    installed = run("plugin", "install", str(ROOT / "integrations" / "helm"))
    assert installed.returncode == 0, installed.stderr
    return run


def _objects(text: str) -> list[Any]:
    return sorted(
        (obj for obj in yaml.safe_load_all(text) if obj),
        key=lambda obj: (obj["kind"], obj["metadata"]["name"]),
    )


def _render(job: str) -> list[Any]:
    done = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "-"], input=job, capture_output=True,
        text=True, encoding="utf-8", check=True, timeout=120,
    )  # fmt: skip
    return _objects(done.stdout)


def test_the_plugin_is_t2gens() -> None:
    plugin = yaml.safe_load((ROOT / "integrations/helm/plugin.yaml").read_text("utf-8"))
    assert (plugin["apiVersion"], plugin["type"], plugin["name"]) == (
        "v1",
        "postrenderer/v1",
        "t2gen",
    )
    version = re.search(
        r'^version = "(.+)"$', (ROOT / "pyproject.toml").read_text("utf-8"), re.M
    )
    assert version and plugin["version"] == version[1]
    command = plugin["runtimeConfig"]["platformCommand"][0]["command"]
    assert (BIN / command).is_file()  # a console script of t2gen's wheel


def test_helm_template_with_the_plugin_renders_the_job(helm: Any) -> None:
    plain = helm("template", "wc", str(CHART), "--namespace", "jobs")
    assert plain.returncode == 0, plain.stderr
    (job,) = [d for d in plain.stdout.split("\n---\n") if "kind: Twister2Job" in d]
    post = helm(
        "template", "wc", str(CHART), "--namespace", "jobs", "--post-renderer", "t2gen"
    )
    assert post.returncode == 0, post.stderr
    assert _objects(post.stdout) == _render(job)
    # Helm files each object under the job's template, as it does a template's own.
    sources = re.findall(r"^# Source: (.+)$", post.stdout, re.M)
    assert set(sources) == {"wordcount/templates/job.yaml"}
    assert len(sources) == len(_render(job))
    assert FILENAME_ANNOTATION not in post.stdout


def test_an_invalid_job_fails_helm_with_t2gens_located_error(
    helm: Any, tmp_path: Path
) -> None:
    args = [
        "template",
        "wc",
        str(CHART),
        "--post-renderer",
        "t2gen",
        "--set",
        "workers.count=3",
    ]
    failed = helm(*args)
    assert (failed.returncode, failed.stdout) == (1, "")
    # Helm's own line names no reason; t2gen's, on Helm's standard error, does.
    assert 'plugin "t2gen" exited with error' in failed.stderr
    assert re.search(
        r"^wordcount/templates/job\.yaml:\d+:\d+: spec\.workers\[0\]\.count: 3 is not "
        r"divisible by perPod 2",
        failed.stderr,
        re.M,
    ), failed.stderr
    # A log file Helm appends to gets it too; one it overwrites in place does not
    # (t2gen's line would be overwritten by Helm's), so Helm's line stays whole.
    for flags, shown in ((os.O_APPEND, True), (os.O_TRUNC, False)):
        log = tmp_path / "helm.log"
        descriptor = os.open(log, os.O_WRONLY | os.O_CREAT | flags, 0o600)
        try:
            helm(
                *args,
                capture_output=False,
                stdout=subprocess.DEVNULL,
                stderr=descriptor,
            )
        finally:
            os.close(descriptor)
        text = log.read_text("utf-8")
        assert ("is not divisible by perPod 2" in text) is shown, text
        assert text.rstrip().endswith("Use --debug flag to render out invalid YAML")


def _stream(*documents: str) -> str:
    return "".join(f"---\n{document}" for document in documents)


def test_other_documents_pass_byte_for_byte() -> None:
    job = (ROOT / "examples/wordcount.yaml").read_text("utf-8")
    other = "# kept as written\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"
    stream = _stream(other, job, "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n")
    answer = post_render(stream)
    pieces = split_documents(answer)
    assert pieces[1] == other and pieces[-1].endswith(
        "kind: Secret\nmetadata:\n  name: s\n"
    )
    assert _objects(_stream(*pieces[2:-1])) == _render(job)
    assert post_render(_stream(other)) == _stream(other)  # no job: the stream as it was


def test_a_job_document_that_cannot_be_read_is_an_error_not_an_object() -> None:
    broken = (
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n<<<<<<< HEAD\n  name: a\n"
    )
    from t2gen.errors import T2genError

    with pytest.raises(T2genError) as raised:
        post_render(
            _stream("kind: ConfigMap\n", "# Source: c/templates/job.yaml\n" + broken)
        )
    (line,) = raised.value.lines()
    assert line.startswith("c/templates/job.yaml:6:")  # Helm 3's Source line names it
