"""The template context: every name, label, sum and quantity computed in Python.

Templates only lay values out; what a value *is* is decided here (Helm's
``ToRenderValues``). ``build_context`` is pure: the same job gives the same
context, with no clock, randomness or environment involved. ``docs/templates.md``
describes each key (generated from :data:`CONTEXT_DOC`).

One module per object family, each named here (a test keeps this list whole):

* :mod:`.pod`: the one pod builder of every scope, worker group or job master,
  with its parts :mod:`.env` (environment), :mod:`.resources` (requests and
  limits), :mod:`.memory` (heap, off-heap and the memory volume),
  :mod:`.security` (security contexts), :mod:`.placement` (node affinity,
  tolerations, uniform mapping), :mod:`.volumes`, :mod:`.surface` (runtime
  class, the user's volumes, ``envFrom``, ``/dev/shm``) and :mod:`.package`
  (the init container and ``image`` volume of ``jobPackage.source``);
* :mod:`.workers` and :mod:`.job_master`: what is a worker's or the job
  master's (their :class:`~.pod.PodScope`, containers and StatefulSet);
* :mod:`.scheduling` (gang objects and the task topology), :mod:`.services`,
  :mod:`.rbac`, :mod:`.storage` (claim and ConfigMap), :mod:`.meta`
  (metadata), :mod:`.scanners` (scanner skip annotations),
  :mod:`.supervisor` (the supervisor Job of ``spec.lifecycle``, with
  :mod:`.supervisor_rbac`, its Role, and :mod:`.supervisor_script`) and
  :mod:`.network_policy` (the NetworkPolicies of ``spec.network.policy``).

Worker names and ports come from :mod:`t2gen.twister2.topology`.
"""

from __future__ import annotations

from typing import Any

from t2gen.kube.versions import require_kube_version
from t2gen.model import Job
from t2gen.render.context import pod
from t2gen.render.context.job_master import job_master
from t2gen.render.context.meta import config_map_metadata, object_metadata
from t2gen.render.context.network_policy import network_policies
from t2gen.render.context.rbac import rbac_roles
from t2gen.render.context.resources import pod_requests
from t2gen.render.context.scheduling import group_objects
from t2gen.render.context.services import node_port_service, worker_service
from t2gen.render.context.storage import (
    config_map_data,
    kept_logs_claim,
    persistent_volume_claim,
)
from t2gen.render.context.supervisor import supervisor
from t2gen.render.context.workers import worker_group
from t2gen.twister2 import names
from t2gen.twister2.topology import build_topology

__all__ = ["CONTEXT_DOC", "build_context"]

CONTEXT_DOC: dict[str, str] = {
    "job": "`{name, namespace, source}`: the job ID, its namespace (null: none written) and the job file.",
    "metadata": "Ready-made `metadata` of each object, by object: "
    "`configMap`, `persistentVolumeClaim`, `workerService`, `nodePortService`, `jobMasterService` "
    "(`{name, namespace?, labels, annotations?}`). StatefulSets carry theirs in `jobMaster` and `workerGroups`.",
    "labels": "`{job, workerPods, jobMasterPods}`: labels for a new object of the job (`job`: the runtime's "
    "`app`/`t2-job`, the `app.kubernetes.io/*` labels without a component, and the job's own labels), and "
    "selectors matching every worker pod or the job master pod of this job.",
    "annotations": "The job's own annotations (may be empty).",
    "pod": "`{serviceAccounts: {worker, jobMaster}, imagePullSecrets}`: pod settings (null/empty: omit); "
    "the ServiceAccount each role's pods run as.",
    "rbac": "`{create, roles}`: whether to render ServiceAccounts, Roles and RoleBindings, and one entry per "
    "role (the workers', then the job master's): `{role, serviceAccountName, rules, metadata: {serviceAccount, "
    "role, roleBinding}}`.",
    "configMap": "`{data}`: the ConfigMap's data (`JOB_ID`, and `TWISTER2_JOB_OBJECT` with `--job-object` or a scalable worker group).",
    "persistentVolumeClaim": "null, or `{storageClassName, accessModes, storage}` of the job's claim.",
    "keptLogsClaim": "null, or `{metadata, storageClassName, accessModes, storage}` of `spec.logs`'s claim "
    "`<job>-logs`, which every worker and job master pod mounts at Twister2's log directory.",
    "workerService": "`{selector}`: the headless Service governing every worker StatefulSet.",
    "nodePortService": "null, or `{selector, ports}` when the workers' Service `<job>` is a NodePort Service "
    "(`network.service.type: NodePort`) instead of a headless one.",
    "jobMaster": "null, or the job master StatefulSet: `{metadata, serviceName, selector, podTemplate, "
    "podMetadata, containers, volumes, affinity, service: {selector, ports}}` (as in `workerGroups`).",
    "scheduling": "`{objects}`: the job-wide gang-scheduling group objects of `spec.scheduling.gang` "
    "(`{apiVersion, kind, metadata, spec}`: a Volcano or coscheduling PodGroup, or the Workload API's Workload "
    "and PodGroup; empty for Kueue and without a gang). Pod templates already point at them.",
    "networkPolicies": "The NetworkPolicies of `spec.network.policy` (empty unless `enabled`): `[{metadata, "
    "spec}]`, the job's `<job>` (every pod of the job: in from the job's pods, and from anywhere on the NodePort; "
    "out to the job's pods, DNS, the API server, the package source, ZooKeeper and `egress`), then the "
    "supervisor's `<job>-supervisor` (nothing in; DNS and the API server out).",
    "supervisor": "null, or the supervisor of `spec.lifecycle.supervise` (one name, `<job>-supervisor`, for its "
    "ServiceAccount, Role, RoleBinding, ConfigMap and Job): `{name, metadata, jobMetadata, rules, script, "
    "scriptKey, job, podTemplate}` (`jobMetadata`: the Job's own, with Argo CD's sync options under "
    "`argoCDHooks`); `job` holds the Job's `backoffLimit`, `activeDeadlineSeconds`, `ttlSecondsAfterFinished` "
    "and `suspend` (each only when set).",
    "workerGroups": "One entry per worker group: `{index, metadata, replicas, serviceName, selector, podTemplate, "
    "podMetadata, containers, volumes, affinity}`. `podTemplate` is the whole pod template `{metadata, spec}` "
    "(`_pod.yaml.j2` writes it); `podMetadata`, `containers`, `volumes` and `affinity` are its parts (null: "
    "none). A container is `{name, image, imagePullPolicy, command, args, ports, env, resources, volumeMounts}`.",
}
"""What each top-level context key holds; the source of ``docs/templates.md``."""


