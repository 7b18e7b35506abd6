"""Golden files: the output of t2gen on every example is a reviewed contract.

Each case is a directory ``tests/golden/<case>/`` holding ``args`` (the command
line after ``t2gen``, any command: ``render``, ``import``, ``plan``, ...;
``{case}`` is the case directory, ``{out}`` a fresh output directory) and the expected ``expected.stdout``, ``expected.stderr``,
``expected.exit_code`` (when not 0) and, for ``-o``, an ``expected/`` tree.
``pytest --update-golden`` (``make golden``) rewrites them. The ``invalid-*``
directories here are input cases: tests/suites/test_cases.py runs them with the rest of
the tree of input cases in ``tests/cases/``.
"""

from __future__ import annotations

import difflib
import re
import shlex
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from t2gen.checks import check_objects
from t2gen.cli.app import app
from t2gen.kube.yamlio import load_all_yaml
from tests.conftest import (
    EXAMPLES,
    GOLDEN,
    INPUT_CASES,
    KUBE_VERSIONS,
    ROOT,
    kube_schema_errors,
    kubectl_objects,
)
from tests.helpers import run_console

CASES = sorted(
    path.name
    for path in GOLDEN.iterdir()
    if (path / "args").is_file() and path not in INPUT_CASES
)


def _args(case: str, out: Path) -> list[str]:
    text = (GOLDEN / case / "args").read_text(encoding="utf-8").strip()
    return [
        part.replace("{case}", f"tests/golden/{case}").replace("{out}", str(out))
        for part in shlex.split(text)
    ]


def _compare(expected_path: Path, actual: str, update: bool) -> None:
    if update:
        if actual:
            expected_path.write_text(actual, encoding="utf-8", newline="\n")
        elif expected_path.exists():
            expected_path.unlink()
        return
    expected = (
        expected_path.read_text(encoding="utf-8").replace("\r\n", "\n")
        if expected_path.exists()
        else ""
    )
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                str(expected_path),
                "actual",
            )
        )
        pytest.fail(
            f"{expected_path.relative_to(ROOT)} differs (run `make golden` if intended):\n{diff}"
        )


def _run(case: str, out: Path) -> Any:
    return run_console(_args(case, out))


@pytest.mark.parametrize("case", CASES)
def test_golden(
    case: str, in_root: Path, tmp_path: Path, update_golden: bool, fast_paths: str
) -> None:
    """Each golden command line, with the fast paths and then with every switch set."""
    update_golden = update_golden and fast_paths == "fast"
    out = tmp_path / "out"
    result = _run(case, out)
    directory = GOLDEN / case
    _compare(directory / "expected.stdout", result.stdout, update_golden)
    _compare(
        directory / "expected.stderr",
        result.stderr.replace(str(out), "{out}"),
        update_golden,
    )
    _compare(
        directory / "expected.exit_code",
        f"{result.exit_code}\n" if result.exit_code else "",
        update_golden,
    )
    tree = directory / "expected"
    if out.is_dir():
        if update_golden:
            shutil.rmtree(tree, ignore_errors=True)
            shutil.copytree(out, tree)
        produced = sorted(p.name for p in out.iterdir())
        assert produced == sorted(p.name for p in tree.iterdir())
        for name in produced:
            _compare(tree / name, (out / name).read_text(encoding="utf-8"), False)
    if result.exit_code and not _is_verdict(case):
        assert result.stdout == "", "nothing may reach stdout when t2gen fails"


def _is_verdict(case: str) -> bool:
    """A verdict on stdout, not a failure: ``plan --nodes`` (or ``--quota``) exits 1 for
    "infeasible" or "not admitted", ``status`` by the job's phase (3 Failed, 4 Ended or NotFound)."""
    args = _args(case, Path())
    return (
        (args[0] == "plan" and ("--nodes" in args or "--quota" in args))
        or args[0] == "status"
    ) and not (GOLDEN / case / "expected.stderr").exists()


def _rendered_cases() -> list[str]:
    """Cases whose stdout is manifests: a `---` stream or a JSON List."""
    found = []
    for case in CASES:
        if _args(case, Path())[0] != "render":
            continue
        stdout = GOLDEN / case / "expected.stdout"
        if stdout.is_file() and stdout.read_text(encoding="utf-8").startswith(
            ("---\n", "{")
        ):
            found.append(case)
    return found


