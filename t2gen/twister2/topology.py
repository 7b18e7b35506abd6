"""The worker map of a job as data: worker ID -> group -> pod -> container -> ports.

This module is the single home of the Twister2 worker-ID and port formulas.
Everything here follows the runtime of cylondata/twister2 (0.8.0-SNAPSHOT), in
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``:

* Worker IDs (``worker/K8sWorkerUtils.java``, ``calculateWorkerID``): worker
  group ``g`` is the StatefulSet ``<job>-<g>``; its workers start after the
  workers of groups ``0..g-1`` (``countWorkersUpToSS``), and within a group
  ``workerID = podIndex x workersPerPod + containerIndex``
  (``calculateWorkerIDInSS``).
* Ports (``RequestObjectBuilder.java``, ``constructContainer``): container ``c``
  of a pod listens on ``basePort + c x (len(additionalPorts) + 1)``; its
  additional ports follow it, the i-th (1-based) at that port + i
  (``worker/K8sWorkerUtils.java``, ``generateAdditionalPorts``).
* Port names (t2gen's, not the runtime's: Twister2 reads ports by number, never
  by name): container 0 names its ports ``worker`` and the additional port
  names as given; container ``c >= 1`` appends ``-<c>`` (``worker-1``,
  ``<name>-1``), so every name is unique within the pod, as Kubernetes
  expects, and at most 15 characters (IANA service names): see
  :func:`port_name`.
* OpenMPI (``mpi/MPIMasterStarter.java``, ``mpi/MPIWorkerStarter.java``): each
  pod runs one container (``twister2-container-0``) holding ``workersPerPod``
  workers; ``mpirun -npernode workersPerPod`` starts them over the pods'
  hostfile, the worker ID is the MPI rank, and worker ``r`` listens on
  ``basePort + r x (len(additionalPorts) + 1)``. The container itself declares
  only ``basePort`` (the runtime opens the others inside it).

Ports are TCP/UDP port numbers (1-65535); counts are whole workers, pods or
containers. Nothing here is materialised per worker: a :class:`Topology` holds
one :class:`GroupTopology` per worker group and computes a :class:`WorkerSlot`
only when asked, so a job of 100,000 workers costs as little as one of 10.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from t2gen.record import Record
from t2gen.twister2 import names

__all__ = [
    "WORKER_PORT_NAME",
    "ContainerSlot",
    "GroupTopology",
    "Port",
    "Topology",
    "WorkerGroupShape",
    "WorkerSlot",
    "build_topology",
    "port_name",
    "port_name_suffix",
    "port_stride",
    "worker_ports",
]

WORKER_PORT_NAME = "worker"
"""Name of a worker's main port (``WORKER_PORT``) in the rendered containers."""

Port = tuple[str, int]
"""A named port: ``(name, number)``, e.g. ``("worker", 9000)``."""


def port_stride(additional_ports: Sequence[str]) -> int:
    """Ports each worker takes: its worker port plus one per additional port name.

    Args:
        additional_ports: the names of ``spec.network.additionalPorts``.

    Returns:
        ``len(additional_ports) + 1`` (Twister2 ``SchedulerContext.numberOfAdditionalPorts`` + 1).
    """
    return len(additional_ports) + 1


def port_name_suffix(container: int) -> str:
    """What container ``container`` of a pod appends to each port name.

    Args:
        container: the container's index in its pod (0-based).

    Returns:
        ``""`` for container 0, ``"-<container>"`` otherwise (``"-1"``, ``"-12"``).
    """
    return f"-{container}" if container else ""


def port_name(name: str, container: int) -> str:
    """The name container ``container`` gives a port that container 0 names ``name``.

    Port names must be unique within a pod (the API server warns on a name
    repeated across containers, and refuses one repeated within a container:
    kubernetes/kubernetes ``pkg/apis/core/validation/validation.go``,
    ``validateContainerPorts``), and at most 15 characters
    (``IsValidPortName``). The job file rules ``port-name-length`` and
    ``port-name-collision`` make sure the results are both.

    Args:
        name: ``worker`` or an additional port name.
        container: the container's index in its pod.

    Returns:
        ``name`` for container 0, ``<name>-<container>`` otherwise
        (``worker-1``, ``metrics-3``).
    """
    return name + port_name_suffix(container)


