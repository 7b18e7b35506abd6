"""Pod security and tolerations: the security profile's constraints, and Kubernetes' toleration rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import JsonPath, SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_list,
    groups,
    problem,
    rule,
    warning,
)


def _tolerations(data: dict[str, Any]) -> Iterator[tuple[JsonPath, dict[str, Any]]]:
    """Yield (path, toleration) of every toleration in the job file."""
    spec = as_dict(data.get("spec"))
    lists: list[tuple[JsonPath, Any]] = [
        (
            ("spec", "placement", "tolerations"),
            as_dict(spec.get("placement")).get("tolerations"),
        ),
        (
            ("spec", "jobMaster", "placement", "tolerations"),
            as_dict(as_dict(spec.get("jobMaster")).get("placement")).get("tolerations"),
        ),
    ]
    lists += [
        (("spec", "workers", index, "tolerations"), group.get("tolerations"))
        for index, group in groups(data)
    ]
    for path, items in lists:
        for index, item in enumerate(as_list(items)):
            if isinstance(item, dict):
                yield (*path, index), item


@rule(
    "toleration-fields",
    fields=(
        "spec.placement.tolerations[]",
        "spec.workers[].tolerations[]",
        "spec.jobMaster.placement.tolerations[]",
    ),
)
def check_tolerations(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A toleration's fields fit together as Kubernetes requires.

    ``operator: Exists`` matches any value and takes no ``value``; an empty or
    omitted ``key`` (tolerate every taint) needs ``operator: Exists``;
    ``tolerationSeconds`` applies only to ``effect: NoExecute``. The API server
    refuses anything else, after the job's other objects were applied.

    Sources: Kubernetes, "Taints and Tolerations"
    (https://kubernetes.io/docs/concepts/scheduling-eviction/taint-and-toleration/);
    kubernetes/kubernetes ``pkg/apis/core/validation/validation.go`` (``ValidateTolerations``).
    """
    for path, item in _tolerations(data):
        operator = item.get("operator", "Equal")
        if operator == "Exists" and item.get("value") not in (None, ""):
            yield problem(
                doc,
                (*path, "value"),
                f"operator Exists matches any value of the taint {item.get('key')!r} and takes no value; "
                f"remove value: {item.get('value')!r}, or use operator: Equal",
            )
        if not item.get("key") and operator != "Exists":
            yield problem(
                doc,
                path,
                "a toleration without a key tolerates every taint and needs operator: Exists; "
                "give the taint's key (e.g. key: nvidia.com/gpu) or write operator: Exists",
            )
        if "tolerationSeconds" in item and item.get("effect") != "NoExecute":
            yield problem(
                doc,
                (*path, "tolerationSeconds"),
                "tolerationSeconds applies only to effect: NoExecute (how long the pod stays after the "
                "taint appears); set effect: NoExecute or remove tolerationSeconds",
            )


