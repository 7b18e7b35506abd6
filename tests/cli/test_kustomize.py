"""t2gen as a kustomize generator (issue 34, item 7): the exec plugin under a real
``kubectl kustomize --enable-alpha-plugins``, and the KRM function on a ResourceList.

Both give exactly ``t2gen render``'s objects. kubectl's kustomize has no
``--enable-exec``, so the KRM form (standalone kustomize, kpt) is driven here as
kustomize drives it: a ResourceList on stdin.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

JOB = ROOT / "examples" / "volcano-gang.yaml"
BIN = Path(sys.executable).parent
SCRIPT = BIN / "t2gen-kustomize"


def _objects(text: str) -> list[Any]:
    return sorted(
        (document for document in yaml.safe_load_all(text) if document),
        key=lambda obj: (obj["kind"], obj["metadata"]["name"]),
    )


def _rendered() -> list[Any]:
    done = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", str(JOB)],
        capture_output=True, text=True, encoding="utf-8", check=True, timeout=120,
    )  # fmt: skip
    return _objects(done.stdout)


def _function(stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT)], input=stdin, capture_output=True, text=True, encoding="utf-8",
        cwd=cwd, check=False, timeout=120,
    )  # fmt: skip


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_exec_generator_plugin_builds_with_kubectl_kustomize(tmp_path: Path) -> None:
    kubectl = shutil.which("kubectl")
    assert kubectl is not None and SCRIPT.is_file()
    plugin = (
        tmp_path / "config" / "kustomize" / "plugin" / "t2gen" / "v1" / "twister2job"
    )
    plugin.mkdir(parents=True)
    (plugin / "Twister2Job").symlink_to(SCRIPT)
    base = tmp_path / "base"
    base.mkdir()
    shutil.copy(JOB, base / "job.yaml")
    (base / "kustomization.yaml").write_text(
        "generators:\n- job.yaml\n", encoding="utf-8"
    )
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path),
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip
    built = subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(base)],
        capture_output=True, text=True, encoding="utf-8", env=env, check=False, timeout=120,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr
    assert _objects(built.stdout) == _rendered()

    # An invalid job file fails the build with t2gen's located error.
    (base / "job.yaml").write_text(
        JOB.read_text(encoding="utf-8").replace("count: 6", "count: 5", 1),
        encoding="utf-8",
    )
    failed = subprocess.run(
        [kubectl, "kustomize", "--enable-alpha-plugins", str(base)],
        capture_output=True, text=True, encoding="utf-8", env=env, check=False, timeout=120,
    )  # fmt: skip
    assert failed.returncode != 0
    assert "is not divisible by perPod 2" in failed.stderr


def _resource_list(job_text: str, items: str = "[]") -> str:
    config = yaml.safe_load(job_text)
    config["metadata"]["annotations"] = {
        "config.kubernetes.io/function": "exec:\n  path: t2gen-kustomize\n",
        "internal.config.kubernetes.io/path": "job.yaml",
    }
    resource_list = {
        "apiVersion": "config.kubernetes.io/v1",
        "kind": "ResourceList",
        "items": yaml.safe_load(items),
        "functionConfig": config,
    }
    return yaml.safe_dump(resource_list)


def test_krm_function_adds_the_jobs_objects_to_the_resource_list(
    tmp_path: Path,
) -> None:
    other = "[{apiVersion: v1, kind: ConfigMap, metadata: {name: other}}]"
    done = _function(_resource_list(JOB.read_text(encoding="utf-8"), other), tmp_path)
    assert done.returncode == 0, done.stderr
    answer = yaml.safe_load(done.stdout)
    assert (answer["apiVersion"], answer["kind"]) == (
        "config.kubernetes.io/v1",
        "ResourceList",
    )
    assert answer["items"][0] == {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "other"},
    }
    assert _objects(yaml.safe_dump_all(answer["items"][1:])) == _rendered()


def test_krm_function_reports_an_invalid_job_and_writes_nothing(tmp_path: Path) -> None:
    text = JOB.read_text(encoding="utf-8").replace("count: 6", "count: 5", 1)
    done = _function(_resource_list(text), tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert "is not divisible by perPod" in done.stderr
    bad = _function("apiVersion: v1\nkind: ConfigMap\n", tmp_path)
    assert (bad.returncode, bad.stdout) == (1, "")
    assert "not a ResourceList" in bad.stderr
