"""Persistent storage: claim settings only where there is a claim."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_quantity,
    groups,
    problem,
    rule,
    warning,
)


@rule(
    "storage-class-unused",
    fields=(
        "spec.storage.persistent.perWorker",
        "spec.storage.persistent.storageClassName",
    ),
)
def check_storage(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``storageClassName`` is set only when ``perWorker`` is above 0.

    The PersistentVolumeClaim exists only when the workers have persistent
    storage; a storage class without it would be ignored, which is a mistake,
    not a silent no-op.

    Sources: Kubernetes, "Persistent Volumes"
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/).
    """
    persistent = as_dict(
        as_dict(as_dict(data.get("spec")).get("storage")).get("persistent")
    )
    per_worker = as_quantity(persistent.get("perWorker"))
    if (
        per_worker is not None
        and per_worker.is_zero()
        and "storageClassName" in persistent
    ):
        yield problem(
            doc,
            ("spec", "storage", "persistent", "storageClassName"),
            "storageClassName is set but perWorker is 0, so no PersistentVolumeClaim is made; "
            "set perWorker (e.g. 1Gi) or remove storageClassName",
            key=True,
        )


def _claim_pods(data: dict[str, Any]) -> tuple[int, bool] | None:
    """How many pods mount the job's claim, and whether the job master is one of them.

    Returns:
        ``(pods, job_master)``: every worker pod mounts the claim, and the job
        master does when it runs in the cluster with a ``persistentDisk`` above
        0 (as :mod:`t2gen.render.context.job_master` renders it); None when
        the job has no claim or a count is malformed (other rules report that).
    """
    spec = as_dict(data.get("spec"))
    persistent = as_dict(as_dict(spec.get("storage")).get("persistent"))
    per_worker = as_quantity(persistent.get("perWorker"))
    if per_worker is None or per_worker.is_zero():
        return None
    pods = 0
    for _, group in groups(data):
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return None
        pods += count // per_pod
    master = as_dict(spec.get("jobMaster"))
    disk = as_quantity(master.get("persistentDisk"))
    job_master = (
        master.get("enabled") is True and disk is not None and not disk.is_zero()
    )
    return pods + job_master, job_master


@rule(
    "storage-access-mode",
    fields=(
        "spec.storage.persistent.accessMode",
        "spec.storage.persistent.perWorker",
        "spec.workers[].count",
        "spec.workers[].perPod",
        "spec.placement.uniform",
        "spec.jobMaster.enabled",
        "spec.jobMaster.persistentDisk",
    ),
)
def check_access_mode(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem | Warning_]:
    """The claim's access mode lets every pod that mounts it write to it.

    Every worker pod (and the job master, with a ``persistentDisk``) mounts
    the one claim at ``/persistent`` and the Twister2 runtime writes there, so:
    ``ReadOnlyMany`` is an error (read-only access);
    ``ReadWriteOncePod`` with more than one such pod is an error (only one pod
    may use the volume, the second stays Pending for ever: "PersistentVolumeClaim
    with ReadWriteOncePod access mode already in-use by another pod");
    ``ReadWriteOnce`` is a warning unless all those pods share one node
    (a single pod, or ``uniform: all-same-node`` without the job master among
    them), since a volume attached to one node cannot be mounted on another
    (the pod waits in ContainerCreating with a Multi-Attach error).
    ``ReadWriteMany`` (e.g. NFS) is what Twister2 expects.

    Sources: Kubernetes, "Persistent Volumes", access modes
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes);
    Twister2 ``RequestObjectBuilder`` (cylondata/twister2), which mounts the
    claim in every pod.
    """
    mode = as_dict(
        as_dict(as_dict(data.get("spec")).get("storage")).get("persistent")
    ).get("accessMode")
    mounted = _claim_pods(data)
    if mounted is None or mode == "ReadWriteMany":
        return
    pods, job_master = mounted
    where = ("spec", "storage", "persistent", "accessMode")
    who = f"{pods} pod{'s' if pods != 1 else ''}" + (
        " (the worker pods and the job master)" if job_master else ""
    )
    if mode == "ReadOnlyMany":
        yield problem(
            doc,
            where,
            "ReadOnlyMany gives the pods read-only access to the claim, but the Twister2 runtime writes to /persistent; "
            "use ReadWriteMany",
        )
    elif mode == "ReadWriteOncePod" and pods > 1:
        yield problem(
            doc,
            where,
            f"ReadWriteOncePod lets one pod use the claim, but {who} mount it: the second would stay "
            "Pending for ever (the claim is in use by another pod); use ReadWriteMany",
        )
    elif mode == "ReadWriteOnce" and pods > 1:
        uniform = as_dict(as_dict(data.get("spec")).get("placement")).get("uniform")
        if uniform == "all-same-node" and not job_master:
            return
        why = (
            "the job master is not placed by uniform: all-same-node"
            if uniform == "all-same-node"
            else "nothing keeps them on one node (uniform: all-same-node would)"
        )
        yield warning(
            doc,
            where,
            f"ReadWriteOnce attaches the claim to one node, but {who} mount it and {why}: a pod on "
            "another node would wait in ContainerCreating; use ReadWriteMany",
        )


RULES: tuple[Rule, ...] = (check_storage, check_access_mode)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
