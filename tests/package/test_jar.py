"""``t2gen package --jar``: a jar (zip file) holding the worker and driver classes."""

from __future__ import annotations

from pathlib import Path

import pytest

from t2gen.errors import ConfigError, SchemaError
from t2gen.inputs.jobfile import parse_job
from t2gen.package.build import build_package
from t2gen.package.jar import class_entry
from t2gen.pipeline.load import validate
from tests.helpers import job_text
from tests.package.cases import jar_bytes


def _build(tmp_path: Path, jar: bytes, spec: str) -> None:
    text = job_text(spec)
    doc = parse_job(text, path=str(tmp_path / "job.yaml"))
    path = tmp_path / "user.jar"
    path.write_bytes(jar)
    build_package(
        validate(doc), doc, jar=str(path), conf=None, output=str(tmp_path / "p.tar.gz")
    )


WORKER = "workers:\n  - count: 2\nworkerClass: org.example.Worker\n"


@pytest.mark.parametrize(
    "jar", [b"", b"not a zip at all", bytes(range(256)) * 64, jar_bytes()[:-30]]
)
def test_a_file_that_is_no_jar_is_refused(jar: bytes, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not a jar file"):
        _build(tmp_path, jar, WORKER)
    assert not (tmp_path / "p.tar.gz").exists()


def test_a_jar_without_the_worker_class_is_refused_at_the_field(
    tmp_path: Path,
) -> None:
    with pytest.raises(SchemaError) as err:
        _build(tmp_path, jar_bytes(classes=("org.example.Other",)), WORKER)
    (problem,) = err.value.problems
    assert (problem.line, problem.json_path) == (9, "spec.workerClass")
    assert "org/example/Worker.class" in problem.message
    assert not (tmp_path / "p.tar.gz").exists()


def test_a_jar_without_the_driver_class_is_refused(tmp_path: Path) -> None:
    spec = WORKER + "driverClass: org.example.Driver\n"
    with pytest.raises(SchemaError) as err:
        _build(tmp_path, jar_bytes(classes=("org.example.Worker",)), spec)
    assert [p.json_path for p in err.value.problems] == ["spec.driverClass"]


def test_a_jar_with_the_classes_is_packed(tmp_path: Path) -> None:
    spec = "workers:\n  - count: 2\nworkerClass: org.example.Outer$Worker\n"
    _build(tmp_path, jar_bytes(classes=("org.example.Outer$Worker",)), spec)
    assert (tmp_path / "p.tar.gz").stat().st_size > 0
    assert class_entry("a.b.C$D") == "a/b/C$D.class"
