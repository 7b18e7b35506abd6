"""Facts about a set of objects as a whole: which ones collide in one cluster."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from t2gen.render.engine import RenderedDocument

__all__ = ["duplicate_findings", "repeated_objects"]


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


def repeated_objects(
    objects: Sequence[dict[str, Any]],
    origins: Sequence[str] | None,
    streams: Sequence[str] | None = None,
) -> list[tuple[int, str]]:
    """Objects of a manifest stream that another one before it already is: same group, kind, namespace and name.

    ``kubectl apply -f`` of the stream applies both, the second replacing the
    first, so what the first says is silently lost (the API server identifies an
    object by its resource, namespace and name: kubernetes/kubernetes
    ``staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go``,
    ``NamespaceKeyFunc``: one key per namespace and name under the resource's
    prefix). An object without a namespace counts as in the namespace kubectl
    applies to, the same for both.

    Args:
        objects: every object of the stream, in order.
        origins: one per object, where it was read (``a.yaml:12``), or None.
        streams: one per object, the file it was read from, or None (one
            stream): files given together are often applied apart (a corpus),
            so only copies within one file are compared.

    Returns:
        ``(index, finding)`` of each later copy, the finding naming where the
        first one is, in stream order.
    """
    first: dict[tuple[str, str, str, str | None, str], int] = {}
    repeated = []
    for index, obj in enumerate(objects):
        metadata = obj.get("metadata")
        name = metadata.get("name") if isinstance(metadata, dict) else None
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if not (
            isinstance(name, str)
            and isinstance(kind, str)
            and isinstance(api_version, str)
        ):
            continue  # the schemas say what is missing
        namespace = metadata.get("namespace") if isinstance(metadata, dict) else None
        key = (
            streams[index] if streams is not None else "",
            api_version.rpartition("/")[0],
            kind,
            str(namespace) if namespace else None,
            name,
        )
        if key not in first:
            first[key] = index
            continue
        where = (
            origins[first[key]] if origins is not None else f"object {first[key] + 1}"
        )
        repeated.append(
            (
                index,
                f"{kind}/{name}: the same object as at {where} (kind, namespace and name): "
                "kubectl apply would keep only the later one; give each object a name of its own",
            )
        )
    return repeated
