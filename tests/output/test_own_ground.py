"""What no ``--force`` may replace: the root, a mount point, home, cwd, a command's own inputs (issue 41).

Every case is a fake tree in ``tmp_path``: the home directory is a monkeypatched
``Path.home``, the mount point a monkeypatched ``os.path.ismount``.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from t2gen.errors import OutputError
from t2gen.output.directory import write_directory
from t2gen.output.files import refuse_own_ground, replaceable_target, write_file
from t2gen.render.engine import RenderedDocument
from tests.conftest import ROOT
from tests.helpers import run_console


def _documents() -> list[RenderedDocument]:
    return [
        RenderedDocument(
            "k8s/x.yaml.j2",
            {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}},
        )
    ]


def _tree(tmp_path: Path) -> Path:
    """A directory t2gen wrote, plus a file of the user's in it."""
    out = tmp_path / "out"
    write_directory(_documents(), out, sources=["job.yaml"])
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    return out


def _unchanged(out: Path) -> None:
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert [p.name for p in out.parent.iterdir() if p.name.startswith(".")] == []


def test_home_and_a_directory_above_home_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _tree(tmp_path)
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: out))
    with pytest.raises(OutputError, match=r"out: is your home directory; t2gen never"):
        write_directory(_documents(), out, sources=["job.yaml"], force=True)
    home = out / "user"
    home.mkdir()
    monkeypatch.setattr(Path, "home", classmethod(lambda cls: home))
    with pytest.raises(OutputError, match=r"out: holds your home directory"):
        write_directory(_documents(), out, sources=["job.yaml"], force=True)
    _unchanged(out)


def test_the_current_directory_and_above_it_are_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _tree(tmp_path)
    (out / "deep").mkdir()
    monkeypatch.chdir(out / "deep")
    with pytest.raises(OutputError, match=r"out: holds the current directory"):
        write_directory(_documents(), out, sources=["job.yaml"], force=True)
    monkeypatch.chdir(out)
    with pytest.raises(OutputError, match=r"^\.: is the current directory"):
        write_directory(_documents(), Path(), sources=["job.yaml"], force=True)
    _unchanged(out)


def test_a_mount_point_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = _tree(tmp_path)
    real = os.path.ismount
    monkeypatch.setattr(os.path, "ismount", lambda p: Path(p) == out or real(p))
    with pytest.raises(OutputError, match=r"out: is a mount point"):
        write_directory(_documents(), out, sources=["job.yaml"], force=True)
    _unchanged(out)


def test_the_root_is_refused() -> None:
    """Asked of the rule alone, which only reads: a writer is never pointed at ``/``."""
    with pytest.raises(OutputError, match=r"^/: is the file system root; t2gen never"):
        refuse_own_ground(Path("/"), directory=True)


def test_a_link_to_a_directory_holding_an_input_is_refused(tmp_path: Path) -> None:
    out = _tree(tmp_path)
    job = out / "job.yaml"
    shutil.copy(ROOT / "examples/wordcount.yaml", job)
    link = tmp_path / "link"
    link.symlink_to(out)
    with pytest.raises(OutputError, match=r"link: holds the input .*job\.yaml"):
        write_directory(_documents(), link, sources=[str(job)], force=True)
    with pytest.raises(OutputError, match=r"out: holds the input .*tpl"):
        (out / "tpl").mkdir()
        write_directory(
            _documents(), out, sources=["-"], inputs=[str(out / "tpl")], force=True
        )
    assert job.exists()


def test_force_never_replaces_a_directory_that_was_never_t2gens(tmp_path: Path) -> None:
    out = tmp_path / "photos"
    out.mkdir()
    (out / "a.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(
        OutputError, match=r"photos: holds no file t2gen wrote \(a\.jpg\)"
    ):
        write_directory(_documents(), out, sources=["job.yaml"], force=True)
    assert (out / "a.jpg").read_bytes() == b"\xff\xd8"
    write_directory(_documents(), tmp_path / "empty", sources=["j"], force=True)


def test_render_refuses_an_output_dir_holding_its_job_file(tmp_path: Path) -> None:
    out = _tree(tmp_path)
    job = out / "job.yaml"
    shutil.copy(ROOT / "examples/wordcount.yaml", job)
    result = run_console(["render", str(job), "--output-dir", str(out), "--force"])
    assert result.exit_code == 1, result.stderr
    assert f"holds the input {job}; t2gen never replaces it" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    assert job.exists() and (out / "notes.txt").exists()


def test_a_file_write_never_replaces_an_input(tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    (conf / "kubernetes").mkdir(parents=True)
    resource = conf / "kubernetes" / "resource.yaml"
    resource.write_text("twister2.job.id: x\n", encoding="utf-8")
    with pytest.raises(OutputError, match=r"resource\.yaml: lies in the input .*conf"):
        write_file(resource, "new", marker="#", force=True, inputs=[str(conf)])
    with pytest.raises(OutputError, match=r"resource\.yaml: is the input"):
        replaceable_target(resource, marker=b"#", force=True, inputs=[str(resource)])
    assert resource.read_text(encoding="utf-8") == "twister2.job.id: x\n"


def test_import_refuses_to_overwrite_the_configuration_it_reads(tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "examples/twister2-conf", conf)
    resource = conf / "kubernetes" / "resource.yaml"
    before = resource.read_bytes()
    result = run_console(
        ["import", str(conf), "--output-file", str(resource), "--force"]
    )
    assert result.exit_code == 1
    assert "lies in the input" in result.stderr
    assert resource.read_bytes() == before
