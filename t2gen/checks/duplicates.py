"""Facts about a set of objects as a whole: which ones collide in one cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from t2gen.render.engine import RenderedDocument

__all__ = ["duplicate_findings"]


def duplicate_findings(documents: Sequence[RenderedDocument]) -> list[str]:
    """Objects rendered more than once: the same kind, namespace and name.

    Kubernetes identifies an object by kind, namespace and name, so a second
    copy would silently replace the first on ``kubectl apply``. With several job
    files this means two of them define the same job in one namespace.

    Args:
        documents: every rendered object, in render order.

    Returns:
        One finding per duplicated object, ``Kind/name: rendered twice: ...``,
        in the order the second copies appear.
    """
    seen: set[tuple[str, str | None, str]] = set()
    reported: set[tuple[str, str | None, str]] = set()
    findings = []
    for document in documents:
        key = (document.kind, document.namespace, document.name)
        if key in seen and key not in reported:
            where = (
                f"namespace {document.namespace}"
                if document.namespace
                else "one namespace"
            )
            findings.append(
                f"{document.kind}/{document.name}: rendered twice: two job files define the same job in {where}"
            )
            reported.add(key)
        seen.add(key)
    return findings
