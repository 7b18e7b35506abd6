"""The ``.job``'s worker count and JobConfig runtime keys against the job file (``--package``)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

from t2gen.errors import SchemaError
from t2gen.inputs.jobfile import parse_job, read_job
from t2gen.package.agree import with_package
from t2gen.package.build import build_package
from t2gen.package.job import parse_job_message
from t2gen.pipeline.load import validate
from t2gen.twister2 import kryo
from tests.package.cases import ROOT, build_case, jar_bytes

WORDCOUNT = ROOT / "examples/wordcount.yaml"


def _rewrite_job(package: str, change: object) -> None:
    """Rewrite the package's ``.job`` with ``change(message)`` applied, every other member kept."""
    members = []
    with tarfile.open(package, "r:gz") as tar:
        for info in tar:
            stream = tar.extractfile(info)
            assert stream is not None
            data = stream.read()
            if info.name.endswith(".job"):
                message = parse_job_message(data)
                change(message)  # type: ignore[operator]
                data = message.SerializeToString()
            members.append((info, data))
    with tarfile.open(package, "w:gz") as tar:
        for info, data in members:
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def _refusals(job_file: Path | str, package: str) -> list[tuple[str, str]]:
    doc = read_job(str(job_file))
    with pytest.raises(SchemaError) as err:
        with_package([(validate(doc), doc)], package)
    return [(p.json_path, p.message) for p in err.value.problems]


def test_a_worker_count_other_than_the_job_files_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    _, built = build_case("wordcount", tmp_path)

    def more(message: object) -> None:
        message.number_of_workers += 1  # type: ignore[attr-defined]

    _rewrite_job(built.path, more)
    ((path, message),) = _refusals(WORDCOUNT, built.path)
    assert path == "spec.workers"
    assert "8 worker(s) here" in message
    assert "number_of_workers 9" in message


@pytest.mark.parametrize(
    ("key", "field"),
    [
        ("kubernetes.namespace", "metadata.namespace"),
        ("twister2.network.channel.class", "spec.mpi.enabled"),
        ("kubernetes.worker.base.port", "spec.network.basePort"),
        ("twister2.job.master.persistent.volume.size", "spec.jobMaster.persistentDisk"),
    ],
)
def test_a_job_config_runtime_key_in_the_package_is_refused(
    key: str, field: str, tmp_path: Path
) -> None:
    """A package twister2 submit built with such a JobConfig, for a job file without jobConfig."""
    text = WORDCOUNT.read_text().replace(
        "  jobConfig:\n    NO_OF_SAMPLE_WORDS: 100\n    MAX_CHARS: 5\n", ""
    )
    job_file = tmp_path / "job.yaml"
    job_file.write_text(text)
    jar = tmp_path / "wordcount.jar"
    jar.write_bytes(jar_bytes())
    doc = parse_job(text, path=str(job_file))
    built = build_package(
        validate(doc), doc, jar=str(jar), conf=None, output=str(tmp_path / "p.tar.gz")
    )

    def add(message: object) -> None:
        message.config.config_byte_map[key] = kryo.encode("x")  # type: ignore[attr-defined]

    _rewrite_job(built.path, add)
    ((path, message),) = _refusals(job_file, built.path)
    assert path == "spec"
    assert f"sets JobConfig {key}" in message
    assert f"from {field}" in message


def test_a_runtime_key_beside_the_job_files_job_config_is_named_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not also as a key to add to jobConfig, which the rule job-config-runtime-key refuses."""
    monkeypatch.chdir(ROOT)
    _, built = build_case("wordcount", tmp_path)

    def add(message: object) -> None:
        message.config.config_byte_map["kubernetes.namespace"] = kryo.encode("x")  # type: ignore[attr-defined]

    _rewrite_job(built.path, add)
    ((path, message),) = _refusals(WORDCOUNT, built.path)
    assert path == "spec.jobConfig"
    assert "kubernetes.namespace" in message and "metadata.namespace" in message
