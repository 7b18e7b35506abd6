"""``render --package FILE``: the package's SHA-256 and size into the manifests, checked against the job file.

With a package file, every pod template carries its SHA-256
(``t2gen.dev/job-package-sha256``) and ``JOB_PACKAGE_FILE_SIZE`` its size;
with ``jobPackage.source`` the init container also checks both. What the job
file states must agree with the file: ``source.sha256``, ``source.size`` and
the digest of ``source.oci``, which for a package that ``t2gen package
--oci`` wrote and a tool pushed unchanged is :func:`t2gen.package.oci.artifact`'s
digest of this very file. A disagreement means the pods would get, or
refuse, another package than the one given here.
"""

from __future__ import annotations

import re

from t2gen.errors import ConfigError, Problem, format_json_path
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.model import Job
from t2gen.package.oci import artifact, file_digest
from t2gen.record import replace

__all__ = ["package_digest", "pinned_job", "source_problems"]

_SOURCE: JsonPath = ("spec", "jobPackage", "source")


def package_digest(path: str) -> tuple[str, int]:
    """``(hex SHA-256, size in bytes)`` of the package file.

    Raises:
        ConfigError: the file cannot be read.
    """
    try:
        digest, size = file_digest(path)
    except OSError as err:
        raise ConfigError(
            path=path, message=f"cannot read it: {err.strerror or err}"
        ) from None
    return digest.split(":", 1)[1], size


def _problem(doc: SourceDoc, path: JsonPath, message: str) -> Problem:
    line, col = doc.position(path)
    return Problem(doc.path, line, col, message, format_json_path(path))


def source_problems(
    job: Job, doc: SourceDoc, package: str, sha256: str, size: int
) -> list[Problem]:
    """Where ``jobPackage.source`` disagrees with the package file, located in the job file.

    Args:
        job: the validated job.
        doc: its job file as read.
        package: the package file's name, for the messages.
        sha256: its SHA-256 (hex).
        size: its size in bytes.
    """
    source = job.spec.job_package.source
    if source is None:
        return []
    problems = []
    if source.sha256 is not None and source.sha256 != sha256:
        problems.append(
            _problem(
                doc,
                (*_SOURCE, "sha256"),
                f"sha256 {source.sha256} here, but {package} has {sha256}: every pod's init "
                "container would refuse it; give the package this job file names, or write its "
                "SHA-256 here",
            )
        )
    if source.size is not None and source.size != size:
        problems.append(
            _problem(
                doc,
                (*_SOURCE, "size"),
                f"size {source.size} here, but {package} has {size} bytes: every pod's init "
                "container would refuse it; write its size here",
            )
        )
    named = re.search(r"@(sha256:[0-9a-f]{64})$", source.oci or "")
    if named:
        digest = artifact(job.name, f"sha256:{sha256}", size).digest
        if named[1] != digest:
            problems.append(
                _problem(
                    doc,
                    (*_SOURCE, "oci"),
                    f"the artifact here is {named[1]}, but {package} as an OCI artifact (t2gen "
                    f"package --oci) is {digest}: the pods would mount another package; push "
                    "this package's layout unchanged and write its digest here",
                )
            )
    return problems


def pinned_job(job: Job, sha256: str, size: int) -> Job:
    """``job`` with the package file's SHA-256 (and, with a source, its size) in ``jobPackage``."""
    package = job.spec.job_package
    source = package.source
    if source is not None:
        source = replace(source, sha256=sha256, size=size)
    pinned = replace(package, sha256=sha256, source=source)
    if source is not None:
        pinned = replace(pinned, file_size=size)
    return replace(job, spec=replace(job.spec, job_package=pinned))
