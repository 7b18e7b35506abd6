"""Work on inputs within their documented limits stays bounded (issue 41): counted, never timed.

Each test builds a scaled-down copy of a hostile input of ``bench/kinds.py``
and counts the work t2gen does on it (comparisons, problems, values read), so
that the cause of a budget miss cannot come back unnoticed; ``make bench``
measures the full-size inputs against the budget.
"""

from __future__ import annotations

import json
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from t2gen._generated import twister2_job_pb2 as pb
from t2gen.errors import InputError, Problem, SchemaError
from t2gen.inputs.jobfile import read_job
from t2gen.inputs.yaml.source import MAX_ENTRIES
from t2gen.package.agree import with_package
from t2gen.pipeline.load import validate
from tests.package.cases import ROOT


def test_many_problems_sort_without_comparing_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """100,000 problems once took 3 million record comparisons (80 s under a profiler)."""
    compared = 0
    less = Problem.__lt__

    def counting(self: Problem, other: object) -> bool:
        nonlocal compared
        compared += 1
        return bool(less(self, other))

    monkeypatch.setattr(Problem, "__lt__", counting)
    problems = [Problem("f", 1000 - i, 1, f"m{i}") for i in range(1000)]
    error = InputError(problems=problems)
    assert compared == 0
    assert [p.line for p in error.problems] == list(range(1, 1001))


def _package(tmp_path: Path, entries: int) -> Path:
    message = pb.Job(job_name="wordcount", job_id="wordcount")
    message.job_format.job_file = "wordcount.jar"
    for i in range(entries):
        message.config.config_byte_map[f"k{i}"] = b"\x03\x01\x02"
    job = tmp_path / "wordcount.job"
    job.write_bytes(message.SerializeToString())
    jar = tmp_path / "wordcount.jar"
    jar.write_bytes(b"")
    package = tmp_path / "p.tar.gz"
    with tarfile.open(package, "w:gz") as tar:
        tar.add(job, arcname="twister2-job/wordcount.job")
        tar.add(jar, arcname="twister2-job/wordcount.jar")
    return package


