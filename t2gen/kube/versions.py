"""Kubernetes versions as t2gen reads them: ``--kube-version`` and the version rendered for by default."""

from __future__ import annotations

import re

__all__ = ["DEFAULT_KUBE_VERSION", "format_version", "parse_kube_version"]

DEFAULT_KUBE_VERSION = "1.37"
"""The Kubernetes version ``render`` targets without ``--kube-version``: the newest that
kubernetes-validate 1.37 (the ``dev`` pin) bundles; ``tests/test_cli.py`` fails when they drift."""

_VERSION = re.compile(r"v?(\d+)\.(\d+)(?:\.\d+)?")


def parse_kube_version(text: str) -> tuple[int, int] | None:
    """``(major, minor)`` of ``1.36``, ``v1.36`` or ``1.36.2``; None for anything else."""
    match = _VERSION.fullmatch(text.strip())
    return (int(match[1]), int(match[2])) if match else None


def format_version(minor: tuple[int, int]) -> str:
    """``1.36`` for ``(1, 36)``."""
    return f"{minor[0]}.{minor[1]}"
