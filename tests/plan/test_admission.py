"""``plan --quota``: will the job be admitted? (issue 34, item 6)

The inputs are shaped as ``kubectl get resourcequota,limitrange -o json`` prints
them (a List with items, ``spec`` and ``status``), and as Kueue and Volcano
store their queues. The three verdicts of the issue (admitted; fits but the
quota refuses, naming the limit; admitted but no node fits) are the goldens
tests/golden/plan-quota-*; here are their numbers, and the rules behind them.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from t2gen.pipeline.job import generate
from t2gen.plan import InputError
from t2gen.plan.admission import admission, admission_dict, admission_lines
from t2gen.plan.quotaread import parse_quota_objects, read_quota
from tests.conftest import ROOT
from tests.helpers import run_console

QUOTA = ROOT / "tests" / "fixtures" / "quota"
NODES = str(ROOT / "examples" / "nodes.json")


def _objects(example: str) -> list[dict[str, Any]]:
    return [d.obj for d in generate([str(ROOT / "examples" / example)])]


def _quota(name: str) -> dict[str, Any]:
    doc = json.loads((QUOTA / name).read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def _item(
    kind: str,
    name: str,
    spec: dict[str, Any],
    status: dict[str, Any] | None = None,
    *,
    group: str = "v1",
    namespace: str | None = "analytics",
) -> dict[str, Any]:
    metadata: dict[str, Any] = {
        "name": name,
        "uid": f"uid-{name}",
        "resourceVersion": "1",
    }
    if namespace is not None:
        metadata["namespace"] = namespace
    item = {"apiVersion": group, "kind": kind, "metadata": metadata, "spec": spec}
    if status is not None:
        item["status"] = status
    return item


def _list(*items: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "List",
        "items": list(items),
        "metadata": {"resourceVersion": ""},
    }


def test_fits_and_admitted() -> None:
    verdict = admission(
        _objects("wordcount.yaml"),
        read_quota(str(QUOTA / "admitted.json")),
        "analytics",
    )
    assert verdict.admitted and verdict.quota.admitted == verdict.pods == 5
    assert verdict.quota.matched == ("compute",)
    # 6Gi used before + 4 x 2176Mi + 1152Mi
    assert verdict.quota.after == ("requests.memory 16000Mi/24576Mi",)
    assert verdict.defaulted == (
        "limits.cpu 2 (LimitRange container-defaults default)",
    )
    result = run_console(
        [
            "plan",
            str(ROOT / "examples" / "wordcount.yaml"),
            "-n",
            "analytics",
            "--nodes",
            NODES,
            "--quota",
            str(QUOTA / "admitted.json"),
        ]
    )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith(
        "admitted: ResourceQuota compute (namespace analytics) admits all 5 pods"
    )
    assert "\nfeasible: all 5 pods fit at once" in result.stdout


def test_fits_but_the_quota_refuses_naming_the_limit() -> None:
    # docs/resources.md: a LimitRange default cpu limit of 8 counts 8 per container
    # (16 per worker pod, 8 for the job master) against limits.cpu 40.
    verdict = admission(
        _objects("wordcount.yaml"),
        read_quota(str(QUOTA / "limits-cpu-default-8.json")),
        "analytics",
    )
    run = verdict.quota
    assert not verdict.admitted
    assert (run.before, run.admitted, run.refused_pod, run.whole_job) == (
        2,
        3,
        "wordcount-0-2",
        True,
    )
    assert run.refusal is not None
    assert run.refusal.reason == "limits.cpu: used 32 + 16 > hard 40"
    assert run.refusal.message == (
        "exceeded quota: compute, requested: limits.cpu=16, used: limits.cpu=32, limited: limits.cpu=40"
    )
    lines = admission_lines(verdict)
    assert lines[0] == (
        "not admitted: ResourceQuota compute (namespace analytics) admits 2 of the job's 5 pods, "
        "then refuses pod wordcount-0-2: limits.cpu: used 32 + 16 > hard 40"
    )
    assert "FailedCreate event on StatefulSet wordcount-0" in lines[2]
    data = admission_dict(verdict)
    assert data["resourceQuota"]["refused"]["pod"] == "wordcount-0-2"
    result = run_console(
        [
            "plan",
            str(ROOT / "examples" / "wordcount.yaml"),
            "-n",
            "analytics",
            "--nodes",
            NODES,
            "--quota",
            str(QUOTA / "limits-cpu-default-8.json"),
            "-o",
            "json",
        ]
    )
    assert result.exit_code == 1
    assert json.loads(result.stdout)["admission"]["admitted"] is False


def test_admitted_but_no_node_fits() -> None:
    config = ROOT / "tests" / "golden" / "plan-quota-no-node-fits" / "config.yaml"
    result = run_console(
        [
            "plan",
            str(config),
            "-n",
            "analytics",
            "--nodes",
            NODES,
            "--quota",
            str(QUOTA / "admitted.json"),
        ]
    )
    assert result.exit_code == 1
    first, second = result.stdout.splitlines()[:2]
    assert first.startswith(
        "admitted: ResourceQuota compute (namespace analytics) admits all 3 pods"
    )
    assert result.stdout.splitlines()[2].startswith(
        "infeasible: 1 of 3 pods fit at once on 10 nodes"
    )
    assert second.startswith("  LimitRange defaults counted")


def test_used_counts_and_requests_memory_refuses_the_next_pod() -> None:
    doc = _quota("admitted.json")
    doc["items"][0]["status"]["used"]["requests.memory"] = "16Gi"
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(doc), "analytics"
    )
    # 16Gi + 3 x 2176Mi = 22912Mi; the fourth worker pod would make 25088Mi > 24Gi
    assert verdict.quota.refused_pod == "wordcount-0-3"
    assert verdict.quota.refusal is not None
    assert (
        verdict.quota.refusal.reason
        == "requests.memory: used 22912Mi + 2176Mi > hard 24576Mi"
    )
    assert verdict.quota.admitted == 4  # the job master still fits after


def test_a_quota_on_limits_cpu_without_a_default_needs_every_container_to_set_it() -> (
    None
):
    quota = _list(
        _item(
            "ResourceQuota",
            "cpu",
            {"hard": {"limits.cpu": "64"}},
            {"hard": {"limits.cpu": "64"}, "used": {"limits.cpu": "0"}},
        )
    )
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(quota), "analytics"
    )
    assert verdict.quota.refusal is not None and verdict.quota.before == 0
    assert verdict.quota.refusal.message == (
        "failed quota: cpu: must specify limits.cpu for: twister2-container-0,twister2-container-1"
    )


def test_a_limit_range_maximum_refuses_the_statefulset() -> None:
    quota = _list(
        _item(
            "LimitRange",
            "small",
            {"limits": [{"type": "Container", "max": {"memory": "1Gi"}}]},
        )
    )
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(quota), "analytics"
    )
    assert not verdict.admitted
    assert verdict.refused == (
        (
            "wordcount-0",
            (
                "LimitRange small: Maximum memory usage per Container is 1Gi, but limit is 1152Mi.",
            ),
        ),
        (
            "wordcount-jm",
            (
                "LimitRange small: Maximum memory usage per Container is 1Gi, but limit is 1280Mi.",
            ),
        ),
    )


def test_a_default_limit_below_a_request_is_invalid() -> None:
    quota = _list(
        _item(
            "LimitRange",
            "tiny",
            {
                "limits": [
                    {
                        "type": "Container",
                        "default": {"cpu": "100m"},
                        "defaultRequest": {"cpu": "100m"},
                    }
                ]
            },
        )
    )
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(quota), "analytics"
    )
    assert verdict.refused[0][0] == "wordcount-0"
    assert "cpu request 0.5 is above its limit 0.1" in verdict.refused[0][1][0]


def test_scopes_priority_class_and_best_effort() -> None:
    low = {
        "hard": {"pods": "1"},
        "scopeSelector": {
            "matchExpressions": [
                {
                    "scopeName": "PriorityClass",
                    "operator": "In",
                    "values": ["batch-high"],
                }
            ]
        },
    }
    best = {"hard": {"pods": "0"}, "scopes": ["BestEffort"]}
    quota = _list(
        _item(
            "ResourceQuota",
            "high-only",
            low,
            {"hard": low["hard"], "used": {"pods": "0"}},
        ),
        _item(
            "ResourceQuota",
            "no-best-effort",
            best,
            {"hard": best["hard"], "used": {"pods": "0"}},
        ),
    )
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(quota), "analytics"
    )
    assert verdict.admitted and verdict.quota.matched == ()  # neither scope matches
    objects = _objects("kueue-gang.yaml")  # priorityClassName: batch-low
    low["scopeSelector"]["matchExpressions"][0]["values"] = ["batch-low"]
    quota = _list(
        _item("ResourceQuota", "low", low, {"hard": low["hard"], "used": {"pods": "0"}})
    )
    verdict = admission(objects, parse_quota_objects(quota), "analytics")
    assert verdict.quota.refused_pod == "kueue-gang-0-1" and verdict.quota.before == 1


def _kueue(nominal_cpu: str, used_cpu: str, *, cohort: bool = False) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "on-demand",
                        "resources": [
                            {"name": "cpu", "nominalQuota": nominal_cpu},
                            {"name": "memory", "nominalQuota": "64Gi"},
                        ],
                    }
                ],
            }
        ],
    }
    if cohort:
        spec["cohort"] = "research"
    status = {
        "flavorsReservation": [
            {
                "name": "on-demand",
                "resources": [
                    {"name": "cpu", "total": used_cpu, "borrowed": "0"},
                    {"name": "memory", "total": "8Gi", "borrowed": "0"},
                ],
            }
        ],
        "admittedWorkloads": 1,
        "pendingWorkloads": 0,
        "reservingWorkloads": 1,
    }
    items = [
        _item(
            "ClusterQueue",
            "team-a-cq",
            spec,
            status,
            group="kueue.x-k8s.io/v1beta1",
            namespace=None,
        ),
        _item(
            "LocalQueue",
            "team-a",
            {"clusterQueue": "team-a-cq"},
            {"admittedWorkloads": 1},
            group="kueue.x-k8s.io/v1beta1",
        ),
    ]
    if cohort:
        lender = copy.deepcopy(spec)
        lender["resourceGroups"][0]["flavors"][0]["resources"][0] = {
            "name": "cpu",
            "nominalQuota": "16",
            "lendingLimit": "4",
        }
        items.append(
            _item(
                "ClusterQueue",
                "team-b-cq",
                lender,
                {"flavorsReservation": []},
                group="kueue.x-k8s.io/v1beta1",
                namespace=None,
            )
        )
    return _list(*items)


def test_kueue_admits_the_pod_group_by_flavor_and_cohort() -> None:
    objects = _objects("kueue-gang.yaml")  # 6.2 cpu, 13824Mi in all
    fits = admission(objects, parse_quota_objects(_kueue("16", "8")), "analytics")
    assert fits.admitted
    assert (
        fits.queues[0].reason
        == "admits the pod group as one workload (flavor on-demand for cpu, memory)"
    )
    short = admission(objects, parse_quota_objects(_kueue("12", "8")), "analytics")
    assert not short.admitted
    assert short.queues[0].reason == (
        "no flavor holds the job's cpu 6.2, memory 13824Mi: flavor on-demand: cpu: used 8 + 6.2 > nominalQuota 12"
    )
    assert admission_lines(short)[0].startswith(
        "not admitted: Kueue ClusterQueue team-a-cq: no flavor holds"
    )
    borrowed = admission(
        objects, parse_quota_objects(_kueue("12", "8", cohort=True)), "analytics"
    )
    assert borrowed.admitted  # team-b-cq lends 4 of its unused 16


def test_kueue_without_the_local_queue() -> None:
    quota = _kueue("16", "0")
    del quota["items"][1]
    verdict = admission(
        _objects("kueue-gang.yaml"), parse_quota_objects(quota), "analytics"
    )
    assert not verdict.admitted
    assert verdict.queues[0].reason.startswith(
        "no LocalQueue team-a in namespace analytics"
    )


def _volcano(
    capability_cpu: str, allocated_cpu: str, state: str = "Open"
) -> dict[str, Any]:
    spec = {
        "weight": 1,
        "reclaimable": True,
        "capability": {"cpu": capability_cpu, "memory": "128Gi"},
        "guarantee": {"resource": {"cpu": "2"}},
    }
    status = {
        "state": state,
        "allocated": {"cpu": allocated_cpu, "memory": "4Gi"},
        "running": 1,
    }
    other = {"weight": 1, "guarantee": {"resource": {"cpu": "100"}}}
    return _list(
        _item(
            "Queue",
            "default",
            spec,
            status,
            group="scheduling.volcano.sh/v1beta1",
            namespace=None,
        ),
        _item(
            "Queue",
            "other",
            other,
            {"state": "Open"},
            group="scheduling.volcano.sh/v1beta1",
            namespace=None,
        ),
    )


def test_volcano_queue_capability() -> None:
    objects = _objects("volcano-gang.yaml")  # a gang of 6 pods: 10.2 cpu
    cluster = [{"cpu": 16000, "memory": 64 << 30}] * 10
    fits = admission(
        objects, parse_quota_objects(_volcano("24", "4")), "analytics", cluster
    )
    assert fits.admitted and fits.queues[0].kind == "Volcano Queue"
    short = admission(
        objects, parse_quota_objects(_volcano("12", "4")), "analytics", cluster
    )
    assert short.queues[0].reason == (
        "the gang's minimum does not fit the queue's capability (realCapability): cpu: allocated 4 + 10.2 > 12"
    )
    # realCapability: 160 cpu in the cluster, 102 guaranteed to the queues, 2 of them to this one
    guaranteed = admission(
        objects, parse_quota_objects(_volcano("200", "55")), "analytics", cluster
    )
    assert "cpu: allocated 55 + 10.2 > 60" in guaranteed.queues[0].reason
    closed = admission(
        objects,
        parse_quota_objects(_volcano("24", "0", state="Closed")),
        "analytics",
        cluster,
    )
    assert (
        closed.queues[0].reason == "the queue is Closed, not Open: it takes no new job"
    )


def test_the_quota_file_is_checked_and_located(tmp_path: Path) -> None:
    doc = _quota("admitted.json")
    doc["items"][0]["status"]["hard"]["requests.cpu"] = "twelve"
    doc["items"].append(
        {
            "apiVersion": "apps/v1",
            "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "analytics"},
        }
    )
    del doc["items"][1]["metadata"]["namespace"]
    with pytest.raises(InputError) as info:
        parse_quota_objects(doc, "quota.json")
    lines = info.value.lines()
    assert any(
        "quota.json: items[0].status.hard.requests.cpu: " in line
        and "a Kubernetes quantity" in line
        for line in lines
    )
    assert any(
        "quota.json: items[1].metadata.namespace: LimitRange container-defaults needs its namespace"
        in line
        for line in lines
    )
    assert any(
        "quota.json: items[2]: is a Deployment (apps/v1): pass ResourceQuotas" in line
        for line in lines
    )
    path = tmp_path / "quota.json"
    path.write_bytes(b"\xff\xfe")
    result = run_console(
        [
            "plan",
            str(ROOT / "examples" / "wordcount.yaml"),
            "--nodes",
            NODES,
            "--quota",
            str(path),
        ]
    )
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith(f"{path}: is not UTF-8")


def test_the_namespace_comes_from_the_job_or_the_only_one_in_the_file(
    tmp_path: Path,
) -> None:
    wordcount = str(ROOT / "examples" / "wordcount.yaml")  # names no namespace
    only = run_console(
        ["plan", wordcount, "--nodes", NODES, "--quota", str(QUOTA / "admitted.json")]
    )
    assert only.stdout.startswith(
        "admitted: ResourceQuota compute (namespace analytics)"
    )
    doc = _quota("admitted.json")
    doc["items"][1]["metadata"]["namespace"] = "other"
    path = tmp_path / "two.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    two = run_console(["plan", wordcount, "--nodes", NODES, "--quota", str(path)])
    said = " ".join(two.stderr.replace("│", " ").split())
    assert two.exit_code == 2
    assert "analytics, other and the job names none: pass --namespace" in said
    assert (
        run_console(["plan", wordcount, "--quota", str(path)]).exit_code == 2
    )  # without --nodes too (admission only): the namespace is still needed


def test_a_quota_without_status_is_checked_against_its_spec_and_said_so() -> None:
    doc = _quota("admitted.json")
    del doc["items"][0]["status"]
    verdict = admission(
        _objects("wordcount.yaml"), parse_quota_objects(doc), "analytics"
    )
    assert verdict.admitted and verdict.quota.unsynced == ("compute",)
    assert verdict.quota.after == ("requests.memory 9856Mi/24576Mi",)
    assert any("status unknown for quota" in line for line in admission_lines(verdict))


@pytest.mark.parametrize(
    ("example", "quota", "first", "code"),
    [
        (
            "kueue-gang.yaml",
            "kueue.json",
            "  Kueue ClusterQueue team-a-cq: admits the pod group as one workload "
            "(flavor on-demand for cpu, memory)",
            0,
        ),
        (
            "volcano-gang.yaml",
            "volcano.json",
            "not admitted: Volcano Queue default: the gang's minimum does not fit the "
            "queue's capability (realCapability): cpu: allocated 4 + 10.2 > 11.09",
            1,
        ),
    ],
)
def test_queue_fixtures_on_the_command_line(
    example: str, quota: str, first: str, code: int
) -> None:
    # kueue.json: team-a-cq has 12 cpu, 8 used, and borrows from team-b-cq in its
    # cohort; volcano.json: the default queue's capability is 12 cpu, but the other
    # queue's guarantee of 100 cpu leaves it 111.09 - 102 + 2 of examples/nodes.json.
    result = run_console(
        [
            "plan",
            str(ROOT / "examples" / example),
            "-n",
            "analytics",
            "--nodes",
            NODES,
            "--quota",
            str(QUOTA / quota),
        ]
    )
    assert result.exit_code == code, result.stderr
    assert first in result.stdout.splitlines()[:2]


def test_amounts_side_by_side_share_one_unit() -> None:
    """``requests.memory 83201152Mi/100000Gi`` made the reader convert (issue 41)."""
    from t2gen.plan.quantities import exact_texts

    assert exact_texts("memory", 83201152 << 20, 100000 << 30) == (
        "83201152Mi",
        "102400000Mi",
    )
    assert exact_texts("memory", 0, 4 << 30) == ("0Gi", "4Gi")
    assert exact_texts("memory", 1, 1 << 30) == ("1", "1073741824")
    assert exact_texts("cpu", 6200, 10000) == ("6.2", "10")
