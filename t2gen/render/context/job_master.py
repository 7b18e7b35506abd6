"""The job master StatefulSet and its Service, when the job master runs in the cluster."""

from __future__ import annotations

from typing import Any

from t2gen.model import Job
from t2gen.render.context import pod
from t2gen.render.context.memory import job_master_memory
from t2gen.render.context.meta import object_metadata
from t2gen.render.context.placement import node_affinity, tolerations
from t2gen.render.context.resources import resources
from t2gen.render.context.scanners import with_checkov_skips
from t2gen.render.context.scheduling import pod_scheduling, task_affinity
from t2gen.render.context.security import security_contexts
from t2gen.render.context.services import JOB_MASTER_PORT_NAME, job_master_service
from t2gen.render.context.storage import has_claim
from t2gen.render.context.surface import env_from, runtime_class_name
from t2gen.twister2 import names

__all__ = ["job_master"]


def job_master(job: Job, kube_version: tuple[int, int]) -> dict[str, Any] | None:
    """Context of the job master StatefulSet and its Service (the ``jobMaster`` key).

    The pod is built like a worker's (:mod:`t2gen.render.context.pod`): its own
    volatile disk, the job's claim when it has a ``persistentDisk``, never
    bound to cores, its memory plus the memory volume, which its container
    fills with the job package (:func:`t2gen.render.context.memory.job_master_memory`),
    its own placement (``jobMaster.placement``: node affinity,
    node selector, tolerations; the workers' does not apply), limits (Twister2
    ``master/JobMasterRequestObject.java``), the task topology's inter-pod
    affinity, and the scheduling fields of ``spec.scheduling`` for
    ``kube_version`` (``(major, minor)``).

    Returns:
        ``{metadata, serviceName, selector, podTemplate, podMetadata,
        containers, volumes, affinity, service}``, or None when the job master
        runs in the client (``jobMaster.enabled: false``).
    """
    master = job.spec.job_master
    if not master.enabled:
        return None
    volumes, mounts = pod.pod_volumes(
        job,
        volatile=master.volatile_disk,
        claim=has_claim(job.spec) and not master.persistent_disk.is_zero(),
        ssh_key=False,
        scope=master.surface,
    )
    pod_context, container_context = security_contexts(job, sshd=False)
    memory = job_master_memory(job, names.JVM_MEMORY_FRACTION)
    container = pod.container(
        job,
        name=names.JOB_MASTER_CONTAINER,
        script="./init.sh",
        ports=[
            {
                "name": JOB_MASTER_PORT_NAME,
                "containerPort": master.port,
                "protocol": "TCP",
            }
        ],
        env=pod.container_env(
            job,
            container_name=names.JOB_MASTER_CONTAINER,
            class_to_run=names.CLASS_JOB_MASTER,
            heap_mib=memory.heap_mib,
            scope_env=master.surface.env,
        ),
        resources=resources(
            master.cpu,
            memory.request,
            cpu_limit=master.cpu_limit,
            memory_limit=memory.limit,
            ephemeral_storage=master.volatile_disk,
            ephemeral_storage_limit=master.ephemeral_storage_limit,
        ),
        volume_mounts=mounts,
        security_context=container_context,
        env_from=env_from(job, master.surface),
    )
    nodes = node_affinity(master.placement)
    affinity = task_affinity(
        job, names.JOB_MASTER_TASK, {"nodeAffinity": nodes} if nodes else None
    )
    template = pod.pod_template(
        job,
        labels=names.job_master_pod_labels(job.name),
        containers=[container],
        volumes=volumes,
        affinity=affinity,
        role="job-master",
        scheduling=pod_scheduling(job, names.JOB_MASTER_TASK, kube_version),
        tolerations=tolerations(master.placement.tolerations),
        pod_security_context=pod_context,
        annotations=pod.pod_annotations(job, bound=False),
        runtime_class_name=runtime_class_name(job, master.surface),
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
        "selector": names.job_master_selector(job.name),
        "podTemplate": template,
        "podMetadata": template["metadata"],
        "containers": template["spec"]["containers"],
        "volumes": volumes,
        "affinity": affinity,
        "service": job_master_service(job),
    }
