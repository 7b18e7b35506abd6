"""The job master: in the cluster, and its share of the claim."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, as_quantity, problem, rule


def _job_master(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(data.get("spec")).get("jobMaster"))


def _needs_job_master(spec: dict[str, Any]) -> str:
    """Why the workers of this job need a job master, in words with the Twister2 lines."""
    if spec.get("driverClass"):
        return (
            "its driver (spec.driverClass) runs in the job master "
            "(WorkerRuntime.java:128-162)"
        )
    if as_dict(spec.get("checkpointing")).get("enabled") is True:
        return (
            "checkpointing is coordinated by the job master "
            "(K8sWorkerStarter.java:105-113, WorkerRuntime.java:128-162)"
        )
    if not as_dict(spec.get("zooKeeper")).get("serverAddresses"):
        return (
            "without ZooKeeper every worker registers with the job master at JOB_MASTER_IP "
            "(WorkerRuntime.java:113-126)"
        )
    return (
        "with ZooKeeper the workers still wait for the job's job-submission-time znode, "
        "which only the job master creates (ZKWorkerController.java:232-236, "
        "JobMasterStarter.java:233-241)"
    )


@rule(
    "job-master-in-client",
    fields=(
        "spec.jobMaster.enabled",
        "spec.driverClass",
        "spec.checkpointing.enabled",
        "spec.zooKeeper.serverAddresses",
    ),
)
def check_in_client(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The job master runs in the cluster (``jobMaster.enabled: false`` is refused).

    Nothing would run a job master outside the cluster for the objects t2gen
    renders: Twister2 starts one in the submitting client only inside
    ``twister2 submit``'s ``KubernetesLauncher.launch``, after creating every
    object itself (``schedulers/k8s/KubernetesLauncher.java:147-156,194-232``),
    and no Twister2 program starts one for objects someone else created. And
    no job runs without one on Kubernetes: a worker connects to the job master
    when the job has a driver, uses checkpointing, or has no ZooKeeper
    (``schedulers/k8s/worker/K8sWorkerStarter.java:105-113``,
    ``core/WorkerRuntime.java:113-162``), and with ZooKeeper it waits (100 s,
    then fails) for the job-submission-time znode that only the job master's
    pod creates (``twister2/common/src/java/edu/iu/dsc/tws/common/zk/ZKWorkerController.java:232-236``,
    ``JobZNodeManager.java:225-281``; ``schedulers/k8s/master/JobMasterStarter.java:233-241``).
    So ``enabled: false`` would leave every worker waiting on ``JOB_MASTER_IP``
    or on ZooKeeper; the message says which, for this job.

    Sources: DSC-SPIDAL/twister2 at c6844d2, paths under
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/`` unless
    given in full.
    """
    spec = as_dict(data.get("spec"))
    if as_dict(spec.get("jobMaster")).get("enabled") is not False:
        return
    yield problem(
        doc,
        ("spec", "jobMaster", "enabled"),
        f"enabled: false leaves the workers without a job master: {_needs_job_master(spec)}, "
        "and nothing starts one outside the cluster for these objects (Twister2 starts it in "
        "the client only within twister2 submit, KubernetesLauncher.java:147-156); remove "
        "enabled: false, so the job master runs in the cluster as the StatefulSet <name>-jm",
    )


@rule(
    "job-master-address-unused",
    fields=("spec.jobMaster.enabled", "spec.jobMaster.address"),
)
def check_address_unused(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A job master in the cluster (``enabled: true``) has no ``address``.

    The workers find a job master in the cluster through its Service, so an
    address would be ignored; it is reported rather than dropped.
    """
    job_master = _job_master(data)
    if job_master.get("enabled") is True and "address" in job_master:
        yield problem(
            doc,
            ("spec", "jobMaster", "address"),
            "address is not used: the job master runs in the cluster, where the workers find it "
            "through its Service <name>-jm; remove it",
            key=True,
        )


@rule(
    "job-master-disk-claim",
    fields=("spec.jobMaster.persistentDisk", "spec.storage.persistent.perWorker"),
)
def check_disk_claim(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The job master's ``persistentDisk`` needs a claim (``perWorker`` above 0).

    The job master's persistent disk is its share of the job's one
    PersistentVolumeClaim, which exists only when the workers have persistent
    storage. Twister2 could mount a claim it never created; t2gen refuses.
    See docs/reference.md's "Storage, services, OpenMPI and the job package" section.
    """
    persistent = as_quantity(_job_master(data).get("persistentDisk"))
    per_worker = as_quantity(
        as_dict(
            as_dict(as_dict(data.get("spec")).get("storage")).get("persistent")
        ).get("perWorker")
    )
    if (
        persistent is not None
        and not persistent.is_zero()
        and per_worker is not None
        and per_worker.is_zero()
    ):
        yield problem(
            doc,
            ("spec", "jobMaster", "persistentDisk"),
            "the job master's persistentDisk is a share of the job's PersistentVolumeClaim, which exists only "
            "when storage.persistent.perWorker is above 0; set perWorker or remove persistentDisk",
        )


RULES: tuple[Rule, ...] = (check_in_client, check_address_unused, check_disk_claim)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
