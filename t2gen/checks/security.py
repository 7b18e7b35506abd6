"""Pod security: a pod that claims Pod Security Admission ``restricted`` meets it, and a read-only root leaves the runtime room to write.

t2gen marks pods rendered with ``spec.security.profile: restricted`` with the
annotation ``t2gen.dev/security-profile: restricted``; this check verifies the
claim field by field, so an overlay or a custom template that weakens the pod
is caught offline instead of by an admission error (the StatefulSet is
accepted, but no pod is ever created). Likewise a Twister2 container with a
read-only root filesystem must keep its writable volumes.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.checks.base import Finding, as_dict, as_list, check, hashable
from t2gen.checks.stream import Stream
from t2gen.twister2 import names
from t2gen.twister2.names import SECURITY_PROFILE_ANNOTATION

__all__ = [
    "READ_ONLY_ROOT_WRITTEN_PATHS",
    "RESTRICTED_VOLUME_TYPES",
    "pod_security_restricted",
    "read_only_root_writable",
]

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


READ_ONLY_ROOT_WRITTEN_PATHS = (
    names.MEMORY_VOLUME_PATH,
    names.VOLATILE_VOLUME_PATH,
    names.TMP_VOLUME_PATH,
)
"""Where every Twister2 container writes outside a claim (:mod:`t2gen.render.context.volumes` has the sources)."""

_READ_ONLY_SOURCES = frozenset({"configMap", "secret", "downwardAPI", "projected"})
"""Volume types Kubernetes always mounts read-only."""


@check("read-only-root-writable", "pod")
def read_only_root_writable(
    path: str, pod: dict[str, Any], owner: dict[str, Any], stream: Stream
) -> Iterator[Finding]:
    """A Twister2 container with a read-only root filesystem can write where the runtime writes.

    In a Twister2 pod (labelled ``t2-wp`` or ``t2-mp``), every container with
    ``readOnlyRootFilesystem: true`` mounts a writable volume at
    ``/twister2-memory-dir`` (the job package is downloaded and unpacked there),
    ``/twister2-volatile`` (logs and spilled data) and ``/tmp`` (the JVM);
    otherwise the package download, the log directory or the JVM fails and the
    job never starts. Catches an overlay that drops t2gen's volumes.

    Sources: DSC-SPIDAL/twister2 (c6844d2) ``docker/kubernetes/image/rootfs/twister2/get_job_package.sh``
    lines 21-92, ``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java``
    lines 56-61, ``twister2/common/src/java/edu/iu/dsc/tws/common/logging/LoggingContext.java``
    lines 156-180; Kubernetes, "Volumes" (configMap, secret, downwardAPI and
    projected volumes are mounted read-only).
    """
    labels = as_dict(
        as_dict(as_dict(owner.get("spec")).get("template")).get("metadata")
    )
    pod_labels = as_dict(labels.get("labels"))
    if not (
        names.WORKER_POD_LABEL in pod_labels or names.JOB_MASTER_POD_LABEL in pod_labels
    ):
        return
    volumes = {
        name: as_dict(v)
        for v in as_list(pod.get("volumes"))
        if hashable(name := as_dict(v).get("name"))
    }
    for index, container in enumerate(as_list(pod.get("containers"))):
        container = as_dict(container)
        context = as_dict(container.get("securityContext"))
        if context.get("readOnlyRootFilesystem") is not True:
            continue
        mounts = {
            mount_path: as_dict(m)
            for m in as_list(container.get("volumeMounts"))
            if hashable(mount_path := as_dict(m).get("mountPath"))
        }
        for written in READ_ONLY_ROOT_WRITTEN_PATHS:
            mount = mounts.get(written)
            name = mount.get("name") if mount else None
            source = volumes.get(name) if hashable(name) else None
            if (
                mount is None
                or mount.get("readOnly") is True
                or source is None
                or _READ_ONLY_SOURCES & source.keys()
            ):
                yield (
                    f"{path}.containers[{index}].volumeMounts",
                    f"a read-only root filesystem needs a writable volume at {written}, where the "
                    "Twister2 runtime writes; mount an emptyDir there (t2gen renders one)",
                )
