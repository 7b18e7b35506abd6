"""The rest of the pod surface: runtime class, extra volumes, environment from other objects.

Kept as the user wrote them, in Kubernetes' own shape (``Volume``,
``EnvVarSource``, ``EnvFromSource`` of https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/),
frozen into tuples so that the records stay hashable; :func:`thaw` turns them
back into mappings for the manifests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from t2gen.kube.quantity import Quantity
from t2gen.record import Record

if TYPE_CHECKING:
    from t2gen.model.runtime import EnvVar

__all__ = ["ExtraVolume", "Frozen", "PodSurface", "freeze", "thaw"]

Frozen = tuple[tuple[str, Any], ...]
"""A mapping as ``((key, value), ...)`` in the order written; nested mappings alike."""


def freeze(raw: dict[str, Any]) -> Frozen:
    """A JSON mapping as nested ``(key, value)`` tuples (lists are not used by these fields)."""
    return tuple(
        (key, freeze(value) if isinstance(value, dict) else value)
        for key, value in raw.items()
    )


def thaw(frozen: Frozen) -> dict[str, Any]:
    """The mapping :func:`freeze` froze, in its order."""
    return {
        key: thaw(value) if isinstance(value, tuple) else value for key, value in frozen
    }


class ExtraVolume(Record):
    """A volume of ``volumes[]`` and its mount.

    Attributes:
        name: the volume's name, unique in the pod.
        mount_path: where every Twister2 container of the pod mounts it.
        sub_path: the path inside the volume mounted, or None for its root.
        read_only: mounted read-only (a claim is then attached read-only too).
        kind: the source's key: ``configMap``, ``secret``,
            ``persistentVolumeClaim``, ``emptyDir`` or ``csi``.
        source: the source's fields as written.
    """

    name: str
    mount_path: str
    sub_path: str | None
    read_only: bool
    kind: str
    source: Frozen


class PodSurface(Record):
    """What one scope (``spec``, a worker group, the job master) adds to its pods.

    Attributes:
        runtime_class_name: ``runtimeClassName``; None: the scope above decides.
        volumes: extra volumes, in order.
        env: the scope's ``env`` entries (:class:`~t2gen.model.runtime.EnvVar`).
        env_from: frozen ``EnvFromSource`` entries.
        shm_size: bytes of the memory-backed ``/dev/shm``; zero for none, None
            when the scope does not say (the scope above decides).
        enable_service_links: ``enableServiceLinks``; None: the scope above
            decides (and at the top, Kubernetes' default, true).
    """

    runtime_class_name: str | None = None
    volumes: tuple[ExtraVolume, ...] = ()
    env: tuple[EnvVar, ...] = ()
    env_from: tuple[Frozen, ...] = ()
    shm_size: Quantity | None = None
    enable_service_links: bool | None = None
