"""The job package named by digest (``jobPackage.source``), and the jar's name in the package."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from t2gen.errors import Problem
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    RuleOptions,
    as_dict,
    problem,
    rule,
)
from t2gen.kube.versions import format_version

__all__ = ["IMAGE_VOLUME_VERSION", "OCI_DIGEST", "RULES"]

_SOURCE: JsonPath = ("spec", "jobPackage", "source")
OCI_DIGEST = r"(?P<name>[^@\s]+)@(?P<digest>sha256:[0-9a-f]{64})"
"""An OCI reference pinned by digest: ``NAME[:TAG]@sha256:<64 hex>``."""
IMAGE_VOLUME_VERSION = (1, 35)
"""The first Kubernetes version whose ``ImageVolume`` feature gate is on by default (beta):
https://kubernetes.io/docs/tasks/configure-pod-container/image-volumes/ ("FEATURE STATE:
Kubernetes v1.35 [beta] (enabled by default)")."""
_TWISTER2_DELIVERY = ("uploadMethod", "uri", "uploader", "fileSize")


def _written(doc: SourceDoc) -> tuple[dict[str, Any], dict[str, Any]]:
    """``spec.jobPackage`` and its ``source`` as the file writes them (no defaults)."""
    spec = as_dict(doc.data.get("spec") if isinstance(doc.data, dict) else None)
    package = as_dict(spec.get("jobPackage"))
    return package, as_dict(package.get("source"))


