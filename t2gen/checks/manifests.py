"""Checking manifests: Kubernetes' OpenAPI schemas and t2gen's semantic checks.

``t2gen render --validate`` checks what it rendered, ``t2gen check`` the
manifest streams it is given (moved here from :mod:`t2gen.pipeline`, which
orchestrates rendering).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from t2gen.checks import object_findings
from t2gen.checks.base import is_t2gens
from t2gen.checks.duplicates import repeated_objects
from t2gen.errors import ValidationError
from t2gen.kube.versions import DEFAULT_KUBE_VERSION

__all__ = ["check_manifests", "validate_manifests"]


def validate_manifests(
    objects: Sequence[dict[str, Any]],
    kube_version: str | None = None,
    *,
    origins: Sequence[str] | None = None,
) -> list[str]:
    """Check objects against Kubernetes' OpenAPI schemas (strict) and t2gen's semantic checks.

    Every object is held to t2gen's own standard too (a render's objects are t2gen's).

    Args:
        objects: parsed manifests.
        kube_version: the Kubernetes minor version, e.g. ``1.37``; None:
            :data:`t2gen.kube.versions.DEFAULT_KUBE_VERSION`.
        origins: one per object, where it was read (``a.yaml:12``); findings
            and warnings then start with it. None (a render): ``Kind/name`` only.

    Returns:
        Warnings: objects whose kind has no schema (custom resources), unchecked.

    Raises:
        ValidationError: every schema and semantic finding, ``[file:line: ]Kind/name: field: message``.
        T2genError: kubernetes-validate is not installed, or the version is not bundled.
    """
    unchecked, _ = _validate(objects, kube_version, origins, strict=True)
    return unchecked


def _validate(
    objects: Sequence[dict[str, Any]],
    kube_version: str | None,
    origins: Sequence[str] | None,
    *,
    strict: bool,
    bounded: bool = False,
    streams: Sequence[str] | None = None,
) -> tuple[list[str], list[str]]:
    """:func:`validate_manifests`, returning ``(unchecked, notes)``.

    With ``strict`` False only t2gen's objects (``app.kubernetes.io/managed-by:
    t2gen``) are held to t2gen's standard; the stricter findings on others'
    objects are notes (:func:`t2gen.checks.object_findings`), each ending
    ``(a note: an error under --strict)``. The ValidationError's warnings are
    both lists. ``bounded`` (``t2gen check``: anyone's manifests) bounds
    jsonschema's work (:data:`t2gen.checks.schemawork.MAX_SCHEMA_WORK`); t2gen's
    own objects are not bounded by it. ``streams`` names the file of each
    object: an object repeated within one is found
    (:func:`t2gen.checks.duplicates.repeated_objects`).
    """
    from t2gen.checks.openapi import KubeSchemas
    from t2gen.checks.schemawork import MAX_SCHEMA_WORK

    schemas = KubeSchemas(kube_version or DEFAULT_KUBE_VERSION)
    if bounded:
        schemas.work.limit = MAX_SCHEMA_WORK
    findings, unchecked = schemas.check(objects, origins)
    errors, found_notes = object_findings(objects, origins, strict=strict)
    findings += [str(problem) for problem in errors]
    notes = [f"{problem} (a note: an error under --strict)" for problem in found_notes]
    for index, repeated in repeated_objects(objects, origins, streams):
        # One stream may apply one object twice on purpose (rarely): a note for
        # anyone's objects, an error for t2gen's and under --strict.
        where = f"{origins[index]}: {repeated}" if origins is not None else repeated
        if strict or is_t2gens(objects[index]):
            findings.append(where)
        else:
            notes.append(f"{where} (a note: an error under --strict)")
    if findings:
        raise ValidationError(findings=findings, warnings=unchecked + notes)
    return unchecked, notes


def check_manifests(
    paths: Sequence[str],
    kube_version: str | None = None,
    *,
    stdin: IO[bytes] | None = None,
    strict: bool = False,
) -> tuple[int, list[str], list[str]]:
    """Read manifest streams (YAML or JSON, ``List`` kinds unwrapped) and validate them.

    Every finding names the file and the line where its object starts
    (``a.yaml:12: PodGroup/x: spec: ...``).

    Args:
        paths: files, ``-`` for standard input.
        kube_version: the Kubernetes minor version; None: the newest bundled.
        stdin: the stream read for ``-``.
        strict: hold every object to t2gen's own standard, not only t2gen's
            objects (see :func:`validate_manifests`).

    Returns:
        ``(number of objects, unchecked, notes)``: the warnings for objects of
        kinds without a schema, and t2gen's stricter findings on others' objects.

    Raises:
        SchemaError: a file is unreadable or not YAML (located).
        ValidationError: any object fails a check.
    """
    from t2gen.inputs.manifests import read_located_manifests

    manifests = read_located_manifests(paths, stdin=stdin)
    unchecked, notes = _validate(
        [manifest.obj for manifest in manifests],
        kube_version,
        [manifest.origin for manifest in manifests],
        strict=strict,
        bounded=True,
        streams=[manifest.path for manifest in manifests],
    )
    return len(manifests), unchecked, notes
