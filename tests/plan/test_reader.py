"""The typed reader of node and pod lists (t2gen.plan.typedread) agrees with the plain reader.

The plain reader (``json``/YAML into dicts, then ``parse_nodes``/``parse_pods``) is
the contract; the typed one decodes only the fields the filters read. Every test
reads the same bytes both ways and wants the same records, or the same error.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import InputError, T2genError
from t2gen.inputs.kubelist import MAX_LIST_BYTES, plain_document, with_positions
from t2gen.plan import (
    itemreader,
    largelists,
    listproblems,
    parse_nodes,
    parse_pods,
    typedread,
    workload_templates,
)
from t2gen.plan.typedread import (
    node_label_keys,
    read_nodes,
    read_pods,
)
from tests.conftest import ROOT

NODES = json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8"))
PODS = json.loads((ROOT / "examples" / "pods.json").read_text(encoding="utf-8"))


def _outcome(read: Callable[[], object]) -> object:
    """The records read, or the error's class and lines."""
    try:
        return read()
    except T2genError as err:
        return (type(err).__name__, err.lines())
    except (RecursionError, ValueError) as err:  # what the plain reader raises, alike
        return (type(err).__name__, str(err))


def _both(tmp_path: Path, raw: bytes, kind: str) -> tuple[object, object]:
    path = tmp_path / f"{kind}.json"
    path.write_bytes(raw)

    def located(parse: Callable[[], object]) -> object:
        # The file readers locate their problems' JSON paths in the file.
        try:
            return parse()
        except InputError as err:
            raise with_positions(err, str(path)) from None

    if kind == "nodes":
        typed = _outcome(lambda: read_nodes(str(path)))
        plain = _outcome(
            lambda: located(
                lambda: parse_nodes(plain_document(raw, str(path)), str(path))
            )
        )
    else:
        typed = _outcome(lambda: read_pods(str(path)))
        plain = _outcome(
            lambda: located(
                lambda: parse_pods(plain_document(raw, str(path)), str(path))
            )
        )
    return typed, plain