@rule(
    "package-source",
    fields=(
        "spec.jobPackage.source",
        "spec.jobPackage.uploadMethod",
        "spec.jobPackage.uri",
        "spec.jobPackage.uploader",
        "spec.jobPackage.fileSize",
    ),
)
def check_source(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``jobPackage.source`` names one package by its digest, and nothing of Twister2's uploader beside it.

    ``oci`` is ``REGISTRY/REPOSITORY@sha256:<64 hex>``: a tag names whatever
    was pushed last, so a reviewer would not see which package runs and a
    pod created later could get another one; the digest pins the manifest,
    which pins the package's layer (OCI image spec ``descriptor.md``,
    "Digests"). ``url`` needs ``sha256``, which the init container checks
    before it puts the file where Twister2 takes it, and holds no login
    details (``user:password@``): the URL is in the job file, in every pod's
    environment and in the init container's log, which hides only the query,
    so a presigned URL or a token in the query is the way to authenticate
    (RFC 3986 3.2.1 deprecates a password in a URI). One of the two;
    ``imageVolume`` belongs to ``oci``. ``uploadMethod``, ``uri``,
    ``uploader`` and ``fileSize`` configure Twister2's own delivery, which the
    source replaces (the pods run its ``client-to-pods`` branch, fed by the
    init container), so they are refused beside it rather than ignored.
    """
    package, source = _written(doc)
    if "source" not in package or not isinstance(package.get("source"), dict):
        return
    for key in _TWISTER2_DELIVERY:
        if key in package:
            yield problem(
                doc,
                ("spec", "jobPackage", key),
                f"jobPackage.{key} configures Twister2's own uploader, which jobPackage.source "
                "replaces (an init container places the package); remove it",
                key=True,
            )
    oci, url = source.get("oci"), source.get("url")
    if ("oci" in source) == ("url" in source):
        yield problem(
            doc,
            _SOURCE,
            "jobPackage.source needs exactly one of oci (an OCI artifact, REF@sha256:<digest>) "
            "and url (with sha256)",
            key=True,
        )
    if isinstance(oci, str) and not re.fullmatch(OCI_DIGEST, oci):
        tagged = "@" not in oci
        yield problem(
            doc,
            (*_SOURCE, "oci"),
            (
                f"{oci!r} names the package by tag only; give its digest, "
                f"{oci.split('@')[0]}@sha256:<64 hex> (t2gen package --oci prints it; "
                "oras, skopeo and crane print it after a push), so that every pod gets the "
                "package a review saw"
                if tagged
                else f"{oci!r} is not REF@sha256:<64 lowercase hex digits>; write the "
                "artifact's sha256 digest as t2gen package --oci prints it"
            ),
        )
    if isinstance(url, str):
        yield from _login_details(doc, url)
    if isinstance(url, str) and "sha256" not in source:
        yield problem(
            doc,
            (*_SOURCE, "url"),
            "a url source needs sha256, the package's SHA-256 (t2gen package prints it; "
            "sha256sum FILE): the init container refuses any other file",
        )
    if "imageVolume" in source and "oci" not in source:
        yield problem(
            doc,
            (*_SOURCE, "imageVolume"),
            "imageVolume is for an oci source; remove it",
            key=True,
        )


def _login_details(doc: SourceDoc, url: str) -> Iterator[Problem]:
    """A ``url`` with login details (``user:password@``) in its authority: refused.

    The URL is stored in the job file (so in Git), in every pod's environment
    (``JOB_PACKAGE_URL``, readable by anyone who may read the pods) and in the
    init container's log lines, which hide only the query
    (``templates/package/place-job-package.sh``, ``shown=``). Hiding
    them in the logs too would leave them in Git and in the pods, and a
    password there does not expire, so it is refused rather than masked. An
    object store's presigned URL, or a token in the query, carries a scoped,
    expiring credential instead, and stays out of the logs (RFC 3986 3.2.1
    deprecates ``user:password`` in a URI, and 7.5 advises against a URI that
    holds a secret username or password).
    """
    try:
        parts = urlsplit(url)
        has_login = parts.username is not None or parts.password is not None
    except ValueError:  # a malformed authority: the schema and other rules report it
        return
    if has_login:
        host = parts.netloc.rpartition("@")[2]
        shown = urlunsplit((parts.scheme, f"***@{host}", parts.path, "", ""))
        yield problem(
            doc,
            (*_SOURCE, "url"),
            f"the URL holds login details ({shown}): they would be stored in the job file, "
            "in every pod's environment (JOB_PACKAGE_URL) and in the init container's log; "
            "remove them and give a presigned URL (an object store's, whose signature is in "
            "the query) or a token in the query, which the init container keeps out of its log",
        )


@rule(
    "package-source-size",
    fields=("spec.jobPackage.source.size",),
    options=("package",),
)
def check_source_size(
    data: dict[str, Any], doc: SourceDoc, options: RuleOptions | None = None
) -> Iterator[Problem]:
    """A ``jobPackage.source`` states the package's ``size``, or the render reads it from ``--package``.

    The pods' Twister2 containers run ``get_job_package.sh``'s
    ``client-to-pods`` branch, which waits until the file has exactly
    ``JOB_PACKAGE_FILE_SIZE`` bytes (DSC-SPIDAL/twister2
    ``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:30-46``);
    the init container checks that size too. ``t2gen package`` prints it;
    ``render --package FILE`` takes it from the file.
    """
    package, source = _written(doc)
    given = options is not None and options.package
    if isinstance(package.get("source"), dict) and "size" not in source and not given:
        yield problem(
            doc,
            _SOURCE,
            "jobPackage.source needs size, the package's size in bytes (t2gen package prints "
            "it; the Twister2 containers wait for exactly that many bytes), or render with "
            "--package FILE to take it from the file",
            key=True,
        )


@rule(
    "package-source-image-volume",
    fields=("spec.jobPackage.source.oci", "spec.jobPackage.source.imageVolume"),
    options=("--kube-version",),
)
def check_image_volume(
    data: dict[str, Any], doc: SourceDoc, options: RuleOptions | None = None
) -> Iterator[Problem]:
    """An ``oci`` source needs Kubernetes 1.35 or later, where ``image`` volumes are on by default.

    The artifact is mounted as an ``image`` volume (``volumes[].image``,
    KEP-4639), beta and enabled by default from Kubernetes 1.35
    (https://kubernetes.io/docs/tasks/configure-pod-container/image-volumes/).
    Below it, or with ``imageVolume: false``, the init container would have
    to pull the artifact itself, with a registry client from a public image
    pinned by a digest t2gen could verify; t2gen names none, so it says what
    works instead: ``--kube-version 1.35`` or later, or a ``url`` source with
    ``sha256`` (the package served by any HTTP server).
    """
    source = as_dict(as_dict(as_dict(data.get("spec")).get("jobPackage")).get("source"))
    if not isinstance(source.get("oci"), str):
        return
    version = (options or RuleOptions()).kube_version
    wanted = format_version(IMAGE_VOLUME_VERSION)
    if source.get("imageVolume") is False:
        yield problem(
            doc,
            (*_SOURCE, "imageVolume"),
            "an oci source without an image volume would need a registry client in the init "
            "container, which t2gen does not name; use a url source with sha256 (any HTTP server "
            f"holding the package), or image volumes (Kubernetes {wanted} or later)",
        )
    elif version < IMAGE_VOLUME_VERSION:
        yield problem(
            doc,
            (*_SOURCE, "oci"),
            f"an oci source is mounted as an image volume, on by default from Kubernetes "
            f"{wanted}; this render is for {format_version(version)}: give --kube-version "
            f"{wanted} or later, or use a url source with sha256 (any HTTP server holding the "
            "package)",
        )


_RESERVED_JAR_NAMES = ("common", "kubernetes", ".", "..")


@rule("package-jar-file-name", fields=("metadata.name", "spec.jobPackage.jarFile"))
def check_jar_file(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``jobPackage.jarFile`` is not a name the package already uses.

    The jar is packed as ``twister2-job/<jarFile>`` beside the job
    description ``twister2-job/<name>.job`` and the configuration
    directories ``twister2-job/common/`` and ``twister2-job/kubernetes/``
    (``ResourceAllocator.java:214-243``, DSC-SPIDAL/twister2
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/``):
    named ``<name>.job`` it replaces the job description when the pod unpacks
    the package (``get_job_package.sh:49,89``: ``tar -xf``), named ``common``
    or ``kubernetes`` it collides with a directory, and ``.`` or ``..`` is
    no file name.
    """
    jar = as_dict(as_dict(data.get("spec")).get("jobPackage")).get("jarFile")
    name = as_dict(data.get("metadata")).get("name")
    if not isinstance(jar, str):
        return
    if jar in _RESERVED_JAR_NAMES:
        why = (
            "no file name" if jar in (".", "..") else f"the package's {jar}/ directory"
        )
    elif isinstance(name, str) and jar == f"{name}.job":
        why = (
            "the job description, which the jar would overwrite when the pod unpacks it"
        )
    else:
        return
    yield problem(
        doc,
        ("spec", "jobPackage", "jarFile"),
        f"jarFile {jar!r} is {why} (twister2-job/{jar}); name the jar like "
        f"{name if isinstance(name, str) else 'job'}.jar",
    )


RULES: tuple[Rule, ...] = (
    check_source,
    check_source_size,
    check_image_volume,
    check_jar_file,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
