"""The worker map of ``t2gen plan JOB``: every worker's ID, pod, container, ports and DNS name.

The map is :mod:`t2gen.twister2.topology` (the one home of Twister2's worker-ID
and port formulas) plus the names Kubernetes gives the pods: a StatefulSet's
pod ``<pod>`` governed by the headless Service ``<service>`` is resolvable as
``<pod>.<service>.<namespace>.svc.cluster.local``
(https://kubernetes.io/docs/concepts/workloads/controllers/statefulset/#stable-network-id).
When the job file sets no namespace (``kubectl apply -n`` chooses it), the
names are written relative to it, ``<pod>.<service>``, which resolves from
every pod of the job through the pod's DNS search path
(https://kubernetes.io/docs/concepts/services-networking/dns-pod-service/#namespaces-of-services).

The totals are summed over the rendered StatefulSets' pod requests
(:func:`t2gen.plan.podspec.pod_requests`), so every resource the pods request
(cpu, memory, ``ephemeral-storage``, ``nvidia.com/gpu``, ...) is counted as the
scheduler counts it, and nothing is computed twice.

Nothing is materialised per worker until the table or the JSON is written:
:func:`write_table` streams rows, so 100,000 workers cost a few hundred
milliseconds and ``--summary`` costs nothing per worker.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, Any

from t2gen.jobfile.model import Job
from t2gen.plan.podspec import CPU, MEMORY, Resources, pod_requests
from t2gen.twister2 import names
from t2gen.twister2.topology import Port, Topology, build_topology

__all__ = [
    "JobMasterAddress",
    "WorkerMap",
    "build_worker_map",
    "pod_dns_name",
    "service_dns_name",
    "worker_map_to_dict",
    "write_json",
    "write_table",
]


def service_dns_name(service: str, namespace: str | None) -> str:
    """The DNS name of a Service: ``<service>.<namespace>.svc.cluster.local``, or ``<service>``.

    Args:
        service: the Service's name.
        namespace: its namespace; None when the job file leaves it to ``kubectl -n``
            (the name is then relative to the job's own namespace).
    """
    if namespace is None:
        return service
    return f"{service}.{namespace}.svc.cluster.local"


def pod_dns_name(pod: str, service: str, namespace: str | None) -> str:
    """The DNS name of a StatefulSet's pod under its headless Service.

    Args:
        pod: the pod's name (``<statefulset>-<ordinal>``).
        service: the StatefulSet's ``serviceName`` (a headless Service).
        namespace: as for :func:`service_dns_name`.

    Returns:
        ``<pod>.<service>.<namespace>.svc.cluster.local``, or ``<pod>.<service>``.
    """
    return f"{pod}.{service_dns_name(service, namespace)}"


@dataclass(frozen=True)
class JobMasterAddress:
    """Where the workers reach the job master.

    Attributes:
        in_cluster: the job master runs in the cluster (``jobMaster.enabled``);
            False when it runs in the submitting client.
        host: the job master Service's DNS name (what the workers resolve,
            ``K8sWorkerUtils.getJobMasterIpByWaitingPodRunning``), or the
            client's ``jobMaster.address``.
        port: ``jobMaster.port``.
        pod: the job master's pod, ``<job>-jm-0``; None when it runs in the client.
    """

    in_cluster: bool
    host: str
    port: int
    pod: str | None


@dataclass(frozen=True)
class WorkerMap:
    """A job's worker map and its totals.

    Attributes:
        topology: the worker map as data (:func:`t2gen.twister2.topology.build_topology`).
        namespace: the job's namespace, or None when the manifests leave it to kubectl.
        service: the workers' headless Service (every worker StatefulSet's ``serviceName``).
        mpi: OpenMPI starts the workers: one container per pod, the worker ID is the MPI rank.
        job_master: where the workers reach the job master.
        pods: pods the job runs (worker pods and the job master's).
        requests: the rendered pods' requests summed over every StatefulSet
            (cpu in millicores, memory in bytes, other resources in their units).
    """

    topology: Topology
    namespace: str | None
    service: str
    mpi: bool
    job_master: JobMasterAddress
    pods: int
    requests: Resources

    def dns_name(self, pod: str) -> str:
        """The DNS name of one of the job's worker pods."""
        return pod_dns_name(pod, self.service, self.namespace)


def _sum_requests(objects: Sequence[Mapping[str, Any]]) -> tuple[int, Resources]:
    """Pods and summed requests of every StatefulSet among rendered objects."""
    pods = 0
    total: dict[str, int] = {}
    for obj in objects:
        if obj.get("kind") != "StatefulSet":
            continue
        spec = obj.get("spec") or {}
        replicas = spec.get("replicas", 1)
        per_pod = pod_requests((spec.get("template") or {}).get("spec") or {})
        pods += replicas
        total[CPU] = total.get(CPU, 0) + replicas * per_pod.cpu_millis
        total[MEMORY] = total.get(MEMORY, 0) + replicas * per_pod.memory_bytes
        for name, amount in per_pod.extended:
            total[name] = total.get(name, 0) + replicas * amount
    return pods, Resources.from_amounts(total, pods=pods)


def build_worker_map(job: Job, objects: Sequence[Mapping[str, Any]]) -> WorkerMap:
    """Lay out a validated job's workers and total its rendered pods' requests.

    Args:
        job: the validated job (its ``namespace`` already overridden by ``-n``).
        objects: the job's rendered objects (:func:`t2gen.pipeline.generate`).

    Returns:
        The worker map; O(worker groups + objects) to build.

    Raises:
        ValueError: a rendered request is not a quantity (only with user templates).
    """
    master = job.spec.job_master
    if master.enabled:
        service = names.job_master_service_name(job.name)
        address = JobMasterAddress(
            in_cluster=True,
            host=service_dns_name(service, job.namespace),
            port=master.port,
            pod=names.statefulset_pod_name(
                names.job_master_statefulset_name(job.name), 0
            ),
        )
    else:
        address = JobMasterAddress(
            in_cluster=False, host=master.address or "", port=master.port, pod=None
        )
    pods, requests = _sum_requests(objects)
    return WorkerMap(
        topology=build_topology(job),
        namespace=job.namespace,
        service=names.worker_service_name(job.name),
        mpi=job.spec.mpi.enabled,
        job_master=address,
        pods=pods,
        requests=requests,
    )


def _ports_text(ports: Sequence[Port]) -> str:
    return ",".join(f"{name}={number}" for name, number in ports)


def _exact(name: str, amount: int) -> str:
    """An amount exactly: cpu in cores (``25000.2``), bytes in the largest unit that divides them."""
    if name == CPU:
        whole, millis = divmod(amount, 1000)
        return f"{whole}" + (f".{millis:03d}".rstrip("0") if millis else "")
    if name == MEMORY or name == "ephemeral-storage" or name.startswith("hugepages-"):
        for suffix, power in (("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)):
            if amount and amount % (1 << power) == 0:
                return f"{amount >> power}{suffix}"
    return str(amount)


def _requests_text(requests: Resources) -> str:
    parts = [f"{_exact(CPU, requests.cpu_millis)} cpu"]
    parts.append(f"{_exact(MEMORY, requests.memory_bytes)} memory")
    parts += [f"{_exact(k, v)} {k}" for k, v in requests.extended]
    return ", ".join(parts)


def _plural(number: int, noun: str) -> str:
    return f"{number:,} {noun}{'' if number == 1 else 's'}"


_Row = tuple[int, int, str, int, str, str, tuple[Port, ...], str]
"""(worker ID, group, StatefulSet, pod ordinal, pod, container, ports, DNS name)."""


def _rows(wmap: WorkerMap) -> Iterator[_Row]:
    """Every worker in worker-ID order, as plain tuples (cheap for 100,000 workers).

    The same slots as :meth:`t2gen.twister2.topology.Topology.iter_workers`:
    without OpenMPI a pod's containers and their ports
    (:attr:`~t2gen.twister2.topology.GroupTopology.containers`) are the same in
    every pod, so they are taken once per group; with OpenMPI each rank's ports
    differ and come from :meth:`~t2gen.twister2.topology.GroupTopology.worker`.
    """
    for group in wmap.topology.groups:
        if wmap.mpi:
            for slot in group.iter_workers():
                yield (
                    slot.worker_id,
                    slot.group,
                    slot.statefulset,
                    slot.pod_index,
                    slot.pod_name,
                    slot.container_name,
                    slot.ports,
                    wmap.dns_name(slot.pod_name),
                )
            continue
        containers = [(c.name, c.ports) for c in group.containers]
        worker_id = group.first_worker_id
        for pod_index in range(group.pods):
            pod = group.pod_name(pod_index)
            dns = wmap.dns_name(pod)
            for name, ports in containers:
                yield (
                    worker_id,
                    group.index,
                    group.statefulset,
                    pod_index,
                    pod,
                    name,
                    ports,
                    dns,
                )
                worker_id += 1


def _cells(row: _Row) -> tuple[str, ...]:
    worker_id, group, statefulset, _, pod, container, ports, dns = row
    return (
        str(worker_id),
        str(group),
        statefulset,
        pod,
        container,
        _ports_text(ports),
        dns,
    )


def _header_lines(wmap: WorkerMap) -> list[str]:
    topology = wmap.topology
    workers = topology.total_workers
    worker_pods = sum(group.pods for group in topology.groups)
    lines = [
        f"job {topology.job}: {_plural(workers, 'worker')} in {_plural(worker_pods, 'pod')}, "
        f"{_plural(len(topology.groups), 'worker group')}"
        + (" (OpenMPI: worker ID = MPI rank)" if wmap.mpi else "")
    ]
    if wmap.namespace is None:
        lines.append(
            f"workers' headless Service: {wmap.service} (no namespace in the job file: DNS names "
            "are relative to the namespace the job runs in; append .<namespace>.svc.cluster.local)"
        )
    else:
        lines.append(
            f"workers' headless Service: {wmap.service} in namespace {wmap.namespace}"
        )
    master = wmap.job_master
    if master.in_cluster:
        lines.append(
            f"job master: {master.host}:{master.port} (pod {master.pod}, "
            f"container {names.JOB_MASTER_CONTAINER})"
        )
    else:
        lines.append(
            f"job master: {master.host}:{master.port} (runs in the submitting client)"
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
    return lines


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
                "; ".join(f"{c.name}: {_ports_text(c.ports)}" for c in containers[:4])
                + ("; ..." if len(containers) > 4 else ""),
            )
        )
    return rows


def _table(rows: Sequence[tuple[str, ...]]) -> Iterator[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        yield "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()


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
        "CONTAINER PORTS",
    )
    lines += _table([group_header, *_group_rows(wmap)])
    out.write("\n".join(lines) + "\n")
    if summary:
        return
    topology = wmap.topology
    header = (
        "WORKER" if not wmap.mpi else "WORKER (MPI RANK)",
        "GROUP",
        "STATEFULSET",
        "POD",
        "CONTAINER",
        "PORTS",
        "DNS NAME",
    )
    rows = list(_rows(wmap))
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


def _worker_dict(wmap: WorkerMap, row: _Row) -> dict[str, Any]:
    worker_id, group, statefulset, _, pod, container, ports, dns = row
    return {
        "id": worker_id,
        "group": group,
        "statefulSet": statefulset,
        "pod": pod,
        "container": container,
        **({"mpiRank": worker_id} if wmap.mpi else {}),
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
        for row in _rows(wmap):
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
        ``{job, namespace, service, mpi, jobMaster, groups, workers, totals}``.
        Ports are ``{name: number}``; ``dnsName`` follows :func:`pod_dns_name`;
        ``totals.requests`` has cpu in millicores and memory in bytes
        (``cpuMillis``, ``memoryBytes``, ``extended``), like ``t2gen plan --nodes -o json``.
    """
    topology = wmap.topology
    master = wmap.job_master
    out: dict[str, Any] = {
        "job": topology.job,
        "namespace": wmap.namespace,
        "service": wmap.service,
        "mpi": wmap.mpi,
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
                "containers": [
                    {"name": c.name, "ports": dict(c.ports)} for c in group.containers
                ],
            }
            for group in topology.groups
        ],
    }
    if not summary:
        out["workers"] = [_worker_dict(wmap, row) for row in _rows(wmap)]
    requests = wmap.requests.to_dict()
    del requests["pods"]
    out["totals"] = {
        "workers": topology.total_workers,
        "pods": wmap.pods,
        "requests": requests,
    }
    return out
