"""Facts about a set of objects as a whole: which ones collide in one cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from t2gen.render.engine import RenderedDocument

__all__ = ["duplicate_findings"]


def duplicate_findings(
    documents: Sequence[RenderedDocument], builtin: str | None = None
) -> list[str]:
    """Objects rendered more than once: the same kind, namespace and name.

    Kubernetes identifies an object by kind, namespace and name, so a second
    copy would silently replace the first on ``kubectl apply``. The built-in
    templates of one job never render an object twice, so with them alone
    two job files define the same job in one namespace. A copy an overlay's
    template wrote is located at that template, naming the template of the
    other copy.

    Args:
        documents: every rendered object, in render order.
        builtin: the built-in templates' ``# Source:`` prefix (``k8s/``) when
            overlays are laid over them; None: every template is built in.

    Returns:
        One finding per duplicated object, ``[template: ]Kind/name: rendered
        twice: ...``, in the order the second copies appear.
    """
    first: dict[tuple[str, str | None, str], str] = {}
    reported: set[tuple[str, str | None, str]] = set()
    findings = []
    for document in documents:
        key = (document.kind, document.namespace, document.name)
        if key in first and key not in reported:
            where = (
                f"namespace {document.namespace}"
                if document.namespace
                else "one namespace"
            )
            other = first[key]
            by_overlay = builtin is not None and not (
                document.template.startswith(builtin) and other.startswith(builtin)
            )
            if by_overlay:
                also = (
                    "by this template"
                    if other == document.template
                    else f"also by {other}"
                )
                findings.append(
                    f"{document.template}: {document.kind}/{document.name}: rendered twice "
                    f"({also}) in {where}: kubectl apply would keep one; give each object "
                    "a name of its own"
                )
            else:
                findings.append(
                    f"{document.kind}/{document.name}: rendered twice: two job files define "
                    f"the same job in {where}"
                )
            reported.add(key)
        first.setdefault(key, document.template)
    return findings
