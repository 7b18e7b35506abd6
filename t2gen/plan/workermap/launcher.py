"""What the Twister2 launcher would request for the same job, beside what t2gen's pods request.

``t2gen plan JOB`` shows each StatefulSet's pod requests next to the ones
``twister2 submit`` would have given the same job, and where they differ, so a
job that fits a cluster under Twister2 but stays Pending under t2gen says why.
The launcher's formulas (DSC-SPIDAL/twister2 at c6844d2; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``):

* a worker container requests ``cpu`` cores, written ``String.format("%.2f")``
  (rounded half up to 0.01 core), and ``ram`` Mi, ram being the compute
  resource's ``ram_mega_bytes`` (whole MiB); with OpenMPI one container per pod
  requests ``perPod`` times both; bound workers get them as limits, which
  Kubernetes copies into the requests (``K8S/RequestObjectBuilder.java:216-227,306-326``);
* the job master's container requests ``twister2.job.master.cpu`` and
  ``twister2.job.master.ram`` + 128 Mi (``K8S/master/JobMasterRequestObject.java:170-174``);
* nothing else: no extended resource, no ``ephemeral-storage``, nothing for
  the memory volume (an emptyDir without ``sizeLimit``, ``:186-191``).

t2gen's side is read from the rendered pod templates
(:func:`t2gen.plan.podspec.pod_requests`), as the scheduler counts it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from t2gen.kube.quantity import Quantity, parse_quantity
from t2gen.model import Job, WorkerGroup
from t2gen.plan.podspec import pod_requests
from t2gen.plan.quantities import CPU, MEMORY, Resources, exact_text
from t2gen.plan.text import aligned
from t2gen.record import Record
from t2gen.twister2 import names

__all__ = [
    "MPI_DAEMON_MIB",
    "MPI_MASTER_MIB",
    "RequestComparison",
    "compare_requests",
    "launcher_lines",
    "launcher_pod_requests",
    "limits_cpu",
]

MPI_MASTER_MIB = 512
"""MiB t2gen adds to an OpenMPI pod of group 0 (:data:`t2gen.render.context.memory.MPI_MASTER_MEMORY`)."""

MPI_DAEMON_MIB = 64
"""MiB t2gen adds to every other OpenMPI pod (:data:`t2gen.render.context.memory.MPI_DAEMON_MEMORY`)."""

_MIB = 2**20


class RequestComparison(Record):
    """One StatefulSet's pod requests under t2gen and under the Twister2 launcher.

    Attributes:
        statefulset: the StatefulSet's name.
        pods: its replicas.
        t2gen: one pod's requests as rendered (cpu in millicores, memory in bytes,
            the other resources in their units).
        launcher_cpu_millis: one pod's cpu request under the launcher.
        launcher_memory_bytes: one pod's memory request under the launcher.
        reasons: where the two differ, one phrase each; empty when they agree.
    """

    statefulset: str
    pods: int
    t2gen: Resources
    launcher_cpu_millis: int
    launcher_memory_bytes: int
    reasons: tuple[str, ...]


def _millis(cores: Decimal) -> int:
    """Cores as Kubernetes stores a request: millicores, rounded up."""
    return math.ceil(cores * 1000)


def _ram_mib(memory: Quantity) -> int:
    """A compute resource's ``ram_mega_bytes``: the memory in whole MiB (the builder's ``int``)."""
    return int(memory.mebibytes())


def _worker_pod(job: Job, group: WorkerGroup) -> tuple[int, int]:
    """(cpu millicores, memory bytes) the launcher requests for one pod of ``group``."""
    mpi = job.spec.mpi.enabled
    share = group.per_pod if mpi else 1
    containers = 1 if mpi else group.per_pod
    cores = (group.cpu.value * share).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    return (
        containers * _millis(cores),
        containers * _ram_mib(group.memory) * share * _MIB,
    )


def _job_master_pod(job: Job) -> tuple[int, int]:
    """(cpu millicores, memory bytes) the launcher requests for the job master's pod."""
    master = job.spec.job_master
    return (
        _millis(master.cpu.value),
        (_ram_mib(master.memory) + names.JOB_MASTER_MEMORY_OVERHEAD_MIB) * _MIB,
    )


