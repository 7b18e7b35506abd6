"""Worker groups: how workers fill pods, how many a job may have, and binding to cores."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_quantity,
    fmt_decimal,
    groups,
    problem,
    rule,
)

__all__ = ["MAX_TOTAL_WORKERS"]

MAX_TOTAL_WORKERS = 100_000
"""Most workers in one job; the manifests do not grow with it, the cluster does."""


@rule("workers-divisible", fields=("spec.workers[].count", "spec.workers[].perPod"))
def check_divisible(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """A worker group's ``count`` is a multiple of its ``perPod``.

    Each worker group becomes one StatefulSet of ``count / perPod`` replicas, and
    every pod of a StatefulSet comes from the same template, so every pod runs
    exactly ``perPod`` workers: there is no pod with fewer. The message offers
    the nearest multiples.

    Sources: Kubernetes, "StatefulSets"
    (https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/);
    Twister2 creates one StatefulSet per compute resource with
    ``instances / workersPerPod`` replicas (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/RequestObjectBuilder.java``).
    """
    for index, group in groups(data):
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod"))
        if count is None or not per_pod or per_pod < 1 or count % per_pod == 0:
            continue
        lower, upper = count - count % per_pod, count - count % per_pod + per_pod
        options = f"{lower} or {upper}" if lower else f"{upper}"
        yield problem(
            doc,
            ("spec", "workers", index, "count"),
            f"{count} is not divisible by perPod {per_pod}: every pod runs {per_pod} workers, "
            f"so use a multiple of {per_pod} such as {options}",
        )


@rule("workers-total", fields=("spec.workers[].count",))
def check_total_workers(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """The whole job has at most 100,000 workers (``MAX_TOTAL_WORKERS``).

    A t2gen limit, not Kubernetes' or Twister2's: the manifests do not grow with
    the number of workers, but rules and checks that walk the worker map do, and
    no real cluster runs more in one job. A group's own ``count`` above the
    limit is the schema's to report; this rule adds the groups up.
    """
    counts = [as_int(group.get("count")) or 0 for _, group in groups(data)]
    # a single count above the limit is a schema error
    total = sum(count for count in counts if count <= MAX_TOTAL_WORKERS)
    if total > MAX_TOTAL_WORKERS:
        yield problem(
            doc,
            ("spec", "workers"),
            f"the job has {total} workers; t2gen supports at most {MAX_TOTAL_WORKERS} in one job",
        )


@rule(
    "workers-bind-whole-cores",
    fields=(
        "spec.bindWorkersToCpu",
        "spec.workers[].cpu",
        "spec.workers[].perPod",
        "spec.mpi.enabled",
    ),
)
def check_binding(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """With ``bindWorkersToCpu``, every worker (every OpenMPI pod) owns whole cores.

    Binding renders each worker container with ``requests == limits`` (the
    Guaranteed QoS class). The kubelet's static CPU manager gives exclusive
    cores only to containers of Guaranteed pods whose CPU request is a whole
    number, so a fractional ``cpu`` would silently share cores. An OpenMPI pod
    has one container holding ``perPod`` workers, so there ``perPod x cpu``
    must be whole instead.

    Sources: Kubernetes, "Control CPU Management Policies on the Node", static
    policy (https://kubernetes.io/docs/tasks/administer-cluster/cpu-management-policies/);
    docs/reference.md's "Binding and placement" section.
    """
    spec = as_dict(data.get("spec"))
    if spec.get("bindWorkersToCpu") is not True:
        return
    mpi = as_dict(spec.get("mpi")).get("enabled") is True
    for index, group in groups(data):
        cpu = as_quantity(group.get("cpu"))
        per_pod = as_int(group.get("perPod")) or 1
        if cpu is None or cpu.is_zero():
            continue
        path = ("spec", "workers", index, "cpu")
        if mpi:
            pod_cpu = cpu * per_pod
            if not pod_cpu.is_whole():
                yield problem(
                    doc,
                    path,
                    f"{group['cpu']} cores x perPod {per_pod} = {fmt_decimal(pod_cpu.value)} cores per OpenMPI "
                    "pod is not a whole number; with bindWorkersToCpu the pod's one container must own whole "
                    "cores (a core cannot be shared)",
                )
        elif not cpu.is_whole():
            whole = max(1, int(cpu.value))
            options = f"{whole} or {whole + 1}" if whole < cpu.value else f"{whole}"
            yield problem(
                doc,
                path,
                f"{group['cpu']} is not a whole number of cores; with bindWorkersToCpu each worker owns "
                f"whole cores (a core cannot be shared), so use {options}",
            )


RULES: tuple[Rule, ...] = (check_divisible, check_total_workers, check_binding)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
