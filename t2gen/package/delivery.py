"""What ``t2gen package`` says about delivering a package named by digest (``jobPackage.source``).

:func:`oci_delivery` prints how to push the OCI image layout of ``--oci`` with
the common tools and what to write into the job file; :func:`source_delivery`
the same for a ``url`` source; :func:`built_warnings` compares what the job
file states about the package (its size, SHA-256 and artifact digest) with
the package just written, so a stale digest is seen at once, not as pods that
refuse the package.
"""

from __future__ import annotations

import re

from t2gen.errors import Warning_, format_json_path, shell_word
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.model import Job
from t2gen.package.build import Built
from t2gen.package.oci import artifact

__all__ = ["built_warnings", "oci_delivery", "repository", "source_delivery"]

_PLACEHOLDER = "REGISTRY/REPOSITORY"


def repository(reference: str) -> str:
    """``REGISTRY/REPOSITORY`` of an OCI reference: without its ``@digest`` and ``:tag``.

    ``registry:5000/team/job:v1@sha256:...`` gives ``registry:5000/team/job``.
    """
    name = reference.split("@", 1)[0]
    head, slash, last = name.rpartition("/")
    return f"{head}{slash}{last.split(':', 1)[0]}"


def oci_delivery(job: Job, built: Built, directory: str, digest: str) -> list[str]:
    """The push commands for the layout ``directory`` and the job file's ``source``, as lines for stderr.

    The repository is the job file's (``jobPackage.source.oci``) when it names
    one, else ``REGISTRY/REPOSITORY``. Each command copies the layout's
    manifest unchanged, so the pushed digest is ``digest``: ``oras cp
    --from-oci-layout`` (ORAS 1.x), ``skopeo copy --preserve-digests`` (which
    fails rather than convert), ``crane push`` of a layout directory.
    """
    source = job.spec.job_package.source
    repo = repository(source.oci) if source and source.oci else _PLACEHOLDER
    layout = shell_word(directory)
    tag = job.name
    lines = [
        f"wrote {directory}: OCI image layout, artifact {digest} (tag {tag}) holding "
        f"{job.name}.tar.gz",
        f"push it with one of{'' if repo != _PLACEHOLDER else ' (REGISTRY/REPOSITORY is yours)'}:",
        f"  oras cp --from-oci-layout {layout}:{tag} {repo}:{tag}",
        f"  skopeo copy --preserve-digests oci:{layout}:{tag} docker://{repo}:{tag}",
        f"  crane push {layout} {repo}:{tag}",
        "then name it in the job file (Kubernetes 1.35 or later):",
        "  jobPackage:",
        "    source:",
        f"      oci: {repo}@{digest}",
        f"      size: {built.size}",
    ]
    return lines


def source_delivery(job: Job, built: Built) -> list[str]:
    """The delivery step of a job whose ``jobPackage.source`` names the package, as lines for stderr."""
    source = job.spec.job_package.source
    if source is not None and source.url is not None:
        shown = source.url.split("?", 1)[0]
        return [
            f"upload: serve {built.path} at {shown} (any HTTP server: an object store, an "
            "artifact repository, Twister2's uploader); every pod's init container downloads "
            "it and checks:",
            "  jobPackage:",
            "    source:",
            f"      url: {shown}{'?...' if shown != source.url else ''}",
            f"      sha256: {built.sha256}",
            f"      size: {built.size}",
        ]
    return [
        f"upload: give --oci DIR to write {built.path} as an OCI artifact to push; "
        "jobPackage.source.oci names it by digest"
    ]


def _located(doc: SourceDoc, path: JsonPath, message: str) -> Warning_:
    line, col = doc.position(path)
    return Warning_(doc.path, line, col, message, format_json_path(path))


def built_warnings(job: Job, doc: SourceDoc, built: Built) -> list[Warning_]:
    """What the job file states about the package that the package just written contradicts.

    ``fileSize`` and ``source.size`` against its size, ``source.sha256``
    against its SHA-256, and the digest of ``source.oci`` against its
    artifact's (:func:`t2gen.package.oci.artifact`). Each is a warning: the
    package is right for the job file; the job file's statement is stale, and
    pods rendered from it would refuse the package (or wait for ever).
    """
    package = job.spec.job_package
    source = package.source
    found: list[Warning_] = []
    stated: list[tuple[JsonPath, str, str]] = []
    if source is None:
        if package.file_size is not None:
            stated.append(
                (
                    ("spec", "jobPackage", "fileSize"),
                    str(package.file_size),
                    str(built.size),
                )
            )
    else:
        where = ("spec", "jobPackage", "source")
        if source.size is not None:
            stated.append(((*where, "size"), str(source.size), str(built.size)))
        if source.sha256 is not None:
            stated.append(((*where, "sha256"), source.sha256, built.sha256))
        if source.oci is not None:
            digest = artifact(job.name, f"sha256:{built.sha256}", built.size).digest
            match = re.search(r"@(sha256:[0-9a-f]{64})$", source.oci)
            if match and match[1] != digest:
                stated.append(((*where, "oci"), match[1], digest))
    for path, mine, theirs in stated:
        if mine != theirs:
            found.append(
                _located(
                    doc,
                    path,
                    f"{path[-1]} is {mine} here, but {built.path} has {theirs}: write {theirs} "
                    "(the pods check the package against the job file)",
                )
            )
    return found
