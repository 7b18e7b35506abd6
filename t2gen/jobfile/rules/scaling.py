"""Scaling: which worker group the Twister2 job master may scale, and where it must sit.

``K8S/`` is ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
of DSC-SPIDAL/twister2 (c6844d2).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import Rule, as_dict, groups, problem, rule


def _scalable(data: dict[str, Any]) -> list[int]:
    """Indexes of the worker groups with ``scalable: true``."""
    return [index for index, group in groups(data) if group.get("scalable") is True]


@rule("scalable-one-group", fields=("spec.workers[].scalable",))
def check_one_scalable(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """At most one worker group is ``scalable``.

    Twister2 refuses to submit a job with more than one scalable compute
    resource ("There can be at most one scalabe ComputeResource in a job",
    ``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:139-142``), and
    its scaler only ever scales the last one (``K8S/driver/K8sScaler.java:47-54``).
    """
    scalable = _scalable(data)
    for index in scalable[1:]:
        yield problem(
            doc,
            ("spec", "workers", index, "scalable"),
            f"spec.workers[{scalable[0]}] is already scalable; Twister2 allows at most one scalable "
            "worker group (compute resource) per job: keep scalable on one group",
        )


@rule("scalable-group-last", fields=("spec.workers[].scalable",))
def check_scalable_last(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The ``scalable`` worker group is the last one.

    Twister2 moves the scalable compute resource to the end of the job
    object's list and renumbers the ones after it
    (``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java:137-168``);
    each worker finds its compute resource by the index in its StatefulSet's
    name (``K8S/worker/K8sWorkerUtils.java:124-148``,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/utils/JobUtils.java:169-177``)
    and counts the workers of the groups before it to compute its ID; the job
    master scales StatefulSet ``<job>-<last index>``
    (``K8S/driver/K8sScaler.java:47-54``). A scalable group anywhere else would
    run under another group's resources, with duplicate or missing worker IDs.
    t2gen keeps StatefulSet ``<job>-<i>`` for ``spec.workers[i]``, so the job
    file must already list the groups in Twister2's order.
    """
    scalable = _scalable(data)
    count = sum(1 for _ in groups(data))
    if len(scalable) == 1 and scalable[0] != count - 1:
        index = scalable[0]
        yield problem(
            doc,
            ("spec", "workers", index, "scalable"),
            f"spec.workers[{index}] is scalable but not the last worker group; Twister2 gives the "
            f"scalable compute resource the last index ({count - 1}), so its workers would look up "
            "another group's resources and get wrong worker IDs: move this group to the end of "
            "spec.workers",
        )


@rule("scalable-not-mpi", fields=("spec.workers[].scalable", "spec.mpi.enabled"))
def check_scalable_mpi(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """An OpenMPI job has no ``scalable`` group.

    The job master never scales an OpenMPI job (``K8sScaler.isScalable``
    returns false when OpenMPI is used, ``K8S/driver/K8sScaler.java:57-70``):
    mpirun starts a fixed set of ranks.
    """
    if as_dict(as_dict(data.get("spec")).get("mpi")).get("enabled") is not True:
        return
    for index in _scalable(data):
        yield problem(
            doc,
            ("spec", "workers", index, "scalable"),
            "OpenMPI jobs are never scaled: Twister2's scaler refuses them (mpirun starts a fixed "
            "set of ranks); remove scalable or disable mpi",
        )


RULES: tuple[Rule, ...] = (check_one_scalable, check_scalable_last, check_scalable_mpi)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