def launcher_pod_requests(job: Job) -> dict[str, tuple[int, int]]:
    """Per StatefulSet name, the (cpu millicores, memory bytes) the launcher requests for one pod.

    Args:
        job: the validated job.

    Returns:
        The worker StatefulSets in group order, then the job master's.
    """
    found = {
        names.worker_statefulset_name(job.name, group.index): _worker_pod(job, group)
        for group in job.spec.workers
    }
    found[names.job_master_statefulset_name(job.name)] = _job_master_pod(job)
    return found


def _size(amount: int) -> str:
    """Bytes as the largest binary unit that divides them (``128Mi``), or bytes."""
    for suffix, power in (("Gi", 30), ("Mi", 20), ("Ki", 10)):
        if amount and amount % (1 << power) == 0:
            return f"{amount >> power}{suffix}"
    return f"{amount}"


def _not_whole_mib(memory: Quantity, workers: int) -> list[tuple[int, str]]:
    """The bytes the launcher drops by requesting ``ram`` in whole MiB, for ``workers`` workers."""
    extra = int(memory.value - _ram_mib(memory) * _MIB) * workers
    if not extra:
        return []
    return [(extra, f"+{extra} bytes: memory is not whole MiB (Twister2's ram is)")]


def _explained_memory(job: Job, group: WorkerGroup | None) -> list[tuple[int, str]]:
    """The memory t2gen adds to one pod on purpose, in bytes, each with its reason.

    ``group`` None is the job master, which gets the launcher's request.
    """
    spec = job.spec
    if group is None:
        return _not_whole_mib(spec.job_master.memory, 1)
    volume = int(spec.storage.memory_volume_size.value)
    parts = [
        (
            volume,
            f"+{_size(volume)} memory volume in the first container (the job package, "
            "packed and unpacked)",
        )
    ]
    if spec.mpi.enabled:
        if group.index == 0:
            parts.append(
                (
                    MPI_MASTER_MIB * _MIB,
                    f"+{MPI_MASTER_MIB}Mi MPI master, mpirun and sshd (every pod of group 0: "
                    "one pod template)",
                )
            )
        else:
            parts.append((MPI_DAEMON_MIB * _MIB, f"+{MPI_DAEMON_MIB}Mi sshd and orted"))
    return parts + _not_whole_mib(group.memory, group.per_pod)


def _reasons(
    job: Job,
    group: WorkerGroup | None,
    t2gen: Resources,
    launcher: tuple[int, int],
) -> tuple[str, ...]:
    """Where one pod's rendered requests differ from the launcher's, in words."""
    reasons: list[str] = []
    cpu_delta = t2gen.cpu_millis - launcher[0]
    if cpu_delta:
        reasons.append(
            f"{cpu_delta:+d}m cpu: the launcher writes cores with two decimals"
            if group is not None and abs(cpu_delta) < 10 * max(group.per_pod, 1)
            else f"{cpu_delta:+d}m cpu"
        )
    memory_delta = t2gen.memory_bytes - launcher[1]
    explained = 0
    for amount, text in _explained_memory(job, group):
        if memory_delta and amount:
            reasons.append(text)
            explained += amount
    if memory_delta != explained:
        rest = memory_delta - explained
        sign = "+" if rest > 0 else "-"
        reasons.append(
            f"{sign}{_size(abs(rest))} memory otherwise (templates or limits)"
        )
    others = [
        f"{_size(amount)} ephemeral-storage (volatileDisk)"
        if name == "ephemeral-storage"
        else f"{amount} {name}"
        for name, amount in t2gen.extended
    ]
    if others:
        reasons.append(
            f"also requests {', '.join(others)}: the launcher requests only cpu and memory"
        )
    return tuple(reasons)


def compare_requests(
    job: Job, objects: Sequence[Mapping[str, Any]]
) -> tuple[RequestComparison, ...]:
    """Each rendered StatefulSet's pod requests beside the launcher's for the same job.

    Args:
        job: the validated job.
        objects: its rendered objects.

    Returns:
        One comparison per StatefulSet the launcher would also create, in
        group order, then the job master's.

    Raises:
        ValueError: a rendered request is not a quantity (only with user templates).
    """
    launcher = launcher_pod_requests(job)
    groups = {
        names.worker_statefulset_name(job.name, group.index): group
        for group in job.spec.workers
    }
    rendered = {
        (obj.get("metadata") or {}).get("name"): obj
        for obj in objects
        if obj.get("kind") == "StatefulSet"
    }
    result = []
    for name, requests in launcher.items():
        obj = rendered.get(name)
        if obj is None:
            continue
        spec = obj.get("spec") or {}
        ours = pod_requests((spec.get("template") or {}).get("spec") or {})
        result.append(
            RequestComparison(
                statefulset=name,
                pods=int(spec.get("replicas", 1)),
                t2gen=ours,
                launcher_cpu_millis=requests[0],
                launcher_memory_bytes=requests[1],
                reasons=_reasons(job, groups.get(name), ours, requests),
            )
        )
    return tuple(result)


