"""The memory of a Twister2 pod: JVM heap, off-heap, the memory volume and the OpenMPI launcher.

The one home of the numbers ``docs/resources.md`` explains. Sources (``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``,
``IMG/`` is ``docker/kubernetes/image/rootfs/twister2/``, DSC-SPIDAL/twister2
at c6844d2):

* The heap. ``JVM_MEMORY_MB`` = a worker's ``ram`` x
  ``twister2.kubernetes.jvm.memory.fraction`` (default 0.8), rounded down
  (``K8S/RequestObjectBuilder.java:368-369``, ``K8S/KubernetesContext.java:96-97,197-199``);
  ``IMG/init.sh:27`` passes it as ``-Xms`` and ``-Xmx``, and with OpenMPI
  ``K8S/mpi/MPIMasterStarter.java:255-256`` to every worker JVM of a pod. It is
  one worker's share even in the one OpenMPI container. The rest of the
  worker's memory is the JVM's off-heap memory.
* The memory volume. The pod's first container (the one whose name ends in
  ``-0``, ``IMG/get_job_package.sh:109-114``) downloads or receives the job
  package into the memory-backed emptyDir and unpacks it there, keeping the
  archive (``IMG/get_job_package.sh:26,49,80,89``): the package twice. A tmpfs
  page is charged to the memory cgroup of the process that first writes it, so
  these pages count against that container's memory limit, beside its heap.
  The launcher sets neither a ``sizeLimit`` (``K8S/RequestObjectBuilder.java:186-191``)
  nor, unbound, a memory limit (``:323-326``), so a large package only costs
  node memory; t2gen keeps both bounded and requests the volume in the first
  container, so the scheduler counts it and neither eviction (``sizeLimit``)
  nor the OOM killer (limit) hits a package that fits ``jobPackage.maxSize``.
  The job master's container (``twister2-job-master-0``) fetches the package
  too (``K8S/master/JobMasterRequestObject.java:177-180``, ``IMG/init.sh:13``).
* The OpenMPI launcher. Pod ``<job>-0-0`` runs, in its one container, the MPI
  master JVM without ``-Xmx`` (``IMG/init_openmpi.sh:60-63``: the JVM's default
  maximum heap is a quarter of the container's memory limit), ``mpirun``, sshd
  (``IMG/init_openmpi.sh:17``) and the pod's worker JVMs; every other OpenMPI
  pod runs sshd and the ``orted`` daemon ``mpirun`` starts over SSH. Their
  memory, :data:`MPI_MASTER_MEMORY` in group 0's pods and
  :data:`MPI_DAEMON_MEMORY` in the others', is added to the container.
"""

from __future__ import annotations

from decimal import Decimal

from t2gen.kube.quantity import Quantity, parse_quantity
from t2gen.model import Job, WorkerGroup
from t2gen.record import Record

__all__ = [
    "MPI_DAEMON_MEMORY",
    "MPI_MASTER_MEMORY",
    "ContainerMemory",
    "heap_mebibytes",
    "job_master_memory",
    "worker_container_memory",
]

MPI_MASTER_MEMORY = parse_quantity("512Mi")
"""Added to the one container of an OpenMPI pod of group 0, whose pod 0 runs the
MPI master JVM (unbounded heap, about 150-250 MiB resident in practice), mpirun
and sshd; the StatefulSet's pods share one template, so all of group 0's pods get it."""

MPI_DAEMON_MEMORY = parse_quantity("64Mi")
"""Added to the one container of every other OpenMPI pod: sshd and mpirun's ``orted``."""


class ContainerMemory(Record):
    """A container's memory request and limit in bytes, and its JVM heap in MiB.

    Attributes:
        request: the memory request.
        limit: the memory limit; None for none.
        heap_mib: ``JVM_MEMORY_MB``.
    """

    request: Quantity
    limit: Quantity | None
    heap_mib: int


def heap_mebibytes(memory: Quantity, fraction: Decimal) -> int:
    """The JVM heap in whole MiB: ``memory`` x ``fraction``, rounded down (``RequestObjectBuilder.java:368-369``)."""
    return int(memory.mebibytes() * fraction)


def _plus(amount: Quantity | None, extra: Quantity) -> Quantity | None:
    return None if amount is None else amount + extra


def worker_container_memory(
    job: Job, group: WorkerGroup, container: int
) -> ContainerMemory:
    """Memory of worker container ``container`` (0-based) of a pod of ``group``.

    Request and limit are the group's per-worker ``memory`` and ``memoryLimit``
    (x ``perPod`` in the one OpenMPI container); container 0 adds the memory
    volume (``storage.memoryVolumeSize``), and an OpenMPI container adds
    :data:`MPI_MASTER_MEMORY` (group 0) or :data:`MPI_DAEMON_MEMORY`. Adding
    the same amount to request and limit keeps a bound pod Guaranteed.
    """
    spec = job.spec
    share = group.per_pod if spec.mpi.enabled else 1
    extra = parse_quantity(0)
    if container == 0:
        extra = extra + spec.storage.memory_volume_size
    if spec.mpi.enabled:
        extra = extra + (MPI_MASTER_MEMORY if group.index == 0 else MPI_DAEMON_MEMORY)
    request = group.memory * share
    limit = group.memory_limit * share if group.memory_limit is not None else None
    return ContainerMemory(
        request=request + extra if not extra.is_zero() else request,
        limit=_plus(limit, extra) if not extra.is_zero() else limit,
        heap_mib=heap_mebibytes(group.memory, spec.jvm_memory_fraction),
    )


def job_master_memory(job: Job, fraction: Decimal) -> ContainerMemory:
    """Memory of the job master's container: its ``memory`` and ``memoryLimit`` plus the memory volume.

    Args:
        job: the job.
        fraction: the job master's heap share of its ``memory``.
    """
    master = job.spec.job_master
    volume = job.spec.storage.memory_volume_size
    return ContainerMemory(
        request=master.memory + volume,
        limit=_plus(master.memory_limit, volume),
        heap_mib=heap_mebibytes(master.memory, fraction),
    )