def _realistic(node: dict[str, Any]) -> dict[str, Any]:
    """A node with what kubectl also prints: managedFields, images, conditions."""
    node = copy.deepcopy(node)
    node["metadata"]["managedFields"] = [
        {
            "manager": "kubelet",
            "fieldsV1": {"f:status": {"f:images": {}, "f:allocatable": {"f:cpu": {}}}},
        }
    ]
    node["status"]["images"] = [
        {"names": ["twister2/twister2-k8s:0.8.0"], "sizeBytes": 912345678}
    ]
    node["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    return node


def test_the_example_lists_read_alike(tmp_path: Path) -> None:
    nodes = {**NODES, "items": [_realistic(n) for n in NODES["items"]]}
    typed, plain = _both(tmp_path, json.dumps(nodes, indent=4).encode(), "nodes")
    assert typed == plain and isinstance(typed, tuple) and len(typed) == 10
    typed, plain = _both(tmp_path, json.dumps(PODS).encode(), "pods")
    assert typed == plain and isinstance(typed, tuple) and typed


def _node(change: Callable[[dict[str, Any]], object]) -> bytes:
    doc = copy.deepcopy(NODES)
    change(doc)
    return json.dumps(doc).encode()


def _set(path: str, value: object) -> Callable[[dict[str, Any]], None]:
    """Set ``items[0]``'s field at a dotted path (creating maps on the way)."""

    def change(doc: dict[str, Any]) -> None:
        here = doc["items"][0]
        *parents, last = path.split(".")
        for key in parents:
            here = here.setdefault(key, {})
        here[last] = value

    return change


NODE_CASES: dict[str, bytes] = {
    "metadata not a map": _node(_set("metadata", "node01")),
    "no name": _node(_set("metadata.name", "")),
    "name twice": _node(lambda d: d["items"].append(copy.deepcopy(d["items"][0]))),
    "taint without effect": _node(_set("spec.taints", [{"key": "a"}])),
    "taints a map": _node(_set("spec.taints", {"key": "a"})),
    "no allocatable": _node(lambda d: d["items"][0]["status"].pop("allocatable")),
    "allocatable null": _node(_set("status.allocatable", None)),
    "bad quantity": _node(_set("status.allocatable.cpu", "lots")),
    "negative quantity": _node(_set("status.allocatable.memory", "-1Gi")),
    "bad capacity": _node(_set("status.capacity.memory", "1 GB")),
    "5,000-digit quantity": _node(_set("status.allocatable.cpu", "9" * 5000)),
    "label value a number": _node(_set("metadata.labels.cores", 16)),
    "label value null": _node(_set("metadata.labels.cores", None)),
    "labels a list": _node(_set("metadata.labels", ["a"])),
    "kind null": _node(_set("kind", None)),
    "a Pod among nodes": _node(_set("kind", "Pod")),
    "items not a list": _node(lambda d: d.__setitem__("items", {"a": 1})),
    "no items": _node(lambda d: d.__setitem__("items", [])),
    "a Pod list": json.dumps(PODS).encode(),
    "a single node": json.dumps(NODES["items"][2]).encode(),
    "a list at the top": json.dumps(NODES["items"]).encode(),
    "YAML": b"kind: List\nitems:\n- metadata: {name: a}\n  status: {allocatable: {cpu: 2}}\n",
    "not JSON or YAML": b"{: [",
    "empty": b"",
    "a BOM": b"\xef\xbb\xbf" + json.dumps(NODES).encode(),
    "not UTF-8 where nothing is read": _node(
        _set("metadata.annotations", {"note": "caf\u00e9"})
    ).replace(b"caf\\u00e9", b"caf\xe9"),
    "UTF-8 where nothing is read": _node(
        _set("metadata.annotations", {"note": "caf\u00e9"})
    ).replace(b"caf\\u00e9", "caf\u00e9".encode()),
    "deep nesting where nothing is read": _node(
        _set("metadata.annotations", 0)
    ).replace(
        b'"annotations": 0', b'"annotations": ' + b"[" * 100_000 + b"]" * 100_000
    ),
    "deep nesting in labels": _node(_set("metadata.labels", 0)).replace(
        b'"labels": 0', b'"labels": ' + b"[" * 100_000 + b"]" * 100_000
    ),
    "a 5,000-digit integer": _node(_set("status.allocatable.pods", 0)).replace(
        b'"pods": 0', b'"pods": ' + b"7" * 5000
    ),
}


@pytest.mark.parametrize("case", NODE_CASES, ids=list(NODE_CASES))
def test_node_lists_read_alike(case: str, tmp_path: Path) -> None:
    typed, plain = _both(tmp_path, NODE_CASES[case], "nodes")
    assert typed == plain


def _pod(change: Callable[[dict[str, Any]], object]) -> bytes:
    doc = copy.deepcopy(PODS)
    change(doc)
    return json.dumps(doc).encode()


POD_CASES: dict[str, bytes] = {
    "bad request": _pod(
        lambda d: d["items"][0]["spec"]["containers"][0]["resources"].update(
            requests={"cpu": "x"}
        )
    ),
    "a container not a map": _pod(
        lambda d: d["items"][0]["spec"]["containers"].append("sidecar")
    ),
    "init containers, a sidecar, overhead": _pod(
        lambda d: d["items"][0]["spec"].update(
            initContainers=[
                {"name": "a", "resources": {"requests": {"cpu": "2"}}},
                {
                    "name": "b",
                    "restartPolicy": "Always",
                    "resources": {"limits": {"cpu": "1", "memory": "1Gi"}},
                },
            ],
            overhead={"cpu": "250m"},
            resources={"requests": {"memory": "3Gi"}},
        )
    ),
    "anti-affinity": _pod(
        lambda d: d["items"][0]["spec"].update(
            affinity={
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {"app": "twister2"}},
                            "topologyKey": "kubernetes.io/hostname",
                        }
                    ]
                }
            }
        )
    ),
    "finished and unbound pods": _pod(
        lambda d: (
            d["items"][0]["status"].update(phase="Succeeded"),
            d["items"][1]["spec"].pop("nodeName"),
        )
    ),
    "no spec, no metadata": _pod(
        lambda d: (d["items"][0].pop("spec"), d["items"][1].pop("metadata"))
    ),
    "a Node among pods": _pod(lambda d: d["items"][0].update(kind="Node")),
    "a node list": json.dumps(NODES).encode(),
    "no items": _pod(lambda d: d.__setitem__("items", [])),
}


