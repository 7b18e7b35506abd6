"""The golden package cases: one job file each, a deterministic jar, maybe a Twister2 configuration."""

from __future__ import annotations

import hashlib
import re
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


def jar_bytes(size: int = 64 * 1024) -> bytes:
    """A jar stand-in: the same bytes every run, compressible like a real jar is not."""
    out = bytearray()
    block = b"t2gen"
    while len(out) < size:
        block = hashlib.sha256(block).digest()
        out += block
    return bytes(out[:size])


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


__all__ = ["CASES", "PACKAGES", "ROOT", "build_case", "jar_bytes", "stderr_lines"]
