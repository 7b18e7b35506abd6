"""``t2gen package`` and ``render --package`` with a package named by digest (``jobPackage.source``), and the fixed defects around them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.helpers import Completed, run_cli
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"
URL_EXAMPLE = ROOT / "examples" / "package-url.yaml"
OCI_EXAMPLE = ROOT / "examples" / "package-oci.yaml"


def t2gen(*argv: str, cwd: Path) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` from ``cwd``, run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


@pytest.fixture
def jar(tmp_path: Path) -> Path:
    path = tmp_path / "wordcount.jar"
    path.write_bytes(jar_bytes())
    return path


def _with_source(tmp: Path, example: Path, **source: object) -> Path:
    job = yaml.safe_load(example.read_text(encoding="utf-8"))
    job["spec"]["jobPackage"]["source"].update(source)
    for key in [k for k, v in source.items() if v is None]:
        del job["spec"]["jobPackage"]["source"][key]
    path = tmp / example.name
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    return path


def _pods(stdout: str) -> list[dict[str, object]]:
    return [
        o["spec"]["template"]
        for o in yaml.safe_load_all(stdout)
        if o and o["kind"] == "StatefulSet"
    ]


def test_render_package_pins_the_files_digest_and_size(
    tmp_path: Path, jar: Path
) -> None:
    job = _with_source(tmp_path, URL_EXAMPLE, size=None)
    built = t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    package = (tmp_path / "wordcount-url.tar.gz").read_bytes()
    digest = hashlib.sha256(package).hexdigest()
    # package prints the digest and size to write, and warns about the stale one
    assert (
        f"sha256: {digest}" in built.stderr and f"size: {len(package)}" in built.stderr
    )
    assert "warning: spec.jobPackage.source.sha256: sha256 is " in built.stderr
    # render without the size (and no --package) is refused, located
    refused = t2gen("render", str(job), cwd=tmp_path)
    assert refused.returncode == 1 and "needs size" in refused.stderr
    # the job file's sha256 disagrees with the file: refused, naming both
    wrong = t2gen("render", str(job), "--package", "wordcount-url.tar.gz", cwd=tmp_path)
    assert wrong.returncode == 1
    assert f"but wordcount-url.tar.gz has {digest}" in wrong.stderr
    # right digest: the manifests carry it and the file's size
    job = _with_source(tmp_path, URL_EXAMPLE, sha256=digest, size=None)
    done = t2gen("render", str(job), "--package", "wordcount-url.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # The console script prints the same as the in-process run.
    process = _process(
        "render", str(job), "--package", "wordcount-url.tar.gz", cwd=tmp_path
    )
    assert (process.returncode, process.stdout, process.stderr) == (
        done.returncode,
        done.stdout,
        done.stderr,
    )
    for template in _pods(done.stdout):
        assert (
            template["metadata"]["annotations"]["t2gen.dev/job-package-sha256"]
            == digest
        )  # type: ignore[index]
        (init,) = template["spec"]["initContainers"]  # type: ignore[index]
        env = {e["name"]: e.get("value") for e in init["env"]}
        assert env["JOB_PACKAGE_SHA256"] == digest
        assert env["JOB_PACKAGE_FILE_SIZE"] == str(len(package))
        for container in template["spec"]["containers"]:  # type: ignore[index]
            env = {e["name"]: e.get("value") for e in container["env"]}
            assert env["UPLOAD_METHOD"] == "client-to-pods"
            assert env["JOB_PACKAGE_FILE_SIZE"] == str(len(package))


def test_render_package_checks_the_oci_digest(tmp_path: Path, jar: Path) -> None:
    job = _with_source(tmp_path, OCI_EXAMPLE)
    built = t2gen(
        "package", str(job), "--jar", str(jar), "--oci", "layout", cwd=tmp_path
    )
    assert built.returncode == 0, built.stderr
    index = json.loads((tmp_path / "layout" / "index.json").read_text())
    digest = index["manifests"][0]["digest"]
    assert f"oci: registry.example.com/analytics/wordcount-oci@{digest}" in built.stderr
    stale = t2gen("render", str(job), "--package", "wordcount-oci.tar.gz", cwd=tmp_path)
    assert stale.returncode == 1
    assert (
        f"wordcount-oci.tar.gz as an OCI artifact (t2gen package --oci) is {digest}"
        in stale.stderr
    )
    job = _with_source(
        tmp_path,
        OCI_EXAMPLE,
        oci=f"registry.example.com/analytics/wordcount-oci@{digest}",
        size=None,
    )
    done = t2gen(
        "render",
        str(job),
        "--package",
        "wordcount-oci.tar.gz",
        "--validate",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for template in _pods(done.stdout):
        volumes = {v["name"]: v for v in template["spec"]["volumes"]}  # type: ignore[index]
        assert volumes["job-package"]["image"]["reference"].endswith(digest)


def test_client_to_pods_is_packaged_without_inventing_a_file_size(
    tmp_path: Path, jar: Path
) -> None:
    job = yaml.safe_load(
        (ROOT / "examples" / "openmpi.yaml").read_text(encoding="utf-8")
    )
    del job["spec"]["jobPackage"]["fileSize"]
    path = tmp_path / "openmpi.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    done = t2gen("package", str(path), "--jar", str(jar), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "--package" not in done.stderr.split("wrote", 1)[0]


def test_a_stated_file_size_that_is_not_the_packages_is_not_silent(
    tmp_path: Path, jar: Path
) -> None:
    job = yaml.safe_load(
        (ROOT / "examples" / "openmpi.yaml").read_text(encoding="utf-8")
    )
    job["spec"]["jobPackage"]["fileSize"] = 1000
    path = tmp_path / "openmpi.yaml"
    path.write_text(yaml.safe_dump(job), encoding="utf-8")
    done = t2gen("package", str(path), "--jar", str(jar), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    size = (tmp_path / "openmpi.tar.gz").stat().st_size
    assert (
        f"fileSize is 1000 here, but openmpi.tar.gz has {size}: write {size}"
        in done.stderr
    )


def test_import_jar_takes_a_path_as_package_does(tmp_path: Path) -> None:
    done = t2gen(
        "import",
        str(ROOT / "examples" / "twister2-conf"),
        "--jar",
        "build/libs/wordcount.jar",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    job = yaml.safe_load(done.stdout)
    assert job["spec"]["jobPackage"]["jarFile"] == "wordcount.jar"


def test_explain_package_file_size_cites_real_paths() -> None:
    done = t2gen("explain", "package-file-size", cwd=ROOT)
    assert done.returncode == 0
    assert "cylondata" not in done.stdout
    for path in (
        "twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/uploaders/k8s/DirectUploader.java",
        "twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java",
    ):
        assert path in done.stdout