def limits_cpu(objects: Sequence[Mapping[str, Any]]) -> tuple[int, int, int]:
    """What a ResourceQuota on ``limits.cpu`` sees of the rendered pods.

    A quota on ``limits.cpu`` refuses a container without a CPU limit unless a
    LimitRange gives it a default, which it then counts in full
    (https://kubernetes.io/docs/concepts/policy/resource-quotas/#requests-vs-limits).

    Returns:
        ``(limited millicores, containers with a CPU limit, containers without one)``
        over every pod of every StatefulSet.
    """
    millis = with_limit = without = 0
    for obj in objects:
        if obj.get("kind") != "StatefulSet":
            continue
        spec = obj.get("spec") or {}
        replicas = int(spec.get("replicas", 1))
        pod = (spec.get("template") or {}).get("spec") or {}
        for container in pod.get("containers") or []:
            limit = ((container.get("resources") or {}).get("limits") or {}).get("cpu")
            if limit is None:
                without += replicas
            else:
                with_limit += replicas
                millis += _millis(parse_quantity(limit).value) * replicas
    return millis, with_limit, without


def _pod_text(cpu_millis: int, memory_bytes: int) -> str:
    return f"{exact_text(CPU, cpu_millis)} cpu, {exact_text(MEMORY, memory_bytes)}"


def launcher_lines(
    comparisons: Sequence[RequestComparison], quota: tuple[int, int, int]
) -> list[str]:
    """The table of ``t2gen plan JOB``: each StatefulSet's requests beside the launcher's, then the quota line.

    Args:
        comparisons: from :func:`compare_requests`.
        quota: from :func:`limits_cpu`.

    Returns:
        Lines of text, the first one empty; none without comparisons.
    """
    if not comparisons:
        return []
    rows: list[tuple[str, ...]] = [
        ("STATEFULSET", "PODS", "REQUESTS/POD", "LAUNCHER'S", "DIFFERENCE")
    ]
    ours = [0, 0]
    theirs = [0, 0]
    for item in comparisons:
        rows.append(
            (
                item.statefulset,
                str(item.pods),
                _pod_text(item.t2gen.cpu_millis, item.t2gen.memory_bytes),
                _pod_text(item.launcher_cpu_millis, item.launcher_memory_bytes),
                "; ".join(item.reasons) or "none",
            )
        )
        ours[0] += item.t2gen.cpu_millis * item.pods
        ours[1] += item.t2gen.memory_bytes * item.pods
        theirs[0] += item.launcher_cpu_millis * item.pods
        theirs[1] += item.launcher_memory_bytes * item.pods
    extra = ours[1] - theirs[1]
    rows.append(
        (
            "all pods",
            str(sum(item.pods for item in comparisons)),
            _pod_text(*ours),
            _pod_text(*theirs),
            "none"
            if ours == theirs
            else f"{'+' if extra >= 0 else '-'}{exact_text(MEMORY, abs(extra))} memory"
            + (f", {ours[0] - theirs[0]:+d}m cpu" if ours[0] != theirs[0] else ""),
        )
    )
    lines = [
        "",
        "requests per pod, t2gen's and the Twister2 launcher's for the same job "
        "(RequestObjectBuilder.java:306-326, JobMasterRequestObject.java:170-174; docs/resources.md):",
        *aligned(rows),
    ]
    millis, limited, unlimited = quota
    if unlimited:
        lines.append(
            f"limits.cpu: {unlimited} of {limited + unlimited} container{'' if limited + unlimited == 1 else 's'} set no CPU "
            "limit: a ResourceQuota on limits.cpu refuses their pods (FailedCreate events on the "
            "StatefulSet) unless a LimitRange gives them a default limit, which each then counts "
            "in full; set cpuLimit on the worker groups and jobMaster.cpuLimit to choose what the "
            "quota counts (docs/resources.md)"
        )
    else:
        lines.append(
            f"limits.cpu: a ResourceQuota on limits.cpu counts {exact_text(CPU, millis)} cpu "
            f"(every one of the {limited} containers sets a CPU limit)"
        )
    return lines