@pytest.mark.parametrize("case", POD_CASES, ids=list(POD_CASES))
def test_pod_lists_read_alike(case: str, tmp_path: Path) -> None:
    typed, plain = _both(tmp_path, POD_CASES[case], "pods")
    assert typed == plain


def test_only_the_labels_the_job_selects_on_are_kept(tmp_path: Path) -> None:
    objects = [
        {
            "kind": "StatefulSet",
            "metadata": {"name": "w"},
            "spec": {
                "template": {
                    "spec": {
                        "nodeSelector": {"nvidia.com/gpu.present": "true"},
                        "affinity": {
                            "nodeAffinity": {
                                "requiredDuringSchedulingIgnoredDuringExecution": {
                                    "nodeSelectorTerms": [
                                        {
                                            "matchExpressions": [
                                                {
                                                    "key": "extra-hardware",
                                                    "operator": "Exists",
                                                }
                                            ],
                                            "matchFields": [
                                                {
                                                    "key": "metadata.name",
                                                    "operator": "NotIn",
                                                    "values": ["node05"],
                                                }
                                            ],
                                        }
                                    ]
                                }
                            }
                        },
                    }
                }
            },
        }
    ]
    keys = node_label_keys(workload_templates(objects))
    assert keys == ("extra-hardware", "nvidia.com/gpu.present")
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(NODES), encoding="utf-8")
    everything = read_nodes(str(path))
    kept = read_nodes(str(path), keys)
    assert [n.name for n in kept] == [n.name for n in everything]
    for full, few in zip(everything, kept, strict=True):
        assert few.labels == {k: v for k, v in full.labels.items() if k in keys}
        assert (few.allocatable, few.capacity, few.taints) == (
            full.allocatable,
            full.capacity,
            full.taints,
        )


def test_the_switch_sends_every_list_to_the_plain_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(NODES), encoding="utf-8")
    calls: list[bytes] = []
    real = typedread.plain_document

    def spy(raw: bytes, source: str) -> object:
        calls.append(raw)
        return real(raw, source)

    monkeypatch.setattr(typedread, "plain_document", spy)
    read_nodes(str(path))
    assert calls == []
    monkeypatch.setenv("T2GEN_NO_TYPED_READER", "1")
    assert read_nodes(str(path)) == parse_nodes(NODES, str(path))
    assert len(calls) == 1


@pytest.mark.parametrize("reader", [typedread.read_nodes, typedread.read_pods])
def test_a_list_over_the_size_limit_is_refused_before_it_is_read(
    reader: Callable[[str], object], tmp_path: Path
) -> None:
    """A sparse file one byte over MAX_LIST_BYTES: refused from its size, in no time or memory."""
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_LIST_BYTES + 1)
    with pytest.raises(T2genError) as raised:
        reader(str(path))
    assert f"larger than {MAX_LIST_BYTES // 1024} KiB" in str(raised.value)
    assert str(path) in str(raised.value)


# A list over PLAIN_MAX_BYTES is read item by item (typedread's module docstring). These
# read otherwise there, by design: a large list must be JSON (YAML is refused with the
# decoder's own message, at its line:col), JSON nested past the decoder's depth is one
# problem, and a problem the YAML reader places inside one item is placed at the item.
_LARGE_DIFFERS = {
    "YAML",
    "not JSON or YAML",
    "deep nesting where nothing is read",
    "deep nesting in labels",
    "a 5,000-digit integer",
}