def worker_ports(
    base_port: int, additional_ports: Sequence[str], slot: int, *, container: int = 0
) -> tuple[Port, ...]:
    """The ports of the worker in ``slot``: the worker port, then its additional ports.

    Args:
        base_port: ``spec.network.basePort``.
        additional_ports: the names of ``spec.network.additionalPorts``.
        slot: the container index in its pod, or the MPI rank with OpenMPI.
        container: the index of the container declaring the ports, which
            names them (:func:`port_name`); 0 with OpenMPI.

    Returns:
        ``(("worker", p), (name_1, p + 1), ...)`` with
        ``p = base_port + slot x port_stride(additional_ports)``, each name
        suffixed for ``container``. Numbers are not checked against 65535 (the
        job file rules report that).
    """
    port = base_port + slot * port_stride(additional_ports)
    extra = enumerate(additional_ports, start=1)
    return (
        (port_name(WORKER_PORT_NAME, container), port),
        *((port_name(name, container), port + i) for i, name in extra),
    )


class WorkerSlot(Record):
    """Where one worker runs and which ports it listens on.

    Attributes:
        worker_id: the Twister2 worker ID (the MPI rank with OpenMPI), 0-based over the job.
        group: the worker group's index (``spec.workers[group]``).
        statefulset: the group's StatefulSet, ``<job>-<group>``.
        pod_index: the pod's ordinal in the StatefulSet.
        pod_name: ``<job>-<group>-<pod_index>``.
        container_index: the container's index in the pod (always 0 with OpenMPI).
        container_name: ``twister2-container-<container_index>``.
        ports: the worker's ``(name, number)`` ports, worker port first.
    """

    worker_id: int
    group: int
    statefulset: str
    pod_index: int
    pod_name: str
    container_index: int
    container_name: str
    ports: tuple[Port, ...]

    @property
    def worker_port(self) -> int:
        """The worker's main port (the first of :attr:`ports`)."""
        return self.ports[0][1]


class ContainerSlot(Record):
    """One container of every pod of a group, as the pod template declares it.

    Attributes:
        index: the container's index in the pod.
        name: ``twister2-container-<index>``.
        ports: the ``containerPort``s the pod template declares, worker port
            first (with OpenMPI only ``basePort``: the ranks' ports are opened
            inside the container).
    """

    index: int
    name: str
    ports: tuple[Port, ...]

    @property
    def worker_port(self) -> int:
        """The container's ``WORKER_PORT``: its first port."""
        return self.ports[0][1]


class GroupTopology(Record):
    """The worker map of one worker group (one StatefulSet).

    Attributes:
        index: the group's index in ``spec.workers``.
        statefulset: ``<job>-<index>``.
        workers: workers in the group (``count``).
        workers_per_pod: ``perPod``.
        first_worker_id: the ID of the group's first worker (workers of earlier groups).
        base_port: ``spec.network.basePort``.
        additional_ports: the names of ``spec.network.additionalPorts``.
        mpi: True when OpenMPI starts the workers (one container per pod).
    """

    index: int
    statefulset: str
    workers: int
    workers_per_pod: int
    first_worker_id: int
    base_port: int
    additional_ports: tuple[str, ...]
    mpi: bool

    @property
    def pods(self) -> int:
        """Pods in the group (the StatefulSet's replicas): ``workers / workers_per_pod``."""
        return self.workers // self.workers_per_pod

    @property
    def containers(self) -> tuple[ContainerSlot, ...]:
        """The containers of each pod of the group (the same in every pod)."""
        if self.mpi:
            return (
                ContainerSlot(
                    index=0,
                    name=names.worker_container_name(0),
                    ports=((WORKER_PORT_NAME, self.base_port),),
                ),
            )
        return tuple(
            ContainerSlot(
                index=c,
                name=names.worker_container_name(c),
                ports=worker_ports(
                    self.base_port, self.additional_ports, c, container=c
                ),
            )
            for c in range(self.workers_per_pod)
        )

    @property
    def highest_port(self) -> int:
        """The highest port any worker of the group listens on."""
        last = (
            self.first_worker_id + self.workers - 1
            if self.mpi
            else self.workers_per_pod - 1
        )
        return worker_ports(self.base_port, self.additional_ports, last)[-1][1]

    def pod_name(self, pod_index: int) -> str:
        """The name of pod ``pod_index`` of the group: ``<job>-<group>-<pod_index>``."""
        return names.statefulset_pod_name(self.statefulset, pod_index)

    def worker(self, worker_id: int) -> WorkerSlot:
        """The slot of a worker of this group.

        Args:
            worker_id: a worker ID of the job in this group's range.

        Returns:
            Its pod, container and ports.

        Raises:
            IndexError: the ID is not one of this group's.
        """
        local = worker_id - self.first_worker_id
        if not 0 <= local < self.workers:
            raise IndexError(f"worker {worker_id} is not in worker group {self.index}")
        pod_index, in_pod = divmod(local, self.workers_per_pod)
        container = 0 if self.mpi else in_pod
        slot = worker_id if self.mpi else in_pod
        return WorkerSlot(
            worker_id=worker_id,
            group=self.index,
            statefulset=self.statefulset,
            pod_index=pod_index,
            pod_name=self.pod_name(pod_index),
            container_index=container,
            container_name=names.worker_container_name(container),
            ports=worker_ports(
                self.base_port, self.additional_ports, slot, container=container
            ),
        )

    def iter_workers(self) -> Iterator[WorkerSlot]:
        """Every worker of the group in worker-ID order, one at a time."""
        for worker_id in range(
            self.first_worker_id, self.first_worker_id + self.workers
        ):
            yield self.worker(worker_id)


