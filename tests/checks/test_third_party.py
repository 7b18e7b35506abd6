"""``t2gen check`` on anyone's manifests (issue 34, item 1): a corpus of real third-party files.

``tests/fixtures/third-party/`` holds manifests from the Kubernetes documentation,
mpi-operator, Volcano, Kueue and JobSet, each with its source URL in a comment (two
are the documentation's nginx Deployment written with ``memory: 1024Mi`` and with
anchors, as people write them). Every one is valid and ``t2gen check`` exits 0 on
them; each planted error exits 1 with a located message. A Helm chart's output
(``helm create``'s chart, rendered by a real helm) passes too.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from tests.conftest import ROOT

CORPUS = ROOT / "tests" / "fixtures" / "third-party"
FILES = sorted(CORPUS.glob("*.yaml"))
HELM = ROOT / ".tools" / "helm" / "helm"
runner = CliRunner()


def _check(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_the_corpus_is_real_and_sourced() -> None:
    assert len(FILES) >= 20
    for path in FILES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith(
            ("# Source: https://github.com/", "# Derived from: https://github.com/")
        ), path
    sources = {path.name.split("-")[0] for path in FILES}
    assert {"k8s", "mpi", "volcano", "kueue", "jobset"} <= sources


def test_every_corpus_file_passes() -> None:
    code, stdout, stderr = _check(*map(str, FILES))
    assert code == 0, stderr
    # Custom resources without a schema pass with a note naming them, never an error.
    assert "no Kubernetes 1.37 schema for batch.volcano.sh/v1alpha1 Job" in stderr
    assert "no Kubernetes 1.37 schema for kubeflow.org/v2beta1 MPIJob" in stderr
    assert "no Kubernetes 1.37 schema for jobset.x-k8s.io/v1alpha2 JobSet" in stderr
    # memory: 1024Mi is a style note, not an error.
    assert (
        "'1024Mi' is not in canonical form (1Gi); kubectl would show a diff (a note: an error under --strict)"
        in stderr
    )
    assert stdout.startswith(
        "14 objects valid for Kubernetes 1.37 (strict); 11 not checked (no schema)"
    )
    assert stdout.rstrip().endswith("; 2 notes")


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_each_corpus_file_passes_alone(path: Path) -> None:
    code, _, stderr = _check(str(path))
    assert code == 0, stderr


PLANTED = [
    # (file, text to replace, replacement, the located message)
    (
        "k8s-docs-job-pi.yaml",
        "  backoffLimit: 4\n",
        "  backoffLimit: 4\n  manualSelector: true\n",
        "k8s-docs-job-pi.yaml:3: Job/pi: spec.selector: empty selector; it must select the pod template's labels",
    ),
    (
        "k8s-docs-nginx-deployment.yaml",
        "    matchLabels:\n      app.kubernetes.io/name: nginx\n",
        "    matchLabels:\n      app.kubernetes.io/name: apache\n",
        "k8s-docs-nginx-deployment.yaml:3: Deployment/nginx-deployment: spec.selector: does not match the pod template's labels",
    ),
    (
        "k8s-docs-web-statefulset.yaml",
        "        - name: www\n",
        "        - name: wwx\n",
        "k8s-docs-web-statefulset.yaml:17: StatefulSet/web: spec.template.spec.containers[0].volumeMounts[0].name: no volume named 'wwx' in the pod",
    ),
    (
        "k8s-docs-daemonset.yaml",
        "            cpu: 100m\n",
        "            cpu: 100m\n            nvidia.com/gpu: 1\n",
        "k8s-docs-daemonset.yaml:3: DaemonSet/fluentd-elasticsearch: spec.template.spec.containers[0].resources",
    ),
    (
        "kueue-sample-job.yaml",
        "  generateName: sample-job-\n",
        "",
        "kueue-sample-job.yaml:3: Job/?: metadata.name: missing (or write metadata.generateName for a generated one)",
    ),
    (
        "volcano-job.yaml",
        "  name: test-job\n",
        "  name: Test_Job\n",
        "volcano-job.yaml:3: Job/Test_Job: metadata.name: 'Test_Job' is not a DNS-1123 subdomain",
    ),
    (
        "k8s-docs-nginx-deployment-anchors.yaml",
        "memory: 64Mi",
        "memory: -64Mi",
        "k8s-docs-nginx-deployment-anchors.yaml:3: Deployment/nginx-deployment: spec.template.spec.containers[1].resources.requests.memory: '-64Mi' is negative",
    ),
    (
        "k8s-docs-indexed-job.yaml",
        '            "/input/data.txt",\n          ],\n          volumeMounts: [{\n            mountPath: "/input",\n            name: "input",',
        '            "/input/data.txt",\n          ],\n          volumeMounts: [{\n            mountPath: "/input",\n            name: "inptu",',
        "k8s-docs-indexed-job.yaml:4: Job/indexed-job: spec.template.spec.containers[0].volumeMounts[0].name: no volume named 'inptu' in the pod",
    ),
]


@pytest.mark.parametrize(
    ("name", "old", "new", "message"), PLANTED, ids=[case[0] for case in PLANTED]
)
def test_a_planted_error_is_located(
    tmp_path: Path,
    name: str,
    old: str,
    new: str,
    message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = (CORPUS / name).read_text(encoding="utf-8")
    assert old in text
    (tmp_path / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, stdout, stderr = _check(name)
    assert (code, stdout) == (1, "")
    assert message in stderr, stderr


def test_strict_holds_everyone_to_t2gens_standard(tmp_path: Path) -> None:
    path = str(CORPUS / "k8s-docs-nginx-deployment-1024Mi.yaml")
    code, _, stderr = _check("--strict", path)
    assert code == 1
    assert (
        "resources.requests.memory: '1024Mi' is not in canonical form (1Gi)" in stderr
    )
    assert "a note" not in stderr


def test_t2gens_own_objects_are_always_held_to_its_standard(tmp_path: Path) -> None:
    text = (CORPUS / "k8s-docs-nginx-deployment-1024Mi.yaml").read_text(
        encoding="utf-8"
    )
    mine = tmp_path / "mine.yaml"
    mine.write_text(
        text.replace(
            "    app.kubernetes.io/name: nginx\nspec:",
            "    app.kubernetes.io/name: nginx\n    app.kubernetes.io/managed-by: t2gen\nspec:",
            1,
        ),
        encoding="utf-8",
    )
    code, _, stderr = _check(str(mine))
    assert code == 1
    assert (
        "'1024Mi' is not in canonical form (1Gi); kubectl would show a diff\n" in stderr
    )


def test_overlapping_statefulsets_are_t2gens_standard_only(tmp_path: Path) -> None:
    """Two StatefulSets selecting each other's pods: the API server accepts it."""
    text = (CORPUS / "k8s-docs-web-statefulset.yaml").read_text(encoding="utf-8")
    second = text.split("---\n", 1)[1].replace("name: web\n", "name: web2\n", 1)
    path = tmp_path / "two.yaml"
    path.write_text(text + "---\n" + second, encoding="utf-8")
    code, _, stderr = _check(str(path))
    assert code == 0, stderr
    assert "note: " in stderr and "(a note: an error under --strict)" in stderr
    assert _check("--strict", str(path))[0] == 1


def test_a_helm_charts_output_passes(tmp_path: Path) -> None:
    if not HELM.exists():
        pytest.skip("helm is not fetched: run `make tools` (make test does)")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path),
           "KUBECONFIG": str(tmp_path / "none")}  # fmt: skip

    def helm(*args: str) -> str:
        done = subprocess.run(
            [str(HELM), *args], capture_output=True, text=True, encoding="utf-8",
            cwd=tmp_path, env=env, check=False, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    helm("create", "web")
    (tmp_path / "out.yaml").write_text(helm("template", "web", "web"), encoding="utf-8")
    code, stdout, stderr = _check(str(tmp_path / "out.yaml"))
    assert code == 0, stderr
    assert "objects valid" in stdout
