"""t2gen as a generator among others' objects: its own objects replaced, everything else passed through.

kpt and kustomize hand a generator the objects of a package (a KRM function's
``ResourceList.items``; an exec transformer's standard input) and keep what it
returns. kpt writes the answer back into the package, so the next run gets the
objects of the last one as input, and must give the same objects again: kpt's
"Idempotent" property (kptdev/kpt ``documentation/content/en/book/05-developing-functions/_index.md``,
"Function Properties"). So every object ``t2gen-kustomize`` writes carries the
annotation :data:`GENERATED_FROM` with its job's name, and a run drops the
objects carrying this job's name before it adds the job's objects afresh;
every other object (another job's, the user's, the job file itself) passes
through unchanged.

The key is t2gen's own: the ``kubernetes.io/`` and ``k8s.io/`` prefixes are
Kubernetes' (https://kubernetes.io/docs/concepts/overview/working-with-objects/annotations/,
"Syntax and character set"), and the KRM Functions Specification reserves
``internal.config.kubernetes.io`` for the orchestrator (kubernetes-sigs/kustomize
``cmd/config/docs/api-conventions/functions-spec.md``, "Internal Annotations").
kustomize marks what its own Helm generator makes the same way, with an annotation
of its own domain (``kustomize.config.k8s.io/helm-generated``, ``api/konfig/general.go``).

Where kpt writes an object is its ``internal.config.kubernetes.io/path``
annotation, which a function creating objects should set (kpt
``documentation/content/en/reference/annotations/_index.md``, "Path annotation
details"). A replaced object keeps the orchestrator's annotations of its earlier
copy (path, index, ids: the specification says a function must not modify them),
so it stays in its file; a new one goes to ``<job>/<kind>-<name>.yaml`` beside
the job file, the names ``t2gen render --output-dir <job>`` gives.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence
from typing import Any

from t2gen.output.directory import file_name
from t2gen.render.engine import RenderedDocument
from t2gen.twister2.names import JOB_LABEL

__all__ = [
    "GENERATED_FROM",
    "ORCHESTRATOR_PREFIXES",
    "PATH_ANNOTATION",
    "config_directory",
    "job_name",
    "marked",
    "regenerate",
]

GENERATED_FROM = "t2gen.dev/generated-from"
"""The annotation on every object ``t2gen-kustomize`` writes: the name of the job it comes from."""

ORCHESTRATOR_PREFIXES = (
    "internal.config.kubernetes.io/",
    "config.kubernetes.io/",
    "config.k8s.io/",
)
"""Annotation prefixes of kustomize and kpt (paths, indexes, ids, the function's own configuration)."""

PATH_ANNOTATION = "internal.config.kubernetes.io/path"
"""The file kpt writes an object to, relative to the package (KRM Functions Specification)."""

INDEX_ANNOTATION = "internal.config.kubernetes.io/index"
"""The object's place in that file, from 0."""

_LEGACY_PATH = "config.kubernetes.io/path"
"""The path annotation before kyaml 0.12, which kpt still writes beside the new one."""


def _annotations(obj: Any) -> dict[str, Any]:
    """An object's annotations (empty when it has none, or is no object)."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    annotations = metadata.get("annotations") if isinstance(metadata, dict) else None
    return annotations if isinstance(annotations, dict) else {}


def _with_annotations(obj: dict[str, Any], added: dict[str, Any]) -> dict[str, Any]:
    """A copy of an object with annotations added (the object itself is not changed)."""
    metadata = obj.get("metadata", {})
    return {
        **obj,
        "metadata": {**metadata, "annotations": {**_annotations(obj), **added}},
    }


def job_name(documents: Sequence[RenderedDocument]) -> str:
    """The name of the job whose objects these are: their ``t2-job`` label (every object has it)."""
    return str(documents[0].obj["metadata"]["labels"][JOB_LABEL])


def marked(documents: Sequence[RenderedDocument], job: str) -> list[dict[str, Any]]:
    """The objects, each with :data:`GENERATED_FROM` set to ``job``."""
    return [
        _with_annotations(document.obj, {GENERATED_FROM: job}) for document in documents
    ]


def config_directory(function_config: Any) -> str:
    """The package directory of a function's configuration (its path annotation's), or ``""``."""
    annotations = _annotations(function_config)
    path = annotations.get(PATH_ANNOTATION, annotations.get(_LEGACY_PATH))
    return posixpath.dirname(path) if isinstance(path, str) else ""


def _key(obj: Any) -> tuple[str, str]:
    """What identifies one of a job's objects among its others: kind and name."""
    metadata = obj.get("metadata") if isinstance(obj, dict) else None
    name = metadata.get("name") if isinstance(metadata, dict) else None
    return str(obj.get("kind")), str(name)


def regenerate(
    items: Sequence[Any],
    documents: Sequence[RenderedDocument],
    *,
    directory: str | None,
) -> list[Any]:
    """Objects of a package, with a job's earlier objects replaced by its objects now.

    Args:
        items: the package's objects as the orchestrator gives them.
        documents: the job's objects, just rendered.
        directory: where new objects' files go, relative to the package
            (:func:`config_directory`), or None to set no path (kustomize's exec
            plugins, whose output is never written back).

    Returns:
        ``items`` without the objects :data:`GENERATED_FROM` this job, then the
        job's objects, marked; an object that replaces one of the same kind and
        name keeps that one's orchestrator annotations (its file).
    """
    job = job_name(documents)
    earlier: dict[tuple[str, str], dict[str, Any]] = {}
    kept: list[Any] = []
    for item in items:
        annotations = _annotations(item)
        if annotations.get(GENERATED_FROM) != job:
            kept.append(item)
            continue
        earlier[_key(item)] = {
            key: value
            for key, value in annotations.items()
            if str(key).startswith(ORCHESTRATOR_PREFIXES)
        }
    fresh = []
    for document, obj in zip(documents, marked(documents, job), strict=True):
        carried = earlier.get(_key(obj))
        if carried is not None:
            obj = _with_annotations(obj, carried)
        elif directory is not None:
            path = posixpath.join(directory, job, file_name(document))
            obj = _with_annotations(obj, {PATH_ANNOTATION: path, INDEX_ANNOTATION: "0"})
        fresh.append(obj)
    return [*kept, *fresh]
