"""Object and pod metadata: names, the job's labels and annotations."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.twister2 import names

__all__ = ["ARGO_CD_HOOK", "config_map_metadata", "object_metadata", "pod_metadata"]

ARGO_CD_HOOK = {
    "argocd.argoproj.io/hook": "Sync",
    "argocd.argoproj.io/hook-delete-policy": "BeforeHookCreation",
}
"""The annotations of every Twister2 object with ``lifecycle.argoCDHooks``: Argo CD
creates a ``Sync`` hook at every sync and leaves hooks out of an application's sync
status and health (argoproj/argo-cd ``controller/state.go``, ``controller/health.go``;
``docs/user-guide/sync-waves.md``); docs/gitops.md says why."""


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
        annotations when the job has any or marks its objects as Argo CD hooks
        (``lifecycle.argoCDHooks``: :data:`ARGO_CD_HOOK`). The job's own labels come last (the
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
    annotations = {**ARGO_CD_HOOK} if job.spec.lifecycle.argo_cd_hooks else {}
    annotations.update(job.annotations)
    if annotations:
        metadata["annotations"] = annotations
    return metadata


def config_map_metadata(job: Job) -> dict[str, Any]:
    """The job's ConfigMap's ``metadata``: :func:`object_metadata` and the package's namespace.

    The runtime of every pod looks the ConfigMap up in the namespace of the job
    package's ``kubernetes.namespace`` (:attr:`t2gen.model.Job.package_namespace`);
    the annotation :data:`~t2gen.twister2.names.PACKAGE_NAMESPACE_ANNOTATION`
    records it on the one object the lookup is for, so that a namespace changed
    after the render (kustomize's ``namespace:``, an overlay) is found by
    ``t2gen check`` before the pods fail, and by the supervisor at its start.
    It comes after the job's own annotations: the rule ``annotations-reserved``
    keeps ``t2gen.dev/`` keys t2gen's.
    """
    metadata = object_metadata(job, job.name, "config")
    metadata["annotations"] = {
        **metadata.get("annotations", {}),
        names.PACKAGE_NAMESPACE_ANNOTATION: job.package_namespace,
    }
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
