"""Object and pod metadata: names, the job's labels and annotations."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.twister2 import names

__all__ = ["object_metadata", "pod_metadata"]


def object_metadata(
    job: Job, name: str, component: str, **extra_labels: str
) -> dict[str, Any]:
    """The ``metadata`` of one object of the job.

    Args:
        job: the job.
        name: the object's name.
        component: its ``app.kubernetes.io/component`` (see :func:`names.common_labels`).
        **extra_labels: labels after the common ones (e.g. ``t2-wss``).

    Returns:
        ``{name, namespace?, labels, annotations?}``: the namespace when known,
        annotations when the job has any. The job's own labels come last (the
        rules forbid them to override t2gen's).
    """
    metadata: dict[str, Any] = {"name": name}
    if job.namespace:
        metadata["namespace"] = job.namespace
    metadata["labels"] = {
        **names.common_labels(job.name, component),
        **extra_labels,
        **dict(job.labels),
    }
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return metadata


def pod_metadata(job: Job, labels: dict[str, str]) -> dict[str, Any]:
    """Pod template metadata: the pod's labels plus the job's labels and annotations.

    Returns:
        ``{labels, annotations?}``.
    """
    metadata: dict[str, Any] = {"labels": {**labels, **dict(job.labels)}}
    if job.annotations:
        metadata["annotations"] = dict(job.annotations)
    return metadata
