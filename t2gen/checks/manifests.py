"""Checking manifests: Kubernetes' OpenAPI schemas and t2gen's semantic checks.

``t2gen render --validate`` checks what it rendered, ``t2gen check`` the
manifest streams it is given (moved here from :mod:`t2gen.pipeline`, which
orchestrates rendering).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

from t2gen.checks import object_problems
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
    from t2gen.checks.openapi import KubeSchemas

    schemas = KubeSchemas(kube_version or DEFAULT_KUBE_VERSION)
    findings, warnings = schemas.check(objects, origins)
    findings += [str(problem) for problem in object_problems(objects, origins)]
    if findings:
        raise ValidationError(findings=findings, warnings=warnings)
    return warnings


def check_manifests(
    paths: Sequence[str],
    kube_version: str | None = None,
    *,
    stdin: IO[bytes] | None = None,
) -> tuple[int, list[str]]:
    """Read manifest streams (YAML or JSON, ``List`` kinds unwrapped) and validate them.

    Every finding names the file and the line where its object starts
    (``a.yaml:12: PodGroup/x: spec: ...``).

    Args:
        paths: files, ``-`` for standard input.
        kube_version: the Kubernetes minor version; None: the newest bundled.
        stdin: the stream read for ``-``.

    Returns:
        ``(number of objects, warnings)``.

    Raises:
        SchemaError: a file is unreadable or not YAML (located).
        ValidationError: any object fails a check.
    """
    from t2gen.checks.read import read_located_manifests

    manifests = read_located_manifests(paths, stdin=stdin)
    return len(manifests), validate_manifests(
        [manifest.obj for manifest in manifests],
        kube_version,
        origins=[manifest.origin for manifest in manifests],
    )
