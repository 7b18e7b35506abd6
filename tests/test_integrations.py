"""What ships outside the package (issue 34, item 7; issue 42, item 1): the Argo CD config
management plugin's commands run on a real job directory as Argo CD runs them, and the
Containerfile follows container conventions. (The image itself is not built by the tests: no registry is reachable.
Its install steps, a wheel installed in a fresh venv and run from another directory,
are what `make dist` runs.)"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def _argo_cd(command: list[str], app: Path) -> subprocess.CompletedProcess[str]:
    """Run a plugin command as Argo CD's CMP server runs it.

    argoproj/argo-cd ``cmpserver/plugin/plugin.go``, ``runCommand``: the command and
    its ``args`` are executed as written, with no shell (``exec.CommandContext``), in
    the application's directory (``cmd.Dir``; ``matchRepository`` passes the same
    path to the discovery command), with the sidecar's environment and the build
    environment (``docs/user-guide/build-environment.md``) added; a non-zero exit
    fails with the command's standard error, and stdout is the answer.
    """
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "ARGOCD_APP_NAME": "jobs",
        "ARGOCD_APP_NAMESPACE": "twister2",
        "ARGOCD_APP_SOURCE_PATH": "jobs",
        "ARGOCD_APP_REVISION": "f913b6cbf58aa5ae5ca1f8a2b149477aebcbd9d8",
    }
    return subprocess.run(
        command, capture_output=True, text=True, encoding="utf-8", cwd=app, env=env,
        check=False, timeout=120,
    )  # fmt: skip


def _plugin() -> tuple[list[str], list[str]]:
    """The discovery and generation commands of the plugin file, with their args."""
    plugin = yaml.safe_load(
        (ROOT / "integrations/argocd/plugin.yaml").read_text("utf-8")
    )
    assert (plugin["apiVersion"], plugin["kind"]) == (
        "argoproj.io/v1alpha1",
        "ConfigManagementPlugin",
    )
    find = plugin["spec"]["discover"]["find"]
    generate = plugin["spec"]["generate"]
    return (
        [*find["command"], *find.get("args", [])],
        [*generate["command"], *generate.get("args", [])],
    )


def _job(name: str) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "examples/wordcount.yaml").read_text("utf-8"))
    data["metadata"]["name"] = name
    return data


def _odd_spellings(app: Path) -> list[str]:
    """Valid job files whose kind a line-by-line regular expression misses; their names."""
    text = (ROOT / "examples/wordcount.yaml").read_text("utf-8")
    spellings = {
        "commented.yaml": text.replace(
            "kind: Twister2Job", "kind: Twister2Job  # a job"
        ).replace("name: wordcount", "name: commented"),
        "quoted.yml": text.replace("kind: Twister2Job", 'kind: "Twister2Job"').replace(
            "name: wordcount", "name: quoted"
        ),
        "job.json": json.dumps(_job("json"), indent=2),
        "flow.yaml": yaml.safe_dump(_job("flow"), default_flow_style=True),
    }
    for name, content in spellings.items():
        (app / name).write_text(content, encoding="utf-8")
    return sorted(spellings)


def test_argocd_plugin_discovers_and_generates_every_spelling_of_a_job(
    tmp_path: Path,
) -> None:
    discover, generate = _plugin()
    app = tmp_path / "app"
    app.mkdir()
    (app / "notes.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: notes}\n"
        "data: {example: 'kind: Twister2Job'}\n",
        encoding="utf-8",
    )
    (app / "README.md").write_text("kind: Twister2Job\n", encoding="utf-8")
    nothing = _argo_cd(discover, app)  # not t2gen's: Argo CD tries other plugins
    assert (nothing.returncode, nothing.stdout) == (0, ""), nothing.stderr

    names = _odd_spellings(app)
    shutil.copy(ROOT / "examples/volcano-gang.yaml", app / "volcano-gang.yaml")
    found = _argo_cd(discover, app)
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == sorted([*names, "volcano-gang.yaml"])

    generated = _argo_cd(generate, app)
    assert generated.returncode == 0, generated.stderr
    expected = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", *found.stdout.split()],
        capture_output=True, text=True, encoding="utf-8", cwd=app, check=True, timeout=120,
    )  # fmt: skip
    assert generated.stdout == expected.stdout
    jobs = {
        obj["metadata"]["labels"]["t2-job"]
        for obj in yaml.safe_load_all(generated.stdout)
    }
    assert jobs == {"commented", "quoted", "json", "flow", "volcano-gang"}
    assert "name: notes" not in generated.stdout


@pytest.mark.parametrize(
    ("content", "located"),
    [
        # Valid YAML, invalid job: the schema's located error.
        (
            "apiVersion: t2gen/v1\nkind: Twister2Job  # mine\nmetadata: {name: x}\n",
            "broken.yaml:1:1: missing required key 'spec'",
        ),
        # An unresolved merge: render cannot read it, yet it names the kind.
        (
            "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n<<<<<<< HEAD\n"
            "  name: a\n=======\n  name: b\n>>>>>>> other\nspec: {}\n",
            "broken.yaml:4:1: this file holds an unresolved merge",
        ),
        # JSON with a trailing comma: not YAML either.
        ('{"kind": "Twister2Job", "metadata": {"name": "x"},}\n', "broken.yaml:1:"),
    ],
    ids=["schema", "conflict-markers", "json-syntax"],
)
def test_argocd_plugin_fails_the_sync_on_a_broken_job_file(
    tmp_path: Path, content: str, located: str
) -> None:
    discover, generate = _plugin()
    app = tmp_path / "app"
    app.mkdir()
    shutil.copy(ROOT / "examples/wordcount.yaml", app / "wordcount.yaml")
    (app / "broken.yaml").write_text(content, encoding="utf-8")
    found = _argo_cd(discover, app)
    assert found.stdout.split() == ["broken.yaml", "wordcount.yaml"]
    failed = _argo_cd(generate, app)
    assert (failed.returncode, failed.stdout) == (1, "")
    assert failed.stderr.startswith(located), failed.stderr


def test_containerfile_conventions() -> None:
    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    stages = re.findall(r"^FROM (\S+)(?: AS (\S+))?$", text, re.MULTILINE)
    names = {name for _, name in stages}
    # Every base is pinned by digest, or is an earlier stage.
    assert stages and all(
        base in names or re.fullmatch(r"[\w./:-]+@sha256:[0-9a-f]{64}", base)
        for base, _ in stages
    )
    user = re.findall(r"^USER (\S+)$", text, re.MULTILINE)
    assert user and user[-1].split(":")[0] not in {"0", "root"}
    assert re.search(r'^ENTRYPOINT \["t2gen"\]$', text, re.MULTILINE)
    assert re.search(r'^ENTRYPOINT \["t2gen-kustomize"\]$', text, re.MULTILINE)
    # Every file the wheel is built from is copied into the build stage.
    for needed in ("pyproject.toml", "README.md", "t2gen", "templates", "schemas"):
        assert re.search(rf"^COPY .*\b{re.escape(needed)}\b", text, re.MULTILINE), (
            needed
        )


def test_one_user_id_for_the_image_and_the_pods() -> None:
    """The image runs as the ID docs/security.md chose for pods (issue 42, item 4)."""
    from t2gen.jobfile.schema import apply_defaults

    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    (user,) = re.findall(r"^USER (\d+):(\d+)$", text, re.MULTILINE)
    assert re.search(rf"useradd --uid {user[0]} ", text)
    job = apply_defaults(
        {
            **_job("x"),
            "spec": {**_job("x")["spec"], "security": {"profile": "restricted"}},
        }
    )
    security = job["spec"]["security"]
    assert user == (str(security["runAsUser"]), str(security["runAsGroup"]))
    for page in ("docs/security.md", "docs/integrations.md"):
        said = set(
            re.findall(
                r"\b(?:uid|user|ID) (\d{4,5})\b", (ROOT / page).read_text("utf-8")
            )
        )
        assert said <= {user[0], "65534", "999"}, (page, said)
