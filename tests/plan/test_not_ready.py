"""A node whose Ready condition is not True is not schedulable (issue 34, item 6).

kube-scheduler reads no node condition; the node lifecycle controller taints a
NotReady node ``node.kubernetes.io/not-ready:NoSchedule`` (``unreachable`` for
Unknown or a node that never posted its status) within seconds. A node list
taken in those seconds shows the condition without the taint: ``plan`` counts
the node as tainted already, and says so with the node's name.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t2gen.errors import T2genError
from t2gen.inputs.kubelist import plain_document
from t2gen.plan import format_plan, parse_nodes, plan
from t2gen.plan.typedread import read_nodes
from tests.conftest import ROOT
from tests.plan.test_engine import nodes_doc, rendered


def _down() -> dict[str, object]:
    doc = nodes_doc()
    items = {n["metadata"]["name"]: n for n in doc["items"]}
    items["node06"]["status"]["conditions"] = [
        {"type": "MemoryPressure", "status": "False"},
        {"type": "Ready", "status": "False", "reason": "KubeletNotReady"},
    ]
    items["node07"]["status"]["conditions"] = [{"type": "Ready", "status": "Unknown"}]
    del items["node08"]["status"]["conditions"]
    return doc


def test_not_ready_nodes_are_rejected_by_name() -> None:
    nodes = parse_nodes(_down(), "nodes.json")
    ready = {n.name: n.ready for n in nodes}
    assert (ready["node06"], ready["node07"], ready["node08"], ready["node09"]) == (
        "False",
        "Unknown",
        "",
        "True",
    )
    result = plan(rendered("mixed-cpu-gpu"), nodes)
    worker = next(g for g in result.groups if g.statefulset == "mixed-cpu-gpu-0")
    rejected = {r.node: r for r in worker.rejections}
    assert rejected["node06"].filter == "TaintToleration"
    assert rejected["node06"].message.startswith(
        "NotReady (its Ready condition is False): the node lifecycle controller taints it "
        "node.kubernetes.io/not-ready:NoSchedule"
    )
    assert "node.kubernetes.io/unreachable:NoSchedule" in rejected["node07"].message
    assert "its Ready condition is missing" in rejected["node08"].message
    assert worker.passing == ()  # node09 needs generation 5: nothing else is left
    text = format_plan(result)
    assert (
        "note: not schedulable, not Ready: node06 (Ready False), node07 (Ready Unknown), "
        "node08 (no Ready condition)"
    ) in text
    assert text.startswith("infeasible")


def test_a_pod_that_tolerates_the_taint_may_go_there() -> None:
    objects = rendered("mixed-cpu-gpu")
    for obj in objects:
        if obj.get("kind") == "StatefulSet":
            obj["spec"]["template"]["spec"].setdefault("tolerations", []).append(
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists"}
            )
    result = plan(objects, parse_nodes(_down(), "nodes.json"))
    worker = next(g for g in result.groups if g.statefulset == "mixed-cpu-gpu-0")
    assert "node06" in worker.passing and "node07" not in worker.passing


def test_a_node_already_tainted_is_reported_by_its_taint() -> None:
    doc = _down()
    node = next(n for n in doc["items"] if n["metadata"]["name"] == "node06")
    node["spec"]["taints"] = [
        {"key": "node.kubernetes.io/not-ready", "effect": "NoSchedule"}
    ]
    result = plan(rendered("mixed-cpu-gpu"), parse_nodes(doc, "nodes.json"))
    worker = next(g for g in result.groups if g.statefulset == "mixed-cpu-gpu-0")
    rejected = {r.node: r.message for r in worker.rejections}
    assert (
        rejected["node06"]
        == "taint node.kubernetes.io/not-ready:NoSchedule not tolerated"
    )


def test_the_typed_reader_reads_the_condition_alike(tmp_path: Path) -> None:
    raw = json.dumps(_down()).encode()
    path = tmp_path / "nodes.json"
    path.write_bytes(raw)
    assert read_nodes(str(path)) == parse_nodes(
        plain_document(raw, str(path)), str(path)
    )
    doc = _down()
    doc["items"][0]["status"]["conditions"] = {"type": "Ready"}  # type: ignore[index]
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(T2genError) as info:
        read_nodes(str(path))
    assert (
        "items[0].status.conditions: node node01: conditions must be a list"
        in "\n".join(info.value.lines())
    )


@pytest.mark.parametrize(
    "conditions",
    [
        [{"type": "Ready", "status": "True"}, {"type": "KernelDeadlock"}],
        [{"type": "Ready"}],
        [{"type": "Ready", "status": None}],
        [{"type": "Ready", "status": "False"}, {"type": "Ready", "status": "True"}],
        [],
        None,
        [{"type": 7, "status": "True"}],
        [{"status": "True"}],
        [{"type": "Ready", "status": 1}],
        [{"type": "Ready", "status": "Bogus"}],  # no API value: the plain reader's
        ["Ready"],
    ],
)
def test_the_typed_reader_judges_each_condition_shape_as_the_plain_one(
    conditions: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The typed reader reads the conditions without a map per condition (issue 41: 20,000
    ``ready_status`` calls at 20,000 nodes), and says what the plain reader says."""
    import t2gen.plan.nodes as nodes_module

    doc = _down()
    doc["items"][0]["status"]["conditions"] = conditions  # type: ignore[index]
    raw = json.dumps(doc).encode()
    path = tmp_path / "nodes.json"
    path.write_bytes(raw)
    calls = []
    plain = nodes_module.ready_status

    def counted(value: object) -> str | None:
        calls.append(value)
        return plain(value)

    monkeypatch.setattr(nodes_module, "ready_status", counted)
    try:
        expected: object = parse_nodes(plain_document(raw, str(path)), str(path))
    except T2genError as err:
        expected = [line.split(": ", 1)[1] for line in err.lines()]
    calls.clear()
    try:
        got: object = read_nodes(str(path))
    except T2genError as err:  # read_nodes adds the line:col
        got = [line.split(": ", 1)[1] for line in err.lines()]
    assert got == expected
    listed = conditions if isinstance(conditions, list) else []
    statuses = [c.get("status") for c in listed if isinstance(c, dict)]
    if isinstance(got, tuple) and set(statuses) <= {"True", "False", "Unknown", None}:
        assert calls == []  # the typed path read them all, no map per condition


@pytest.mark.parametrize("down", ["node01", "node09"])
def test_one_not_ready_node_among_alike_nodes_is_judged_alone(
    down: str, tmp_path: Path
) -> None:
    # Nodes alike in cordon, taints and the labels the job selects on share one
    # filter verdict; the Ready condition is part of what makes them alike, or the
    # first node judged decides for every node of its kind (NotReady for all of
    # them, or for none). wordcount selects on no label, so as `t2gen plan` reads
    # examples/nodes.json (only the labels the job selects on) most nodes are alike.
    doc = json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8"))
    items = {n["metadata"]["name"]: n for n in doc["items"]}
    items[down]["status"]["conditions"] = [{"type": "Ready", "status": "False"}]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    nodes = read_nodes(str(path), label_keys=())
    alike = [
        n.name for n in nodes if n.name != down and not n.taints and not n.unschedulable
    ]
    assert len(alike) >= 6
    result = plan(rendered("wordcount"), nodes)
    for group in result.groups:
        rejected = {r.node for r in group.rejections}
        assert down in rejected and down not in group.passing, group.statefulset
        assert not rejected & set(alike), (group.statefulset, rejected & set(alike))