@pytest.mark.parametrize(
    ("kind", "case"),
    [("nodes", case) for case in NODE_CASES] + [("pods", case) for case in POD_CASES],
)
def test_large_lists_read_alike_item_by_item(
    kind: str, case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every case read by the item-by-item reader of large lists (the size that sends a
    list there set to 0): the same records, or the plain reader's own messages, at the
    same places; the cases of _LARGE_DIFFERS give one located problem instead."""
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    raw = (NODE_CASES if kind == "nodes" else POD_CASES)[case]
    typed, plain = _both(tmp_path, raw, kind)
    if case in _LARGE_DIFFERS:
        assert isinstance(typed, tuple) and typed[0] == "InputError", typed
        assert plain != typed
        return
    assert typed == plain


def _tiny_items(path: Path, count: int) -> Path:
    path.write_text('{"kind": "List", "items": [' + ",".join(["{}"] * count) + "]}")
    return path


@pytest.mark.parametrize(
    "reader",
    [lambda path: typedread._read_nodes(path, None), typedread._read_pods],
    ids=["nodes", "pods"],
)
def test_a_large_list_of_more_items_than_the_bound_builds_none_past_it(
    reader: Callable[[str], object], tmp_path: Path
) -> None:
    """A 3 MB list of 1,000,000 empty items (over PLAIN_MAX_BYTES, so counted first) is
    refused at items[MAX_LIST_ITEMS], and no item past the bound is ever built: before,
    a 2 MB list of 700,000 took 31 s and 632 MB of `plan`; 40,000,000 items, 1.1 s.
    (Measured without placing the problem in the file, which reads at most 250,000
    events on the error path: ``with_positions``.)"""
    import tracemalloc

    from t2gen.inputs.kubelist import MAX_LIST_ITEMS, PLAIN_MAX_BYTES

    path = _tiny_items(tmp_path / "tiny.json", 1_000_000)
    assert path.stat().st_size > PLAIN_MAX_BYTES
    largelists._counted_decoder()  # built once per process; not what this measures
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as raised:
            reader(str(path))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (problem,) = raised.value.problems
    assert problem.json_path == f"items[{MAX_LIST_ITEMS}]"
    assert f"holds more than {MAX_LIST_ITEMS:,}" in problem.message
    # 20,001 raw views of the file and their slots: about 3 MB; 1,000,000 records: 70 MB
    assert peak < 8 * 1024 * 1024, peak


@pytest.mark.parametrize("reader", [typedread.read_nodes, typedread.read_pods])
def test_a_small_list_of_more_items_than_the_bound_is_refused_alike(
    reader: Callable[[str], object], tmp_path: Path
) -> None:
    """Under PLAIN_MAX_BYTES the plain reader judges, with the same bound and message."""
    from t2gen.inputs.kubelist import MAX_LIST_ITEMS

    path = _tiny_items(tmp_path / "small.json", MAX_LIST_ITEMS + 1)
    with pytest.raises(InputError) as raised:
        reader(str(path))
    (problem,) = raised.value.problems
    assert problem.json_path == f"items[{MAX_LIST_ITEMS}]"
    assert f"holds more than {MAX_LIST_ITEMS:,}" in problem.message
    # At the bound: judged item by item, not refused whole.
    _tiny_items(path, MAX_LIST_ITEMS)
    try:
        found = reader(str(path))
    except InputError as err:  # nodes without names
        assert "holds more than" not in str(err)
    else:
        assert found == ()  # pods bound to no node hold nothing


def test_an_item_larger_than_the_api_server_stores_is_refused(tmp_path: Path) -> None:
    """One node of 1.6 MiB (a label value of that size) in a large list: refused at
    its path before it is decoded; etcd stores no object over 1.5 MiB."""
    from t2gen.inputs.kubelist import MAX_OBJECT_BYTES

    nodes = copy.deepcopy(NODES)
    nodes["items"][3]["metadata"]["annotations"] = {"a": "x" * (MAX_OBJECT_BYTES + 1)}
    nodes["items"][5]["metadata"]["annotations"] = {"a": "x" * (MAX_OBJECT_BYTES // 2)}
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    (problem,) = raised.value.problems
    assert problem.json_path == "items[3]" and problem.line > 0
    assert "stores no object over 1536 KiB" in problem.message


def test_a_large_list_keeps_at_most_max_kept_values(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taints, resource amounts and labels are counted as items are read (80 nodes of
    38,000 taints each, within the byte bounds, took 26 s and 971 MB before)."""
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    monkeypatch.setattr(itemreader, "MAX_KEPT_VALUES", 40)
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(NODES))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    (problem,) = raised.value.problems
    assert "more than 40 taints, resource amounts and labels" in problem.message
    assert problem.json_path.startswith("items[") and problem.line > 0
    monkeypatch.setattr(itemreader, "MAX_KEPT_VALUES", 10_000)
    assert len(typedread.read_nodes(str(path))) == len(NODES["items"])


