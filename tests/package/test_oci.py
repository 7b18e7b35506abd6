"""``t2gen package --oci``: the layout is valid by the OCI image spec's schemas, an artifact by its guidance, reproducible.

The schemas are opencontainers/image-spec v1.1.1's (``tests/fixtures/oci-image-spec/``),
each registered under the names the spec's own Go validator gives it
(``schema/schema.go``, ``specURLs``), and checked with jsonschema's Draft 4
validator, the draft they declare.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft4Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT4

from t2gen.package.delivery import repository
from t2gen.package.oci import ARTIFACT_TYPE, LAYER_MEDIA_TYPE, artifact
from tests.conftest import ROOT
from tests.package.cases import jar_bytes

SCHEMAS = ROOT / "tests" / "fixtures" / "oci-image-spec"
ALIASES = {
    "content-descriptor.json": [
        "https://opencontainers.org/schema/descriptor",
        "https://opencontainers.org/schema/image/content-descriptor.json",
    ],
    "defs-descriptor.json": [
        "https://opencontainers.org/schema/image/descriptor/mediaType",
        "https://opencontainers.org/schema/defs-descriptor.json",
        "https://opencontainers.org/schema/image/defs-descriptor.json",
    ],
    "defs.json": [
        "https://opencontainers.org/schema/defs.json",
        "https://opencontainers.org/schema/image/defs.json",
        "https://opencontainers.org/schema/image/descriptor/defs.json",
    ],
    "image-index-schema.json": ["https://opencontainers.org/schema/image/index"],
    "image-layout-schema.json": ["https://opencontainers.org/schema/image/layout"],
    "image-manifest-schema.json": ["https://opencontainers.org/schema/image/manifest"],
}
EXAMPLE = ROOT / "examples" / "package-oci.yaml"
T2GEN = ROOT / ".venv" / "bin" / "t2gen"


def _validator(name: str) -> Draft4Validator:
    resources = []
    for file, urls in ALIASES.items():
        resource = Resource(
            contents=json.loads((SCHEMAS / file).read_text()), specification=DRAFT4
        )
        resources += [(url, resource) for url in (file, *urls)]
    registry: Registry[Any] = Registry().with_resources(resources)
    schema = json.loads((SCHEMAS / name).read_text())
    return Draft4Validator(schema, registry=registry)


def _package(tmp: Path, layout: Path, *, env: dict[str, str] | None = None) -> str:
    jar = tmp / "wordcount.jar"
    if not jar.exists():
        jar.write_bytes(jar_bytes())
    result = subprocess.run(
        [
            str(T2GEN) if T2GEN.exists() else "t2gen",
            "package",
            str(EXAMPLE),
            "--jar",
            str(jar),
            "--output-file",
            str(tmp / "wordcount-oci.tar.gz"),
            "--oci",
            str(layout),
        ],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **(env or {})},
        cwd=tmp,
    )
    assert result.returncode == 0, result.stderr
    return result.stderr


def _files(layout: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(layout)): p.read_bytes()
        for p in sorted(layout.rglob("*"))
        if p.is_file()
    }


def test_the_layout_is_valid_by_the_oci_schemas_and_an_artifact(tmp_path: Path) -> None:
    layout = tmp_path / "layout"
    stderr = _package(tmp_path, layout)
    files = _files(layout)
    assert json.loads(files["oci-layout"]) == {"imageLayoutVersion": "1.0.0"}
    _validator("image-layout-schema.json").validate(json.loads(files["oci-layout"]))
    index = json.loads(files["index.json"])
    _validator("image-index-schema.json").validate(index)
    # every blob is named by its digest
    for name, data in files.items():
        if name.startswith("blobs/sha256/"):
            assert hashlib.sha256(data).hexdigest() == name.rsplit("/", 1)[1]
    (entry,) = index["manifests"]
    _validator("content-descriptor.json").validate(entry)
    assert entry["annotations"] == {
        "org.opencontainers.image.ref.name": "wordcount-oci"
    }
    manifest_bytes = files[f"blobs/sha256/{entry['digest'].split(':')[1]}"]
    assert len(manifest_bytes) == entry["size"]
    manifest = json.loads(manifest_bytes)
    manifests = _validator("image-manifest-schema.json")
    manifests.validate(manifest)
    # the schemas bite: a wrong version, a digest that is none, a media type that is none
    assert not manifests.is_valid({**manifest, "schemaVersion": 1})
    assert not manifests.is_valid(
        {**manifest, "config": {**manifest["config"], "digest": "no digest"}}
    )
    assert not manifests.is_valid({**manifest, "artifactType": "not a media type"})
    # the artifact guidance (image-spec manifest.md): a type, the empty config, one titled layer
    assert manifest["artifactType"] == entry["artifactType"] == ARTIFACT_TYPE
    assert manifest["config"] == {
        "mediaType": "application/vnd.oci.empty.v1+json",
        "digest": "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
        "size": 2,
        "data": "e30=",
    }
    assert files[f"blobs/sha256/{manifest['config']['digest'].split(':')[1]}"] == b"{}"
    (layer,) = manifest["layers"]
    _validator("content-descriptor.json").validate(layer)
    assert layer["mediaType"] == LAYER_MEDIA_TYPE
    assert layer["annotations"] == {
        "org.opencontainers.image.title": "wordcount-oci.tar.gz"
    }
    package = (tmp_path / "wordcount-oci.tar.gz").read_bytes()
    assert files[f"blobs/sha256/{layer['digest'].split(':')[1]}"] == package
    assert layer["size"] == len(package)
    assert sorted(files) == sorted(
        [
            "oci-layout",
            "index.json",
            *(
                f"blobs/sha256/{d.split(':')[1]}"
                for d in (
                    entry["digest"],
                    manifest["config"]["digest"],
                    layer["digest"],
                )
            ),
        ]
    )
    # what the job file names, and the three ways to push it unchanged
    assert (
        f"oci: registry.example.com/analytics/wordcount-oci@{entry['digest']}" in stderr
    )
    assert f"size: {len(package)}" in stderr
    for tool in (
        "oras cp --from-oci-layout",
        "skopeo copy --preserve-digests",
        "crane push",
    ):
        assert tool in stderr


def test_the_digest_is_the_same_across_time_zones_umasks_and_runs(
    tmp_path: Path,
) -> None:
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    _package(first, first / "layout", env={"TZ": "UTC"})
    jar = second / "wordcount.jar"
    jar.write_bytes(jar_bytes())
    os.utime(jar, (1_000_000_000, 1_000_000_000))
    old = os.umask(0o077)
    try:
        _package(second, second / "layout", env={"TZ": "Asia/Kolkata"})
    finally:
        os.umask(old)
    assert _files(first / "layout") == _files(second / "layout")
    # and again into the same directory: replaced by the same bytes
    _package(first, first / "layout", env={"TZ": "America/Los_Angeles"})
    assert _files(first / "layout") == _files(second / "layout")


def test_the_manifest_digest_depends_only_on_the_name_and_the_package() -> None:
    one = artifact("job", "sha256:" + "a" * 64, 100)
    assert one == artifact("job", "sha256:" + "a" * 64, 100)
    assert one.digest != artifact("job", "sha256:" + "b" * 64, 100).digest
    assert one.digest != artifact("job2", "sha256:" + "a" * 64, 100).digest
    assert one.digest == "sha256:" + hashlib.sha256(one.manifest).hexdigest()


@pytest.mark.parametrize("kind", ["not ours", "a file", "no parent"])
def test_a_refused_layout_leaves_no_package_behind(tmp_path: Path, kind: str) -> None:
    """A command that exits 1 on ``--oci DIR`` writes nothing, the package file included, and a directory t2gen did not write keeps its files."""
    layout = tmp_path / "layout"
    if kind == "not ours":
        layout.mkdir()
        (layout / "notes.txt").write_text("mine")
    elif kind == "a file":
        layout.write_text("mine")
    else:
        layout = tmp_path / "missing" / "layout"
    jar = tmp_path / "wordcount.jar"
    jar.write_bytes(jar_bytes())
    before = sorted(p.name for p in tmp_path.iterdir())
    result = subprocess.run(
        [
            str(T2GEN) if T2GEN.exists() else "t2gen",
            "package",
            str(EXAMPLE),
            "--jar",
            str(jar),
            "--oci",
            str(layout),
        ],
        capture_output=True,
        text=True,
        check=False,
        cwd=tmp_path,
    )
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    assert str(layout) in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nor hidden files
    if kind == "not ours":
        assert "not an OCI layout t2gen wrote" in result.stderr
        assert _files(layout) == {"notes.txt": b"mine"}


@pytest.mark.parametrize(
    ("reference", "repo"),
    [
        ("registry.example.com/a/job@sha256:" + "a" * 64, "registry.example.com/a/job"),
        ("registry:5000/a/job:v1@sha256:" + "a" * 64, "registry:5000/a/job"),
        ("registry:5000/job:v1", "registry:5000/job"),
    ],
)
def test_the_repository_of_a_reference(reference: str, repo: str) -> None:
    assert repository(reference) == repo


def test_writing_the_digest_into_the_job_file_does_not_change_the_package(
    tmp_path: Path,
) -> None:
    """README's order: package, push, write ``source`` into the job file; packaging again gives the same bytes.

    The package's delivery keys used to follow ``source`` (``client-to-pods``
    with it, ``webserver`` before it), so the second build had another digest
    and ``package`` advised writing one that was never pushed.
    """
    text = EXAMPLE.read_text(encoding="utf-8")
    job = tmp_path / "wordcount-oci.yaml"
    job.write_text(text[: text.index("    source:")], encoding="utf-8")  # before step 4
    (tmp_path / "wordcount.jar").write_bytes(jar_bytes())

    def package() -> tuple[bytes, str]:
        result = subprocess.run(
            [
                str(T2GEN) if T2GEN.exists() else "t2gen",
                *("package", str(job), "--jar", "wordcount.jar"),
                *("--oci", "layout", "--force"),
            ],
            capture_output=True,
            text=True,
            check=False,
            cwd=tmp_path,
        )
        assert result.returncode == 0, result.stderr
        return (tmp_path / "wordcount-oci.tar.gz").read_bytes(), result.stderr

    first, printed = package()
    source = printed[printed.index("    source:") :]  # what package says to write
    job.write_text(job.read_text(encoding="utf-8") + source, encoding="utf-8")
    second, printed = package()
    assert "warning:" not in printed, printed
    assert second == first
