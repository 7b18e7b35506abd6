"""Kubernetes versions as t2gen reads them: ``--kube-version``, the supported range and the default.

The range is written here, not read from kubernetes-validate, so that every
command checks ``--kube-version`` the same way whether or not that optional
package (the ``validate`` extra) is installed. It is the range of versions
whose schemas kubernetes-validate 1.37 (the ``dev`` pin in pyproject.toml)
bundles; ``tests/checks/test_openapi.py`` fails when it drifts from
:func:`t2gen.checks.openapi.schema_versions`.
"""

from __future__ import annotations

import re

__all__ = [
    "DEFAULT_KUBE_VERSION",
    "NEWEST_KUBE_VERSION",
    "OLDEST_KUBE_VERSION",
    "KubeVersionError",
    "format_version",
    "parse_kube_version",
    "require_kube_version",
    "supported_kube_versions",
    "supported_range",
]

OLDEST_KUBE_VERSION = (1, 25)
"""The oldest Kubernetes minor version t2gen renders for and checks against."""

NEWEST_KUBE_VERSION = (1, 37)
"""The newest Kubernetes minor version t2gen renders for and checks against."""

DEFAULT_KUBE_VERSION = "1.37"
"""The Kubernetes version ``render`` targets without ``--kube-version``: the newest supported."""

_VERSION = r"v?(\d+)\.(\d+)(?:\.\d+)?"


class KubeVersionError(ValueError):
    """``--kube-version`` is malformed or outside :func:`supported_range`; the message says which."""


def parse_kube_version(text: str) -> tuple[int, int] | None:
    """``(major, minor)`` of ``1.36``, ``v1.36`` or ``1.36.2``; None for anything else."""
    match = re.fullmatch(_VERSION, text.strip())
    return (int(match[1]), int(match[2])) if match else None


def format_version(minor: tuple[int, int]) -> str:
    """``1.36`` for ``(1, 36)``."""
    return f"{minor[0]}.{minor[1]}"


def supported_kube_versions() -> list[str]:
    """Every supported minor version, oldest first: ``["1.25", ..., "1.37"]``."""
    major = OLDEST_KUBE_VERSION[0]
    return [
        format_version((major, minor))
        for minor in range(OLDEST_KUBE_VERSION[1], NEWEST_KUBE_VERSION[1] + 1)
    ]


def supported_range() -> str:
    """The supported versions as people read them: ``1.25 to 1.37``."""
    return f"{format_version(OLDEST_KUBE_VERSION)} to {format_version(NEWEST_KUBE_VERSION)}"


def require_kube_version(text: str | None) -> tuple[int, int]:
    """``--kube-version`` as ``(major, minor)``, checked against the supported range.

    Args:
        text: ``1.36``, ``v1.36`` or ``1.36.2``; None: :data:`DEFAULT_KUBE_VERSION`.

    Returns:
        ``(major, minor)``, e.g. ``(1, 36)``.

    Raises:
        KubeVersionError: ``text`` is not a version, or not one of
            :func:`supported_kube_versions`; the message names the range.
    """
    if text is None:
        return NEWEST_KUBE_VERSION  # DEFAULT_KUBE_VERSION (a test keeps them equal)
    version = parse_kube_version(text)
    if version is None:
        raise KubeVersionError(
            f"{text!r} is not a Kubernetes version; write it like {DEFAULT_KUBE_VERSION}, "
            f"one of {supported_range()}"
        )
    if not OLDEST_KUBE_VERSION <= version <= NEWEST_KUBE_VERSION:
        raise KubeVersionError(
            f"Kubernetes {text} has no bundled schema; use one of {supported_range()}"
        )
    return version