def _objects(case: str) -> list[dict[str, Any]]:
    text = (GOLDEN / case / "expected.stdout").read_text(encoding="utf-8")
    if text.startswith("{"):
        import json

        return list(json.loads(text)["items"])
    return [obj for obj in load_all_yaml(text) if obj is not None]


_IMAGE_MAPPING = re.compile(r'\bimage"?:\s*(?:\n|\{)')
"""A key ``image`` whose value is a mapping (block or flow, YAML or JSON): an image volume."""


def _render_version(case: str) -> str | None:
    """The Kubernetes version a case renders for: its ``--kube-version``, the default
    when it uses the Workload API (whose shape depends on it) or an ``image`` volume
    (from 1.35), else None (any)."""
    args = _args(case, Path())
    if "--kube-version" in args:
        return args[args.index("--kube-version") + 1]
    text = (GOLDEN / case / "expected.stdout").read_text(encoding="utf-8")
    if "scheduling.k8s.io/" not in text and not _IMAGE_MAPPING.search(text):
        return None  # nothing to look for: not parsed (at collection, in every worker)
    if any(
        str(obj.get("apiVersion")).startswith("scheduling.k8s.io/")
        or any(  # an image volume (jobPackage.source.oci): Kubernetes 1.35 and later
            "image" in volume
            for volume in ((obj.get("spec") or {}).get("template") or {})
            .get("spec", {})
            .get("volumes", [])
        )
        for obj in _objects(case)
    ):
        return KUBE_VERSIONS[-1]
    return None


def _validations() -> list[tuple[str, str]]:
    """Each rendered golden with each Kubernetes version its schema check means:
    the one it renders for, or every supported one when it renders for any."""
    pairs = []
    for case in _rendered_cases():
        fixed = _render_version(case)
        pairs += [(case, fixed)] if fixed else [(case, v) for v in KUBE_VERSIONS]
    return pairs


@pytest.mark.parametrize(("case", "version"), _validations())
def test_golden_is_valid_kubernetes(case: str, version: str) -> None:
    errors = [
        error for obj in _objects(case) for error in kube_schema_errors(obj, version)
    ]
    assert errors == []


@pytest.mark.parametrize("case", [c for c in _rendered_cases() if "gang" in c])
def test_gang_golden_passes_t2gen_check(case: str, tmp_path: Path) -> None:
    """Every gang-scheduling golden passes ``t2gen check``, its group objects included (none unchecked)."""
    manifest = tmp_path / "manifest.yaml"
    manifest.write_text(
        (GOLDEN / case / "expected.stdout").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    version = _render_version(case) or KUBE_VERSIONS[-1]
    result = CliRunner().invoke(
        app, ["check", str(manifest), "--kube-version", version], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert (
        "not checked" not in result.output and "t2gen's own schema" not in result.output
    )
    assert "valid for Kubernetes" in result.stdout


@pytest.mark.parametrize("case", _rendered_cases())
def test_golden_passes_semantic_checks(case: str) -> None:
    assert check_objects(_objects(case)) == []


@pytest.fixture(scope="module")
def kubectl_read(kubectl: Any) -> dict[str, list[dict[str, Any]]]:
    """Every YAML golden's objects as one kubectl process reads them: case -> objects."""
    cases = [c for c in _rendered_cases() if "json" not in c]
    objects = kubectl_objects(
        kubectl, *(GOLDEN / case / "expected.stdout" for case in cases)
    )
    read: dict[str, list[dict[str, Any]]] = {}
    for case in cases:
        count = len(_objects(case))
        read[case], objects = objects[:count], objects[count:]
    assert objects == []
    return read


@pytest.mark.parametrize("case", [c for c in _rendered_cases() if "json" not in c])
def test_kubectl_reads_the_golden_as_intended(
    case: str, kubectl_read: dict[str, list[dict[str, Any]]]
) -> None:
    assert kubectl_read[case] == _objects(case)


@pytest.mark.parametrize("case", _rendered_cases())
def test_render_is_byte_stable(case: str, in_root: Path, tmp_path: Path) -> None:
    first, second = _run(case, tmp_path / "a"), _run(case, tmp_path / "b")
    assert first.stdout == second.stdout


def test_every_example_has_a_golden_case() -> None:
    for example in EXAMPLES:
        assert example.stem in CASES, (
            f"add tests/golden/{example.stem}/args for {example.name}"
        )
        assert _args(example.stem, Path()) == ["render", f"examples/{example.name}"]
