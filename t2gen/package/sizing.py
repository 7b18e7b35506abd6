"""What a job package's size changes: the memory volume and ``jobPackage.fileSize``.

Every pod copies the package into its memory volume and unpacks it there
(DSC-SPIDAL/twister2 ``docker/kubernetes/image/rootfs/twister2/get_job_package.sh``
lines 26, 39-49, 89), so with ``--package`` t2gen sizes the volume from the real
package instead of twice ``jobPackage.maxSize``, and checks what the job file
states about sizes against it (docs/package.md).
"""

from __future__ import annotations

from decimal import Decimal

from t2gen.errors import Problem, Warning_, format_json_path
from t2gen.inputs.package import PackageContents, tmpfs_bytes
from t2gen.inputs.yaml import SourceDoc
from t2gen.inputs.yaml.loader import JsonPath
from t2gen.kube.quantity import Quantity, QuantityFormat
from t2gen.model import Job
from t2gen.record import replace

__all__ = [
    "MEMORY_VOLUME_SLACK",
    "memory_volume_bytes",
    "size_problems",
    "size_warnings",
    "sized_job",
]

MEMORY_VOLUME_SLACK = 2**20
"""Room in the memory volume beside the package and its files: the unpack flag file and tar's own."""


def size_problems(job: Job, doc: SourceDoc, contents: PackageContents) -> list[Problem]:
    """An explicit ``memoryVolumeSize`` the package does not fit.

    The memory volume holds the archive and its unpacked files
    (:func:`memory_volume_bytes`); a smaller one fills up mid-copy, and
    ``get_job_package.sh`` does not check ``tar``'s status (lines 39-49).
    """
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    storage = spec.get("storage") if isinstance(spec, dict) else None
    volume = job.spec.storage.memory_volume_size
    need = memory_volume_bytes(contents)
    if not (isinstance(storage, dict) and "memoryVolumeSize" in storage) or (
        volume.value >= need
    ):
        return []
    return [
        _located(
            doc,
            ("spec", "storage", "memoryVolumeSize"),
            f"memoryVolumeSize {volume} here, but {contents.path} needs {need} bytes "
            f"({-(-need // 2**20)}Mi: the archive, its unpacked files and room for tar) in "
            "the memory volume; leave memoryVolumeSize out (--package sizes it) or raise it",
        )
    ]


def size_warnings(
    job: Job, doc: SourceDoc, contents: PackageContents
) -> list[Warning_]:
    """A ``fileSize`` the job file states that is not the package's size.

    ``get_job_package.sh`` waits until the archive has exactly
    ``JOB_PACKAGE_FILE_SIZE`` bytes before it unpacks (lines 39-49). With
    ``--package`` the manifests get the package's size, so this render is
    right; the job file itself is not, and a render without ``--package``
    would make every pod wait for ever.
    """
    size = job.spec.job_package.file_size
    if size is None or size == contents.packed_bytes:
        return []
    path: JsonPath = ("spec", "jobPackage", "fileSize")
    line, col = doc.position(path)
    return [
        Warning_(
            doc.path,
            line,
            col,
            f"fileSize {size} here, but {contents.path} has {contents.packed_bytes} bytes: "
            f"the manifests get {contents.packed_bytes} (--package), but a render without "
            f"--package would make the pods wait for ever; write {contents.packed_bytes} "
            "or leave fileSize out and render with --package",
            format_json_path(path),
        )
    ]


def memory_volume_bytes(contents: PackageContents) -> int:
    """Bytes the memory volume needs for ``contents``: what ``get_job_package.sh`` writes there.

    The archive and its unpacked files (``get_job_package.sh:26,49,89``), each
    in whole 4 KiB tmpfs pages, plus :data:`MEMORY_VOLUME_SLACK`.
    """
    return (
        tmpfs_bytes(contents.packed_bytes)
        + contents.unpacked_bytes
        + MEMORY_VOLUME_SLACK
    )


def sized_job(job: Job, contents: PackageContents, *, explicit_volume: bool) -> Job:
    """``job`` with ``jobPackage.fileSize`` and the memory volume taken from the real package.

    The memory volume holds the archive and its unpacked files
    (``get_job_package.sh:26,49,89``): packed + unpacked (whole 4 KiB pages) +
    :data:`MEMORY_VOLUME_SLACK`, in whole MiB. An explicit
    ``storage.memoryVolumeSize`` is kept.
    """
    package = replace(job.spec.job_package, file_size=contents.packed_bytes)
    storage = job.spec.storage
    if not explicit_volume:
        mib = -(-memory_volume_bytes(contents) // 2**20)
        storage = replace(
            storage,
            memory_volume_size=Quantity(Decimal(mib * 2**20), QuantityFormat.BINARY_SI),
        )
    return replace(job, spec=replace(job.spec, job_package=package, storage=storage))


def _located(doc: SourceDoc, path: JsonPath, message: str) -> Problem:
    line, col = doc.position(path)
    return Problem(doc.path, line, col, message, format_json_path(path))