@rule("security-restricted-mpi", fields=("spec.security.profile", "spec.mpi.enabled"))
def check_restricted_mpi(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The ``restricted`` security profile is not used with OpenMPI.

    OpenMPI jobs start their workers with ``mpirun`` over SSH: the image's
    ``start_sshd.sh`` runs ``sshd`` as root, which needs the SETUID, SETGID and
    SYS_CHROOT capabilities to switch to the logged-in user. Pod Security
    Admission ``restricted`` requires ``runAsNonRoot`` and dropping ALL
    capabilities, so such pods could never start (or never be admitted).

    Sources: Kubernetes, "Pod Security Standards", Restricted
    (https://kubernetes.io/docs/concepts/security/pod-security-standards/#restricted);
    cylondata/twister2 ``docker/kubernetes/image/init_openmpi.sh`` and
    ``start_sshd.sh``.
    """
    spec = as_dict(data.get("spec"))
    if (
        as_dict(spec.get("security")).get("profile") == "restricted"
        and as_dict(spec.get("mpi")).get("enabled") is True
    ):
        yield problem(
            doc,
            ("spec", "security", "profile"),
            "the restricted profile cannot run an OpenMPI job: mpirun starts workers over SSH, and sshd "
            "runs as root with the SETUID, SETGID and SYS_CHROOT capabilities, which restricted forbids "
            "(runAsNonRoot, drop ALL); use profile: default, or turn off spec.mpi.enabled",
        )


@rule(
    "read-only-root",
    fields=(
        "spec.security.readOnlyRootFilesystem",
        "spec.security.profile",
        "spec.mpi.enabled",
    ),
)
def check_read_only_root(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``readOnlyRootFilesystem`` goes with the ``default`` or ``restricted`` profile, and not with OpenMPI.

    ``readOnlyRootFilesystem`` is a field of the container's
    ``securityContext``, which the profile ``none`` leaves out entirely. An
    OpenMPI worker writes into its image: ``start_sshd.sh`` creates sshd's host
    keys, the user's keys and ``sshd_config`` under ``/.sshd`` (directories the
    image makes and owns, so an emptyDir cannot stand in for them) and its log
    in ``/tmp``, and ``init_openmpi.sh`` writes ``hostip.txt`` and
    ``node-info-list.txt`` into ``/twister2``, the image's working directory
    that holds the runtime's ``lib`` and ``bin``. The non-MPI scripts and the
    JVM write only to paths t2gen then mounts writable: the memory volume,
    ``/twister2-volatile``, the claim at ``/persistent``, and ``/tmp``.

    Sources: DSC-SPIDAL/twister2 (c6844d2), ``docker/kubernetes/image/rootfs/start_sshd.sh``
    lines 18-39, ``docker/kubernetes/image/rootfs/twister2/init_openmpi.sh`` lines
    17, 43 and 46, ``docker/kubernetes/baseimage/Dockerfile`` lines 77-89,
    ``docker/kubernetes/image/Dockerfile`` lines 12-21; Kubernetes,
    ``SecurityContext.readOnlyRootFilesystem``
    (https://kubernetes.io/docs/reference/kubernetes-api/workload-resources/pod-v1/#security-context-1).
    """
    spec = as_dict(data.get("spec"))
    security = as_dict(spec.get("security"))
    if security.get("readOnlyRootFilesystem") is not True:
        return
    where = ("spec", "security", "readOnlyRootFilesystem")
    if security.get("profile") == "none":
        yield problem(
            doc,
            where,
            "readOnlyRootFilesystem is a field of the container securityContext, which profile: none "
            "leaves out; use profile: default or restricted, or remove readOnlyRootFilesystem",
        )
    if as_dict(spec.get("mpi")).get("enabled") is True:
        yield problem(
            doc,
            where,
            "an OpenMPI job cannot run with a read-only root filesystem: start_sshd.sh writes sshd's "
            "keys and configuration under /.sshd and init_openmpi.sh writes into /twister2, both in the "
            "image; remove readOnlyRootFilesystem, or turn off spec.mpi.enabled",
        )


HIGH_ID = 10000
"""User and group IDs up to this one may be the host's: trivy wants more (KSV020, KSV021), checkov at least this (CKV_K8S_40)."""


@rule("security-low-id", fields=("spec.security.runAsUser", "spec.security.runAsGroup"))
def check_low_id(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """With the ``restricted`` profile, ``runAsUser`` and ``runAsGroup`` are above 10000 (a warning).

    A container that escapes as a user or group ID that the node also uses
    acts as that host account; IDs above 10000 stay clear of the host's user
    table. trivy reports a container whose user or group ID is at most 10000
    (KSV020, KSV021: ``runAsUser <= 10000``, ``runAsGroup <= 10000``, with the
    pod's values inherited), and checkov one whose user ID is below 10000
    (CKV_K8S_40). The default, 65532, passes both.

    Sources: aquasecurity/trivy-checks ``checks/kubernetes/runs_with_UID_le_10000.rego``
    and ``runs_with_GID_le_10000.rego`` (lines 43-46), ``lib/kubernetes/security_context.rego``
    (lines 15-33); bridgecrewio/checkov ``checkov/kubernetes/checks/resource/k8s/RootContainersHighUID.py``;
    https://kubesec.io/basics/containers-securitycontext-runasuser/.
    """
    security = as_dict(as_dict(data.get("spec")).get("security"))
    if security.get("profile") != "restricted":
        return
    for key, kind, check in (
        ("runAsUser", "user", "KSV020"),
        ("runAsGroup", "group", "KSV021"),
    ):
        value = as_int(security.get(key))
        if value is not None and value <= HIGH_ID:
            yield warning(
                doc,
                ("spec", "security", key),
                f"{key} {value} may be a {kind} of the node (trivy {check} wants an ID above "
                f"{HIGH_ID}); use an ID above {HIGH_ID}, such as the default 65532",
            )


@rule(
    "non-root-home",
    fields=(
        "spec.security.profile",
        "spec.env[].name",
        "spec.workers[].env[].name",
        "spec.jobMaster.env[].name",
    ),
)
def check_non_root_home(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """Under ``restricted``, a job's own ``JAVA_TOOL_OPTIONS`` gives the JVM a writable ``user.home`` (a warning).

    Containers that do not run as root get ``HOME`` and
    ``JAVA_TOOL_OPTIONS=-Duser.home=/twister2-volatile`` from t2gen: the
    Twister2 image's JDK 8 (``docker/kubernetes/baseimage/Dockerfile:14-16``)
    takes ``user.home`` from the passwd entry, which ``runAsUser`` has none
    of, and the root directory is not writable for that user (JDK-8280357,
    https://bugs.openjdk.org/browse/JDK-8280357). A job that sets
    ``JAVA_TOOL_OPTIONS`` itself replaces t2gen's; without a
    ``-Duser.home`` in it, whatever the JVM keeps in its home directory
    (``java.util.prefs``, a library's cache) cannot be written.
    """
    spec = as_dict(data.get("spec"))
    if as_dict(spec.get("security")).get("profile") != "restricted":
        return
    holders: list[tuple[JsonPath, dict[str, Any]]] = [(("spec",), spec)]
    holders += [(("spec", "workers", index), group) for index, group in groups(data)]
    holders.append((("spec", "jobMaster"), as_dict(spec.get("jobMaster"))))
    for path, holder in holders:
        for index, item in enumerate(as_list(holder.get("env"))):
            item = as_dict(item)
            value = item.get("value")
            if item.get("name") != "JAVA_TOOL_OPTIONS" or (
                isinstance(value, str) and "-Duser.home=" in value
            ):
                continue
            yield warning(
                doc,
                (*path, "env", index, "name"),
                "JAVA_TOOL_OPTIONS replaces t2gen's -Duser.home=/twister2-volatile, which gives the "
                "JVM of a container that does not run as root a writable home; add "
                "-Duser.home=/twister2-volatile to it",
            )


RULES: tuple[Rule, ...] = (
    check_tolerations,
    check_restricted_mpi,
    check_read_only_root,
    check_low_id,
    check_non_root_home,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