class Topology(Record):
    """The worker map of a job: its groups, and each worker on demand.

    Attributes:
        job: the job ID.
        groups: one entry per worker group, in ``spec.workers`` order.
    """

    job: str
    groups: tuple[GroupTopology, ...]

    @property
    def total_workers(self) -> int:
        """Workers in the job."""
        return sum(group.workers for group in self.groups)

    @property
    def highest_port(self) -> int:
        """The highest port any worker of the job listens on."""
        return max(group.highest_port for group in self.groups)

    def __len__(self) -> int:
        return self.total_workers

    def worker(self, worker_id: int) -> WorkerSlot:
        """The slot of worker ``worker_id`` (0-based over the job).

        Raises:
            IndexError: no such worker.
        """
        starts = [group.first_worker_id for group in self.groups]
        position = bisect.bisect_right(starts, worker_id) - 1
        if worker_id < 0 or position < 0:
            raise IndexError(f"no worker {worker_id}")
        return self.groups[position].worker(worker_id)

    def iter_workers(self) -> Iterator[WorkerSlot]:
        """Every worker of the job in worker-ID order, one at a time."""
        for group in self.groups:
            yield from group.iter_workers()


class WorkerGroupShape(Protocol):
    """What the layout reads of a worker group (a validated job's ``spec.workers`` entry)."""

    @property
    def index(self) -> int:
        """Position in ``spec.workers``."""

    @property
    def count(self) -> int:
        """Workers in the group, a multiple of :attr:`per_pod`."""

    @property
    def per_pod(self) -> int:
        """Workers (containers) per pod."""


def build_topology(
    job_name: str,
    groups: Iterable[WorkerGroupShape],
    *,
    base_port: int,
    additional_ports: Sequence[str],
    mpi: bool,
) -> Topology:
    """Lay out the workers of a validated job.

    Args:
        job_name: ``metadata.name``.
        groups: ``spec.workers`` of a job that passed the schema and the rules
            (``count`` a multiple of ``perPod`` in every group).
        base_port: ``spec.network.basePort``.
        additional_ports: ``spec.network.additionalPorts``.
        mpi: ``spec.mpi.enabled``.

    Returns:
        Its :class:`Topology`; O(number of groups) to build.
    """
    layout = []
    first = 0
    for group in groups:
        layout.append(
            GroupTopology(
                index=group.index,
                statefulset=names.worker_statefulset_name(job_name, group.index),
                workers=group.count,
                workers_per_pod=group.per_pod,
                first_worker_id=first,
                base_port=base_port,
                additional_ports=tuple(additional_ports),
                mpi=mpi,
            )
        )
        first += group.count
    return Topology(job=job_name, groups=tuple(layout))
