"""The golden package cases: one job file each, a deterministic jar, maybe a Twister2 configuration."""

from __future__ import annotations

import hashlib
import io
import re
import zipfile
from pathlib import Path

from t2gen.inputs.jobfile import read_job
from t2gen.model import Job
from t2gen.package.build import Built, build_package, delivery
from t2gen.pipeline.load import validate
from tests.conftest import GOLDEN, ROOT

PACKAGES = GOLDEN / "packages"

CASES: dict[str, tuple[str, str | None]] = {
    # one worker group, the smallest configuration
    "wordcount": ("examples/wordcount.yaml", None),
    # two groups, the scalable one written first in the Twister2 configuration
    "elastic": (
        "tests/fixtures/package/scalable/job.yaml",
        "tests/fixtures/package/scalable/conf",
    ),
    # OpenMPI, client-to-pods
    "openmpi": ("examples/openmpi.yaml", None),
    # the uploader of the job's own namespace (jobPackage.uploader: job-namespace), ZooKeeper
    "isolated": ("examples/isolated.yaml", None),
}


CLASSES = (
    "edu.iu.dsc.tws.examples.batch.wordcount.tset.WordCount",
    "edu.iu.dsc.tws.examples.basic.HelloWorld",
    "edu.iu.dsc.tws.examples.internal.rsched.BasicK8sWorker",
    "edu.iu.dsc.tws.examples.internal.rsched.driver.ScalerDriver",
    "org.example.Worker",
    "org.example.Driver",
    "com.example.Driver",
)
"""The worker and driver classes of the examples and test jobs: every test jar holds them."""


def _noise(size: int) -> bytes:
    out = bytearray()
    block = b"t2gen"
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


def _zip(classes: tuple[str, ...], padding: int) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as jar:
        jar.writestr(
            zipfile.ZipInfo("META-INF/MANIFEST.MF"), b"Manifest-Version: 1.0\r\n"
        )
        for name in classes:
            entry = name.replace(".", "/") + ".class"
            jar.writestr(zipfile.ZipInfo(entry), b"\xca\xfe\xba\xbe" + _noise(60))
        jar.writestr(zipfile.ZipInfo("data.bin"), _noise(padding))
    return out.getvalue()


def jar_bytes(size: int = 64 * 1024, classes: tuple[str, ...] = CLASSES) -> bytes:
    """A jar stand-in of exactly ``size`` bytes: a zip holding ``classes`` (as class files
    ``t2gen package`` looks for) and incompressible filler, the same bytes every run."""
    overhead = len(_zip(classes, 0))
    return _zip(classes, max(0, size - overhead))


def build_case(case: str, tmp: Path, *, output: str | None = None) -> tuple[Job, Built]:
    """Build the case's package in ``tmp`` (run with the repository as the current directory)."""
    job_file, conf = CASES[case]
    jar = tmp / "user.jar"
    jar.write_bytes(jar_bytes())
    doc = read_job(job_file)
    job = validate(doc)
    built = build_package(
        job,
        doc,
        jar=str(jar),
        conf=conf,
        output=output or str(tmp / f"{job.name}.tar.gz"),
    )
    return job, built


def stderr_lines(job: Job, built: Built, tmp: Path) -> list[str]:
    """What ``t2gen package`` prints, with the temporary directory taken out."""
    lines = [str(change) for change in built.changes]
    lines += delivery(job, built)
    # the size depends on the zlib build: the goldens keep the words around it
    return [
        re.sub(r"\(\d+ bytes", "(<size> bytes", line.replace(str(tmp) + "/", ""))
        for line in lines
    ]


__all__ = [
    "CASES",
    "CLASSES",
    "PACKAGES",
    "ROOT",
    "build_case",
    "jar_bytes",
    "stderr_lines",
]
