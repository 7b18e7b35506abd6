"""Pod security and tolerations: the security profile's constraints, and Kubernetes' toleration rules."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.jobfile.rules._base import as_dict, as_list, groups, problem, rule
from t2gen.jobfile.yaml import JsonPath, SourceDoc


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
