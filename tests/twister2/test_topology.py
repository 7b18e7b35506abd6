"""The worker map (t2gen.twister2.topology) against Twister2's formulas and the goldens."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from t2gen.inputs.jobfile import parse_job
from t2gen.kube.validators import is_port_name
from t2gen.model import Job
from t2gen.pipeline.load import validate
from t2gen.twister2.topology import (
    Topology,
    WorkerSlot,
    build_topology,
    port_name_suffix,
    port_stride,
    worker_ports,
)
from tests.conftest import ROOT
from tests.helpers import job_text, valid_job


def _of(job: Job) -> Topology:
    return build_topology(
        job.name,
        job.spec.workers,
        base_port=job.spec.network.base_port,
        additional_ports=job.spec.network.additional_ports,
        mpi=job.spec.mpi.enabled,
    )


def _topology(spec: str) -> Topology:
    return _of(valid_job(job_text(spec)))


def _example(name: str) -> Topology:
    path = ROOT / "examples" / f"{name}.yaml"
    return _of(validate(parse_job(path.read_text(encoding="utf-8"), path=str(path))))


def _golden_statefulsets(case: str) -> dict[str, dict[str, Any]]:
    text = (ROOT / "tests/golden" / case / "expected.stdout").read_text("utf-8")
    return {
        obj["metadata"]["name"]: obj
        for obj in yaml.safe_load_all(text)
        if obj and obj["kind"] == "StatefulSet"
    }


def _golden_ports(
    statefulset: dict[str, Any],
) -> list[tuple[str, list[tuple[str, int]]]]:
    return [
        (c["name"], [(p["name"], p["containerPort"]) for p in c["ports"]])
        for c in statefulset["spec"]["template"]["spec"]["containers"]
    ]


def test_port_formula() -> None:
    assert port_stride(()) == 1 and port_stride(("a", "b")) == 3
    assert worker_ports(9000, ("a", "b"), 2) == (
        ("worker", 9006),
        ("a", 9007),
        ("b", 9008),
    )
    assert worker_ports(9000, (), 0) == (("worker", 9000),)


@pytest.mark.parametrize("per_pod", [1, 2, 11, 64])
def test_port_names_are_unique_in_a_pod_and_at_most_15_characters(per_pod: int) -> None:
    # the longest additional name the port-name-length rule lets through
    longest = "m" * (15 - len(port_name_suffix(per_pod - 1)))
    topology = _topology(
        f"workers: [{{count: {per_pod}, perPod: {per_pod}}}]\n"
        f"network: {{basePort: 9000, additionalPorts: [metrics, {longest}]}}\n"
    )
    (group,) = topology.groups
    pod_names = [name for c in group.containers for name, _ in c.ports]
    assert len(pod_names) == len(set(pod_names)) == 3 * per_pod
    assert all(is_port_name(name) for name in pod_names)
    # container 0 keeps the names the job file gives; container c appends -<c>
    assert group.containers[0].ports[:2] == (("worker", 9000), ("metrics", 9001))
    if per_pod > 1:
        assert [n for n, _ in group.containers[1].ports] == [
            "worker-1",
            "metrics-1",
            longest + "-1",
        ]
    assert topology.worker(per_pod - 1).ports == group.containers[-1].ports


def test_worker_ids_across_two_groups_with_two_per_pod() -> None:
    topology = _topology(
        "workers:\n  - {count: 4, perPod: 2}\n  - {count: 6, perPod: 2}\n"
        "network: {basePort: 9000, additionalPorts: [metrics]}\n"
    )
    assert len(topology) == topology.total_workers == 10
    assert [(g.statefulset, g.first_worker_id, g.pods) for g in topology.groups] == [
        ("job-0", 0, 2),
        ("job-1", 4, 3),
    ]
    # workerID = workers of earlier groups + podIndex x workersPerPod + containerIndex
    assert [(w.group, w.pod_index, w.container_index) for w in topology.iter_workers()] == [
        (0, 0, 0), (0, 0, 1), (0, 1, 0), (0, 1, 1),
        (1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1), (1, 2, 0), (1, 2, 1),
    ]  # fmt: skip
    assert topology.worker(7) == WorkerSlot(
        worker_id=7,
        group=1,
        statefulset="job-1",
        pod_index=1,
        pod_name="job-1-1",
        container_index=1,
        container_name="twister2-container-1",
        ports=(("worker-1", 9002), ("metrics-1", 9003)),
    )
    assert topology.worker(7).worker_port == 9002
    assert topology.highest_port == 9003
    for missing in (-1, 10):
        with pytest.raises(IndexError):
            topology.worker(missing)


def test_heterogeneous_golden_ports_come_from_the_topology() -> None:
    topology = _example("heterogeneous")
    rendered = _golden_statefulsets("heterogeneous")
    for group in topology.groups:
        expected = [(c.name, list(c.ports)) for c in group.containers]
        assert _golden_ports(rendered[group.statefulset]) == expected
        assert rendered[group.statefulset]["spec"]["replicas"] == group.pods
    assert [c.ports for c in topology.groups[1].containers][3] == (
        ("worker-3", 9006),
        ("metrics-3", 9007),
    )
    assert topology.worker(4).pod_name == "heterogeneous-1-0"
    assert topology.worker(15).container_name == "twister2-container-3"


def test_openmpi_golden_one_container_ranks_take_the_ports() -> None:
    topology = _example("openmpi")
    (group,) = topology.groups
    rendered = _golden_statefulsets("openmpi")["openmpi-0"]
    assert _golden_ports(rendered) == [("twister2-container-0", [("worker", 9000)])]
    assert [(c.name, c.ports) for c in group.containers] == [
        ("twister2-container-0", (("worker", 9000),))
    ]
    env = {
        e["name"]: e.get("value")
        for e in rendered["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert env["WORKER_PORT"] == str(group.containers[0].worker_port)
    # 16 ranks, 4 per pod, all in container 0; rank r listens on basePort + r.
    last = topology.worker(15)
    assert (last.pod_name, last.container_index, last.ports) == (
        "openmpi-0-3",
        0,
        (("worker", 9015),),
    )
    assert topology.highest_port == 9015


def test_openmpi_ranks_with_additional_ports_and_two_groups() -> None:
    topology = _topology(
        "workers:\n  - {count: 4, perPod: 2}\n  - {count: 2, perPod: 2}\n"
        "mpi: {enabled: true}\nnetwork: {additionalPorts: [a]}\n"
    )
    assert topology.worker(5).ports == (("worker", 9010), ("a", 9011))
    assert topology.worker(5).pod_name == "job-1-0"
    assert topology.highest_port == 9011
    assert topology.groups[1].containers[0].ports == (("worker", 9000),)


def test_a_large_job_is_not_materialised() -> None:
    topology = _topology("workers:\n  - {count: 100000, perPod: 4}\n")
    assert topology.groups[0].pods == 25000 and len(topology.groups[0].containers) == 4
    assert topology.worker(99999).pod_name == "job-0-24999"
