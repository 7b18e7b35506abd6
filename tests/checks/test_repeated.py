"""``t2gen check`` of a stream holding one object twice says so, located (issue 41).

Before: a stream with the same ConfigMap twice was "2 objects valid"; ``kubectl
apply`` would keep only the later copy.
"""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from t2gen.checks.duplicates import repeated_objects
from t2gen.cli.app import app
from tests.conftest import ROOT

runner = CliRunner()
CONFIG_MAP = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n{more}data:\n  a: b\n"
)


def _check(tmp_path: Path, text: str, *flags: str) -> tuple[int, str]:
    path = tmp_path / "objects.yaml"
    path.write_text(text, encoding="utf-8")
    result = runner.invoke(app, ["check", *flags, str(path)])
    return result.exit_code, result.stderr


def test_anyones_object_twice_is_a_located_note_and_an_error_under_strict(
    tmp_path: Path,
) -> None:
    one = CONFIG_MAP.format(name="settings", more="")
    code, stderr = _check(tmp_path, f"{one}---\n{one}")
    path = tmp_path / "objects.yaml"
    finding = (
        f"{path}:8: ConfigMap/settings: the same object as at {path}:1 (kind, namespace "
        "and name): kubectl apply would keep only the later one; give each object a name "
        "of its own"
    )
    assert code == 0
    assert f"note: {finding} (a note: an error under --strict)" in stderr
    code, stderr = _check(tmp_path, f"{one}---\n{one}", "--strict")
    assert (code, stderr) == (1, finding + "\n")


def test_t2gens_objects_twice_are_an_error(tmp_path: Path) -> None:
    rendered = runner.invoke(app, ["render", str(ROOT / "examples/wordcount.yaml")])
    assert rendered.exit_code == 0
    code, stderr = _check(tmp_path, f"{rendered.stdout}---\n{rendered.stdout}")
    assert code == 1
    assert "ServiceAccount/wordcount-worker: the same object as at " in stderr


def test_another_namespace_group_or_kind_is_another_object() -> None:
    def obj(api: str, kind: str, namespace: str | None) -> dict[str, object]:
        metadata = {"name": "x", **({"namespace": namespace} if namespace else {})}
        return {"apiVersion": api, "kind": kind, "metadata": metadata}

    distinct = [
        obj("v1", "ConfigMap", None),
        obj("v1", "ConfigMap", "other"),
        obj("v1", "Secret", None),
        obj("batch/v1", "Job", None),
        obj("batch.volcano.sh/v1alpha1", "Job", None),
    ]
    assert repeated_objects(distinct, None) == []
    again = [*distinct, obj("v1", "ConfigMap", None), {"kind": "ConfigMap"}]
    assert repeated_objects(again, None) == [
        (
            5,
            "ConfigMap/x: the same object as at object 1 (kind, namespace and name): "
            "kubectl apply would keep only the later one; give each object a name of its own",
        )
    ]


def test_the_same_object_in_two_files_is_two_streams(tmp_path: Path) -> None:
    # files given together are often applied apart (the third-party corpus is)
    one = CONFIG_MAP.format(name="settings", more="")
    (tmp_path / "a.yaml").write_text(one, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(one, encoding="utf-8")
    result = runner.invoke(
        app, ["check", "--strict", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")]
    )
    assert (result.exit_code, result.stderr) == (0, "")
