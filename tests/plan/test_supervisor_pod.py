"""The supervisor's pod in ``plan`` (issue 42, item 6), and its Job in the job's Kueue queue.

``spec.lifecycle.supervise`` adds a ``batch/v1`` Job whose one pod needs a node
and counts against the namespace's quotas like the job's own pods. Before,
``plan`` read StatefulSets only: a quota with room for exactly the job's pods
was "admitted: all 5 pods", and the 6th pod, the supervisor's, was refused
(a FailedCreate event: the job ran without bounds and its outcome was never
kept). With ``gang: kueue`` the Job now carries the job's LocalQueue
(``kueue.x-k8s.io/queue-name``): under Kueue's ``manageJobsWithoutQueueName``
a Job without it stays suspended for ever (kubernetes-sigs/kueue
``site/content/en/docs/tasks/manage/enforce_job_management/manage_jobs_without_queue_name.md``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from t2gen.pipeline.job import generate
from t2gen.plan.admission import admission
from t2gen.plan.quotaread import parse_quota_objects
from t2gen.plan.templates import workload_templates
from tests.conftest import ROOT
from tests.helpers import run_console

SUPERVISED = (
    ROOT / "examples" / "supervised.yaml"
)  # 4 worker pods, the job master, the supervisor
KUEUE = (
    ROOT / "examples" / "kueue-gang.yaml"
)  # 3 worker pods and the job master: 6.2 cpu
NODES = str(ROOT / "examples" / "nodes.json")
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"


def _supervised_kueue(tmp_path: Path) -> Path:
    job = tmp_path / "kueue-supervised.yaml"
    text = KUEUE.read_text(encoding="utf-8") + "  lifecycle:\n    supervise: true\n"
    job.write_text(text, encoding="utf-8")
    return job


def _objects(path: Path, *args: str) -> list[dict[str, Any]]:
    return [d.obj for d in generate([str(path)], namespace="analytics")]


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


def _pods_quota(hard: int, used: int) -> dict[str, Any]:
    """A ResourceQuota of namespace analytics counting pods only."""
    meta = {
        "name": "pods",
        "namespace": "analytics",
        "uid": "u",
        "resourceVersion": "1",
    }
    amounts = {"pods": str(hard)}
    return _list(
        {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta,
         "spec": {"hard": amounts},
         "status": {"hard": amounts, "used": {"pods": str(used)}}}
    )  # fmt: skip


def _cluster_queue(cpu: str) -> dict[str, Any]:
    """LocalQueue team-a of analytics on ClusterQueue team-a-cq: ``cpu`` nominal, 8 used, no cohort."""
    flavor = {"name": "on-demand", "resources": [
        {"name": "cpu", "nominalQuota": cpu}, {"name": "memory", "nominalQuota": "640Gi"}]}  # fmt: skip
    reserved = {"name": "on-demand", "resources": [
        {"name": "cpu", "total": "8", "borrowed": "0"},
        {"name": "memory", "total": "8Gi", "borrowed": "0"}]}  # fmt: skip
    return _list(
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueue",
         "metadata": {"name": "team-a-cq", "uid": "c", "resourceVersion": "1"},
         "spec": {"namespaceSelector": {}, "resourceGroups": [
             {"coveredResources": ["cpu", "memory"], "flavors": [flavor]}]},
         "status": {"flavorsReservation": [reserved]}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue",
         "metadata": {"name": "team-a", "namespace": "analytics", "uid": "l",
                      "resourceVersion": "1"},
         "spec": {"clusterQueue": "team-a-cq"}},
    )  # fmt: skip


def test_the_supervisors_pod_is_placed_with_the_jobs(tmp_path: Path) -> None:
    result = run_console(["plan", str(SUPERVISED), "--nodes", NODES])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("feasible: all 6 pods fit at once")
    assert "wordcount-supervised-supervisor-0" in result.stdout  # in the placement
    assert (
        "note: the supervisor Job wordcount-supervised-supervisor (spec.lifecycle.supervise) "
        "runs one pod more"
    ) in result.stdout
    doc = json.loads(
        run_console(["plan", str(SUPERVISED), "--nodes", NODES, "-o", "json"]).stdout
    )
    assert doc["pods"] == 6
    assert doc["statefulSets"][-1]["name"] == "wordcount-supervised-supervisor"


def test_a_quota_with_room_for_the_jobs_pods_only_refuses_the_supervisors() -> None:
    objects = _objects(SUPERVISED)
    assert [t.kind for t in workload_templates(objects)] == [
        "StatefulSet",
        "StatefulSet",
        "Job",
    ]
    verdict = admission(
        objects, parse_quota_objects(_pods_quota(hard=8, used=3)), "analytics"
    )
    assert not verdict.admitted  # before: "admits all 5 pods"
    assert (verdict.pods, verdict.quota.before, verdict.quota.admitted) == (6, 5, 5)
    assert verdict.quota.refused_pod == ""  # the API server names a Job's pod
    assert verdict.quota.refused_owner == "Job wordcount-supervised-supervisor"


def test_the_refusal_of_the_supervisors_pod_says_what_it_costs(tmp_path: Path) -> None:
    quota = tmp_path / "quota.json"
    quota.write_text(json.dumps(_pods_quota(hard=8, used=3)), encoding="utf-8")
    args = ["plan", str(SUPERVISED), "-n", "analytics", "--quota", str(quota)]
    result = run_console(args)
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "not admitted: ResourceQuota pods (namespace analytics) admits 5 of the job's 6 pods, "
        "then refuses the pod of Job wordcount-supervised-supervisor: pods: used 8 + 1 > hard 8"
    )
    assert lines[2].startswith(
        "  a refused pod is no Pending pod: it shows only as a FailedCreate event on Job "
        "wordcount-supervised-supervisor, which retries it; 5 of the 6 pods are admitted in "
        "all, and the job runs without its supervisor"
    )
    refused = json.loads(run_console([*args, "-o", "json"]).stdout)["admission"]
    assert refused["resourceQuota"]["refused"]["pod"] is None
    assert (
        refused["resourceQuota"]["refused"]["owner"]
        == "Job wordcount-supervised-supervisor"
    )
    quota.write_text(json.dumps(_pods_quota(hard=9, used=3)), encoding="utf-8")
    assert run_console(args).exit_code == 0


def test_with_gang_kueue_the_supervisor_job_joins_the_jobs_local_queue(
    tmp_path: Path,
) -> None:
    job = _supervised_kueue(tmp_path)
    objects = _objects(job)
    supervisor = next(o for o in objects if o["kind"] == "Job")
    assert supervisor["metadata"]["labels"][QUEUE_LABEL] == "team-a"
    # not on its pod: Kueue manages the Job (one Workload), not a plain pod group
    assert QUEUE_LABEL not in supervisor["spec"]["template"]["metadata"]["labels"]
    # without a Kueue gang the Job is left to the cluster's defaulting
    plain = next(o for o in _objects(SUPERVISED) if o["kind"] == "Job")
    assert QUEUE_LABEL not in plain["metadata"]["labels"]


def test_the_queue_must_hold_the_pod_group_and_the_supervisor(tmp_path: Path) -> None:
    objects = _objects(_supervised_kueue(tmp_path))
    # 8 cpu used; the pod group asks 6.2, the supervisor's pod 50m more
    exact = admission(
        objects, parse_quota_objects(_cluster_queue("14200m")), "analytics"
    )
    assert not exact.admitted
    assert exact.queues[0].reason.endswith("cpu: used 8 + 6.25 > nominalQuota 14.2")
    roomy = admission(
        objects, parse_quota_objects(_cluster_queue("14250m")), "analytics"
    )
    assert roomy.admitted
    assert roomy.queues[0].reason == (
        "admits the pod group as one workload and Job kueue-gang-supervisor as another "
        "(flavor on-demand for cpu, memory)"
    )
    # the same queue without the supervisor had room: the job's own verdict is unchanged
    unsupervised = [d.obj for d in generate([str(KUEUE)], namespace="analytics")]
    alone = admission(
        unsupervised, parse_quota_objects(_cluster_queue("14200m")), "analytics"
    )
    assert alone.admitted


def test_gang_planning_leaves_the_supervisor_out_of_the_gang() -> None:
    result = run_console(
        ["plan", str(SUPERVISED), "--nodes", NODES, "--gang", "-o", "json"]
    )
    assert result.exit_code == 0, result.stderr
    (gang,) = json.loads(result.stdout)["gangs"]
    assert (
        gang["pods"] == 5
        and "wordcount-supervised-supervisor" not in gang["statefulSets"]
    )
