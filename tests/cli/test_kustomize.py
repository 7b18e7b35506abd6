"""t2gen as a kustomize generator (issue 34, item 7): the exec plugin under a real
``kubectl kustomize --enable-alpha-plugins``, and the KRM function on a ResourceList.

Both give ``t2gen render``'s objects, annotated ``t2gen.dev/generated-from``. kubectl's
kustomize has no ``--enable-exec``, so the KRM form (standalone kustomize, kpt) is
driven here as kustomize and kpt drive it: a ResourceList on stdin, and for kpt's
``fn render``, which writes the answer back into the package, the answer's items fed in
again (issue 42, item 2: run twice, the same objects).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from t2gen.pipeline.regenerate import GENERATED_FROM, ORCHESTRATOR_PREFIXES
from tests.conftest import ROOT

JOB = ROOT / "examples" / "volcano-gang.yaml"
BIN = Path(sys.executable).parent
SCRIPT = BIN / "t2gen-kustomize"


def _objects(text: str) -> list[Any]:
    return sorted(
        (document for document in yaml.safe_load_all(text) if document),
        key=lambda obj: (obj["kind"], obj["metadata"]["name"]),
    )


def _unmarked(objects: list[Any]) -> list[Any]:
    """The objects without what t2gen-kustomize and the orchestrator add to render's."""
    for obj in objects:
        annotations = obj["metadata"].get("annotations", {})
        assert annotations.pop(GENERATED_FROM) == obj["metadata"]["labels"]["t2-job"]
        for key in [k for k in annotations if k.startswith(ORCHESTRATOR_PREFIXES)]:
            del annotations[key]
        if not annotations:
            obj["metadata"].pop("annotations", None)
    return objects


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
    assert _unmarked(_objects(built.stdout)) == _rendered()

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
    assert _unmarked(_objects(yaml.safe_dump_all(answer["items"][1:]))) == _rendered()


def test_krm_function_reports_an_invalid_job_and_writes_nothing(tmp_path: Path) -> None:
    text = JOB.read_text(encoding="utf-8").replace("count: 6", "count: 5", 1)
    done = _function(_resource_list(text), tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert "is not divisible by perPod" in done.stderr
    bad = _function("apiVersion: v1\nkind: ConfigMap\n", tmp_path)
    assert (bad.returncode, bad.stdout) == (1, "")
    assert "not a ResourceList" in bad.stderr


def _answer(resource_list: dict[str, Any], cwd: Path) -> dict[str, Any]:
    # JSON, as kpt writes no YAML anchors (and t2gen reads none)
    done = _function(json.dumps(resource_list), cwd)
    assert done.returncode == 0, done.stderr
    answer: dict[str, Any] = yaml.safe_load(done.stdout)
    return answer


def test_krm_function_run_twice_gives_the_same_objects(tmp_path: Path) -> None:
    """``kpt fn render`` writes the answer back and reads it again: the second run changes nothing."""
    given = yaml.safe_load(_resource_list(JOB.read_text(encoding="utf-8")))
    job = given["functionConfig"]
    # kpt reads the job file as an object of the package too; a user's object and
    # another job's generated object sit beside it.
    mine = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}}
    other = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "x", "annotations": {GENERATED_FROM: "another-job"}},
    }
    given["items"] = [job, mine, other]
    first = _answer(given, tmp_path)
    rendered = len(_rendered())
    assert len(first["items"]) == 3 + rendered
    assert first["items"][:3] == [job, mine, other]
    paths = {
        obj["metadata"]["annotations"]["internal.config.kubernetes.io/path"]
        for obj in first["items"][3:]
    }
    assert "volcano-gang/statefulset-volcano-gang-0.yaml" in paths  # beside job.yaml
    assert len(paths) == rendered

    again = _answer({**given, "items": first["items"]}, tmp_path)
    assert again == first  # 18 objects stay 18, in the same files

    # kpt moved a file: the object stays where it is now.
    moved = [dict(obj) for obj in first["items"]]
    statefulset = next(
        obj for obj in moved[3:] if obj["metadata"]["name"] == "volcano-gang-0"
    )
    statefulset["metadata"] = {
        **statefulset["metadata"],
        "annotations": {
            **statefulset["metadata"]["annotations"],
            "internal.config.kubernetes.io/path": "workers.yaml",
        },
    }
    kept = _answer({**given, "items": moved}, tmp_path)
    kept_paths = {
        obj["metadata"]["name"]: obj["metadata"]["annotations"][
            "internal.config.kubernetes.io/path"
        ]
        for obj in kept["items"][3:]
    }
    assert kept_paths["volcano-gang-0"] == "workers.yaml"

    # A smaller job: the objects of the removed group go, nothing is left twice.
    smaller = yaml.safe_load(JOB.read_text(encoding="utf-8"))
    smaller["spec"]["workers"] = smaller["spec"]["workers"][:1]
    del smaller["spec"]["scheduling"]["antiAffinity"]  # it named the removed group
    less = _answer(
        {**given, "functionConfig": smaller, "items": first["items"]}, tmp_path
    )
    keys = [(obj["kind"], obj["metadata"]["name"]) for obj in less["items"]]
    assert len(keys) == len(set(keys))
    names = [name for _, name in keys]
    assert "volcano-gang-1" not in names and "volcano-gang-0" in names


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="needs kubectl")
def test_exec_plugin_as_a_transformer_replaces_its_earlier_output(
    tmp_path: Path,
) -> None:
    """Built over its own earlier output, the job's objects are replaced, not doubled."""
    kubectl = shutil.which("kubectl")
    assert kubectl is not None
    plugin = (
        tmp_path / "config" / "kustomize" / "plugin" / "t2gen" / "v1" / "twister2job"
    )
    plugin.mkdir(parents=True)
    (plugin / "Twister2Job").symlink_to(SCRIPT)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path),
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}  # fmt: skip

    def build(directory: Path) -> str:
        built = subprocess.run(
            [kubectl, "kustomize", "--enable-alpha-plugins", str(directory)],
            capture_output=True, text=True, encoding="utf-8", env=env, check=False,
            timeout=120,
        )  # fmt: skip
        assert built.returncode == 0, built.stderr
        return built.stdout

    base = tmp_path / "base"
    base.mkdir()
    shutil.copy(JOB, base / "job.yaml")
    (base / "kustomization.yaml").write_text(
        "generators:\n- job.yaml\n", encoding="utf-8"
    )
    first = build(base)
    # The earlier output committed beside the job, with an object of the user's.
    again = tmp_path / "again"
    again.mkdir()
    shutil.copy(JOB, again / "job.yaml")
    (again / "built.yaml").write_text(first, encoding="utf-8")
    (again / "mine.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: mine}\n", encoding="utf-8"
    )
    (again / "kustomization.yaml").write_text(
        "resources:\n- built.yaml\n- mine.yaml\ntransformers:\n- job.yaml\n",
        encoding="utf-8",
    )
    second = _objects(build(again))
    mine = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "mine"}}
    assert second == _objects(first + "---\n" + yaml.safe_dump(mine))
