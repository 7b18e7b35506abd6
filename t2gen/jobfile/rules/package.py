"""The job package: what each upload method needs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    RuleOptions,
    as_dict,
    as_int,
    as_list,
    as_quantity,
    problem,
    rule,
    warning,
)


def _client_to_pods(data: dict[str, Any]) -> dict[str, Any] | None:
    """``spec.jobPackage`` when its upload method is ``client-to-pods``, else None."""
    package = as_dict(as_dict(data.get("spec")).get("jobPackage"))
    return package if package.get("uploadMethod") == "client-to-pods" else None


SMALLEST_PACKAGE = 64
"""Fewer bytes than any job package: a gzip-compressed tar holding only a job description's
header and its end-of-archive blocks (1,536 bytes) is 79 bytes at zlib's best compression."""


@rule(
    "package-file-size",
    fields=(
        "spec.jobPackage.uploadMethod",
        "spec.jobPackage.fileSize",
        "spec.jobPackage.source.size",
    ),
    options=("package",),
)
def check_file_size(
    data: dict[str, Any], doc: SourceDoc, options: RuleOptions | None = None
) -> Iterator[Problem]:
    """``uploadMethod: client-to-pods`` needs ``fileSize`` (or ``render --package``), and a size is a package's.

    With ``client-to-pods`` the package is copied into each pod, and the pod's
    first container waits, without a time limit, until the file has exactly
    ``JOB_PACKAGE_FILE_SIZE`` bytes
    (``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:30-46``), so
    the size must be the package's: ``t2gen package`` prints it, and
    ``render --package FILE`` takes it from the file (``t2gen package`` itself
    needs none: it writes the package). A ``fileSize`` or ``source.size`` below
    64 bytes (``SMALLEST_PACKAGE``) is no package's size.

    Sources (DSC-SPIDAL/twister2): ``JOB_PACKAGE_FILE_SIZE`` is set by
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``
    (``getCommonEnvVars``; the name in ``K8sEnvVariables.java`` there), and the
    client copies the package into the pods in
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/uploaders/k8s/DirectUploader.java:99-162``
    and ``UploaderToPod.java`` beside it.
    """
    package = as_dict(as_dict(data.get("spec")).get("jobPackage"))
    for path, size in (
        (("spec", "jobPackage", "fileSize"), as_int(package.get("fileSize"))),
        (
            ("spec", "jobPackage", "source", "size"),
            as_int(as_dict(package.get("source")).get("size")),
        ),
    ):
        if size is not None and size < SMALLEST_PACKAGE:
            yield problem(
                doc,
                path,
                f"{size} bytes is no job package's size (the smallest possible is over "
                f"{SMALLEST_PACKAGE}): write the size t2gen package prints, or render with "
                "--package FILE to take it from the file",
            )
    given = options is not None and options.package
    client = _client_to_pods(data)
    if client is not None and "fileSize" not in client and not given:
        yield problem(
            doc,
            ("spec", "jobPackage", "uploadMethod"),
            "client-to-pods needs jobPackage.fileSize, the package's size in bytes (t2gen "
            "package prints it): the pods wait until exactly that many bytes have arrived; "
            "or render with --package FILE to take it from the file",
        )


