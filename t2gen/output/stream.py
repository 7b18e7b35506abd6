"""Write rendered objects to standard output: one YAML stream, Helm-escaped YAML, or a JSON List.

Writers only: the objects arrive in output order (:func:`t2gen.kube.order.sort_documents`).
``-o DIR`` is :mod:`t2gen.output.directory`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from t2gen.kube.yamldocs import dump_yaml_each
from t2gen.render.engine import RenderedDocument

__all__ = [
    "helm_template_texts",
    "to_helm_templates",
    "to_json",
    "to_yaml_stream",
    "without_namespace",
    "yaml_stream_texts",
]


def to_yaml_stream(
    documents: Sequence[RenderedDocument], *, trees: bool = False
) -> str:
    """Emit objects as one multi-document YAML stream.

    Each document starts with ``---`` and a ``# Source: <template>`` comment, as
    ``helm template`` prints them; strings are quoted wherever YAML 1.1 could
    misread them. ``trees``: no object holds a list or mapping twice, as
    rendered objects (:func:`t2gen.kube.yamldocs.dump_yaml_each`).
    """
    return "".join(yaml_stream_texts(documents, trees=trees))


def yaml_stream_texts(
    documents: Sequence[RenderedDocument], *, trees: bool = False
) -> list[str]:
    """Each object's part of :func:`to_yaml_stream`, in order (joined, the stream)."""
    texts = dump_yaml_each([doc.obj for doc in documents], trees=trees)
    return [
        f"---\n# Source: {doc.template}\n{text}"
        for doc, text in zip(documents, texts, strict=True)
    ]


def without_namespace(document: RenderedDocument) -> RenderedDocument:
    """The document with its namespace left for the installer to choose.

    Drops ``metadata.namespace``, and the ``namespace`` of each RoleBinding
    subject that names the object's own namespace (a ServiceAccount subject
    without one is in the binding's namespace), so the objects land together
    wherever ``helm install --namespace`` puts them.

    Args:
        document: a rendered object; it is not changed.

    Returns:
        A copy without those namespaces, or ``document`` itself when it has none.
    """
    namespace = document.namespace
    if namespace is None:
        return document
    obj = dict(document.obj)
    obj["metadata"] = {
        key: value for key, value in obj["metadata"].items() if key != "namespace"
    }
    subjects = obj.get("subjects")
    if isinstance(subjects, list):
        obj["subjects"] = [
            {key: value for key, value in subject.items() if key != "namespace"}
            if isinstance(subject, dict) and subject.get("namespace") == namespace
            else subject
            for subject in subjects
        ]
    return RenderedDocument(document.template, obj)


def to_helm_templates(
    documents: Sequence[RenderedDocument], *, trees: bool = False
) -> str:
    """Emit the YAML stream for a Helm chart's ``templates/``: no namespace, every ``{{`` escaped.

    Helm places a chart's objects in the release namespace (``helm install
    --namespace``), so namespaces are dropped (:func:`without_namespace`), even
    one a job file sets. Helm evaluates chart templates as Go templates, so a
    value containing ``{{`` (an env var, an annotation) would be executed. Each
    ``{{`` becomes ``{{ "{{" }}``, which Helm renders back to ``{{``.
    ``trees`` as for :func:`to_yaml_stream`.
    """
    return "".join(helm_template_texts(documents, trees=trees))


def helm_template_texts(
    documents: Sequence[RenderedDocument], *, trees: bool = False
) -> list[str]:
    """Each object's part of :func:`to_helm_templates`, in order (joined, the templates).

    Every part ends in a line break and the next starts with ``---``, so no
    ``{{`` spans two parts: escaping each is escaping the whole.
    """
    texts = yaml_stream_texts(
        [without_namespace(document) for document in documents], trees=trees
    )
    return [text.replace("{{", '{{ "{{" }}') for text in texts]


def to_json(documents: Sequence[RenderedDocument]) -> str:
    """Emit objects as one ``v1`` ``List`` in JSON (2-space indent, trailing newline)."""
    listing = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [doc.obj for doc in documents],
    }
    return json.dumps(listing, indent=2, ensure_ascii=False) + "\n"
