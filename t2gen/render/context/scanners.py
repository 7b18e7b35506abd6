"""Scanner annotations: the checkov checks a Twister2 StatefulSet cannot pass, each with its reason.

With ``spec.security.checkovSkips`` the worker and job master StatefulSets carry
``checkov.io/skip<N>: <check>=<reason>`` annotations, the form checkov reads from
an object's ``metadata.annotations`` and reports as "skipped" with the reason
(bridgecrewio/checkov 3.3.30, ``checkov/kubernetes/kubernetes_utils.py``:
``SKIP_ANNOTATION_PREFIXES`` line 27, ``get_skipped_checks`` lines 83-113; its
README, "Suppressing/Ignoring a check"). Only checks that no field of the job
file can make pass are listed; what the job file can fix (``imagePullPolicy``,
an image digest, a namespace, CPU limits, ``readOnlyRootFilesystem``, the
``restricted`` profile) stays reported. docs/security.md has the table.
"""

from __future__ import annotations

from typing import Any

from t2gen.model import Job

__all__ = [
    "CHECKOV_SKIP_PREFIX",
    "checkov_skip_annotations",
    "checkov_skips",
    "with_checkov_skips",
]

CHECKOV_SKIP_PREFIX = "checkov.io/skip"
"""Annotation keys checkov reads as suppressions: this prefix and a number (``checkov.io/skip1``)."""

_PROBES = (
    "the Twister2 runtime serves no health endpoint and the job master deletes the pods "
    "when the job ends; a probe could only restart healthy workers"
)
_TOKEN = (
    "the Twister2 runtime in these pods calls the Kubernetes API (pod watches, ConfigMap "
    "patches, the job's clean-up) with the token of the pod's ServiceAccount"
)
_MPI_ROOT = (
    "OpenMPI workers run sshd as root (the image's start_sshd.sh), which needs root and "
    "the SETUID, SETGID and SYS_CHROOT capabilities"
)
_MPI_JOB_ROOT = (
    "an OpenMPI job cannot use the restricted profile (its workers run sshd as root), "
    "so its pods run as the image's user, root"
)
_MPI_READ_ONLY = (
    "OpenMPI's start_sshd.sh and init_openmpi.sh write into the image (/.sshd, /twister2), "
    "so t2gen offers no read-only root filesystem to OpenMPI jobs"
)


def checkov_skips(job: Job, *, role: str) -> list[tuple[str, str]]:
    """The checkov checks that cannot pass for one StatefulSet of ``job``, with why.

    Always CKV_K8S_8 and CKV_K8S_9 (liveness and readiness probes) and
    CKV_K8S_38 (the ServiceAccount token is mounted). For an OpenMPI job also
    CKV_K8S_22 (read-only root filesystem: refused by the rule
    ``read-only-root``), and CKV_K8S_23, CKV_K8S_37 and CKV_K8S_40 (root, kept
    capabilities, low user ID) when the profile is ``default`` (OpenMPI rules
    out ``restricted``), plus CKV_K8S_20 (privilege escalation) in the
    workers, whose container runs sshd. Reasons hold no ``=``: checkov splits
    the value at it (``get_skipped_checks``).

    Args:
        job: the job.
        role: ``worker`` or ``job-master``.

    Returns:
        ``[(check ID, reason)]`` in check order; empty without ``spec.security.checkovSkips``.
    """
    if not job.spec.security.checkov_skips:
        return []
    skips = [("CKV_K8S_8", _PROBES), ("CKV_K8S_9", _PROBES), ("CKV_K8S_38", _TOKEN)]
    if job.spec.mpi.enabled:
        skips.append(("CKV_K8S_22", _MPI_READ_ONLY))
        if job.spec.security.profile == "default":
            reason = _MPI_ROOT if role == "worker" else _MPI_JOB_ROOT
            if role == "worker":
                skips.append(("CKV_K8S_20", _MPI_ROOT))
            skips += [("CKV_K8S_23", reason), ("CKV_K8S_37", reason)]
            skips.append(("CKV_K8S_40", reason))
    return sorted(skips, key=lambda skip: int(skip[0].rsplit("_", 1)[1]))


def checkov_skip_annotations(
    job: Job, *, role: str, taken: dict[str, str] | None = None
) -> dict[str, str]:
    """:func:`checkov_skips` as ``checkov.io/skip<N>`` annotations.

    Args:
        job: the job.
        role: ``worker`` or ``job-master``.
        taken: the object's other annotations; numbers their keys use are skipped,
            so a user's own ``checkov.io/skip1`` stays as written.

    Returns:
        ``{"checkov.io/skip<N>": "<check>=<reason>"}``, N counting from 1.
    """
    result: dict[str, str] = {}
    number = 0
    for check, reason in checkov_skips(job, role=role):
        number += 1
        while f"{CHECKOV_SKIP_PREFIX}{number}" in (taken or {}):
            number += 1
        result[f"{CHECKOV_SKIP_PREFIX}{number}"] = f"{check}={reason}"
    return result


def with_checkov_skips(
    job: Job, metadata: dict[str, Any], *, role: str
) -> dict[str, Any]:
    """A StatefulSet's ``metadata`` with :func:`checkov_skip_annotations` after its own annotations.

    Only the StatefulSet's: checkov reads a workload's suppressions from the
    object it checks, not from its pod template.
    """
    own = metadata.get("annotations", {})
    skips = checkov_skip_annotations(job, role=role, taken=own)
    if skips:
        metadata["annotations"] = {**own, **skips}
    return metadata
