"""Checkpointing and restore: what restoring a failed run needs.

Sources are DSC-SPIDAL/twister2 at c6844d2; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_list,
    as_quantity,
    problem,
    rule,
    warning,
)


def _spec(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(data.get("spec"))


def _checkpointing(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(_spec(data).get("checkpointing"))


def _has_claim(data: dict[str, Any]) -> bool:
    per_worker = as_quantity(
        as_dict(as_dict(_spec(data).get("storage")).get("persistent")).get("perWorker")
    )
    return per_worker is not None and not per_worker.is_zero()


@rule(
    "restore-needs-checkpointing",
    fields=("spec.checkpointing.restore", "spec.checkpointing.enabled"),
)
def check_restore_checkpointing(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """``checkpointing.restore`` needs ``checkpointing.enabled``.

    A run restores the state its failed predecessor checkpointed; without
    checkpointing the runtime neither writes nor reads checkpoints
    (``twister2/checkpointing/src/java/edu/iu/dsc/tws/checkpointing/util/CheckpointingContext.java:37-40``),
    so ``RESTORE_JOB=true`` would silently start the job from the beginning
    (with ZooKeeper it also deletes the earlier run's znode,
    ``K8S/master/JobMasterStarter.java:227-230``).
    """
    settings = _checkpointing(data)
    if settings.get("restore") is True and settings.get("enabled") is not True:
        yield problem(
            doc,
            ("spec", "checkpointing", "restore"),
            "restore needs checkpointing.enabled: true, as in the run being restored: without "
            "checkpointing there is nothing to restore and the job starts from the beginning",
        )


@rule(
    "restore-needs-claim",
    fields=(
        "spec.checkpointing.restore",
        "spec.checkpointing.storageType",
        "spec.storage.persistent.perWorker",
    ),
)
def check_restore_claim(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Restoring from ``storageType: mounted`` needs the earlier run's claim (``storage.persistent``).

    With the ``mounted`` store the checkpoints are files under ``/persistent``
    (``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:40-46``,
    ``twister2/config/src/yaml/conf/kubernetes/checkpoint.yaml:2``), the job's
    claim ``<name>``. The job master keeps that claim when a job with
    checkpointing fails (``K8S/master/JobTerminator.java:49-65``), and a
    restoring launcher mounts it instead of creating one, refusing to restore
    when it is gone (``K8S/KubernetesLauncher.java:124-138,301-317``). A job
    without ``storage.persistent`` has no claim to mount, and its checkpoints
    died with its pods.
    """
    settings = _checkpointing(data)
    if (
        settings.get("restore") is True
        and settings.get("storageType", "mounted") == "mounted"
        and not _has_claim(data)
    ):
        yield problem(
            doc,
            ("spec", "checkpointing", "restore"),
            "restore with storageType mounted reads the checkpoints of the failed run from its "
            "claim at /persistent; set storage.persistent as in that run, so the pods mount the "
            "claim <name> it left",
        )


@rule(
    "checkpoints-without-claim",
    fields=(
        "spec.checkpointing.enabled",
        "spec.checkpointing.storageType",
        "spec.storage.persistent.perWorker",
    ),
)
def check_checkpoint_store(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """Checkpoints in the ``mounted`` store live on the job's claim (a warning without one).

    The ``mounted`` store writes under ``/persistent``
    (``twister2/api/src/java/edu/iu/dsc/tws/api/config/FileSystemContext.java:40-46``);
    without ``storage.persistent`` nothing is mounted there, so the
    checkpoints land in each container's own filesystem and are lost when its
    pod goes: a failed job cannot be restored.
    """
    settings = _checkpointing(data)
    if (
        settings.get("enabled") is True
        and settings.get("restore") is not True
        and settings.get("storageType", "mounted") == "mounted"
        and not _has_claim(data)
    ):
        yield warning(
            doc,
            ("spec", "checkpointing", "enabled"),
            "with storageType mounted the checkpoints go to /persistent, which without "
            "storage.persistent is each container's own filesystem, lost with its pod; set "
            "storage.persistent.perWorker so a failed run can be restored",
        )


@rule(
    "restore-submission-time",
    fields=(
        "spec.checkpointing.restore",
        "spec.zooKeeper.serverAddresses",
        "spec.env[].name",
    ),
)
def check_restore_submission_time(
    data: dict[str, Any], doc: SourceDoc
) -> Iterator[Problem]:
    """A restore with ZooKeeper sets a ``JOB_SUBMISSION_TIME`` of its own in ``spec.env`` (a warning).

    With ZooKeeper, workers start once the job-submission-time znode holds
    their own ``JOB_SUBMISSION_TIME`` (``twister2/common/src/java/edu/iu/dsc/tws/common/zk/JobZNodeManager.java:225-259``).
    A restoring job master deletes the failed run's znodes and writes them
    again (``K8S/master/JobMasterStarter.java:227-241``), but until it has,
    the failed run's znode is still there: with t2gen's fixed ``0`` in both
    runs, a worker that starts first matches the old znode and joins the old
    run's state. A time of its own (any other whole number) makes the workers
    wait for the new one.
    """
    spec = _spec(data)
    if (
        _checkpointing(data).get("restore") is not True
        or not as_dict(spec.get("zooKeeper")).get("serverAddresses")
        or any(
            as_dict(item).get("name") == "JOB_SUBMISSION_TIME"
            for item in as_list(spec.get("env"))
        )
    ):
        return
    yield warning(
        doc,
        ("spec", "checkpointing", "restore"),
        "with ZooKeeper, give this run its own JOB_SUBMISSION_TIME in spec.env (e.g. the "
        "current time in milliseconds): with the 0 both runs have, workers may join the failed "
        "run's znodes before the job master replaces them",
    )


RULES: tuple[Rule, ...] = (
    check_restore_checkpointing,
    check_restore_claim,
    check_checkpoint_store,
    check_restore_submission_time,
)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
