"""The plan engine (t2gen.plan): node and pod lists, filters, placement and verdicts.

The jobs are the rendered goldens (tests/golden/<case>/expected.stdout), the
cluster is examples/nodes.json (10 nodes: node01-node04 GPU nodes with 16 cores,
node05 tainted dedicated=analytics:NoSchedule, node06-node09 8-core nodes with
7910m allocatable, node10 cordoned) and examples/pods.json.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
import yaml

from t2gen.plan import (
    InputError,
    format_plan,
    load_document,
    parse_nodes,
    parse_pods,
    plan,
    plan_to_dict,
    usage_by_node,
)
from t2gen.plan.podspec import exclusive_cores, is_guaranteed, pod_requests
from tests.conftest import ROOT

NODES_FILE = ROOT / "examples" / "nodes.json"
PODS_FILE = ROOT / "examples" / "pods.json"
GIB = 1 << 30


def nodes_doc() -> dict[str, Any]:
    doc = json.loads(NODES_FILE.read_text(encoding="utf-8"))
    assert isinstance(doc, dict)
    return doc


def nodes_of(doc: dict[str, Any] | None = None, only: tuple[str, ...] = ()) -> Any:
    doc = nodes_doc() if doc is None else doc
    if only:
        doc = {
            **doc,
            "items": [n for n in doc["items"] if n["metadata"]["name"] in only],
        }
    return parse_nodes(doc, "nodes.json")


def pods_of() -> Any:
    return parse_pods(load_document(PODS_FILE.read_text(encoding="utf-8"), "pods.json"))


def rendered(case: str) -> list[dict[str, Any]]:
    text = (ROOT / "tests" / "golden" / case / "expected.stdout").read_text(
        encoding="utf-8"
    )
    return [d for d in yaml.safe_load_all(text) if d]


def statefulset(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    (found,) = [
        o
        for o in objects
        if o["kind"] == "StatefulSet" and o["metadata"]["name"] == name
    ]
    return found


def pod_spec(objects: list[dict[str, Any]], name: str) -> dict[str, Any]:
    spec = statefulset(objects, name)["spec"]["template"]["spec"]
    assert isinstance(spec, dict)
    return spec


def group(result: Any, name: str) -> Any:
    (found,) = [g for g in result.groups if g.statefulset == name]
    return found


def rejection(result: Any, sts: str, node: str) -> str:
    (found,) = [str(r) for r in group(result, sts).rejections if r.node == node]
    return found


def placed_nodes(result: Any, sts: str) -> list[str]:
    return [
        x.node for x in result.placement if x.statefulset == sts for _ in range(x.pods)
    ]


# --- node and pod lists -------------------------------------------------------


def test_node_list_becomes_typed_records() -> None:
    nodes = nodes_of()
    assert [n.name for n in nodes] == [f"node{i:02d}" for i in range(1, 11)]
    gpu = nodes[0]
    assert gpu.allocatable.cpu_millis == 15890
    assert gpu.allocatable.memory_bytes == 63900728 * 1024
    assert gpu.allocatable.pods == 110
    assert gpu.allocatable.get("nvidia.com/gpu") == 1
    assert gpu.allocatable.get("ephemeral-storage") == 95551679920
    assert gpu.capacity is not None and gpu.capacity.cpu_millis == 16000
    assert gpu.labels["extra-hardware"] == "gpu"
    assert gpu.labels["nvidia.com/gpu.present"] == "true"
    assert [str(t) for t in nodes[4].taints] == ["dedicated=analytics:NoSchedule"]
    assert nodes[9].unschedulable
    assert [str(t) for t in nodes[9].taints] == [
        "node.kubernetes.io/unschedulable:NoSchedule"
    ]
    assert sum(n.labels.get("extra-hardware") == "gpu" for n in nodes) == 4


def test_node_list_as_yaml_or_a_single_node() -> None:
    doc = nodes_doc()
    assert parse_nodes(load_document(yaml.safe_dump(doc), "n.yaml")) == nodes_of()
    (one,) = parse_nodes(doc["items"][2])
    assert one.name == "node03"


@pytest.mark.parametrize(
    ("document", "expected"),
    [
        (
            json.loads(PODS_FILE.read_text(encoding="utf-8")),
            "is a list of Pods, not of Nodes: pass the output of `kubectl get nodes -o json`",
        ),
        (
            {"apiVersion": "apps/v1", "kind": "Deployment"},
            "is a Deployment, not a Node list",
        ),
        (["node01"], "is not a Node list"),
        ({"apiVersion": "v1", "kind": "List", "items": []}, "has no nodes"),
    ],
)
def test_input_that_is_not_a_node_list(document: object, expected: str) -> None:
    with pytest.raises(InputError) as info:
        parse_nodes(document, "nodes.json")
    assert expected in "\n".join(info.value.lines())


def test_every_node_without_allocatable_is_reported_at_once() -> None:
    doc = nodes_doc()
    del doc["items"][2]["status"]["allocatable"]
    del doc["items"][6]["status"]
    doc["items"][7]["status"]["allocatable"]["memory"] = "32GB"
    with pytest.raises(InputError) as info:
        parse_nodes(doc, "nodes.json")
    lines = info.value.lines()
    assert len(lines) == 3
    assert lines[0].startswith(
        "nodes.json: items[2].status.allocatable: node node03 has no allocatable"
    )
    assert lines[1].startswith(
        "nodes.json: items[6].status.allocatable: node node07 has no allocatable"
    )
    assert lines[2] == (
        "nodes.json: items[7].status.allocatable: node node08: memory: '32GB' is not a "
        "quantity: a Kubernetes quantity such as 4, 500m or 8Gi"
    )


def test_text_that_is_neither_json_nor_yaml() -> None:
    with pytest.raises(InputError) as info:
        load_document("items: [\n", "nodes.json")
    assert "not JSON or YAML" in str(info.value.lines())


def test_running_pods_are_summed_per_node() -> None:
    pods = pods_of()
    names = {p.name for p in pods}
    assert "preprocess-28xk4" not in names  # Succeeded
    assert "resnet-eval-0" not in names  # Pending, no node
    usage = usage_by_node(pods)
    node02 = usage["node02"].requested
    assert (node02.cpu_millis, node02.memory_bytes, node02.pods) == (10125, 32 * GIB, 3)
    assert node02.get("nvidia.com/gpu") == 1
    # etl-0: init container 2 cpu / 1Gi, app 500m / 2Gi -> holds 2 cpu and 2Gi
    node06 = usage["node06"].requested
    assert (node06.cpu_millis, node06.memory_bytes) == (125 + 2000, 2 * GIB)


def test_pod_requests_follow_the_scheduler() -> None:
    spec = {
        "initContainers": [
            {
                "name": "sidecar",
                "restartPolicy": "Always",
                "resources": {"requests": {"cpu": "100m"}},
            },
            {"name": "init", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}},
        ],
        "containers": [
            {"name": "a", "resources": {"limits": {"cpu": "1", "memory": "512Mi"}}},
            {
                "name": "b",
                "resources": {"requests": {"cpu": "0.5", "nvidia.com/gpu": 1}},
            },
        ],
        "overhead": {"cpu": "10m", "memory": "1Mi"},
    }
    r = pod_requests(spec)
    # app 1 + 0.5 + sidecar 0.1 = 1.6; init 3 + sidecar 0.1 = 3.1 -> 3.1 + overhead
    assert r.cpu_millis == 3110
    assert r.memory_bytes == GIB + (1 << 20)
    assert r.get("nvidia.com/gpu") == 1
    assert r.pods == 1


def test_bound_workers_are_guaranteed_with_whole_cores() -> None:
    spec = pod_spec(rendered("pinned-same-node"), "pinned-same-node-0")
    assert is_guaranteed(spec)
    assert exclusive_cores(spec) == 4
    # Unbound workers get no CPU limit (as the Twister2 launcher), so whole-cpu
    # workers are Burstable and not pinned; a CPU limit equal to the request
    # (what cpu-limit-pins-unbound warns about) would make them Guaranteed.
    unbound = copy.deepcopy(pod_spec(rendered("gpu-nodes"), "gpu-nodes-0"))
    assert not is_guaranteed(unbound)
    assert exclusive_cores(unbound) == 0
    for container in unbound["containers"]:
        resources = container["resources"]
        resources["limits"]["cpu"] = resources["requests"]["cpu"]
    assert is_guaranteed(unbound)
    assert exclusive_cores(unbound) == 4


# --- verdicts -----------------------------------------------------------------


def test_gpu_one_pod_per_node_is_feasible() -> None:
    result = plan(rendered("gpu-one-pod-per-node"), nodes_of())
    assert result.feasible, result.reasons
    assert result.reasons == ()
    workers = group(result, "gpu-one-pod-per-node-0")
    assert workers.constraint == "all-separate-nodes"
    assert workers.passing == ("node01", "node02", "node03", "node04")
    assert sorted(placed_nodes(result, "gpu-one-pod-per-node-0")) == [
        "node01",
        "node02",
        "node03",
        "node04",
    ]
    assert rejection(result, "gpu-one-pod-per-node-0", "node07") == (
        "node07: node affinity extra-hardware In [gpu]: label extra-hardware is missing"
    )
    master = placed_nodes(result, "gpu-one-pod-per-node-jm")
    assert len(master) == 1 and master[0] not in ("node05", "node10")
    text = format_plan(result)
    assert text.startswith("feasible: all 5 pods fit at once")
    assert "node01  gpu-one-pod-per-node-0-0" in text
    data = plan_to_dict(result)
    assert json.loads(json.dumps(data)) == data
    assert data["feasible"] is True
    assert data["statefulSets"][0]["perPod"] == {
        "cpuMillis": 8000,
        "memoryBytes": 16 * GIB + 128 * 2**20,  # 4 x 4Gi, + the 128Mi memory volume
        "pods": 1,
        "extended": {},
    }


def test_running_pods_subtract_from_allocatable() -> None:
    result = plan(rendered("gpu-one-pod-per-node"), nodes_of(), pods_of())
    assert not result.feasible
    assert (
        rejection(result, "gpu-one-pod-per-node-0", "node02")
        == "node02: 5765m cpu free, pod needs 8"
    )
    assert result.reasons[0] == (
        "gpu-one-pod-per-node-0: all-separate-nodes needs 4 nodes (one pod each), but only 3 pass "
        "every filter (node01, node03, node04); 3 placed"
    )
    assert "Pending" in result.reasons[-1]


def test_too_few_gpu_nodes_for_all_separate_nodes() -> None:
    objects = rendered("gpu-one-pod-per-node")
    workers = statefulset(objects, "gpu-one-pod-per-node-0")
    workers["spec"]["replicas"] = 5  # 10 workers, 2 per pod
    term = pod_spec(objects, "gpu-one-pod-per-node-0")["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"
    ]["nodeSelectorTerms"][0]
    term["matchExpressions"] = term["matchExpressions"][:1]  # extra-hardware In [gpu]
    result = plan(objects, nodes_of())
    assert not result.feasible
    assert result.reasons[0] == (
        "gpu-one-pod-per-node-0: all-separate-nodes needs 5 nodes (one pod each), but only 4 pass "
        "every filter (node01, node02, node03, node04); 4 placed"
    )
    assert group(result, "gpu-one-pod-per-node-0").placed == 4
    assert "infeasible: 5 of 6 pods fit at once on 10 nodes" in format_plan(result)


def test_a_cordoned_node_is_excluded() -> None:
    doc = nodes_doc()
    node04 = doc["items"][3]
    node04["spec"]["unschedulable"] = True
    result = plan(rendered("gpu-one-pod-per-node"), nodes_of(doc))
    assert not result.feasible
    assert rejection(result, "gpu-one-pod-per-node-0", "node04") == (
        "node04: cordoned (spec.unschedulable), the pod does not tolerate it"
    )
    (node04,) = [
        r
        for r in group(result, "gpu-one-pod-per-node-0").rejections
        if r.node == "node04"
    ]
    assert node04.filter == "NodeUnschedulable"
    # A pod tolerating the unschedulable taint may still go there.
    objects = rendered("gpu-one-pod-per-node")
    pod_spec(objects, "gpu-one-pod-per-node-0")["tolerations"] = [
        {
            "key": "node.kubernetes.io/unschedulable",
            "operator": "Exists",
            "effect": "NoSchedule",
        }
    ]
    assert plan(objects, nodes_of(doc)).feasible


def test_a_taint_not_tolerated() -> None:
    doc = nodes_doc()
    doc["items"][2]["spec"]["taints"] = [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]
    result = plan(rendered("gpu-one-pod-per-node"), nodes_of(doc))
    assert not result.feasible
    assert rejection(result, "gpu-one-pod-per-node-0", "node03") == (
        "node03: taint nvidia.com/gpu=present:NoSchedule not tolerated"
    )
    assert "only 3 pass every filter (node01, node02, node04)" in result.reasons[0]

    objects = rendered("gpu-one-pod-per-node")
    spec = pod_spec(objects, "gpu-one-pod-per-node-0")
    spec["tolerations"] = [
        {
            "key": "nvidia.com/gpu",
            "operator": "Equal",
            "value": "absent",
            "effect": "NoSchedule",
        }
    ]
    assert not plan(objects, nodes_of(doc)).feasible  # wrong value
    spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists"}]
    assert plan(objects, nodes_of(doc)).feasible


def test_an_empty_key_with_exists_tolerates_every_taint() -> None:
    objects = rendered("wordcount")
    for name in ("wordcount-0", "wordcount-jm"):
        pod_spec(objects, name)["tolerations"] = [{"operator": "Exists"}]
    result = plan(objects, nodes_of())
    assert result.feasible
    assert (
        len(group(result, "wordcount-0").passing) == 10
    )  # node05 tainted, node10 cordoned


def test_taint_with_prefer_no_schedule_does_not_filter() -> None:
    doc = nodes_doc()
    for item in doc["items"][:4]:
        item["spec"]["taints"] = [
            {"key": "spot", "value": "true", "effect": "PreferNoSchedule"}
        ]
    assert plan(rendered("gpu-one-pod-per-node"), nodes_of(doc)).feasible


def test_not_enough_whole_cores_for_binding() -> None:
    # all-same-node and bound: 2 pods x 2 workers x 2 cores = 8 exclusive cores on one node.
    objects = rendered("pinned-same-node")
    eight_core = ("node06", "node07", "node08", "node09")
    result = plan(objects, nodes_of(only=eight_core))
    assert not result.feasible
    assert result.reasons[0] == (
        "all-same-node: no single node has room for all 2 pods of pinned-same-node-0 "
        "(they need 8 whole cores, 8 cpu, 8.2Gi memory); the closest, node06, has 7 whole cores free (7910m cpu)"
    )
    assert (
        group(result, "pinned-same-node-0").passing == eight_core
    )  # one pod fits each
    # On the 16-core nodes they fit, together on one node.
    result = plan(objects, nodes_of())
    assert result.feasible
    assert len(set(placed_nodes(result, "pinned-same-node-0"))) == 1


def test_bound_pod_larger_than_a_nodes_whole_cores() -> None:
    objects = rendered("pinned-same-node")
    spec = pod_spec(objects, "pinned-same-node-0")
    for container in spec["containers"]:
        container["resources"] = {
            "requests": {"cpu": "4", "memory": "2Gi"},
            "limits": {"cpu": "4", "memory": "2Gi"},
        }
    result = plan(objects, nodes_of(only=("node06", "node07")))
    assert not result.feasible
    assert rejection(result, "pinned-same-node-0", "node06") == (
        "node06: 7 whole cores free (7910m cpu), bound pod needs 8 exclusive cores"
    )
    assert group(result, "pinned-same-node-0").rejections[0].filter == "CPUManager"


def _set_required(objects: list[dict[str, Any]], name: str, terms: list[Any]) -> None:
    spec = pod_spec(objects, name)
    spec["affinity"] = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": terms
            }
        }
    }


def test_gt_and_lt_read_labels_as_integers() -> None:
    result = plan(
        rendered("named-nodes"), nodes_of()
    )  # hostname In [node03..05], cores Gt 7
    assert result.feasible
    assert group(result, "named-nodes-0").passing == ("node03", "node04")
    assert rejection(result, "named-nodes-0", "node05") == (
        "node05: taint dedicated=analytics:NoSchedule not tolerated"
    )

    objects = rendered("named-nodes")
    older = {"key": "node.example.com/generation", "operator": "Lt", "values": ["5"]}
    _set_required(objects, "named-nodes-0", [{"matchExpressions": [older]}])
    result = plan(objects, nodes_of())
    assert result.feasible
    assert group(result, "named-nodes-0").passing == ("node09",)
    assert rejection(result, "named-nodes-0", "node06") == (
        "node06: node affinity node.example.com/generation Lt [5]: label node.example.com/generation is 5"
    )

    big = {"key": "cores", "operator": "Gt", "values": ["8"]}
    _set_required(objects, "named-nodes-0", [{"matchExpressions": [big]}])
    assert group(plan(objects, nodes_of()), "named-nodes-0").passing == (
        "node01",
        "node02",
        "node03",
        "node04",
    )

    doc = nodes_doc()
    doc["items"][0]["metadata"]["labels"]["cores"] = "sixteen"
    result = plan(objects, nodes_of(doc))
    assert rejection(result, "named-nodes-0", "node01") == (
        "node01: node affinity cores Gt [8]: label cores is sixteen, not an integer"
    )


def test_terms_are_ored_and_expressions_anded() -> None:
    objects = rendered("gpu-nodes")
    _set_required(
        objects,
        "gpu-nodes-0",
        [
            {
                "matchExpressions": [
                    {"key": "disk", "operator": "In", "values": ["ssd"]}
                ]
            },
            {
                "matchExpressions": [
                    {"key": "extra-hardware", "operator": "DoesNotExist"},
                    {"key": "cores", "operator": "Lt", "values": ["9"]},
                    {
                        "key": "node.example.com/generation",
                        "operator": "NotIn",
                        "values": ["4"],
                    },
                ]
            },
            {
                "matchFields": [
                    {"key": "metadata.name", "operator": "In", "values": ["node02"]}
                ]
            },
        ],
    )
    result = plan(objects, nodes_of())
    # node05 has disk=ssd but is tainted; node09 is generation 4; node10 is cordoned.
    assert group(result, "gpu-nodes-0").passing == (
        "node02",
        "node06",
        "node07",
        "node08",
    )
    assert result.feasible


def test_extended_resources_are_counted() -> None:
    objects = rendered("gpu-nodes")
    for container in pod_spec(objects, "gpu-nodes-0")["containers"]:
        container["resources"]["limits"] = {"nvidia.com/gpu": 1}
    result = plan(objects, nodes_of())
    assert not result.feasible
    assert (
        rejection(result, "gpu-nodes-0", "node01")
        == "node01: 1 nvidia.com/gpu free, pod needs 2"
    )
    assert result.reasons[0].startswith(
        "gpu-nodes-0: no node passes every filter for its 4 pods"
    )


def test_room_counts_several_pods_per_node() -> None:
    result = plan(rendered("gpu-nodes"), nodes_of(only=("node01", "node02")))
    # 4 pods of 4 cpu / 8.1Gi (8Gi + the memory volume): 3 fit in 15890m on each node.
    assert group(result, "gpu-nodes-0").room == 6
    assert result.feasible
    result = plan(rendered("gpu-nodes"), nodes_of(only=("node01",)))
    assert not result.feasible
    assert result.reasons[0] == (
        "gpu-nodes-0: room for only 3 of 4 pods on the 1 nodes that pass every filter "
        "(each pod needs 4 cpu, 8.1Gi memory)"
    )


def test_running_pods_meet_the_anti_affinity() -> None:
    doc = json.loads(PODS_FILE.read_text(encoding="utf-8"))
    old = copy.deepcopy(doc["items"][0])
    old["metadata"].update(
        name="gpu-one-pod-per-node-0-0",
        namespace="default",
        labels={"t2-wp": "gpu-one-pod-per-node"},
    )
    old["spec"]["nodeName"] = "node01"
    doc["items"] = [old]  # only this pod
    result = plan(
        rendered("gpu-one-pod-per-node"),
        nodes_of(),
        parse_pods(doc),
        namespace="default",
    )
    assert not result.feasible
    assert rejection(result, "gpu-one-pod-per-node-0", "node01") == (
        "node01: runs pod default/gpu-one-pod-per-node-0-0, which the pod's podAntiAffinity "
        "t2-wp=gpu-one-pod-per-node per kubernetes.io/hostname excludes"
    )
    # The same pod in another namespace does not count.
    result = plan(
        rendered("gpu-one-pod-per-node"),
        nodes_of(),
        parse_pods(doc),
        namespace="analytics",
    )
    assert result.feasible


def _gang(objects: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    for obj in objects:
        if obj["kind"] == "StatefulSet":
            meta = obj["spec"]["template"]["metadata"]
            meta.setdefault("annotations", {})["scheduling.k8s.io/group-name"] = name
            obj["spec"]["template"]["spec"]["schedulerName"] = "volcano"
    return objects


def test_a_gang_that_does_not_fit() -> None:
    # heterogeneous: 4 pods of 4 cpu, 3 pods of 2 cpu, the job master; three 8-core nodes
    # hold only 3 of the 4-cpu pods (7910m each).
    objects = _gang(rendered("heterogeneous"), "heterogeneous")
    result = plan(objects, nodes_of(only=("node06", "node07", "node08")))
    assert not result.feasible
    (gang,) = result.gangs
    assert (gang.name, gang.pods, gang.min_member, gang.placed) == (
        "heterogeneous",
        8,
        8,
        7,
    )
    assert result.reasons[-1] == (
        "gang heterogeneous: only 7 of the 8 pods that must start together fit at once, so the gang "
        "scheduler starts none of them (heterogeneous-0, heterogeneous-1, heterogeneous-jm)"
    )
    assert not any("Pending" in r for r in result.reasons)
    # The whole gang fits once a fourth node is there.
    assert plan(
        objects, nodes_of(only=("node06", "node07", "node08", "node09"))
    ).feasible


def test_gang_minimum_from_a_pod_group_and_the_gang_switch() -> None:
    objects = _gang(rendered("heterogeneous"), "heterogeneous")
    objects.append(
        {
            "apiVersion": "scheduling.volcano.sh/v1beta1",
            "kind": "PodGroup",
            "metadata": {"name": "heterogeneous"},
            "spec": {"minMember": 7},
        }
    )
    result = plan(objects, nodes_of(only=("node06", "node07", "node08")))
    assert result.gangs[0].min_member == 7
    assert not any(r.startswith("gang ") for r in result.reasons)  # the gang starts
    assert not result.feasible  # but one worker pod stays Pending

    plain = rendered("heterogeneous")
    result = plan(plain, nodes_of(only=("node06", "node07", "node08")), gang=True)
    assert result.gangs[0].name == "job"
    assert result.reasons[-1].startswith("gang job: only 7 of the 8 pods")


def test_statefulsets_competing_for_nodes() -> None:
    # Each group fits the GPU nodes alone (4 x 4 cpu; 25 x 2 cpu); together they
    # need 66 cores of the 63.56 the four nodes have.
    objects = rendered("heterogeneous")
    for name in ("heterogeneous-0", "heterogeneous-1"):
        _set_required(
            objects,
            name,
            [
                {
                    "matchExpressions": [
                        {"key": "extra-hardware", "operator": "In", "values": ["gpu"]}
                    ]
                }
            ],
        )
    statefulset(objects, "heterogeneous-1")["spec"]["replicas"] = 25
    result = plan(objects, nodes_of())
    assert not result.feasible
    assert any(
        "other StatefulSets of the job took the room" in r for r in result.reasons
    )
    assert any("greedy search" in n for n in result.notes)


def test_no_statefulset_is_an_error() -> None:
    objects = [o for o in rendered("wordcount") if o["kind"] != "StatefulSet"]
    with pytest.raises(InputError) as info:
        plan(objects, nodes_of())
    assert "has no StatefulSet" in info.value.lines()[0]
