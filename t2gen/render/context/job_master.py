"""The job master StatefulSet and its Service, when the job master runs in the cluster."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.render.context import pod
from t2gen.render.context.memory import job_master_memory
from t2gen.render.context.meta import object_metadata
from t2gen.render.context.resources import resources
from t2gen.render.context.scanners import with_checkov_skips
from t2gen.render.context.services import JOB_MASTER_PORT_NAME, job_master_service
from t2gen.render.context.storage import has_claim
from t2gen.render.context.surface import job_master_share
from t2gen.twister2 import names

__all__ = ["job_master"]


def job_master_scope(job: Job) -> pod.PodScope:
    """The pod scope of the job master: what its pod has that a worker's does not.

    Its own task name, labels, placement (``jobMaster.placement``: node
    affinity, node selector, tolerations; the workers' does not apply), its
    own pod surface after only the part of ``spec``'s that is not the
    workers' (no job-wide volumes, ``env`` or ``envFrom`` of the user's:
    :func:`.surface.job_master_share`), its own volatile disk, the job's claim only when it has a
    ``persistentDisk``, no OpenMPI, and never bound to cores (Twister2
    ``master/JobMasterRequestObject.java``).
    """
    master = job.spec.job_master
    return pod.PodScope(
        role="job-master",
        task=names.JOB_MASTER_TASK,
        labels=names.job_master_pod_labels(job.name),
        placement=master.placement,
        job_wide=job_master_share(job.spec.surface),
        surface=master.surface,
        volatile=master.volatile_disk,
        claim=has_claim(job.spec) and not master.persistent_disk.is_zero(),
    )


def job_master(job: Job, kube_version: tuple[int, int]) -> dict[str, Any] | None:
    """Context of the job master StatefulSet and its Service (the ``jobMaster`` key).

    The pod is built by the one pod builder
    (:func:`t2gen.render.context.pod.pod_template`) from
    :func:`job_master_scope`; its one container holds the job master's port,
    the launcher's memory request and heap with a limit that also holds the
    memory volume, which it fills with the job package
    (:func:`t2gen.render.context.memory.job_master_memory`), and limits, for
    ``kube_version`` (``(major, minor)``).

    Returns:
        ``{metadata, serviceName, selector, podTemplate, podMetadata,
        containers, volumes, affinity, service}``, or None when the job master
        runs in the client (``jobMaster.enabled: false``).
    """
    master = job.spec.job_master
    if not master.enabled:
        return None
    memory = job_master_memory(job)
    template = pod.pod_template(
        job,
        job_master_scope(job),
        kube_version,
        lambda parts: [
            pod.container(
                job,
                parts,
                name=names.JOB_MASTER_CONTAINER,
                script="./init.sh",
                ports=[
                    {
                        "name": JOB_MASTER_PORT_NAME,
                        "containerPort": master.port,
                        "protocol": "TCP",
                    }
                ],
                resources=resources(
                    master.cpu,
                    memory.request,
                    cpu_limit=master.cpu_limit,
                    memory_limit=memory.limit,
                    ephemeral_storage=master.volatile_disk,
                    ephemeral_storage_limit=master.ephemeral_storage_limit,
                ),
                class_to_run=names.CLASS_JOB_MASTER,
                heap_mib=memory.heap_mib,
            )
        ],
    )
    return {
        "metadata": with_checkov_skips(
            job,
            object_metadata(
                job,
                names.job_master_statefulset_name(job.name),
                "job-master",
                **{names.JOB_MASTER_STATEFULSET_LABEL: job.name},
            ),
            role="job-master",
        ),
        "serviceName": names.job_master_service_name(job.name),
        "replicas": 0 if job.spec.lifecycle.suspend else 1,
        "selector": names.job_master_selector(job.name),
        "podTemplate": template,
        "podMetadata": template["metadata"],
        "containers": template["spec"]["containers"],
        "volumes": template["spec"]["volumes"],
        "affinity": template["spec"].get("affinity"),
        "service": job_master_service(job),
    }
