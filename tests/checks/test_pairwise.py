"""Findings that relate two objects are bounded per object, and shared selectors are looked up once.

A stream where every object overlaps every other (a hostile ``t2gen check``
input) must give findings and work in proportion to its objects, not to their
pairs: each object names at most ``MAX_NAMED`` others and counts the rest.
"""

from __future__ import annotations

from typing import Any

import pytest

from t2gen.checks import object_problems
from t2gen.checks.stream import MAX_NAMED, Stream

COUNT = MAX_NAMED + 5


def _statefulset(
    name: str,
    selector: dict[str, Any],
    labels: dict[str, str],
    job: str | None = None,
) -> dict[str, Any]:
    metadata: dict[str, Any] = {"name": name}
    if job is not None:
        metadata["labels"] = {"t2-job": job}
    return {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": metadata,
        "spec": {
            "serviceName": "s",
            "selector": selector,
            "template": {
                "metadata": {"labels": labels},
                "spec": {"containers": [{"name": "c", "image": "i"}]},
            },
        },
    }


def _count_calls(monkeypatch: pytest.MonkeyPatch, name: str) -> list[int]:
    """Count the calls of ``Stream.<name>``."""
    calls: list[int] = []
    original = getattr(Stream, name)

    def counted(self: Stream, *args: Any) -> Any:
        calls.append(1)
        return original(self, *args)

    monkeypatch.setattr(Stream, name, counted)
    return calls


def test_overlapping_selectors_name_ten_others_and_count_the_rest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 StatefulSets with one selector: 11 findings each (was 14), one look-up (was 15)."""
    objects = [
        _statefulset(f"s{i}", {"matchLabels": {"app": "x"}}, {"app": "x"})
        for i in range(COUNT)
    ]
    calls = _count_calls(monkeypatch, "selected")
    found = [
        p for p in object_problems(objects) if "selectors must not overlap" in p.message
    ]
    assert len(calls) == 1
    first = [p.message for p in found if p.path == "StatefulSet/s0"]
    assert first == [
        *(
            f"also selects the pods of StatefulSet s{i}; selectors must not overlap"
            for i in range(1, 11)
        ),
        "also selects the pods of 4 more StatefulSets; selectors must not overlap",
    ]
    last = [p.message for p in found if p.path == f"StatefulSet/s{COUNT - 1}"]
    assert last[0].endswith(" s0; selectors must not overlap")
    assert (
        last[-1]
        == "also selects the pods of 4 more StatefulSets; selectors must not overlap"
    )
    assert len(found) == COUNT * (MAX_NAMED + 1)


def _anti(selector: dict[str, Any]) -> dict[str, Any]:
    term = {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}
    return {
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}
    }


def test_a_jobs_shared_affinity_term_is_judged_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 workloads of a job carrying one term: its workers are read once, not once per workload."""
    objects = []
    for i in range(COUNT):
        obj = _statefulset(
            f"w{i}",
            {"matchLabels": {"id": f"w{i}"}},
            {"t2-wp": "j", "t2-job": "j", "id": f"w{i}"},
            job="j",
        )
        obj["spec"]["template"]["spec"]["affinity"] = _anti(
            {"matchLabels": {"t2-wp": "j"}}
        )
        objects.append(obj)
    calls = _count_calls(monkeypatch, "labelled")
    assert object_problems(objects) == []
    assert len(calls) == 1


def test_a_term_selecting_many_other_pods_names_ten(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A term that also selects 15 pods of another job names 10 of them and counts 5."""
    worker = _statefulset(
        "w",
        {"matchLabels": {"id": "w"}},
        {"t2-wp": "j", "t2-job": "j", "id": "w"},
        job="j",
    )
    worker["spec"]["template"]["spec"]["affinity"] = _anti(
        {"matchLabels": {"app": "x"}}
    )
    worker["spec"]["template"]["metadata"]["labels"]["app"] = "x"
    strangers = [
        _statefulset(
            f"o{i}", {"matchLabels": {"id": f"o{i}"}}, {"app": "x", "id": f"o{i}"}
        )
        for i in range(COUNT)
    ]
    found = [
        p.message
        for p in object_problems([worker, *strangers])
        if p.path == "StatefulSet/w"
    ]
    assert found == [
        *(
            f"also selects the pods of StatefulSet o{i}, which are not workers of job j"
            for i in range(MAX_NAMED)
        ),
        "also selects the pods of 5 more workloads, which are not workers of job j",
    ]


def _podgroup(name: str, job: str) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.volcano.sh/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": name, "labels": {"t2-job": job}},
        "spec": {"minMember": 1},
    }


def test_groups_of_a_job_name_ten_workloads_that_do_not_join(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 groups of one job, 15 workloads of it, 3 joining g0: each group names 10 and counts the rest.

    The job's workloads are looked up once for all its groups (the old check
    looked them up, and tested each, once per group: groups x workloads).
    """
    workloads = []
    for i in range(COUNT):
        obj = _statefulset(
            f"w{i}", {"matchLabels": {"id": f"w{i}"}}, {"t2-job": "j", "id": f"w{i}"}
        )
        template = obj["spec"]["template"]
        template["spec"]["schedulerName"] = "volcano"
        if i % 5 == 0:
            template["metadata"]["annotations"] = {"scheduling.k8s.io/group-name": "g0"}
        workloads.append(obj)
    groups = [_podgroup(f"g{i}", "j") for i in range(COUNT)]
    calls = _count_calls(monkeypatch, "labelled")
    found = [
        p
        for p in object_problems([*groups, *workloads])
        if "join the group" in p.message
    ]
    assert len(calls) == 1

    def messages(group: str) -> list[str]:
        return [p.message for p in found if p.path == f"PodGroup/{group}"]

    alone = "does not join the group; its pods would be scheduled alone"
    not_joining = [i for i in range(COUNT) if i % 5]  # 12 of them
    assert messages("g0") == [
        *(f"StatefulSet/w{i} of job 'j' {alone}" for i in not_joining[:MAX_NAMED]),
        "2 more workloads of job 'j' do not join the group; their pods would be scheduled alone",
    ]
    assert messages("g1") == [
        *(f"StatefulSet/w{i} of job 'j' {alone}" for i in range(MAX_NAMED)),
        "5 more workloads of job 'j' do not join the group; their pods would be scheduled alone",
    ]
    assert len(found) == COUNT * (MAX_NAMED + 1)


def _service(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name},
        "spec": {"ports": [{"port": 80}]},
    }