def test_a_package_with_more_job_config_than_a_job_file_holds_is_one_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``.job`` of 100,000 JobConfig entries was refused with 100,000 problems, after 49x a render."""
    monkeypatch.chdir(ROOT)
    package = _package(tmp_path, MAX_ENTRIES + 1)
    doc = read_job("examples/wordcount.yaml")
    with pytest.raises(SchemaError) as err:
        with_package([(validate(doc), doc)], str(package))
    about = [p for p in err.value.problems if "jobConfig" in p.message]
    assert len(about) == 1, [str(p) for p in about[:3]]
    assert f"sets {MAX_ENTRIES + 1:,} jobConfig entries" in about[0].message
    assert (about[0].line, about[0].json_path) == (17, "spec.jobConfig")


def test_locating_a_problem_reads_no_further_than_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """10,000 nodes of one name: every problem was located by reading the whole list."""
    import t2gen.inputs.locate as locate

    read = 0
    events = locate._events

    def counting(text: str, budget: int) -> Iterator[Any]:
        nonlocal read
        for event in events(text, budget):
            read += 1
            yield event

    monkeypatch.setattr(locate, "_events", counting)
    items = [{"metadata": {"name": "node"}, "spec": {}} for _ in range(10_000)]
    text = json.dumps({"kind": "List", "items": items})
    found = locate.locate_all(text, ["items[1].metadata.name"])
    line, col = found["items[1].metadata.name"]
    assert line == 1
    assert text.index('"node"', text.index('"node"') + 1) == col - 1
    assert read < 50


def test_locating_stops_within_its_event_budget() -> None:
    """2,000,000 events were 33 plain renders on the error path alone; the bound is now 250,000."""
    from t2gen.inputs.locate import MAX_EVENTS, locate

    items = [{"a": 1}] * (MAX_EVENTS // 4)
    text = json.dumps({"items": items})
    assert locate(text, f"items[{MAX_EVENTS // 4 - 1}].a") is None
    assert locate(text, f"items[{MAX_EVENTS // 8}].a") is not None


def test_tainted_nodes_are_grouped_without_hashing_their_taints_per_template(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """20,000 nodes with four taints each: 320,000 record hashes and comparisons, 11.7x a render."""
    import copy

    import yaml

    from t2gen.plan import parse_nodes, plan
    from t2gen.plan.filters.taints import Taint

    doc = json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8"))
    node = doc["items"][0]
    node["spec"]["taints"] = [
        {"key": f"dedicated-{k}", "value": "batch", "effect": "NoSchedule"}
        for k in range(4)
    ]
    items = []
    for i in range(200):
        item = copy.deepcopy(node)
        item["metadata"]["name"] = f"node-{i}"
        items.append(item)
    nodes = parse_nodes({**doc, "items": items}, "nodes.json")
    text = (ROOT / "tests" / "golden" / "wordcount" / "expected.stdout").read_text()
    objects = [d for d in yaml.safe_load_all(text) if d]
    used = 0
    hashed, equal = Taint.__hash__, Taint.__eq__

    def counting_hash(self: Taint) -> int:
        nonlocal used
        used += 1
        return hashed(self)

    def counting_eq(self: Taint, other: object) -> bool:
        nonlocal used
        used += 1
        return bool(equal(self, other))

    monkeypatch.setattr(Taint, "__hash__", counting_hash)
    monkeypatch.setattr(Taint, "__eq__", counting_eq)
    result = plan(objects, nodes)
    assert not result.feasible
    assert used == 0


def test_limit_ranges_hold_at_most_max_limits_in_all() -> None:
    """100,000 limits (in one LimitRange or spread over several) cost 30 plain renders."""
    from t2gen.plan.quotaread import MAX_LIMITS, parse_quota_objects

    def limit_range(name: str, count: int) -> dict[str, Any]:
        limits = [{"type": "Container", "max": {"cpu": "4"}}] * count
        return {
            "kind": "LimitRange",
            "metadata": {"name": name, "namespace": "twister2"},
            "spec": {"limits": limits},
        }

    half = MAX_LIMITS // 2
    read = parse_quota_objects(
        {"kind": "List", "items": [limit_range("a", MAX_LIMITS)]}
    )
    assert len(read.limit_ranges[0].items) == MAX_LIMITS
    document = {
        "kind": "List",
        "items": [limit_range("a", half), limit_range("b", half + 1)],
    }
    with pytest.raises(InputError) as err:
        parse_quota_objects(document)
    (problem,) = err.value.problems
    assert problem.json_path == "items[1].spec.limits"
    assert f"t2gen reads at most {MAX_LIMITS:,}" in problem.message


def test_a_cluster_state_is_read_up_to_16_mib(tmp_path: Path) -> None:
    """A 62 MB state of 100,000 pods took 433 MB and 12 plain renders: the bound was 512 MiB."""
    from t2gen.errors import ConfigError
    from t2gen.inputs.cluster import read_cluster

    state = tmp_path / "state.json"
    with state.open("wb") as file:
        file.truncate(16 * 2**20 + 1)  # sparse: refused by its size, never read
    with pytest.raises(ConfigError, match="larger than 16384 KiB"):
        read_cluster(str(state))


def _frames(error: BaseException | None, seen: set[int]) -> set[str]:
    """The functions of every frame an error keeps alive, through its context and locals."""
    names: set[str] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        tb = error.__traceback__
        while tb is not None:
            names.add(tb.tb_frame.f_code.co_name)
            for value in tb.tb_frame.f_locals.values():
                if isinstance(value, BaseException):
                    names |= _frames(value, seen)
            tb = tb.tb_next
        error = error.__context__
    return names


def test_a_refused_state_is_located_without_its_parsed_objects_kept(
    tmp_path: Path,
) -> None:
    """The parsed document (seven times the file) stayed alive while the file was read again."""
    from t2gen.inputs.cluster import read_cluster

    items = [{"kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(3)]
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"kind": "List", "items": [*items, {"kind": "Pod"}]}))
    with pytest.raises(InputError) as err:
        read_cluster(str(state))
    assert err.value.problems[0].json_path == "items[3]"
    assert "parse_objects" not in _frames(err.value, set())


def _data(entries: int) -> str:
    """A ConfigMap of ``entries`` one-character data entries: ``2 * entries + 7`` values."""
    data = "".join(f"  k{i}: v\n" for i in range(entries))
    return f"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n{data}"


def _refusal(paths: list[str]) -> str:
    """What ``t2gen check`` says when it refuses ``paths``: every line of its error."""
    from t2gen.checks.manifests import check_manifests
    from t2gen.errors import T2genError

    with pytest.raises(T2genError) as err:
        check_manifests(paths)
    return "\n".join(err.value.lines())


def test_a_manifest_stream_holds_at_most_300_000_values(tmp_path: Path) -> None:
    """1,000,000 values (500,000 small strings) cost 22 plain renders: the bound was 2,000,000."""
    from t2gen.kube.yamlbounds import MANIFEST_BOUNDS

    assert MANIFEST_BOUNDS.nodes == 300_000
    stream = tmp_path / "data.yaml"
    stream.write_text(_data(150_000))
    assert "more than 300,000 values" in _refusal([str(stream)])


def test_a_stream_with_merge_keys_holds_at_most_60_000_values(tmp_path: Path) -> None:
    """20,000 objects each merging its labels (400,000 values, PyYAML's composer) cost 25 renders."""
    from t2gen.checks.manifests import check_manifests

    one = "---\n{{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{0}, labels: &a {{k: v}}, annotations: {{<<: *a}}}}}}\n"
    stream = tmp_path / "merge.yaml"
    stream.write_text("".join(one.format(i) for i in range(3_000)))
    assert check_manifests([str(stream)])[0] == 3_000
    stream.write_text("".join(one.format(i) for i in range(4_000)))
    refused = _refusal([str(stream)])
    assert "more than 60,000 values" in refused
    assert "anchors, aliases or merge keys" in refused


def test_a_stream_holds_at_most_25_000_objects(tmp_path: Path) -> None:
    """50,000 one-line objects cost 15 plain renders."""

    stream = tmp_path / "many.yaml"
    stream.write_text(
        "---\n{apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n" * 25_001
    )
    assert "more than 25,000 objects" in _refusal([str(stream)])


def test_jsonschema_work_is_bounded_for_check_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """25,000 one-line Pods, a kind checked by jsonschema alone, cost 50 plain renders."""
    import t2gen.checks.schemawork as schemawork
    from t2gen.checks.manifests import check_manifests, validate_manifests
    from t2gen.errors import T2genError

    pod = "---\n{{apiVersion: v1, kind: Pod, metadata: {{name: p{0}}}, spec: {{containers: [{{name: c, image: i}}]}}}}\n"
    stream = tmp_path / "pods.yaml"
    stream.write_text("".join(pod.format(i) for i in range(40)))
    monkeypatch.setattr(schemawork, "MAX_SCHEMA_WORK", 1_000)
    with pytest.raises(
        T2genError, match=r"Pod/p2\d: more than 1,000 values in objects whose kind"
    ):
        check_manifests([str(stream)])
    import yaml

    objects = list(yaml.safe_load_all(stream.read_text()))
    assert (
        validate_manifests(objects, None) == []
    )  # render --kube-validate: t2gen's own, unbounded


def test_a_resource_list_holds_at_most_300_000_values() -> None:
    """100,000 small items (900,000 values in 5.7 MB) cost 22 plain renders; the bound was 2,000,000."""
    from t2gen.inputs.resourcelist import parse_resource_list

    items = "- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}}\n" * 33_400
    text = f"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig: {{}}\nitems:\n{items}"
    with pytest.raises(InputError) as err:
        parse_resource_list(text)
    assert "more than 300,000 values" in err.value.problems[0].message
