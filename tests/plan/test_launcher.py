"""``t2gen plan``'s comparison with the Twister2 launcher's requests, and what a ``limits.cpu`` quota sees.

The launcher's numbers here are worked by hand from DSC-SPIDAL/twister2
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``
``RequestObjectBuilder.java:306-326`` (a worker container: ``%.2f`` cores and
``ram`` Mi, perPod times both with OpenMPI) and
``master/JobMasterRequestObject.java:170-174`` (the job master: its cpu and
``ram`` + 128 Mi), not from t2gen's code.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from t2gen.pipeline.job import generate
from t2gen.pipeline.load import validate_files
from t2gen.plan.workermap import build_worker_map
from t2gen.plan.workermap.launcher import (
    compare_requests,
    launcher_pod_requests,
    limits_cpu,
)
from tests.conftest import EXAMPLES

MIB = 2**20


def _job(tmp_path: Path, spec: str) -> tuple[Any, list[dict[str, Any]]]:
    path = tmp_path / "job.yaml"
    path.write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: tt\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n" + spec,
        encoding="utf-8",
    )
    (job,) = validate_files([str(path)])
    return job, [d.obj for d in generate([str(path)])]


def _example(name: str) -> tuple[Any, list[dict[str, Any]]]:
    path = next(p for p in EXAMPLES if p.stem == name)
    (job,) = validate_files([str(path)])
    return job, [d.obj for d in generate([str(path)])]


def test_wordcount_differs_by_the_memory_volume_only() -> None:
    job, objects = _example("wordcount")
    # 2 containers of 0.50 cores and 1024Mi; the job master 0.2 cores, 1024 + 128 Mi
    assert launcher_pod_requests(job) == {
        "wordcount-0": (1000, 2048 * MIB),
        "wordcount-jm": (200, 1152 * MIB),
    }
    workers, master = compare_requests(job, objects)
    assert (workers.pods, workers.t2gen.memory_bytes) == (4, (2048 + 128) * MIB)
    assert workers.t2gen.cpu_millis == workers.launcher_cpu_millis == 1000
    assert workers.reasons == (
        "+128Mi memory volume in the first container (the job package, packed and unpacked)",
    )
    assert master.t2gen.memory_bytes == master.launcher_memory_bytes
    assert master.reasons == ()


def test_launcher_rounds_cores_to_two_decimals_and_ram_to_whole_mib(
    tmp_path: Path,
) -> None:
    job, objects = _job(
        tmp_path,
        "  workers: [{count: 2, perPod: 2, cpu: 125m, memory: 1000M}]\n"
        "  jobMaster: {memory: 1000M, cpu: 250m}\n",
    )
    # String.format("%.2f", 0.125) is 0.13 (HALF_UP); 1000M is 953.67 MiB, ram 953
    assert launcher_pod_requests(job)["tt-0"] == (2 * 130, 2 * 953 * MIB)
    assert launcher_pod_requests(job)["tt-jm"] == (250, (953 + 128) * MIB)
    workers, master = compare_requests(job, objects)
    assert workers.reasons[0] == "-10m cpu: the launcher writes cores with two decimals"
    lost = 2 * (1000 * 10**6 - 953 * MIB)
    assert f"+{lost} bytes: memory is not whole MiB (Twister2's ram is)" in (
        workers.reasons
    )
    assert not any("otherwise" in reason for reason in workers.reasons)
    assert master.reasons == (
        f"+{1000 * 10**6 - 953 * MIB} bytes: memory is not whole MiB (Twister2's ram is)",
    )


def test_openmpi_pays_the_mpi_master_in_group_0_and_the_daemons_elsewhere(
    tmp_path: Path,
) -> None:
    job, objects = _job(
        tmp_path,
        "  workers: [{count: 8, perPod: 4, cpu: 1, memory: 1Gi}, {count: 4, perPod: 4}]\n"
        "  mpi: {enabled: true}\n",
    )
    # one container per pod of perPod x cpu and ram
    assert launcher_pod_requests(job)["tt-0"] == (4000, 4096 * MIB)
    first, second, _ = compare_requests(job, objects)
    assert first.t2gen.memory_bytes - first.launcher_memory_bytes == (128 + 512) * MIB
    assert any("+512Mi MPI master" in reason for reason in first.reasons)
    assert second.t2gen.memory_bytes - second.launcher_memory_bytes == (128 + 64) * MIB
    assert any("+64Mi sshd and orted" in reason for reason in second.reasons)


def test_a_template_change_shows_as_unexplained() -> None:
    job, objects = _example("wordcount")
    for obj in objects:
        if obj["kind"] == "StatefulSet" and obj["metadata"]["name"] == "wordcount-0":
            container = obj["spec"]["template"]["spec"]["containers"][1]
            container["resources"]["requests"]["memory"] = "1536Mi"
    workers, _ = compare_requests(job, objects)
    assert workers.reasons[-1] == "+512Mi memory otherwise (templates or limits)"


def test_limits_cpu_counts_containers_without_a_limit(tmp_path: Path) -> None:
    _, objects = _example("wordcount")
    assert limits_cpu(objects) == (0, 0, 4 * 2 + 1)
    _, objects = _job(
        tmp_path,
        "  workers: [{count: 4, perPod: 2, cpu: 1, cpuLimit: 3}]\n"
        "  jobMaster: {cpuLimit: 1}\n",
    )
    assert limits_cpu(objects) == (2 * 2 * 3000 + 1000, 5, 0)


def test_the_worker_map_carries_the_comparison() -> None:
    job, objects = _example("pinned-same-node")
    wmap = build_worker_map(job, objects)
    assert [item.statefulset for item in wmap.launcher] == [
        "pinned-same-node-0",
        "pinned-same-node-jm",
    ]
    # bound workers have limits, the job master has none
    assert wmap.limits_cpu[1:] == (4, 1)