def build_context(
    job: Job,
    *,
    job_object: bytes | None = None,
    kube_version: tuple[int, int] | None = None,
) -> dict[str, Any]:
    """Compute everything the templates show, for one job.

    Args:
        job: a validated job.
        job_object: the serialised Twister2 ``JobAPI.Job`` (the ``<job>.job``
            file of the job package), stored base64 in the ConfigMap as
            ``TWISTER2_JOB_OBJECT``, where the Twister2 client keeps it.
        kube_version: ``(major, minor)`` of the Kubernetes rendered for
            (``--kube-version``); None: :data:`t2gen.kube.versions.DEFAULT_KUBE_VERSION`.
            Only the Workload API's objects and pod field depend on it.

    Returns:
        A JSON-like dict; its top-level keys are described in :data:`CONTEXT_DOC`.
        Quantities are canonical strings (``500m``, ``2Gi``), names and labels
        are final.
    """
    spec = job.spec
    version = kube_version or require_kube_version(None)  # DEFAULT_KUBE_VERSION
    topology = build_topology(
        job.name,
        job.spec.workers,
        base_port=job.spec.network.base_port,
        additional_ports=job.spec.network.additional_ports,
        mpi=job.spec.mpi.enabled,
    )
    master = job_master(job, version)
    workers = [
        worker_group(job, group, layout, version)
        for group, layout in zip(spec.workers, topology.groups, strict=True)
    ]
    requests = {
        group.name: pod_requests(context["podTemplate"])
        for group, context in zip(spec.workers, workers, strict=True)
    }
    if master is not None:
        requests[names.JOB_MASTER_TASK] = pod_requests(master["podTemplate"])
    groups = group_objects(job, version, requests)
    supervisor_context = supervisor(job, groups)
    job_labels = names.common_labels(job.name, "worker")
    del job_labels[names.COMPONENT_LABEL]
    return {
        "job": {"name": job.name, "namespace": job.namespace, "source": job.source},
        "metadata": {
            "configMap": config_map_metadata(job),
            "persistentVolumeClaim": object_metadata(job, job.name, "storage"),
            "workerService": object_metadata(
                job, names.worker_service_name(job.name), "worker"
            ),
            "nodePortService": object_metadata(
                job, names.node_port_service_name(job.name), "worker"
            ),
            "jobMasterService": object_metadata(
                job, names.job_master_service_name(job.name), "job-master"
            ),
        },
        "labels": {
            "job": {**job_labels, **dict(job.labels)},
            "workerPods": names.worker_pods_selector(job.name),
            "jobMasterPods": names.job_master_selector(job.name),
        },
        "annotations": dict(job.annotations),
        "pod": pod.pod_settings(job),
        "rbac": {"create": spec.rbac.create, "roles": rbac_roles(job)},
        "configMap": {"data": config_map_data(job, job_object)},
        "persistentVolumeClaim": persistent_volume_claim(job),
        "keptLogsClaim": kept_logs_claim(job),
        "workerService": worker_service(job),
        "nodePortService": node_port_service(job),
        "jobMaster": master,
        "scheduling": {"objects": groups},
        "workerGroups": workers,
        "supervisor": supervisor_context,
        "networkPolicies": network_policies(job, supervisor_context),
    }