@rule(
    "client-to-pods-hangs",
    fields=("spec.jobPackage.uploadMethod", "spec.workers[].scalable"),
)
def check_client_to_pods(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``uploadMethod: client-to-pods`` leaves a pod created after the copy waiting for ever (a warning).

    With ``client-to-pods`` each pod's first container waits, without a time
    limit, until ``fileSize`` bytes of the package are in its memory volume
    (``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:30-46``).
    Twister2's client keeps watching the job's pods and copies the package
    into every one that starts until the job ends
    (``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/uploaders/k8s/DirectUploader.java:99-162``);
    without it, a pod the StatefulSet re-creates (every job's pods can be
    restarted) or the scaler adds (a ``scalable`` group) after a one-time
    ``kubectl cp`` never starts. Name the package in ``jobPackage.source``
    (an init container of every pod places it, docs/package.md), or keep the
    copy loop of docs/package.md running until the job ends.
    """
    package = _client_to_pods(data)
    if package is None:
        return
    scalable = any(
        isinstance(g, dict) and g.get("scalable") is True
        for g in as_list(as_dict(data.get("spec")).get("workers"))
    )
    why = (
        "the scalable worker group's new pods"
        if scalable
        else "a pod that Kubernetes re-creates (a failed or evicted pod)"
    )
    yield warning(
        doc,
        ("spec", "jobPackage", "uploadMethod"),
        f"client-to-pods: {why} would wait for ever for a package copied before it existed; "
        "name the package in jobPackage.source (an init container places it in every pod), "
        "or keep the copy loop of docs/package.md running until the job ends",
    )


@rule(
    "package-uri-unused", fields=("spec.jobPackage.uploadMethod", "spec.jobPackage.uri")
)
def check_uri_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``uri`` is set only with ``uploadMethod: webserver``.

    With ``client-to-pods`` nothing downloads the package, so a ``uri`` would be
    ignored; it is reported rather than dropped.
    """
    package = _client_to_pods(data)
    if package is not None and "uri" in package:
        yield problem(
            doc,
            ("spec", "jobPackage", "uri"),
            "uri is only used with uploadMethod: webserver; remove it",
            key=True,
        )


@rule(
    "memory-volume-holds-package",
    fields=(
        "spec.jobPackage.maxSize",
        "spec.jobPackage.fileSize",
        "spec.jobPackage.source.size",
        "spec.storage.memoryVolumeSize",
    ),
)
def check_memory_volume(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The memory volume holds the job package twice, packed and unpacked.

    The pod's first container downloads (or receives) ``<job>.tar.gz`` into the
    memory-backed volume and unpacks it there, keeping the archive
    (DSC-SPIDAL/twister2 ``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:26,49,80,89``).
    A volume over its ``sizeLimit`` gets the pod evicted, or the write fails, so:

    * ``fileSize`` or ``source.size`` (the archive's exact size) is at most ``jobPackage.maxSize``,
      from which the volume is sized (an error: raise ``maxSize``);
    * an explicit ``storage.memoryVolumeSize`` holds at least twice
      ``fileSize`` (an error) and is greater than 0;
    * an explicit ``storage.memoryVolumeSize`` below twice ``jobPackage.maxSize``
      is a warning: a package as large as ``maxSize`` would not fit.

    Source: Kubernetes, "emptyDir" (https://kubernetes.io/docs/concepts/storage/volumes/#emptydir):
    a memory-backed emptyDir's files count against the container's memory
    limit, and its ``sizeLimit`` bounds it.
    """
    spec = as_dict(data.get("spec"))
    package = as_dict(spec.get("jobPackage"))
    max_size = as_quantity(package.get("maxSize"))
    file_size = as_int(package.get("fileSize"))
    if file_size is None:  # a source's size is the same file's (jobPackage.source)
        file_size = as_int(as_dict(package.get("source")).get("size"))
    raw_volume = as_dict(spec.get("storage")).get("memoryVolumeSize")
    volume = as_quantity(raw_volume)
    if max_size is not None and file_size is not None and file_size > max_size.value:
        yield problem(
            doc,
            ("spec", "jobPackage", "fileSize")
            if "fileSize" in package
            else ("spec", "jobPackage", "source", "size"),
            f"the package's size {file_size} bytes is larger than jobPackage.maxSize {package.get('maxSize')}, "
            "from which the memory volume is sized (twice it: the package packed and unpacked); "
            f"set jobPackage.maxSize to at least {file_size}",
        )
    if volume is None:
        return
    where = ("spec", "storage", "memoryVolumeSize")
    if volume.is_zero():
        yield problem(
            doc,
            where,
            "memoryVolumeSize 0 leaves no room for the job package, which every pod unpacks there; "
            "omit it (twice jobPackage.maxSize) or give at least twice the package's size",
        )
    elif file_size is not None and volume.value < 2 * file_size:
        yield problem(
            doc,
            where,
            f"memoryVolumeSize {raw_volume} cannot hold the job package twice (archive and unpacked files, "
            f"2 x fileSize = {2 * file_size} bytes): the pod would be evicted; give at least {2 * file_size}, "
            "or omit it",
        )
    elif max_size is not None and volume.value < 2 * max_size.value:
        yield warning(
            doc,
            where,
            f"memoryVolumeSize {raw_volume} holds a job package of at most half that size (archive and unpacked "
            f"files), less than jobPackage.maxSize {package.get('maxSize')}; a larger package gets the pod "
            "evicted: set jobPackage.maxSize to the package's size and omit memoryVolumeSize (twice maxSize)",
        )


RULES: tuple[Rule, ...] = (
    check_file_size,
    check_client_to_pods,
    check_uri_unused,
    check_memory_volume,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