def test_a_large_list_that_is_not_json_is_refused_at_the_decoders_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    path = tmp_path / "nodes.json"
    path.write_text('{\n  "kind": "List",\n  "items": [1,, 2]\n}\n')
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    (problem,) = raised.value.problems
    assert (problem.line, problem.col) == (3, 15)
    assert problem.message.startswith("not JSON (JSON is malformed: invalid character")


def test_a_large_list_not_utf8_is_refused_as_the_plain_reader_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = b'{"kind": "List", "items": [{"metadata": {"name": "\xff"}}]}'
    path = tmp_path / "nodes.json"
    path.write_bytes(raw)
    with pytest.raises(T2genError) as plain:
        typedread.read_nodes(str(path))
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    with pytest.raises(T2genError) as large:
        typedread.read_nodes(str(path))
    assert large.value.lines() == plain.value.lines()
    assert "is not UTF-8 (byte 50)" in str(large.value)


@pytest.mark.parametrize("large", [True, False], ids=["item by item", "whole"])
def test_at_most_max_reported_problems_are_reported(
    large: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each problem is placed in the file and sorted; past MAX_REPORTED_PROBLEMS the
    items with problems are counted in one last problem, at the first of them, alike on
    both paths (20,000 nodes without allocatable took 10x a render read whole, 16x item
    by item; 100 nodes of 1,900 malformed taints each, 22x)."""
    if large:
        monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    monkeypatch.setattr(itemreader, "MAX_REPORTED_PROBLEMS", 3)
    monkeypatch.setattr(listproblems, "MAX_REPORTED_PROBLEMS", 3)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(NODES))
    for switch in ("", "1"):  # well-formed items are never counted, read typed or plain
        monkeypatch.setenv("T2GEN_NO_TYPED_READER", switch)
        assert len(typedread.read_nodes(str(good))) == len(NODES["items"])
    monkeypatch.setenv("T2GEN_NO_TYPED_READER", "")
    nodes = copy.deepcopy(NODES)
    for item in nodes["items"]:
        del item["status"]["allocatable"]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    problems = raised.value.problems
    assert [p.json_path for p in problems] == [
        "items[0].status.allocatable",
        "items[1].status.allocatable",
        "items[2].status.allocatable",
        "items[3]",
    ], problems
    assert problems[-1].message == (
        f"and {len(nodes['items']) - 3:,} more Nodes from this one on that t2gen "
        "cannot read, not each reported (t2gen reports at most 3 problems)"
    )
    assert all(p.line > 0 for p in problems)
    # One node of five malformed taints: three of its problems, then the rest counted.
    nodes = copy.deepcopy(NODES)
    nodes["items"][0]["spec"]["taints"] = [{"key": "k"}] * 5
    nodes["items"][1]["spec"]["taints"] = [{"key": "k"}]
    path.write_text(json.dumps(nodes))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    assert [p.json_path for p in raised.value.problems] == [
        "items[0].spec.taints[0]",
        "items[0].spec.taints[1]",
        "items[0].spec.taints[2]",
        "items[1]",
    ]


@pytest.mark.parametrize("switch", ["", "1"], ids=["typed", "plain"])
def test_items_the_typed_records_refuse_are_weighed_too(
    switch: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A node the typed records refuse (a Ready condition of status "Maybe") went to the
    plain reader unweighed: 71 nodes of 41,666 taints each were accepted at 55x and
    766 MB. Every item counts against MAX_KEPT_VALUES, read typed or plain."""
    monkeypatch.setenv("T2GEN_NO_TYPED_READER", switch)
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    monkeypatch.setattr(itemreader, "MAX_KEPT_VALUES", 100)
    nodes = copy.deepcopy(NODES)
    for item in nodes["items"]:
        item["status"]["conditions"] = [{"type": "Ready", "status": "Maybe"}]
        item["spec"]["taints"] = [
            {"key": f"k{i}", "effect": "NoSchedule"} for i in range(40)
        ]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    total, passing = 0, None
    for index, item in enumerate(nodes["items"]):
        total += itemreader.node_weight(item)
        if total > 100 and passing is None:
            passing = index
    (problem,) = raised.value.problems
    assert problem.json_path == f"items[{passing}]"
    assert "more than 100 taints" in problem.message


def test_malformed_items_are_located_problems_on_every_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Items of no map, pods whose containers, resources or anti-affinity are of
    another type than the API's: a located problem or nothing, never a traceback (they
    raised AttributeError or TypeError, and on the large path a BufferError after)."""
    pods = {
        "kind": "List",
        "items": [
            {"kind": "Pod", "metadata": {"name": "a"}, "spec": {"nodeName": "n", "containers": 5}},
            {"kind": "Pod", "metadata": {"name": "b"},
             "spec": {"nodeName": "n", "containers": [{"name": "c", "resources": [1]}]}},
            {"kind": "Pod", "metadata": {"name": "c"}, "spec": {"nodeName": "n", "containers": [],
             "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": 5}}}},
            {"kind": "Pod", "metadata": {"name": "d"}, "spec": {"nodeName": "n", "containers": [],
             "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                 {"labelSelector": {"matchExpressions": 5}, "topologyKey": "t"}]}}}},
        ],
    }  # fmt: skip
    nodes = {"kind": "List", "items": ["hello", 5, [1, 2], None]}
    pods_path, nodes_path = tmp_path / "pods.json", tmp_path / "nodes.json"
    pods_path.write_text(json.dumps(pods))
    nodes_path.write_text(json.dumps(nodes))
    for large in (0, typedread.PLAIN_MAX_BYTES):
        monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", large)
        for switch in ("", "1"):
            monkeypatch.setenv("T2GEN_NO_TYPED_READER", switch)
            with pytest.raises(InputError) as raised:
                typedread.read_pods(str(pods_path))
            assert [p.json_path for p in raised.value.problems] == [
                "items[0].spec",
                "items[1].spec",
            ], (large, switch)
            with pytest.raises(InputError) as raised:
                typedread.read_nodes(str(nodes_path))
            assert [p.json_path for p in raised.value.problems] == [
                f"items[{i}]" for i in range(4)
            ], (large, switch)
            assert all(
                "must be a Node (a map)" in p.message for p in raised.value.problems
            )


def test_a_large_list_reports_a_duplicate_name_beside_other_problems(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As parse_nodes does: the large path reported only the other problem."""
    nodes = copy.deepcopy(NODES)
    nodes["items"][1]["metadata"]["name"] = nodes["items"][0]["metadata"]["name"]
    del nodes["items"][3]["status"]["allocatable"]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes))
    outcomes = []
    for large in (False, True):
        monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0 if large else 1 << 21)
        with pytest.raises(InputError) as raised:
            typedread.read_nodes(str(path))
        outcomes.append(raised.value.lines())
    assert outcomes[0] == outcomes[1]
    assert [line.split(": ")[1] for line in outcomes[0]] == [
        "items[1].metadata.name",
        "items[3].status.allocatable",
    ]


