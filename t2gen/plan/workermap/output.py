"""The worker map for people (a table) and scripts (JSON), streamed row by row.

:func:`write_table` streams rows, so its memory does not grow with the
workers, and ``--summary`` costs nothing per worker; :func:`write_json`
writes one compact line per worker.
"""

from __future__ import annotations

import json
from typing import IO, Any

from t2gen.plan.quantities import CPU, MEMORY, Resources, exact_text
from t2gen.plan.text import aligned
from t2gen.plan.workermap.launcher import launcher_lines
from t2gen.plan.workermap.layout import (
    MPI_RANKS,
    WorkerMap,
    WorkerRow,
    ports_text,
    worker_rows,
)
from t2gen.twister2 import names

__all__ = ["worker_map_to_dict", "write_json", "write_table"]


def _requests_text(requests: Resources) -> str:
    parts = [f"{exact_text(CPU, requests.cpu_millis)} cpu"]
    parts.append(f"{exact_text(MEMORY, requests.memory_bytes)} memory")
    parts += [f"{exact_text(k, v)} {k}" for k, v in requests.extended]
    return ", ".join(parts)


def _plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


def _cells(row: WorkerRow) -> tuple[str, ...]:
    worker_id, group, statefulset, _, pod, container, ports, dns = row
    return (
        str(worker_id),
        str(group),
        statefulset,
        pod,
        container,
        ports_text(ports),
        dns or "-",
    )


def _header_lines(wmap: WorkerMap) -> list[str]:
    topology = wmap.topology
    workers = topology.total_workers
    worker_pods = sum(group.pods for group in topology.groups)
    lines = [
        f"job {topology.job}: {_plural(workers, 'worker')} in {_plural(worker_pods, 'pod')}, "
        f"{_plural(len(topology.groups), 'worker group')}"
        + (" (OpenMPI: worker ID = MPI rank, assigned at run time)" if wmap.mpi else "")
    ]
    if wmap.mpi:
        lines.append(MPI_RANKS)
    if not wmap.headless:
        lines.append(
            f"workers' NodePort Service: {wmap.service}"
            + (f" in namespace {wmap.namespace}" if wmap.namespace else "")
            + " (no per-pod DNS names: only a headless Service publishes them; the runtime "
            "finds workers by pod IP)"
        )
    elif wmap.namespace is None:
        lines.append(
            f"workers' headless Service: {wmap.service} (no namespace in the job file: DNS names "
            "are relative to the namespace the job runs in; append .<namespace>.svc.cluster.local)"
        )
    else:
        lines.append(
            f"workers' headless Service: {wmap.service} in namespace {wmap.namespace}"
        )
    master = wmap.job_master
    lines.append(
        f"job master: {master.host}:{master.port} (pod {master.pod}, "
        f"container {names.JOB_MASTER_CONTAINER})"
    )
    extra = wmap.pods - worker_pods
    lines.append(
        f"totals: {_plural(wmap.pods, 'pod')}"
        + (
            f" ({_plural(worker_pods, 'worker pod')}, {_plural(extra, 'job master pod')})"
            if extra
            else ""
        )
        + f"; requests {_requests_text(wmap.requests)}"
    )
    if wmap.scalable is not None:
        group = topology.groups[wmap.scalable]
        lines.append(
            f"scalable: group {group.index} ({group.statefulset}), the last, as Twister2 orders them; "
            f"the job master adds workers after ID {topology.total_workers - 1} and removes the "
            "highest IDs first"
        )
    return lines


def _cpu_text(wmap: WorkerMap, index: int) -> str:
    """A group's CPU cell: ``pinned: N cores/pod (why)`` or ``shared``."""
    if index >= len(wmap.pinning) or not wmap.pinning[index][0]:
        return "shared"
    cores, reason = wmap.pinning[index]
    return f"pinned: {cores} core{'' if cores == 1 else 's'}/pod ({reason})"


