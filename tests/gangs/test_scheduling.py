"""spec.scheduling: group objects, what pods get, the native task topology, and the gang output checks."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from t2gen.checks import check_objects
from t2gen.gangs import group_owner, volcano
from t2gen.kube.quantity import parse_quantity
from t2gen.pipeline.job import generate
from t2gen.plan.podspec import pod_requests
from t2gen.plan.quantities import parse_resource_list
from t2gen.render.context import build_context
from t2gen.render.context.scheduling import task_affinity
from tests.helpers import job_text, problems, valid_job

TWO_GROUPS = """\
workers:
  - {name: a, count: 4, perPod: 2}
  - {name: b, count: 3}
scheduling:
"""


def _job(scheduling: str) -> Any:
    return valid_job(job_text(TWO_GROUPS + scheduling))


def _objects(
    tmp_path: Any, scheduling: str, kube_version: str | None = None
) -> list[dict[str, Any]]:
    path = tmp_path / "job.yaml"
    path.write_text(job_text(TWO_GROUPS + scheduling), encoding="utf-8")
    return [d.obj for d in generate([str(path)], kube_version=kube_version)]


def _pods(objects: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        o["metadata"]["name"]: o["spec"]["template"]
        for o in objects
        if o["kind"] == "StatefulSet"
    }


def test_no_scheduling_renders_no_group_and_no_task_label(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  {}\n")
    assert not [o for o in objects if o["kind"] in ("PodGroup", "Workload")]
    for template in _pods(objects).values():
        assert "t2-task" not in template["metadata"]["labels"]
        assert "schedulerName" not in template["spec"]


def test_priority_class_without_gang_is_on_every_pod(tmp_path: Any) -> None:
    pods = _pods(_objects(tmp_path, "  priorityClassName: high\n"))
    assert len(pods) == 3
    assert {t["spec"]["priorityClassName"] for t in pods.values()} == {"high"}


@pytest.mark.parametrize(
    ("mechanism", "scheduler"),
    [("volcano", "volcano"), ("coscheduling", "scheduler-plugins-scheduler")],
)
def test_scheduler_name_defaults_and_override(
    tmp_path: Any, mechanism: str, scheduler: str
) -> None:
    pods = _pods(_objects(tmp_path, f"  gang: {mechanism}\n"))
    assert {t["spec"]["schedulerName"] for t in pods.values()} == {scheduler}
    pods = _pods(_objects(tmp_path, f"  gang: {mechanism}\n  schedulerName: mine\n"))
    assert {t["spec"]["schedulerName"] for t in pods.values()} == {"mine"}


def _pod_amounts(objects: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each StatefulSet's pod requests as the scheduler reads them (plan's reader, not the renderer's sum)."""
    return {
        o["metadata"]["name"]: parse_resource_list(
            _requests_of(o["spec"]["template"]["spec"])
        )
        for o in objects
        if o["kind"] == "StatefulSet"
    }


def _requests_of(spec: dict[str, Any]) -> dict[str, str]:
    resources = pod_requests(spec)
    out = {"cpu": f"{resources.cpu_millis}m", "memory": str(resources.memory_bytes)}
    out.update({name: str(amount) for name, amount in resources.extended})
    return out


def _sum(parts: list[tuple[dict[str, int], int]]) -> dict[str, int]:
    total: dict[str, int] = {}
    for amounts, times in parts:
        for name, amount in amounts.items():
            total[name] = total.get(name, 0) + amount * times
    return total


