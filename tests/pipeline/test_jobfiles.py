"""Which files are job files (issue 42, item 1): read as render reads them, never by a pattern."""

from __future__ import annotations

from pathlib import Path

import pytest

from t2gen.errors import SchemaError
from t2gen.pipeline.jobfiles import expand_job_paths, is_job_file

JOBS = {
    "plain.yaml": "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: a}\n",
    "comment.yaml": "kind: Twister2Job   # the job\n",
    "quoted.yaml": "'kind': \"Twister2Job\"\n",
    "json.json": '{"apiVersion": "t2gen/v1", "kind": "Twister2Job"}',
    "flow.yaml": "{kind: Twister2Job, metadata: {name: f}}\n",
    "api-version-only.yaml": "apiVersion: t2gen/v1\nkind: Twister2Jobb\n",
    "tag.yaml": "kind: !!str Twister2Job\n",  # render refuses tags
    "anchor.yaml": "kind: &k Twister2Job\nother: *k\n",  # and anchors
    "two-documents.yaml": "kind: ConfigMap\n---\nkind: Twister2Job\n",
    "conflict.yaml": "kind: Twister2Job\nmetadata:\n<<<<<<< HEAD\n  name: a\n=======\n"
    "  name: b\n>>>>>>> b\n",
    "latin1.yaml": b"kind: Twister2Job\nmetadata: {name: caf\xe9}\n",
    "after-an-error.yaml": "kind: Twister2Job\nspec: [\n",
}
NOT_JOBS = {
    "configmap.yaml": "apiVersion: v1\nkind: ConfigMap\n",
    "nested.yaml": "kind: List\nitems:\n- kind: Twister2Job\n",
    "in-a-string.yaml": "data:\n  job: |\n    kind: Twister2Job\n",
    "commented-out.yaml": "# kind: Twister2Job\nkind: Pod\n",
    "list.yaml": "- kind: Twister2Job\n",
    "empty.yaml": "",
    "scalar.yaml": "Twister2Job\n",
    "broken-other.yaml": "kind: Pod\nspec: [\n",
    "binary.yaml": b"\x00\x01\x02\xff",
}


def _write(directory: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = directory / name
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")


@pytest.mark.parametrize("name", sorted(JOBS))
def test_a_job_file_however_written(tmp_path: Path, name: str) -> None:
    _write(tmp_path, {name: JOBS[name]})
    assert is_job_file(str(tmp_path / name))


@pytest.mark.parametrize("name", sorted(NOT_JOBS))
def test_not_a_job_file(tmp_path: Path, name: str) -> None:
    _write(tmp_path, {name: NOT_JOBS[name]})
    assert not is_job_file(str(tmp_path / name))


def test_a_file_larger_than_a_job_file_is_judged_by_its_beginning(
    tmp_path: Path,
) -> None:
    big = tmp_path / "big.yaml"
    big.write_text(
        "kind: Twister2Job\npad: '" + "x" * (2 << 20) + "'\n", encoding="utf-8"
    )
    assert is_job_file(str(big))  # so render says it is too large
    other = tmp_path / "other.yaml"
    other.write_text("kind: Pod\npad: '" + "x" * (2 << 20) + "'\n", encoding="utf-8")
    assert not is_job_file(str(other))


def test_a_directory_as_kubectl_reads_it(tmp_path: Path) -> None:
    _write(tmp_path, {"b.yaml": JOBS["plain.yaml"], "a.json": JOBS["json.json"]})
    _write(
        tmp_path, {"c.txt": JOBS["plain.yaml"], "d.yaml": NOT_JOBS["configmap.yaml"]}
    )
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "sub", {"e.yml": JOBS["flow.yaml"]})
    (tmp_path / "link").symlink_to(tmp_path / "sub")  # not followed, as filepath.Walk
    (tmp_path / "f.yaml").symlink_to(tmp_path / "b.yaml")  # a file: read
    top = [str(tmp_path / name) for name in ("a.json", "b.yaml", "f.yaml")]
    assert expand_job_paths([str(tmp_path)]) == top
    assert expand_job_paths([str(tmp_path)], recursive=True) == [
        *top,
        str(tmp_path / "sub" / "e.yml"),
    ]
    # A named file is read whatever its name; render keeps it, find asks first.
    named = [str(tmp_path / "c.txt"), str(tmp_path / "d.yaml"), "-"]
    assert expand_job_paths(named) == named
    assert expand_job_paths(named[:2], only_jobs=True) == named[:1]


def test_a_directory_without_job_files(tmp_path: Path) -> None:
    _write(tmp_path, {"d.yaml": NOT_JOBS["configmap.yaml"]})
    assert expand_job_paths([str(tmp_path)], only_jobs=True) == []
    with pytest.raises(SchemaError) as raised:
        expand_job_paths([str(tmp_path), str(tmp_path / "missing")])
    assert raised.value.lines() == [  # render reads the missing file, and says so
        f"{tmp_path}: no job file in this directory (a .json, .yaml, .yml file of kind "
        "Twister2Job); -R also reads its subdirectories",
    ]
    with pytest.raises(SchemaError) as raised:
        expand_job_paths([str(tmp_path / "missing")], only_jobs=True)
    assert raised.value.lines() == [
        f"{tmp_path / 'missing'}: no such file or directory"
    ]
