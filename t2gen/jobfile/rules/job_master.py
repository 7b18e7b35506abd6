"""The job master: in the cluster or in the client, and its share of the claim."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.jobfile.rules._base import Rule, as_dict, as_quantity, problem, rule
from t2gen.jobfile.yaml import SourceDoc


def _job_master(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(data.get("spec")).get("jobMaster"))


@rule("job-master-address", fields=("spec.jobMaster.enabled", "spec.jobMaster.address"))
def check_address(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A job master in the submitting client (``enabled: false``) has an ``address``.

    The workers reach the job master at ``JOB_MASTER_IP``. In the cluster it is
    found through its Service; in the client, only the job file can say where
    the client is.

    Sources: Twister2's ``K8sEnvVariables`` and ``KubernetesContext``
    (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).
    """
    job_master = _job_master(data)
    if job_master.get("enabled") is False and "address" not in job_master:
        yield problem(
            doc,
            ("spec", "jobMaster", "enabled"),
            "with enabled: false the job master runs in the submitting client; set jobMaster.address to "
            "the client's IP address so the workers can reach it (JOB_MASTER_IP)",
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
            "address is only used when the job master runs in the client (enabled: false); remove it",
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


RULES: tuple[Rule, ...] = (check_address, check_address_unused, check_disk_claim)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