def _group_rows(wmap: WorkerMap) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for group in wmap.topology.groups:
        last = group.first_worker_id + group.workers - 1
        containers = group.containers
        rows.append(
            (
                str(group.index),
                group.statefulset,
                f"{group.first_worker_id}-{last}",
                str(group.pods),
                str(group.workers_per_pod),
                str(len(containers)),
                _cpu_text(wmap, group.index),
                "; ".join(f"{c.name}: {ports_text(c.ports)}" for c in containers[:4])
                + ("; ..." if len(containers) > 4 else ""),
            )
        )
    return rows


def write_table(wmap: WorkerMap, out: IO[str], *, summary: bool = False) -> None:
    """Write the worker map for people: header lines, one row per group, one per worker.

    Args:
        wmap: from :func:`build_worker_map`.
        out: a text stream.
        summary: leave out the per-worker rows (one row per group only).
    """
    lines = _header_lines(wmap)
    lines.append("")
    group_header = (
        "GROUP",
        "STATEFULSET",
        "WORKER IDS",
        "PODS",
        "WORKERS/POD",
        "CONTAINERS/POD",
        "CPU",
        "CONTAINER PORTS",
    )
    lines += aligned([group_header, *_group_rows(wmap)])
    lines += launcher_lines(wmap.launcher, wmap.limits_cpu)
    out.write("\n".join(lines) + "\n")
    if summary:
        return
    topology = wmap.topology
    header = (
        "WORKER" if not wmap.mpi else "WORKER (MPI RANK, AT RUN TIME)",
        "GROUP",
        "STATEFULSET",
        "POD",
        "CONTAINER",
        "PORTS",
        "DNS NAME",
    )
    rows = list(worker_rows(wmap))
    # Column widths without formatting every row twice: within a group IDs,
    # ordinals and ports only grow, so the widest cells are in the rows of the
    # group's first and last worker and of the last container of its first pod.
    widest: list[tuple[str, ...]] = [header]
    for group in topology.groups:
        first = group.first_worker_id
        for worker_id in (
            first,
            first + group.workers_per_pod - 1,
            first + group.workers - 1,
        ):
            widest.append(_cells(rows[worker_id]))
    widths = [max(len(row[c]) for row in widest) for c in range(len(header))]
    out.write("\n")
    pad = [width + 2 for width in widths[:-1]]

    def line(cells: tuple[str, ...]) -> str:
        head = "".join(cell.ljust(p) for cell, p in zip(cells[:-1], pad, strict=True))
        return (head + cells[-1]).rstrip() + "\n"

    out.write(line(header))
    for start in range(0, len(rows), 4096):
        out.write("".join(line(_cells(row)) for row in rows[start : start + 4096]))


def _worker_dict(wmap: WorkerMap, row: WorkerRow) -> dict[str, Any]:
    worker_id, group, statefulset, _, pod, container, ports, dns = row
    return {
        "id": worker_id,
        "group": group,
        "statefulSet": statefulset,
        "pod": pod,
        "container": container,
        **({"mpiRank": None} if wmap.mpi else {}),
        "ports": dict(ports),
        "dnsName": dns,
    }


def write_json(wmap: WorkerMap, out: IO[str], *, summary: bool = False) -> None:
    """Write :func:`worker_map_to_dict` as JSON: indented, one line per worker.

    Python's C JSON encoder does not indent; writing each worker as one compact
    line keeps 100,000 workers to a fraction of a second and the file readable
    (and ``jq``/``grep``-able per worker).

    Args:
        wmap: from :func:`build_worker_map`.
        out: a text stream.
        summary: leave out ``workers``.
    """
    data = worker_map_to_dict(wmap, summary=True)
    totals = data.pop("totals")
    text = json.dumps(data, indent=2, ensure_ascii=False)
    out.write(text[: text.rindex("}")].rstrip() + ",\n")
    if not summary:
        out.write('  "workers": [')
        separator = "\n"
        batch: list[str] = []
        for row in worker_rows(wmap):
            batch.append(
                separator
                + "    "
                + json.dumps(_worker_dict(wmap, row), ensure_ascii=False)
            )
            separator = ",\n"
            if len(batch) >= 4096:
                out.write("".join(batch))
                batch.clear()
        out.write("".join(batch))
        out.write("\n  ],\n" if separator == ",\n" else "],\n")
    rest = json.dumps({"totals": totals}, indent=2, ensure_ascii=False)
    out.write(rest[rest.index("\n") + 1 :] + "\n")


