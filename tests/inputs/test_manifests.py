"""t2gen check's reading of manifest streams: the object limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from t2gen.errors import SchemaError
from t2gen.inputs import manifests as read
from t2gen.inputs.manifests import TooManyObjects, load_all_yaml_located

CONFIGMAP = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{index}\n"


def _stream(count: int) -> str:
    return "".join(f"---\n{CONFIGMAP.format(index=i)}" for i in range(count))


def _list(count: int) -> str:
    items = "".join(
        f"  - {{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n"
        for i in range(count)
    )
    return f"apiVersion: v1\nkind: List\nitems:\n{items}"


def test_documents_past_the_limit_stop_the_reading_at_the_first_one() -> None:
    assert len(load_all_yaml_located(_stream(3), max_objects=3)) == 3
    with pytest.raises(TooManyObjects) as raised:
        load_all_yaml_located(_stream(5), max_objects=3)
    assert raised.value.line == 3 * 5 + 2  # the fourth document's first key


def test_list_items_count_one_each() -> None:
    assert len(load_all_yaml_located(_list(3), max_objects=3)) == 1
    with pytest.raises(TooManyObjects) as raised:
        load_all_yaml_located(
            "---\n" + CONFIGMAP.format(index=9) + "---\n" + _list(3), max_objects=3
        )
    # One document, then a List of three: its third item is the fourth object.
    assert raised.value.line == 6 + 3 + 3


def test_check_reports_a_stream_over_the_limit_located(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "MAX_MANIFEST_OBJECTS", 4)
    path = tmp_path / "many.yaml"
    path.write_text(_stream(6), encoding="utf-8")
    with pytest.raises(SchemaError) as raised:
        read.read_located_manifests([str(path)])
    (problem,) = raised.value.problems
    assert (problem.line, problem.col) == (4 * 5 + 2, 1)
    assert "more than 4 objects in one stream" in problem.message
    assert "split it into several files" in problem.message


@pytest.mark.parametrize(
    "text",
    ["", "# only a comment\n", "---\n---\n", "apiVersion: v1\nkind: List\nitems: []\n"],
)
def test_a_stream_without_objects_is_refused_as_kubectl_apply_refuses_it(
    tmp_path: Path, text: str
) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SchemaError) as raised:
        read.read_located_manifests([str(path)])
    (problem,) = raised.value.problems
    assert (problem.path, problem.line, problem.col) == (str(path), 1, 1)
    assert problem.message.startswith("no Kubernetes object to check")


def test_an_empty_file_beside_objects_is_fine(tmp_path: Path) -> None:
    empty, full = tmp_path / "empty.yaml", tmp_path / "full.yaml"
    empty.write_text("", encoding="utf-8")
    full.write_text(_stream(2), encoding="utf-8")
    assert len(read.read_located_manifests([str(empty), str(full)])) == 2


def test_a_kind_is_a_name_never_a_path(tmp_path: Path) -> None:
    # A schema-looking file beside the manifest; a kind with ../ once made
    # `t2gen check` read it (and print it in a traceback). Every file the
    # process opens is recorded by an audit hook: the check opens nothing here.
    (tmp_path / "x-v1.json").write_text('{"required": ["secret"]}', encoding="utf-8")
    manifest = tmp_path / "m.yaml"
    depth = len(Path(sys.prefix).resolve().parts) + 8
    manifest.write_text(
        "apiVersion: v1\nkind: " + "../" * depth + str(tmp_path).lstrip("/") + "/x\n"
        "metadata:\n  name: a\n",
        encoding="utf-8",
    )
    code = (
        "import sys\n"
        "opened = []\n"
        "sys.addaudithook(lambda event, args: opened.append(str(args[0])) "
        "if event == 'open' else None)\n"
        "from t2gen.cli.commands import run_check\n"
        f"code = run_check([{str(manifest)!r}], '1.37')\n"
        f"print(code, [p for p in opened if p.startswith({str(tmp_path)!r})])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-1] == f"1 [{str(manifest)!r}]"
    assert "is no kind" in done.stderr and "secret" not in done.stderr


def test_openapi_refuses_a_kind_that_is_no_name() -> None:
    from t2gen.checks.openapi import KubeSchemas

    schemas = KubeSchemas("1.37")
    obj = {"apiVersion": "v1", "kind": "../../x", "metadata": {"name": "a"}}
    assert schemas.errors(obj) == (
        ["apiVersion and kind must be names (apps/v1 Pod)"],
        True,
    )
    obj = {"apiVersion": "a/../../v1", "kind": "ConfigMap", "metadata": {"name": "a"}}
    assert schemas.errors(obj)[0] == ["apiVersion and kind must be names (apps/v1 Pod)"]