def test_an_item_placed_in_its_own_text_is_placed_at_the_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The YAML reader places a number of 5,000 digits at a line and column of the
    item's own text, which is not the file's: it was printed at that column of the file."""
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    path = tmp_path / "nodes.json"
    path.write_bytes(NODE_CASES["a 5,000-digit integer"])
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    (problem,) = raised.value.problems
    assert problem.json_path.startswith("items[") and "4,300 digits" in problem.message
    text = path.read_text()
    line_start = sum(len(line) + 1 for line in text.split("\n")[: problem.line - 1])
    assert text[line_start + problem.col - 1] == "{"  # the item's own first character


def test_a_single_node_over_the_item_bound_and_a_kind_of_any_size(
    tmp_path: Path,
) -> None:
    """A document of one Node over 2 MiB is one item: over 1.5 MiB it is refused; a
    `kind` of 1.6 MB is no name (read as a map without `kind`), not decoded."""
    from t2gen.inputs.kubelist import MAX_OBJECT_BYTES

    node = copy.deepcopy(NODES["items"][0])
    node["kind"] = "Node"
    node["metadata"]["annotations"] = {"a": "x" * (MAX_OBJECT_BYTES + (1 << 20))}
    path = tmp_path / "node.json"
    path.write_text(json.dumps(node))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    assert "stores no object over 1536 KiB" in "\n".join(raised.value.lines())
    path.write_text(json.dumps({"kind": "x" * (MAX_OBJECT_BYTES + (1 << 20))}))
    with pytest.raises(InputError) as raised:
        typedread.read_nodes(str(path))
    assert "is a map without `kind`" in "\n".join(raised.value.lines())


def test_a_pod_weighs_its_labels() -> None:
    pod = {"metadata": {"labels": {"a": "b", "c": "d"}}, "spec": {"containers": []}}
    assert itemreader.pod_weight(pod) == 3


def test_a_large_list_cut_short_is_refused_without_building_it(tmp_path: Path) -> None:
    """A 3 MB list whose last bytes are cut (an interrupted `kubectl > file`): one
    located problem from the decoder's own message; decoding it whole to find the
    message took 315 MB at 96 MiB."""
    import tracemalloc

    path = _tiny_items(tmp_path / "cut.json", 1_000_000)
    with path.open("r+b") as handle:
        handle.truncate(path.stat().st_size - 2)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as raised:
            typedread._read_nodes(str(path), None)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    (problem,) = raised.value.problems
    assert problem.message.startswith("not JSON (Input data was truncated)")
    assert peak < 8 * 1024 * 1024, peak


def test_a_large_pod_list_weighs_affinity_and_resources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pod keeps its anti-affinity terms and its containers' requests: every value of
    them counts against MAX_KEPT_VALUES, as read typed or plain."""
    monkeypatch.setattr(typedread, "PLAIN_MAX_BYTES", 0)
    pod = {
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "d"},
        "spec": {
            "nodeName": "n",
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
            "affinity": {
                "podAntiAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": [
                        {
                            "labelSelector": {"matchLabels": {f"k{i}": "v"}},
                            "topologyKey": "kubernetes.io/hostname",
                        }
                        for i in range(50)
                    ]
                }
            },
        },
    }
    path = tmp_path / "pods.json"
    path.write_text(json.dumps({"kind": "List", "items": [pod] * 4}))
    assert len(typedread.read_pods(str(path))) == 4
    monkeypatch.setattr(itemreader, "MAX_KEPT_VALUES", 500)  # 4 pods of some 260 values
    for switch in ("", "1"):
        monkeypatch.setenv("T2GEN_NO_TYPED_READER", switch)
        with pytest.raises(InputError) as raised:
            typedread.read_pods(str(path))
        (problem,) = raised.value.problems
        assert problem.json_path == "items[1]", switch


