"""``t2gen plan``: the job read and rendered once, then the worker map or the scheduler's verdict.

Orchestration only: the job file (and ``--package``) is read and validated once
(:func:`t2gen.pipeline.job.load_for_render`), rendered once, and handed to the
plan engine (:mod:`t2gen.plan`) with the node, pod and quota lists it reads.
"""

from __future__ import annotations

import io
import json
from typing import Any

from t2gen.errors import UsageError, Warning_
from t2gen.model import Job
from t2gen.pipeline.job import generate_loaded, load_for_render
from t2gen.record import Record, replace

__all__ = ["PlanOutcome", "plan_job"]


class PlanOutcome(Record):
    """What ``t2gen plan`` prints, and whether the job fits.

    Attributes:
        text: the worker map or the verdict, as a table or JSON.
        fits: False when the job does not fit the nodes or is not admitted
            (exit code 1).
    """

    text: str
    fits: bool


def plan_job(
    path: str,
    *,
    namespace: str | None = None,
    kube_version: str | None = None,
    package: str | None = None,
    nodes: str | None = None,
    pods: str | None = None,
    quota: str | None = None,
    gang: bool = False,
    json_output: bool = False,
    summary: bool = False,
    warnings: list[Warning_] | None = None,
) -> PlanOutcome:
    """Plan one job file: its worker map, or (with ``nodes``) whether it fits the cluster.

    Args:
        path: the job file (``-``: standard input, read once).
        namespace: ``--namespace``.
        kube_version: ``--kube-version``.
        package: ``--package``.
        nodes: ``--nodes FILE``; None: the worker map.
        pods: ``--pods FILE`` (with ``nodes``).
        quota: ``--quota FILE`` (with ``nodes``).
        gang: ``--gang``: plan the whole job as one gang.
        json_output: JSON instead of a table.
        summary: one row per worker group (the worker map only).
        warnings: the job file's located warnings are appended to it.

    Raises:
        T2genError: the job file, a list or the package is invalid (located).
        UsageError: ``--quota`` holds several namespaces and neither the job
            nor ``--namespace`` names one.
    """
    (loaded,) = load_for_render(
        [path],
        namespace=namespace,
        warnings=warnings,
        kube_version=kube_version,
        package=package,
    )
    objects = [d.obj for d in generate_loaded([loaded], kube_version=kube_version)]
    job = loaded[0]
    if nodes is None and quota is not None:
        return _admission_only(objects, quota, job.namespace, json_output)
    if nodes is None:
        return PlanOutcome(_worker_map(job, objects, json_output, summary), True)
    return _feasibility(
        objects,
        nodes,
        pods,
        quota,
        namespace=job.namespace,
        gang=gang,
        json_output=json_output,
    )


def _worker_map(
    job: Job, objects: list[dict[str, Any]], json_output: bool, summary: bool
) -> str:
    from t2gen.plan.workermap import build_worker_map, write_json, write_table

    wmap = build_worker_map(job, objects)
    buffer = io.StringIO()
    if json_output:
        write_json(wmap, buffer, summary=summary)
    else:
        write_table(wmap, buffer, summary=summary)
    return buffer.getvalue()


def _feasibility(
    objects: list[dict[str, Any]],
    nodes_path: str,
    pods_path: str | None,
    quota_path: str | None,
    *,
    namespace: str | None,
    gang: bool,
    json_output: bool,
) -> PlanOutcome:
    from t2gen.plan import (
        format_plan,
        min_members,
        plan_templates,
        plan_to_dict,
        workload_templates,
    )
    from t2gen.plan.typedread import node_label_keys, read_nodes, read_pods

    templates = workload_templates(objects)
    node_list = read_nodes(nodes_path, node_label_keys(templates))
    pod_list = read_pods(pods_path) if pods_path is not None else ()
    result = plan_templates(
        templates,
        node_list,
        pod_list,
        namespace=namespace,
        gang=gang,
        min_members=min_members(objects),
    )
    if quota_path is not None:
        verdict = _admission(objects, quota_path, namespace, node_list)
        result = replace(result, admission=verdict)
    jobs = [t.name for t in templates if t.kind == "Job" and t.replicas]
    if jobs:
        result = replace(result, notes=(*result.notes, _supervisor_note(jobs)))
    if json_output:
        text = json.dumps(plan_to_dict(result), indent=2, ensure_ascii=False) + "\n"
    else:
        text = format_plan(result)
    fits = result.feasible and not (result.admission and not result.admission.admitted)
    return PlanOutcome(text, fits)


def _supervisor_note(jobs: list[str]) -> str:
    """The note of a plan that counted the supervisor Job's pod with the job's."""
    return (
        f"the supervisor Job {', '.join(jobs)} (spec.lifecycle.supervise) runs one pod more, "
        "counted here with the job's and placed by the default scheduler, never in the job's "
        f"gang; the plan calls it {jobs[0]}-0, the Job controller {jobs[0]}-<random>"
    )


def _admission_only(
    objects: list[dict[str, Any]],
    quota_path: str,
    namespace: str | None,
    json_output: bool,
) -> PlanOutcome:
    """``--quota`` without ``--nodes``: whether the job is admitted, and a plain word that placement was not judged.

    A tenant may read its namespace's quotas and queues but not list the
    cluster's nodes; admission needs only the former.
    """
    from t2gen.plan.admission import admission_only_dict, format_admission_only

    verdict = _admission(objects, quota_path, namespace, None)
    if json_output:
        text = (
            json.dumps(admission_only_dict(verdict), indent=2, ensure_ascii=False)
            + "\n"
        )
    else:
        text = format_admission_only(verdict)
    return PlanOutcome(text, verdict.admitted)


def _admission(
    objects: list[dict[str, Any]],
    quota_path: str,
    namespace: str | None,
    nodes: Any,
) -> Any:
    """Whether the job is admitted (``--quota``): an :class:`~t2gen.plan.admission.AdmissionVerdict`.

    ``nodes`` (the ``--nodes`` list, or None without it) gives a Volcano
    queue's cluster total; without it a queue is judged by its own capability.
    """
    from t2gen.plan.admission import admission
    from t2gen.plan.quotaread import read_quota

    objects_q = read_quota(quota_path)
    if namespace is None:
        spaces = sorted(objects_q.namespaces())
        if len(spaces) > 1:
            raise UsageError(
                f"holds objects of namespaces {', '.join(spaces)} and the job names none: "
                "pass --namespace",
                param_hint="'--quota'",
            )
        namespace = spaces[0] if spaces else ""
    allocatable = [
        {
            "cpu": n.allocatable.cpu_millis,
            "memory": n.allocatable.memory_bytes,
            "pods": n.allocatable.pods,
            **dict(n.allocatable.extended),
        }
        for n in nodes or ()
        if not n.unschedulable and n.ready == "True"
    ]
    try:
        return admission(
            objects, objects_q, namespace, allocatable, nodes_known=nodes is not None
        )
    except ValueError as err:  # the rendered objects' quantities were checked already
        raise UsageError(str(err), param_hint="'JOB'") from None
