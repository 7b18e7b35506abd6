"""What ships outside the package (issue 34, item 7): the Argo CD config management
plugin's commands run on a real job directory, and the Containerfile follows container
conventions. (The image itself is not built by the tests: no registry is reachable.
Its install steps, a wheel installed in a fresh venv and run from another directory,
are what `make dist` runs.)"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from tests.conftest import ROOT

BIN = Path(sys.executable).parent


def _sh(command: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", command], capture_output=True, text=True, encoding="utf-8", cwd=cwd,
        env={**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"},
        check=False, timeout=120,
    )  # fmt: skip


def test_argocd_plugin_discovers_and_generates_a_job_directory(tmp_path: Path) -> None:
    plugin = yaml.safe_load(
        (ROOT / "integrations/argocd/plugin.yaml").read_text("utf-8")
    )
    assert (plugin["apiVersion"], plugin["kind"]) == (
        "argoproj.io/v1alpha1",
        "ConfigManagementPlugin",
    )
    discover = plugin["spec"]["discover"]["find"]["command"]
    generate = plugin["spec"]["generate"]["command"]
    assert discover[:2] == generate[:2] == ["sh", "-c"]

    app = tmp_path / "app"
    app.mkdir()
    (app / "notes.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    assert (
        _sh(discover[2], app).stdout == ""
    )  # not t2gen's: Argo CD tries other plugins
    shutil.copy(ROOT / "examples/wordcount.yaml", app / "wordcount.yaml")
    shutil.copy(ROOT / "examples/volcano-gang.yaml", app / "volcano-gang.yaml")
    found = _sh(discover[2], app)
    assert found.returncode == 0 and found.stdout.strip() in {
        "wordcount.yaml",
        "volcano-gang.yaml",
    }

    generated = _sh(generate[2], app)
    assert generated.returncode == 0, generated.stderr
    expected = subprocess.run(
        [sys.executable, "-m", "t2gen", "render", "volcano-gang.yaml", "wordcount.yaml"],
        capture_output=True, text=True, encoding="utf-8", cwd=app, check=True, timeout=120,
    )  # fmt: skip
    assert generated.stdout == expected.stdout
    assert "ConfigMap\n" not in generated.stdout.split("kind: ", 1)[0]

    (app / "wordcount.yaml").write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: x}\n",
        encoding="utf-8",
    )
    failed = _sh(generate[2], app)
    assert (failed.returncode, failed.stdout) == (1, "")
    assert "wordcount.yaml:" in failed.stderr


def test_containerfile_conventions() -> None:
    text = (ROOT / "Containerfile").read_text(encoding="utf-8")
    bases = re.findall(r"^FROM (\S+)", text, re.MULTILINE)
    assert bases and all(
        re.fullmatch(r"[\w./:-]+@sha256:[0-9a-f]{64}", base) for base in bases
    )
    user = re.findall(r"^USER (\S+)$", text, re.MULTILINE)
    assert user and user[-1].split(":")[0] not in {"0", "root"}
    assert re.search(r'^ENTRYPOINT \["t2gen"\]$', text, re.MULTILINE)
    # Every file the wheel is built from is copied into the build stage.
    for needed in ("pyproject.toml", "README.md", "t2gen", "templates", "schemas"):
        assert re.search(rf"^COPY .*\b{re.escape(needed)}\b", text, re.MULTILINE), (
            needed
        )