def worker_map_to_dict(wmap: WorkerMap, *, summary: bool = False) -> dict[str, Any]:
    """Return the worker map as a JSON-able dict (for ``-o json``).

    Args:
        wmap: from :func:`build_worker_map`.
        summary: leave out ``workers`` (the groups describe them).

    Returns:
        ``{job, namespace, service, mpi, jobMaster, groups, workers, totals}``;
        each group has ``pinnedCoresPerPod`` (the static CPU manager's exclusive
        cores per pod, 0 in the shared pool) and ``scalable``.
        Ports are ``{name: number}``; ``dnsName`` follows :func:`pod_dns_name`
        (null when the workers' Service is a NodePort Service); with OpenMPI each
        worker's ``mpiRank`` is null and ``mpiRanks`` says why (ranks are
        assigned at run time);
        ``totals.requests`` has cpu in millicores and memory in bytes
        (``cpuMillis``, ``memoryBytes``, ``extended``), like ``t2gen plan --nodes -o json``;
        ``totals.launcher`` has, per StatefulSet, one pod's requests (``perPod``)
        beside the Twister2 launcher's (``launcherPerPod``) and the
        ``differences`` in words; ``totals.limitsCpu`` what a ResourceQuota on
        ``limits.cpu`` sees (the CPU limits' sum and how many containers set none).
    """
    topology = wmap.topology
    master = wmap.job_master
    out: dict[str, Any] = {
        "job": topology.job,
        "namespace": wmap.namespace,
        "service": wmap.service,
        "mpi": wmap.mpi,
        **({"mpiRanks": MPI_RANKS} if wmap.mpi else {}),
        "jobMaster": {
            "inCluster": master.in_cluster,
            "host": master.host,
            "port": master.port,
            "pod": master.pod,
        },
        "groups": [
            {
                "index": group.index,
                "statefulSet": group.statefulset,
                "firstWorkerId": group.first_worker_id,
                "workers": group.workers,
                "workersPerPod": group.workers_per_pod,
                "pods": group.pods,
                "pinnedCoresPerPod": wmap.pinning[group.index][0]
                if group.index < len(wmap.pinning)
                else 0,
                "scalable": group.index == wmap.scalable,
                "containers": [
                    {"name": c.name, "ports": dict(c.ports)} for c in group.containers
                ],
            }
            for group in topology.groups
        ],
    }
    if not summary:
        out["workers"] = [_worker_dict(wmap, row) for row in worker_rows(wmap)]
    requests = wmap.requests.to_dict()
    del requests["pods"]
    millis, limited, unlimited = wmap.limits_cpu
    out["totals"] = {
        "workers": topology.total_workers,
        "pods": wmap.pods,
        "requests": requests,
        "launcher": [
            {
                "statefulSet": item.statefulset,
                "pods": item.pods,
                "perPod": {
                    "cpuMillis": item.t2gen.cpu_millis,
                    "memoryBytes": item.t2gen.memory_bytes,
                },
                "launcherPerPod": {
                    "cpuMillis": item.launcher_cpu_millis,
                    "memoryBytes": item.launcher_memory_bytes,
                },
                "differences": list(item.reasons),
            }
            for item in wmap.launcher
        ],
        "limitsCpu": {
            "cpuMillis": millis,
            "containersWithLimit": limited,
            "containersWithoutLimit": unlimited,
        },
    }
    return out
