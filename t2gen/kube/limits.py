"""Object sizes Kubernetes refuses, and where in a job file an oversized object comes from.

``kubectl apply`` keeps a copy of each object in its
``kubectl.kubernetes.io/last-applied-configuration`` annotation, and the API
server refuses an object whose annotations total more than
``TotalAnnotationSizeLimitB`` (256 KiB; kubernetes/kubernetes,
``staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go``). So every
object, with the job's own annotations, must fit 256 KiB. A ConfigMap holds at
most 1 MiB (``MaxSecretSize``, which ``ValidateConfigMap`` applies to
ConfigMaps too; ``pkg/apis/core/validation/validation.go``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from t2gen.problems import Problem, format_json_path

if TYPE_CHECKING:
    from t2gen.jobfile.model import Job
    from t2gen.render.engine import RenderedDocument

__all__ = ["APPLY_LIMIT_BYTES", "CONFIG_MAP_LIMIT_BYTES", "size_problems"]

APPLY_LIMIT_BYTES = 262_144
"""Most bytes of annotations on one object (Kubernetes' TotalAnnotationSizeLimitB).

``kubectl apply`` stores the whole object in its ``last-applied-configuration``
annotation, so an object must fit this together with its own annotations.
"""

CONFIG_MAP_LIMIT_BYTES = 1024 * 1024
"""Most bytes of data one ConfigMap holds (1 MiB)."""


def size_problems(
    job: Job, text: str, documents: Sequence[RenderedDocument]
) -> list[Problem]:
    """Objects too large for ``kubectl apply``, located at the job-file key that makes them so.

    The size is the object as compact UTF-8 JSON (what kubectl stores) plus the
    job's annotations, which every object carries. The key blamed is
    ``metadata.annotations`` when they are over a third of it, else
    ``spec.env`` when the job sets any, else ``spec.workers``.

    Args:
        job: the validated job.
        text: the job file's text, parsed again only to locate the key.
        documents: the job's rendered objects.

    Returns:
        One problem per key: the largest object it makes too large; ``[]`` if all fit.
    """
    annotations = sum(len(key) + len(value) for key, value in job.annotations)
    largest: dict[tuple[str | int, ...], tuple[int, RenderedDocument, str]] = {}
    for document in documents:
        size = annotations + len(
            json.dumps(document.obj, separators=(",", ":"), ensure_ascii=False).encode()
        )
        if size <= APPLY_LIMIT_BYTES:
            continue
        where: tuple[str | int, ...]
        if annotations * 3 > size:
            where, advice = (
                ("metadata", "annotations"),
                "smaller annotations (every object carries them)",
            )
        elif job.spec.env:
            where, advice = (
                ("spec", "env"),
                "fewer or shorter environment variables, or fewer workers per pod",
            )
        else:
            where, advice = (
                ("spec", "workers"),
                "fewer workers per pod, or smaller labels and annotations",
            )
        if where not in largest or largest[where][0] < size:
            largest[where] = (size, document, advice)
    if not largest:
        return []
    from t2gen.jobfile.loader import parse_config

    doc = parse_config(text, path=job.source)
    problems = []
    for where, (size, document, advice) in largest.items():
        line, col = doc.position(where)
        message = (
            f"{document.kind} {document.name} would take {size // 1024} KiB, but kubectl apply keeps each object "
            f"in an annotation of at most {APPLY_LIMIT_BYTES // 1024} KiB: use {advice}"
        )
        problems.append(
            Problem(job.source, line, col, message, format_json_path(where))
        )
    return problems