def test_explicit_min_member_is_rendered(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  gang: coscheduling\n  minMember: 3\n")
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    assert set(group["spec"]) == {"minMember", "minResources"}
    assert group["spec"]["minMember"] == 3
    assert group["metadata"]["labels"]["t2-job"] == "job"
    # The first 3 pods in task order: the job master, then 2 of group a's pods.
    pods = _pod_amounts(objects)
    expected = _sum([(pods["job-jm"], 1), (pods["job-0"], 2)])
    assert parse_resource_list(group["spec"]["minResources"]) == expected


@pytest.mark.parametrize("mechanism", ["volcano", "coscheduling"])
def test_min_resources_sum_every_pod_of_the_job(tmp_path: Any, mechanism: str) -> None:
    objects = _objects(tmp_path, f"  gang: {mechanism}\n")
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    pods = _pod_amounts(objects)
    replicas = {
        o["metadata"]["name"]: o["spec"]["replicas"]
        for o in objects
        if o["kind"] == "StatefulSet"
    }
    expected = _sum([(pods[name], replicas[name]) for name in pods])
    assert parse_resource_list(group["spec"]["minResources"]) == expected
    for name, text in group["spec"][
        "minResources"
    ].items():  # canonical, as kubectl shows it
        assert str(parse_quantity(text)) == text, name


def test_min_resources_are_exact_and_hold_every_requested_resource(
    tmp_path: Any,
) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(
        job_text(
            "workers:\n"
            "  - {count: 3, cpu: 0.1, memory: 0.1Gi, volatileDisk: 0.1Gi,\n"
            "     extendedResources: {nvidia.com/gpu: 1}}\n"
            "jobMaster: {cpu: 0.1}\n"
            "scheduling: {gang: volcano}\n"
        ),
        encoding="utf-8",
    )
    objects = [d.obj for d in generate([str(path)])]
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    minimum = group["spec"]["minResources"]
    assert minimum["cpu"] == "400m"  # 3 x 0.1 + 0.1, never 0.30000000000000004
    assert minimum["nvidia.com/gpu"] == "3"
    assert "ephemeral-storage" in minimum
    pods = _pod_amounts(objects)
    assert parse_resource_list(minimum) == _sum(
        [(pods["job-jm"], 1), (pods["job-0"], 3)]
    )


@pytest.mark.parametrize("mechanism", ["kueue", "kubernetes"])
def test_no_min_resources_where_the_mechanism_has_none(
    tmp_path: Any, mechanism: str
) -> None:
    setting = "  queue: q\n" if mechanism == "kueue" else ""
    objects = _objects(tmp_path, f"  gang: {mechanism}\n{setting}")
    assert all("minResources" not in str(o.get("spec")) for o in objects)


def test_default_min_member_counts_the_job_master(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  gang: volcano\n")
    (group,) = [o for o in objects if o["kind"] == "PodGroup"]
    assert group["spec"]["minMember"] == 2 + 3 + 1
    assert group["spec"]["minTaskMember"] == {"jm": 1, "a": 2, "b": 3}


@pytest.mark.parametrize(
    ("version", "kinds", "pod_field"),
    [
        (
            "1.35",
            [("scheduling.k8s.io/v1alpha1", "Workload")],
            {"workloadRef": {"name": "job", "podGroup": "job"}},
        ),
        (
            "1.36",
            [
                (
                    "scheduling.k8s.io/v1alpha2",
                    "Workload",
                ),  # admission: tests/gangs/test_install_order.py
                ("scheduling.k8s.io/v1alpha2", "PodGroup"),
            ],
            {"schedulingGroup": {"podGroupName": "job"}},
        ),
        (
            "1.37",
            [
                (
                    "scheduling.k8s.io/v1beta1",
                    "Workload",
                ),  # admission: tests/gangs/test_install_order.py
                ("scheduling.k8s.io/v1beta1", "PodGroup"),
            ],
            {"schedulingGroup": {"podGroupName": "job"}},
        ),
    ],
)
def test_workload_api_shape_follows_the_kube_version(
    tmp_path: Any, version: str, kinds: list[tuple[str, str]], pod_field: dict[str, Any]
) -> None:
    objects = _objects(tmp_path, "  gang: kubernetes\n", kube_version=version)
    assert [
        (o["apiVersion"], o["kind"])
        for o in objects
        if o["kind"] in ("PodGroup", "Workload")
    ] == kinds
    for template in _pods(objects).values():
        (key,) = pod_field
        assert template["spec"][key] == pod_field[key]


def test_kueue_labels_are_on_pod_templates_only(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  gang: kueue\n  queue: team-a\n")
    for obj in objects:
        assert not any(
            k.startswith("kueue.x-k8s.io/") for k in obj["metadata"]["labels"]
        )
    for template in _pods(objects).values():
        assert template["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-a"
        assert template["metadata"]["labels"]["kueue.x-k8s.io/pod-group-name"] == "job"
        assert (
            template["metadata"]["annotations"]["kueue.x-k8s.io/pod-group-total-count"]
            == "6"
        )


def test_preferred_topology_selects_the_other_tasks() -> None:
    job = _job(
        "  affinity: [[jobMaster, a]]\n  antiAffinity: [[b]]\n  topologyWeight: 30\n"
    )
    jm = task_affinity(job, "jm", None)
    assert jm == {
        "podAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 30,
                    "podAffinityTerm": {
                        "labelSelector": {
                            "matchLabels": {"t2-job": "job", "t2-task": "a"}
                        },
                        "topologyKey": "kubernetes.io/hostname",
                    },
                }
            ]
        }
    }
    b = task_affinity(job, "b", None)
    assert b is not None
    (term,) = b["podAntiAffinity"]["preferredDuringSchedulingIgnoredDuringExecution"]
    assert term["podAffinityTerm"]["labelSelector"]["matchLabels"] == {
        "t2-job": "job",
        "t2-task": "b",
    }


def test_required_affinity_selects_the_whole_group_and_keeps_the_base() -> None:
    job = _job("  affinity: [[jobMaster, a]]\n  topologyMode: required\n")
    base = {
        "nodeAffinity": {"x": 1},
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [{"t": 1}]
        },
    }
    before = copy.deepcopy(base)
    result = task_affinity(job, "a", base)
    assert base == before  # the shared base is not changed
    assert result is not None and result["nodeAffinity"] == {"x": 1}
    (term,) = result["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
    assert term["labelSelector"]["matchExpressions"] == [
        {"key": "t2-task", "operator": "In", "values": ["jm", "a"]}
    ]


def test_volcano_topology_is_annotations_unless_required() -> None:
    soft = _job("  gang: volcano\n  affinity: [[jobMaster, a]]\n")
    assert task_affinity(soft, "a", None) is None
    hard = _job(
        "  gang: volcano\n  affinity: [[jobMaster, a]]\n  topologyMode: required\n"
    )
    assert task_affinity(hard, "a", None) is not None
    context = build_context(soft)
    (group,) = context["scheduling"]["objects"]
    assert (
        group["metadata"]["annotations"]["volcano.sh/task-topology-affinity"] == "jm,a"
    )
    assert (
        group["metadata"]["annotations"]["volcano.sh/task-topology-task-order"]
        == "jm,a,b"
    )


def test_required_mode_makes_group_members_self_affine() -> None:
    text = job_text(
        TWO_GROUPS
        + "  affinity: [[jobMaster, a]]\n  antiAffinity: [[a]]\n  topologyMode: required\n"
    )
    found = problems(text)
    assert [p[2] for p in found] == ["spec.scheduling.antiAffinity[0]"]
    assert "affine with itself" in found[0][3]
    # The same topology, preferred, is Volcano's semantics: no conflict.
    valid_job(
        job_text(TWO_GROUPS + "  affinity: [[jobMaster, a]]\n  antiAffinity: [[a]]\n")
    )


def test_group_checks_find_a_workload_left_out_and_the_default_scheduler(
    tmp_path: Any,
) -> None:
    objects = _objects(tmp_path, "  gang: volcano\n")
    assert check_objects(objects) == []
    broken = copy.deepcopy(objects)
    (jm,) = [
        o
        for o in broken
        if o["metadata"]["name"] == "job-jm" and o["kind"] == "StatefulSet"
    ]
    del jm["spec"]["template"]["metadata"]["annotations"][
        "scheduling.k8s.io/group-name"
    ]
    (first,) = [o for o in broken if o["metadata"]["name"] == "job-0"]
    del first["spec"]["template"]["spec"]["schedulerName"]
    found = check_objects(broken)
    assert any(
        "StatefulSet/job-jm of job 'job' does not join the group" in f for f in found
    )
    assert any(
        "StatefulSet/job-0 joins the group but runs on the default scheduler" in f
        for f in found
    )


def test_kueue_check_counts_the_group(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  gang: kueue\n  queue: q\n")
    assert check_objects(objects) == []
    broken = [o for o in objects if o["metadata"]["name"] != "job-1"]
    found = check_objects(broken)
    assert any("has 3 pods; write '3'" in f for f in found)


def test_task_term_selecting_no_pod_is_reported(tmp_path: Any) -> None:
    objects = _objects(tmp_path, "  antiAffinity: [[b]]\n  topologyMode: required\n")
    assert check_objects(objects) == []
    (b,) = [o for o in objects if o["metadata"]["name"] == "job-1"]
    b["spec"]["template"]["metadata"]["labels"]["t2-task"] = "c"
    assert any("selects no pod" in f for f in check_objects(objects))


@pytest.mark.parametrize(
    "scheduling",
    ["  gang: volcano\n", "  gang: coscheduling\n", "  gang: kubernetes\n"],
)
def test_a_group_without_a_name_has_no_members(tmp_path: Any, scheduling: str) -> None:
    """A pod that names no group does not join a group that has no name either."""
    objects = _objects(tmp_path, scheduling)
    (group,) = [o for o in objects if group_owner(o) is not None]
    group["spec"] = {**group.get("spec", {}), "minMember": 99}
    if group["kind"] == "PodGroup" and "schedulingPolicy" in group["spec"]:
        group["spec"]["schedulingPolicy"] = {"gang": {"minCount": 99}}
    del group["metadata"]["name"]
    for template in _pods(objects).values():  # nothing names the group either
        template["metadata"].get("annotations", {}).pop(
            "scheduling.k8s.io/group-name", None
        )
        template["metadata"]["labels"].pop("scheduling.x-k8s.io/pod-group", None)
        template["spec"].pop("schedulingGroup", None)
        template["spec"].pop("workloadRef", None)
    assert not [f for f in check_objects(objects) if "pods that join the group" in f]


def test_group_members_are_looked_up_once_per_stream(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch of gang jobs in one namespace reads each pod template once, not once per group.

    Before, every group tested every template of its namespace: 800 Volcano
    jobs took 6.6 s, most of it in that test.
    """
    paths = []
    for index in range(12):
        path = tmp_path / f"job{index}.yaml"
        text = job_text(TWO_GROUPS + "  gang: volcano\n")
        path.write_text(text.replace("name: job", f"name: job{index}", 1), "utf-8")
        paths.append(str(path))
    objects = [d.obj for d in generate(paths)]
    groups = [o for o in objects if group_owner(o) is not None]
    templates = [o for o in objects if o["kind"] == "StatefulSet"]
    assert len(groups) == 12 and len(templates) == 36
    calls = []
    original = volcano.template_references
    monkeypatch.setattr(
        volcano,
        "template_references",
        lambda metadata, spec: calls.append(1) or original(metadata, spec),
    )
    assert check_objects(objects) == []
    # Once, for the stream's index: group-members, too, takes a group's members
    # from it; testing every template for every group would be 12 x 36.
    assert len(calls) == len(templates)