def test_a_repeated_service_name_is_one_finding_and_one_look_up(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 StatefulSets governed by a name 15 ClusterIP Services share: one finding each (was 15)."""
    objects: list[dict[str, Any]] = [_service("s") for _ in range(COUNT)]
    objects += [
        _statefulset(f"s{i}", {"matchLabels": {"id": f"s{i}"}}, {"id": f"s{i}"})
        for i in range(COUNT)
    ]
    calls = _count_calls(monkeypatch, "services")
    found = [p for p in object_problems(objects) if p.json_path == "spec.serviceName"]
    assert len(calls) == 1
    assert [p.path for p in found] == [f"StatefulSet/s{i}" for i in range(COUNT)]
    assert {p.message for p in found} == {
        "Service s is not headless (clusterIP: None), so pods get no DNS names"
    }


def test_roles_of_one_name_read_its_bindings_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 Roles named ``r`` and 15 bindings to it: the bindings are read once, not once per Role."""
    rbac = "rbac.authorization.k8s.io"
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": f"{rbac}/v1",
            "kind": "Role",
            "metadata": {"name": "r"},
            "rules": [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}],
        }
        for _ in range(COUNT)
    ]
    objects += [
        {
            "apiVersion": f"{rbac}/v1",
            "kind": "RoleBinding",
            "metadata": {"name": f"b{i}"},
            "roleRef": {"apiGroup": rbac, "kind": "Role", "name": "r"},
            "subjects": [{"kind": "ServiceAccount", "name": f"sa{i}"}],
        }
        for i in range(COUNT)
    ]
    calls = _count_calls(monkeypatch, "role_bindings")
    assert object_problems(objects) == []
    assert len(calls) == 1


def test_names_yaml_made_lists_are_findings_not_crashes() -> None:
    """A serviceName, roleRef or subject name that is a list names nothing (``t2gen check`` input)."""
    rbac = "rbac.authorization.k8s.io"
    statefulset = _statefulset("s", {"matchLabels": {"id": "s"}}, {"id": "s"})
    statefulset["spec"]["serviceName"] = ["svc"]
    objects = [
        _service("svc"),
        statefulset,
        {"apiVersion": f"{rbac}/v1", "kind": "Role", "metadata": {"name": "r"}},
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}},
        {
            "apiVersion": f"{rbac}/v1",
            "kind": "RoleBinding",
            "metadata": {"name": "b"},
            "roleRef": {"apiGroup": rbac, "kind": "Role", "name": ["r"]},
            "subjects": [{"kind": "ServiceAccount", "name": ["sa"]}],
        },
    ]
    found = {(p.path, p.json_path): p.message for p in object_problems(objects)}
    assert found == {
        ("RoleBinding/b", "roleRef.name"): "no Role named ['r'] in the output",
        (
            "RoleBinding/b",
            "subjects[0].name",
        ): "no ServiceAccount named ['sa'] in the output",
    }


def test_selectors_that_differ_keep_ten_others_each_not_the_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """15 different selectors, each selecting all 15 StatefulSets: each look-up keeps 11 and a count.

    Keeping every selected StatefulSet per selector made 2,000 such selectors
    hold 452 MB.
    """
    objects = [
        _statefulset(
            f"s{i}",
            {
                "matchLabels": {"app": "x"},
                "matchExpressions": [
                    {"key": "id", "operator": "NotIn", "values": [f"z{i}"]}
                ],
            },
            {"app": "x", "id": f"s{i}"},
        )
        for i in range(COUNT)
    ]
    kept: list[int] = []
    original = Stream.memo

    def memo(self: Stream, key: Any, compute: Any) -> Any:
        value = original(self, key, compute)
        if key[0] == "statefulsets-selected":
            kept.append(len(value[0]))
        return value

    monkeypatch.setattr(Stream, "memo", memo)
    found = [
        p for p in object_problems(objects) if "selectors must not overlap" in p.message
    ]
    assert kept == [MAX_NAMED + 1] * COUNT
    assert len(found) == COUNT * (MAX_NAMED + 1)
    assert (
        found[-1].message
        == "also selects the pods of 4 more StatefulSets; selectors must not overlap"
    )
