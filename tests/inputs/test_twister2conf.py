"""The one reader of Twister2 configuration (t2gen.inputs.twister2conf): import, package --conf and a package's own.

Every pod reads its configuration with SnakeYAML 1.x, whose plain ``yes``,
``no``, ``on`` and ``off`` are booleans (DSC-SPIDAL/twister2
``twister2/common/src/java/edu/iu/dsc/tws/common/config/ConfigReader.java:74,99``);
all three uses must read them so.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from t2gen.errors import InputError
from t2gen.importer import import_config
from t2gen.inputs.package import read_package
from t2gen.inputs.twister2conf import package_settings, parse_conf, read_conf_file
from tests.conftest import ROOT
from tests.helpers import run_cli
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"

JOB = (
    "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: nb}\n"
    "spec:\n  image: twister2/twister2-k8s:0.8.0\n"
    "  workerClass: org.example.Worker\n"
    "  workers: [{count: 2}]\n"
)


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("no", False),
        ("No", False),
        ("off", False),
        ("yes", True),
        ("ON", True),
        ("true", True),
        ('"no"', "no"),
        ("'yes'", "yes"),
        ("nope", "nope"),
    ],
)
def test_plain_yaml11_booleans_are_booleans_and_quoted_ones_strings(
    written: str, read: object
) -> None:
    doc = parse_conf(f"twister2.checkpointing.enable: {written}\n", "checkpoint.yaml")
    assert doc is not None
    assert doc.data == {"twister2.checkpointing.enable": read}


def test_a_file_of_comments_only_has_no_document() -> None:
    assert parse_conf("# twister2.job.name: x\n---\n", "core.yaml") is None


def test_a_list_is_refused_as_a_configuration_file_located(tmp_path: Path) -> None:
    path = tmp_path / "core.yaml"
    path.write_text("- a\n- b\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        read_conf_file(str(path))
    (problem,) = raised.value.problems
    assert (problem.line, problem.col) == (1, 1)
    assert "must be a mapping of keys to values" in problem.message


def _package_with(tmp_path: Path, checkpoint: bytes) -> Path:
    """t2gen's package of JOB with ``common/checkpoint.yaml`` replaced, as another client might write it."""
    (tmp_path / "nb.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "nb.jar").write_bytes(jar_bytes())
    done = run_cli(["package", "nb.yaml", "--jar", "nb.jar"], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    out = io.BytesIO()
    with (
        tarfile.open(tmp_path / "nb.tar.gz") as old,
        tarfile.open(fileobj=out, mode="w:gz") as new,
    ):
        for member in old.getmembers():
            data = old.extractfile(member)
            assert data is not None
            new.addfile(member, data)
        info = tarfile.TarInfo("twister2-job/common/checkpoint.yaml")
        info.size = len(checkpoint)
        new.addfile(info, io.BytesIO(checkpoint))
    path = tmp_path / "other.tar.gz"
    path.write_bytes(out.getvalue())
    return path


def test_a_packages_no_is_false_so_a_package_that_agrees_is_accepted(
    tmp_path: Path,
) -> None:
    """Was: the package's own configuration was read as YAML 1.2, `no` was the string 'no', truthy: refused."""
    package = _package_with(tmp_path, b"twister2.checkpointing.enable: no\n")
    settings = package_settings(read_package(str(package)))
    assert settings["twister2.checkpointing.enable"].value is False
    done = run_cli(["render", "nb.yaml", "--package", str(package)], cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "checkpointing" not in done.stderr


def test_a_packages_yes_is_true_and_disagrees_with_a_job_without_checkpointing(
    tmp_path: Path,
) -> None:
    package = _package_with(tmp_path, b"twister2.checkpointing.enable: yes\n")
    done = run_cli(["render", "nb.yaml", "--package", str(package)], cwd=tmp_path)
    assert done.returncode == 1
    assert "package sets twister2.checkpointing.enable True" in done.stderr


def test_import_package_conf_and_a_package_read_one_value_alike(tmp_path: Path) -> None:
    """The three readers are one: the same file gives the same value to each."""
    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "tests/fixtures/twister2-0.8-conf", conf)
    (conf / "common" / "checkpoint.yaml").write_text(
        "twister2.checkpointing.enable: off\n", encoding="utf-8"
    )
    imported = import_config([str(conf)], job_name="nb", jar_file="nb.jar")
    assert imported.job["spec"]["checkpointing"]["enabled"] is False
    (tmp_path / "nb.yaml").write_text(JOB, encoding="utf-8")
    (tmp_path / "nb.jar").write_bytes(jar_bytes())
    # The console script, as a user runs it; the other command lines of this file
    # run in the test's process (tests.helpers.run_cli).
    done = subprocess.run(
        [str(T2GEN), "package", "nb.yaml", "--jar", "nb.jar", "--conf", str(conf)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    # `off` already agrees with a job without checkpointing: --conf changes nothing
    assert "twister2.checkpointing.enable" not in done.stderr
    settings = package_settings(read_package(str(tmp_path / "nb.tar.gz")))
    assert settings["twister2.checkpointing.enable"].value is False


def test_a_configuration_directory_linked_outside_the_root_is_refused(
    tmp_path: Path,
) -> None:
    """``DIR/common`` a symbolic link to another directory: its files are not DIR's."""
    from t2gen.errors import ConfigError
    from t2gen.inputs.twister2conf import directory_files

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.yaml").write_text("password: x\n")
    root = tmp_path / "conf"
    (root / "kubernetes").mkdir(parents=True)
    (root / "shared").mkdir()
    (root / "shared" / "core.yaml").write_text("a: 1\n")
    (root / "common").symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="outside"):
        directory_files(root, "common")
    (root / "common").unlink()
    (root / "common").symlink_to("shared")  # inside the root: its files are the root's
    assert directory_files(root, "common") == [("core.yaml", b"a: 1\n")]