def test_what_an_item_keeps_weighs_alike_typed_and_plain() -> None:
    """MAX_KEPT_VALUES judges a list alike with or without the typed records
    (`T2GEN_NO_TYPED_READER=1` read the 2,500 realistic pods of bench/ablation.py
    as 200,000 values past the bound: the plain map counted every container field)."""
    from t2gen.plan.typedpods import POD_ITEM_DECODER
    from t2gen.plan.typedrecords import node_item_decoder

    nodes = [_realistic(n) for n in NODES["items"]]
    for node in nodes:
        raw = json.dumps(node).encode()
        for keys in (None, ("kubernetes.io/hostname",)):
            typed = node_item_decoder(keys).decode(raw)
            assert itemreader.node_weight(typed) == itemreader.node_weight(node) > 1
    for pod in copy.deepcopy(PODS["items"]):
        for container in pod["spec"].get("containers", []):  # what kubectl also prints
            container["env"] = [{"name": f"E{i}", "value": "v"} for i in range(20)]
            container["ports"] = [{"containerPort": 8080, "protocol": "TCP"}]
            container["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
        pod["metadata"]["managedFields"] = [{"manager": "kubelet", "fieldsV1": {}}]
        raw = json.dumps(pod).encode()
        typed = POD_ITEM_DECODER.decode(raw)
        assert itemreader.pod_weight(typed) == itemreader.pod_weight(pod) > 1
