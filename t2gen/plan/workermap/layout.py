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

Nothing is materialised per worker until the table or the JSON is written
(:mod:`t2gen.plan.workermap.output`): :func:`worker_rows` yields plain tuples.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from t2gen.model import Job
from t2gen.plan.podspec import pod_requests, pod_resources
from t2gen.plan.quantities import Resources, add_requests
from t2gen.plan.workermap.launcher import (
    RequestComparison,
    compare_requests,
    limits_cpu,
)
from t2gen.record import Record
from t2gen.twister2 import names
from t2gen.twister2.topology import Port, Topology, build_topology

__all__ = [
    "MPI_RANKS",
    "JobMasterAddress",
    "WorkerMap",
    "WorkerRow",
    "build_worker_map",
    "pod_dns_name",
    "ports_text",
    "service_dns_name",
    "worker_rows",
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


class JobMasterAddress(Record):
    """Where the workers reach the job master.

    Attributes:
        in_cluster: the job master runs in the cluster: always True, as t2gen
            refuses one in the client (rule ``job-master-in-client``); kept as
            ``inCluster`` in the JSON worker map.
        host: the job master Service's DNS name (what the workers resolve,
            ``K8sWorkerUtils.getJobMasterIpByWaitingPodRunning``).
        port: ``jobMaster.port``.
        pod: the job master's pod, ``<job>-jm-0``.
    """

    in_cluster: bool
    host: str
    port: int
    pod: str


class WorkerMap(Record):
    """A job's worker map and its totals.

    Attributes:
        topology: the worker map as data (:func:`t2gen.twister2.topology.build_topology`).
        namespace: the job's namespace, or None when the manifests leave it to kubectl.
        service: the workers' Service (every worker StatefulSet's ``serviceName``).
        mpi: OpenMPI starts the workers: one container per pod, the worker ID is the
            MPI rank, which mpirun assigns at run time (:data:`MPI_RANKS`).
        job_master: where the workers reach the job master.
        pods: pods the job runs (worker pods and the job master's).
        requests: the rendered pods' requests summed over every StatefulSet
            (cpu in millicores, memory in bytes, other resources in their units).
        pinning: per worker group, in order, ``(cores, reason)``: the whole
            cores the static CPU manager pins for each of its pods (0: the pod
            runs in the shared pool) and why (``bindWorkersToCpu`` or ``cpuLimit``).
        scalable: the index of the group the job master may scale, or None.
        headless: the workers' Service is headless, so pods have DNS names
            (False with ``network.service.type: NodePort``).
        launcher: each StatefulSet's pod requests beside the Twister2
            launcher's for the same job (:mod:`.launcher`).
        limits_cpu: what a ResourceQuota on ``limits.cpu`` sees:
            ``(limited millicores, containers with a CPU limit, without one)``.
    """

    topology: Topology
    namespace: str | None
    service: str
    mpi: bool
    job_master: JobMasterAddress
    pods: int
    requests: Resources
    pinning: tuple[tuple[int, str], ...] = ()
    scalable: int | None = None
    headless: bool = True
    launcher: tuple[RequestComparison, ...] = ()
    limits_cpu: tuple[int, int, int] = (0, 0, 0)

    def dns_name(self, pod: str) -> str | None:
        """The DNS name of one of the job's worker pods; None without a headless Service."""
        if not self.headless:
            return None
        return pod_dns_name(pod, self.service, self.namespace)


def _pinning(
    job: Job, objects: Sequence[Mapping[str, Any]]
) -> tuple[tuple[int, str], ...]:
    """Per worker group, the cores its rendered pod template gets pinned and why.

    Read from the rendered StatefulSets (:func:`t2gen.plan.podspec.pod_resources`:
    only Guaranteed pods' whole-cpu containers are pinned), so it says what the
    kubelet will do with the manifests, user templates included.
    """
    by_name = {
        (obj.get("metadata") or {}).get("name"): obj
        for obj in objects
        if obj.get("kind") == "StatefulSet"
    }
    reason = (
        "bindWorkersToCpu"
        if job.spec.bind_workers_to_cpu
        else "cpuLimit = cpu, not bound"
    )
    result = []
    for group in job.spec.workers:
        obj = by_name.get(names.worker_statefulset_name(job.name, group.index)) or {}
        spec = ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}
        cores = pod_resources(spec)[1]
        result.append((cores, reason if cores else ""))
    return tuple(result)


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
        add_requests(total, per_pod, replicas)
    return pods, Resources.from_amounts(total, pods=pods)


def build_worker_map(job: Job, objects: Sequence[Mapping[str, Any]]) -> WorkerMap:
    """Lay out a validated job's workers and total its rendered pods' requests.

    Args:
        job: the validated job (its ``namespace`` already overridden by ``-n``).
        objects: the job's rendered objects (:func:`t2gen.pipeline.job.generate`).

    Returns:
        The worker map; O(worker groups + objects) to build.

    Raises:
        ValueError: a rendered request is not a quantity (only with user templates).
    """
    service = names.job_master_service_name(job.name)
    address = JobMasterAddress(
        in_cluster=True,
        host=service_dns_name(service, job.namespace),
        port=job.spec.job_master.port,
        pod=names.statefulset_pod_name(names.job_master_statefulset_name(job.name), 0),
    )
    pods, requests = _sum_requests(objects)
    return WorkerMap(
        topology=build_topology(
            job.name,
            job.spec.workers,
            base_port=job.spec.network.base_port,
            additional_ports=job.spec.network.additional_ports,
            mpi=job.spec.mpi.enabled,
        ),
        namespace=job.namespace,
        service=names.worker_service_name(job.name),
        mpi=job.spec.mpi.enabled,
        job_master=address,
        pods=pods,
        requests=requests,
        pinning=_pinning(job, objects),
        scalable=next((g.index for g in job.spec.workers if g.scalable), None),
        headless=job.spec.network.service_type != "NodePort",
        launcher=compare_requests(job, objects),
        limits_cpu=limits_cpu(objects),
    )


def ports_text(ports: Sequence[Port]) -> str:
    """Return ports as ``name=number,...``."""
    return ",".join(f"{name}={number}" for name, number in ports)


WorkerRow = tuple[int, int, str, int, str, str, tuple[Port, ...], str | None]
"""(worker ID, group, StatefulSet, pod ordinal, pod, container, ports, DNS name or None)."""

MPI_RANKS = (
    "MPI ranks are assigned at run time: mpirun gives each pod workersPerPod consecutive "
    "ranks in the order the pods reach Running (Twister2 PodWatchUtils.java:592-604, "
    "MPIMasterStarter.java:140-150), so the pod, ports and DNS name shown for a rank are "
    "one possible assignment"
)
"""What ``plan`` says of an OpenMPI job's worker IDs (= MPI ranks)."""


def worker_rows(wmap: WorkerMap) -> Iterator[WorkerRow]:
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
