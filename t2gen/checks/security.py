"""Pod security: a pod that claims Pod Security Admission ``restricted`` meets it.

t2gen marks pods rendered with ``spec.security.profile: restricted`` with the
annotation ``t2gen.dev/security-profile: restricted``; this check verifies the
claim field by field, so an overlay or a custom template that weakens the pod
is caught offline instead of by an admission error (the StatefulSet is
accepted, but no pod is ever created).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Finding, as_dict, as_list, check
from t2gen.checks.stream import Stream
from t2gen.twister2.names import SECURITY_PROFILE_ANNOTATION

__all__ = ["RESTRICTED_VOLUME_TYPES", "pod_security_restricted"]

RESTRICTED_VOLUME_TYPES = frozenset(
    {
        "configMap",
        "csi",
        "downwardAPI",
        "emptyDir",
        "ephemeral",
        "persistentVolumeClaim",
        "projected",
        "secret",
    }
)
"""The only volume types ``restricted`` allows (``check_restrictedVolumes.go``)."""

_SECCOMP_OK = ("RuntimeDefault", "Localhost")
_CONTAINER_LISTS = ("initContainers", "containers", "ephemeralContainers")


def _containers(pod: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for kind in _CONTAINER_LISTS:
        for index, container in enumerate(as_list(pod.get(kind))):
            yield f"{kind}[{index}]", as_dict(container)


def _claims_restricted(owner: dict[str, Any]) -> bool:
    template = as_dict(as_dict(owner.get("spec")).get("template"))
    annotations = as_dict(as_dict(template.get("metadata")).get("annotations"))
    return annotations.get(SECURITY_PROFILE_ANNOTATION) == "restricted"


def _pod_level(path: str, pod: dict[str, Any]) -> Iterator[Finding]:
    """Pod-wide fields: host namespaces, volumes."""
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field) is True:
            yield (
                f"{path}.{field}",
                f"{field} is forbidden by Pod Security Admission (baseline)",
            )
    for index, volume in enumerate(as_list(pod.get("volumes"))):
        kinds = [key for key in as_dict(volume) if key != "name"]
        for kind in kinds:
            if kind not in RESTRICTED_VOLUME_TYPES:
                yield (
                    f"{path}.volumes[{index}].{kind}",
                    f"volume type {kind} is not allowed under restricted (only "
                    f"{', '.join(sorted(RESTRICTED_VOLUME_TYPES))})",
                )


@check("pod-security-restricted", "pod")
def pod_security_restricted(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """A pod annotated ``t2gen.dev/security-profile: restricted`` passes Pod Security Admission ``restricted``.

    Checked, as the admission plugin does: ``runAsNonRoot: true`` on the pod
    (or on every container) and never ``false``; ``runAsUser`` never 0; seccomp
    ``RuntimeDefault`` or ``Localhost`` on the pod or every container;
    ``allowPrivilegeEscalation: false`` on every container; ``capabilities.drop``
    holding ``ALL`` and ``add`` at most ``NET_BIND_SERVICE``; no privileged
    container, host namespace, host port or volume type beyond
    :data:`RESTRICTED_VOLUME_TYPES`. A namespace labelled
    ``pod-security.kubernetes.io/enforce: restricted`` accepts the StatefulSet
    of a pod that fails any of these but never creates its pods.

    Sources: https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted;
    kubernetes/kubernetes ``staging/src/k8s.io/pod-security-admission/policy/``
    (``check_runAsNonRoot.go``, ``check_runAsUser.go``,
    ``check_seccompProfile_restricted.go``, ``check_allowPrivilegeEscalation.go``,
    ``check_capabilities_restricted.go``, ``check_restrictedVolumes.go``).
    """
    if not _claims_restricted(owner):
        return
    context = as_dict(pod.get("securityContext"))
    containers = list(_containers(pod))
    yield from _pod_level(path, pod)
    pod_non_root = context.get("runAsNonRoot")
    if pod_non_root is False:
        yield (
            f"{path}.securityContext.runAsNonRoot",
            "must not be false under restricted",
        )
    if context.get("runAsUser") == 0:
        yield (
            f"{path}.securityContext.runAsUser",
            "must not be 0 (root) under restricted",
        )
    pod_seccomp = as_dict(context.get("seccompProfile")).get("type")
    if pod_seccomp is not None and pod_seccomp not in _SECCOMP_OK:
        yield (
            f"{path}.securityContext.seccompProfile.type",
            f"{pod_seccomp!r} is not allowed under restricted: use RuntimeDefault or Localhost",
        )
    for where, container in containers:
        cpath = f"{path}.{where}.securityContext"
        own = as_dict(container.get("securityContext"))
        non_root = own.get("runAsNonRoot")
        if non_root is False or (pod_non_root is not True and non_root is not True):
            yield (
                f"{cpath}.runAsNonRoot",
                "restricted needs runAsNonRoot: true on the pod or this container",
            )
        if own.get("runAsUser") == 0:
            yield f"{cpath}.runAsUser", "must not be 0 (root) under restricted"
        seccomp = as_dict(own.get("seccompProfile")).get("type", pod_seccomp)
        if seccomp not in _SECCOMP_OK:
            yield (
                f"{cpath}.seccompProfile.type",
                "restricted needs seccompProfile.type RuntimeDefault or Localhost on the pod or this container",
            )
        if own.get("allowPrivilegeEscalation") is not False:
            yield (
                f"{cpath}.allowPrivilegeEscalation",
                "restricted needs allowPrivilegeEscalation: false",
            )
        if own.get("privileged") is True:
            yield (
                f"{cpath}.privileged",
                "privileged containers are forbidden under restricted",
            )
        capabilities = as_dict(own.get("capabilities"))
        if "ALL" not in as_list(capabilities.get("drop")):
            yield (
                f"{cpath}.capabilities.drop",
                "restricted needs capabilities.drop to hold ALL",
            )
        added = [c for c in as_list(capabilities.get("add")) if c != "NET_BIND_SERVICE"]
        if added:
            yield (
                f"{cpath}.capabilities.add",
                f"restricted allows adding only NET_BIND_SERVICE, not {', '.join(map(str, added))}",
            )
        for index, port in enumerate(as_list(container.get("ports"))):
            if as_dict(port).get("hostPort"):
                yield (
                    f"{path}.{where}.ports[{index}].hostPort",
                    "host ports are forbidden under restricted",
                )
