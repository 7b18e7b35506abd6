"""The worker StatefulSets, one per worker group, laid out by :mod:`t2gen.twister2.topology`."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job, WorkerGroup
from t2gen.render.context import pod
from t2gen.render.context.memory import worker_container_memory
from t2gen.render.context.meta import object_metadata
from t2gen.render.context.resources import resources
from t2gen.render.context.scanners import with_checkov_skips
from t2gen.render.context.storage import has_claim
from t2gen.twister2 import names
from t2gen.twister2.topology import GroupTopology

__all__ = ["worker_group"]


def _containers(
    job: Job, group: WorkerGroup, layout: GroupTopology, parts: pod.PodParts
) -> list[dict[str, Any]]:
    """Containers of a worker pod: ``perPod`` of them, or one holding them all with OpenMPI.

    Names and ports come from the topology; with OpenMPI the one container gets
    the pod's cpu, memory, limits, extended resources and scratch space (perPod
    x a worker's) and runs ``init_openmpi.sh``,
    whose ``mpirun`` starts the workers (Twister2 ``RequestObjectBuilder.constructContainer``).
    Memory and heap follow :func:`t2gen.render.context.memory.worker_container_memory`
    (the first container also holds the memory volume).
    """
    spec = job.spec
    mpi = spec.mpi.enabled
    share = group.per_pod if mpi else 1
    cpu = group.cpu * share
    cpu_limit = group.cpu_limit * share if group.cpu_limit is not None else None
    memories = [
        worker_container_memory(job, group, index)
        for index in range(len(layout.containers))
    ]
    extended = tuple((name, count * share) for name, count in group.extended_resources)
    ephemeral_limit = (
        group.ephemeral_storage_limit * share
        if group.ephemeral_storage_limit is not None
        else None
    )
    return [
        pod.container(
            job,
            parts,
            name=slot.name,
            script="./init_openmpi.sh" if mpi else "./init.sh",
            ports=[
                {
                    "name": name,
                    "containerPort": number,
                    "protocol": spec.network.protocol,
                }
                for name, number in slot.ports
            ],
            resources=resources(
                cpu,
                memory.request,
                cpu_limit=cpu_limit,
                memory_limit=memory.limit,
                extended=extended,
                ephemeral_storage=group.volatile_disk * share,
                ephemeral_storage_limit=ephemeral_limit,
            ),
            class_to_run=names.CLASS_MPI_MASTER if mpi else names.CLASS_WORKER,
            heap_mib=memory.heap_mib,
            worker_port=slot.worker_port,
        )
        for slot, memory in zip(layout.containers, memories, strict=True)
    ]


def worker_scope(job: Job, group: WorkerGroup) -> pod.PodScope:
    """The pod scope of a worker group: what its pods have that the job master's do not.

    The group's task name and pod labels, its placement, all of ``spec``'s
    pod surface (job-wide volumes, ``env`` and ``envFrom`` are the workers')
    and its own, its
    scratch space (``perPod`` x ``volatileDisk``), the job's claim whenever the
    job has one, OpenMPI's sshd, and the binding claim
    (``t2gen.dev/bind-workers-to-cpu: "true"``, verified by ``t2gen check``'s
    ``bound-worker-guaranteed``) when workers are bound to cores.
    """
    return pod.PodScope(
        role="worker",
        task=group.name,
        labels=names.worker_pod_labels(job.name, group.index),
        placement=group.placement,
        job_wide=job.spec.surface,
        surface=group.surface,
        volatile=group.volatile_disk * group.per_pod,
        claim=has_claim(job.spec),
        mpi=job.spec.mpi.enabled,
        annotations={names.BIND_WORKERS_ANNOTATION: "true"}
        if job.spec.bind_workers_to_cpu
        else {},
    )


def worker_group(
    job: Job,
    group: WorkerGroup,
    layout: GroupTopology,
    kube_version: tuple[int, int],
) -> dict[str, Any]:
    """Context of one worker StatefulSet (an entry of ``workerGroups``).

    Args:
        job: the job.
        group: the worker group.
        layout: the group's topology (StatefulSet name, containers, ports).
        kube_version: ``(major, minor)`` rendered for (the Workload API's pod field).

    Returns:
        ``{index, metadata, replicas, serviceName, selector, podTemplate,
        podMetadata, containers, volumes, affinity}``; ``podTemplate`` is the
        whole pod template (:func:`t2gen.render.context.pod.pod_template`), the
        keys after it are its parts (kept for user templates written before it
        existed).
    """
    template = pod.pod_template(
        job,
        worker_scope(job, group),
        kube_version,
        lambda parts: _containers(job, group, layout, parts),
    )
    return {
        "index": group.index,
        "metadata": with_checkov_skips(
            job,
            object_metadata(
                job,
                layout.statefulset,
                "worker",
                **{names.WORKER_STATEFULSET_LABEL: job.name},
            ),
            role="worker",
        ),
        "replicas": 0 if job.spec.lifecycle.suspend else layout.pods,
        "serviceName": names.worker_service_name(job.name),
        "selector": names.worker_selector(job.name, group.index),
        "podTemplate": template,
        "podMetadata": template["metadata"],
        "containers": template["spec"]["containers"],
        "volumes": template["spec"]["volumes"],
        "affinity": template["spec"].get("affinity"),
    }
