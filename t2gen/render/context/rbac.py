"""The Role of a job's ServiceAccount: the least privilege the Twister2 runtime needs."""

from __future__ import annotations

from typing import Any

from t2gen.jobfile.model import Job
from t2gen.twister2 import names

__all__ = ["role_rules"]


def role_rules(job: Job) -> list[dict[str, Any]]:
    """The least privilege the Twister2 runtime needs inside the cluster.

    From the runtime's calls (cylondata/twister2,
    ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``:
    ``master/JobTerminator.java``, ``driver/K8sScaler.java``,
    ``worker/K8sWorkerUtils.java``, ``master/JobKillWatcher.java``,
    ``PodWatchUtils.java``): watch pods (worker discovery, waiting for the job
    master); list and watch ConfigMaps and list StatefulSets by the ``t2-job``
    label (RBAC cannot narrow a label query, so these are namespace-wide reads);
    and get/patch/delete of this job's own objects by name.

    Returns:
        The Role's ``rules``, in a fixed order.
    """
    spec = job.spec
    worker_sets = [
        names.worker_statefulset_name(job.name, g.index) for g in spec.workers
    ]
    sets = worker_sets + (
        [names.job_master_statefulset_name(job.name)] if spec.job_master.enabled else []
    )
    # The job master deletes exactly these at job end (JobTerminator): the worker
    # and job master Services, and the claim <job>, whether or not it exists (a
    # 404 is fine; a 403 would fail the termination).
    services = [names.worker_service_name(job.name)]
    if spec.job_master.enabled:
        services.append(names.job_master_service_name(job.name))
    rules: list[dict[str, Any]] = [
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["list", "watch"]},
        {"apiGroups": [""], "resources": ["configmaps"], "resourceNames": [job.name], "verbs": ["get", "patch", "delete"]},
        {"apiGroups": [""], "resources": ["services"], "resourceNames": sorted(services), "verbs": ["get", "delete"]},
        {"apiGroups": [""], "resources": ["persistentvolumeclaims"], "resourceNames": [job.name], "verbs": ["get", "delete"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets"], "verbs": ["list"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets"], "resourceNames": sets, "verbs": ["get", "patch", "delete"]},
        {"apiGroups": ["apps"], "resources": ["statefulsets/scale"], "resourceNames": worker_sets, "verbs": ["get", "patch"]},
    ]  # fmt: skip
    return rules
