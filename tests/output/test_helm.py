"""t2gen output as a Helm chart's templates, checked with a real helm (extracted by `make tools`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.kube.yamlio import load_all_yaml
from tests.conftest import ROOT, build_file_tree
from tests.helpers import job_text

HELM = ROOT / ".tools" / "helm" / "helm"
runner = CliRunner()


@pytest.fixture(scope="module")
def helm(tmp_path_factory: pytest.TempPathFactory) -> Any:
    if not HELM.exists():
        pytest.skip("helm is not fetched: run `make tools` (make test does)")
    home = tmp_path_factory.mktemp("helm-home")
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home), "XDG_CONFIG_HOME": str(home),
           "XDG_DATA_HOME": str(home), "KUBECONFIG": str(home / "none")}  # fmt: skip

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(HELM), *args],
            capture_output=True,
            text=True,
            encoding="utf-8",
            env=env,
            check=False,
        )

    return run


def test_rendered_job_as_chart_templates(tmp_path: Path, helm: Any) -> None:
    # Values that Helm would evaluate if they were not escaped.
    text = job_text(
        "workers: [{count: 2}]\n"
        "env:\n"
        "  - {name: GREETING, value: '{{ .Values.secret }} and {{- fail \"boom\" }}'}\n"
        # spec.env is the workers'; the job master (the last object) gets its own
        "jobMaster:\n"
        "  env:\n"
        "    - {name: GREETING, value: '{{ .Values.secret }} and {{- fail \"boom\" }}'}\n",
        metadata='annotations: {example.com/template: "{{ .Release.Name }}"}\n',
    )
    build_file_tree(
        tmp_path,
        {
            "job.yaml": text,
            "chart/Chart.yaml": "apiVersion: v2\nname: job\nversion: 0.1.0\n",
        },
    )
    rendered = runner.invoke(
        app, ["render", str(tmp_path / "job.yaml"), "--format", "helm"]
    )
    assert rendered.exit_code == 0
    (tmp_path / "chart/templates").mkdir()
    (tmp_path / "chart/templates/job.yaml").write_text(
        rendered.stdout, encoding="utf-8"
    )
    lint = helm("lint", str(tmp_path / "chart"))
    assert lint.returncode == 0, lint.stdout + lint.stderr
    result = helm("template", "release", str(tmp_path / "chart"), "--namespace", "jobs")
    assert result.returncode == 0, result.stderr
    from_helm = [obj for obj in load_all_yaml(result.stdout) if obj]
    plain = [
        obj
        for obj in load_all_yaml(
            runner.invoke(app, ["render", str(tmp_path / "job.yaml")]).stdout
        )
        if obj
    ]
    assert from_helm == plain
    env = {
        e["name"]: e.get("value")
        for e in from_helm[-1]["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["GREETING"] == '{{ .Values.secret }} and {{- fail "boom" }}'
