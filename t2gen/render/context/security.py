"""Pod and container security contexts of ``spec.security.profile``.

Part of the one pod builder (:mod:`t2gen.render.context.pod`), for workers and
the job master alike.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job

__all__ = ["security_contexts"]


def security_contexts(
    job: Job, *, sshd: bool
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The pod and container ``securityContext`` of ``spec.security.profile``.

    ``default``: seccomp ``RuntimeDefault`` for the pod; each container drops
    ``NET_RAW`` and, unless it runs OpenMPI's sshd (``sshd``), sets
    ``allowPrivilegeEscalation: false``. ``restricted`` meets Pod Security
    Admission's ``restricted`` level: ``runAsNonRoot`` with a user and group ID,
    seccomp ``RuntimeDefault``, no privilege escalation, and every capability
    dropped. ``none``: no context. With ``readOnlyRootFilesystem`` (the rules
    allow it with ``default`` and ``restricted``, not with OpenMPI) every
    container also gets ``readOnlyRootFilesystem: true``; the writable paths
    are volumes (:func:`t2gen.render.context.volumes.pod_volumes`). Sources:
    https://kubernetes.io/docs/concepts/security/pod-security-standards/ and
    kubernetes/kubernetes ``staging/src/k8s.io/pod-security-admission/policy/``.

    Args:
        job: the job.
        sshd: the container runs ``init_openmpi.sh`` (sshd as root); the rules
            refuse ``restricted`` with OpenMPI.

    Returns:
        ``(pod securityContext, container securityContext)``, each None when empty.
    """
    security = job.spec.security
    seccomp = {"type": "RuntimeDefault"}
    container_context: dict[str, Any]
    if security.profile == "restricted":
        pod_context: dict[str, Any] = {
            "runAsNonRoot": True,
            "runAsUser": security.run_as_user,
            "runAsGroup": security.run_as_group,
            "fsGroup": security.run_as_group,
            "seccompProfile": seccomp,
        }
        container_context = {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
        }
    elif security.profile == "default":
        pod_context = {"seccompProfile": seccomp}
        container_context = {} if sshd else {"allowPrivilegeEscalation": False}
        container_context["capabilities"] = {"drop": ["NET_RAW"]}
    else:
        return None, None
    if security.read_only_root_filesystem:
        container_context["readOnlyRootFilesystem"] = True
    return pod_context, container_context
