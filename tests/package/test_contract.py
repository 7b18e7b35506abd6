"""Contract: every golden ``.job`` holds, field by field, what ``Twister2Job.serialize()`` would.

The model below is written from the Java, not from t2gen: a ``main()`` that
builds the job from its Twister2 configuration and ``JobConfig`` as Twister2's
examples do (``Twister2Job.newBuilder()...addComputeResource(...)``, in the
configuration's order, scalable group wherever the configuration puts it),
then ``serialize()`` and ``ResourceAllocator.prepareJobFiles``. ``T2J`` is
``twister2/api/src/java/edu/iu/dsc/tws/api/Twister2Job.java``, ``RA``
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/ResourceAllocator.java``
(DSC-SPIDAL/twister2 at c6844d2). The decoded file is compared field by field,
each assertion naming the Java line that sets the field.
"""

from __future__ import annotations

import tarfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from t2gen.kube.quantity import parse_quantity
from t2gen.package.job import parse_job_message
from t2gen.twister2 import kryo
from tests.package.cases import CASES, ROOT, build_case


def _java_compute_resources(
    spec: dict[str, Any], conf: str | None
) -> list[dict[str, Any]]:
    """``addComputeResource(cpu, ram, disk, instances, scalable, workersPerPod)`` per group (T2J:374-392).

    With a configuration, in its order (``loadComputeResources``, T2J:395-421);
    otherwise in the job file's. cpu in cores, ram in MB (= MiB, as the launcher
    requests ``<ram>Mi``), disk in GB (GiB), instances = pods.
    """
    groups = []
    for group in spec["workers"]:
        per_pod = group.get("perPod", 1)
        groups.append(
            {
                "cpu": float(parse_quantity(group.get("cpu", 1)).value),
                "ram": int(parse_quantity(group.get("memory", "1Gi")).value / 2**20),
                "disk": float(
                    parse_quantity(group.get("volatileDisk", 0)).value / 2**30
                ),
                "instances": group["count"] // per_pod,
                "scalable": bool(group.get("scalable", False)),
                "workersPerPod": per_pod,
            }
        )
    if conf is not None:  # the order the main() loads them in: the configuration's
        listed = yaml.safe_load(
            (ROOT / conf / "kubernetes" / "resource.yaml").read_text(encoding="utf-8")
        )["twister2.resource.worker.compute.resources"]
        order = sorted(
            range(len(groups)),
            key=lambda i: next(
                j
                for j, item in enumerate(listed)
                if bool(item.get("scalable")) == groups[i]["scalable"]
            ),
        )
        groups = [groups[i] for i in order]
    built = []
    for index, g in enumerate(groups):  # T2J:387: setIndex(computeIndexCounter++)
        built.append({**g, "index": index})
    return built


def _update_indexes(resources: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``updateIndexesForComputeResources`` (T2J:137-168), line by line."""
    resources = [dict(r) for r in resources]
    scalable = sum(1 for r in resources if r["scalable"])
    assert scalable <= 1  # T2J:140-142
    if scalable == 0 or resources[-1]["scalable"]:  # T2J:146-153
        return resources
    first = next(i for i, r in enumerate(resources) if r["scalable"])  # T2J:156
    resources.append(resources.pop(first))  # T2J:157-158
    for i in range(first, len(resources)):  # T2J:161-166
        resources[i]["index"] = i
    return resources


def _serialize(job_file: str, conf: str | None) -> dict[str, Any]:
    data = yaml.safe_load((ROOT / job_file).read_text(encoding="utf-8"))
    spec = data["spec"]
    name = data["metadata"]["name"]
    resources = _update_indexes(_java_compute_resources(spec, conf))
    jar = spec.get("jobPackage", {}).get("jarFile", f"{name}.jar")
    return {
        "job_name": name,  # T2J:108 setJobName
        "job_id": name,  # T2J:111-114: the ID the main() set (setJobID), the pods' JOB_ID
        "worker_class_name": spec["workerClass"],  # T2J:116
        "driver_class_name": spec.get("driverClass", ""),  # T2J:118-121, only when set
        "number_of_workers": sum(
            r["instances"] * r["workersPerPod"] for r in resources
        ),  # T2J:123,261-267
        "compute_resource": resources,  # T2J:125-127
        "config": {  # T2J:100-107: one Kryo value per JobConfig entry
            key: kryo.encode(value) for key, value in spec.get("jobConfig", {}).items()
        },
        "job_format": (
            "JAR",
            jar,
        ),  # RA:193-212: jar type, file name without a directory
    }


def _decoded(package: Path, name: str) -> Any:
    with tarfile.open(package, "r:gz") as tar:
        stream = tar.extractfile(f"twister2-job/{name}.job")
        assert stream is not None
        return parse_job_message(stream.read())


@pytest.mark.parametrize("case", sorted(CASES))
def test_job_file_is_what_serialize_gives(
    case: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    job, built = build_case(case, tmp_path)
    job_file, conf = CASES[case]
    want = _serialize(job_file, conf)
    got = _decoded(Path(built.path), job.name)

    assert got.job_name == want["job_name"], "T2J:108"
    assert got.job_id == want["job_id"], "T2J:114"
    assert got.worker_class_name == want["worker_class_name"], "T2J:116"
    assert got.driver_class_name == want["driver_class_name"], "T2J:119-121"
    assert got.number_of_workers == want["number_of_workers"], "T2J:123"
    assert got.HasField("config"), "T2J:107 sets config even when JobConfig is empty"
    assert dict(got.config.config_byte_map) == want["config"], "T2J:102-105"
    assert len(got.config.kvs) == 0, "T2J never fills the deprecated kvs"
    assert len(got.compute_resource) == len(want["compute_resource"]), "T2J:125-127"
    for cr, w in zip(got.compute_resource, want["compute_resource"], strict=True):
        assert cr.cpu == w["cpu"], "T2J:381 setCpu (cores)"
        assert cr.ram_mega_bytes == w["ram"], "T2J:382 setRamMegaBytes"
        assert Decimal(cr.disk_giga_bytes) == Decimal(w["disk"]), (
            "T2J:383 setDiskGigaBytes"
        )
        assert cr.instances == w["instances"], "T2J:384 setInstances (pods)"
        assert cr.HasField("scalable") and cr.scalable == w["scalable"], (
            "T2J:385 setScalable"
        )
        assert cr.workers_per_pod == w["workersPerPod"], "T2J:386 setWorkersPerPod"
        assert cr.HasField("index") and cr.index == w["index"], "T2J:387,161-166 index"
    assert got.job_format.type == 0 and want["job_format"][0] == "JAR", "RA:199"
    assert got.job_format.job_file == want["job_format"][1], "RA:211"


def test_the_scalable_group_written_first_ends_last() -> None:
    """The model itself: a main() adding the scalable group first gets it at the last index."""
    first = [
        {"cpu": 0.5, "scalable": True, "index": 0},
        {"cpu": 1.0, "scalable": False, "index": 1},
        {"cpu": 2.0, "scalable": False, "index": 2},
    ]
    moved = _update_indexes(first)
    assert [(r["cpu"], r["index"]) for r in moved] == [(1.0, 0), (2.0, 1), (0.5, 2)]


def test_config_is_set_even_without_job_config(tmp_path: Path) -> None:
    """T2J:100,107: ``setConfig`` runs for an empty JobConfig too, so field 7 is on the wire."""
    from t2gen.inputs.jobfile import read_job
    from t2gen.package.job import job_message
    from t2gen.pipeline.load import validate

    text = (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
    bare = "\n".join(
        line
        for line in text.splitlines()
        if "jobConfig" not in line
        and "NO_OF_SAMPLE" not in line
        and "MAX_CHARS" not in line
    )
    path = tmp_path / "bare.yaml"
    path.write_text(bare + "\n", encoding="utf-8")
    message = job_message(validate(read_job(str(path))), "wordcount.jar")
    wire = message.SerializeToString(deterministic=True)
    assert message.HasField("config") and len(message.config.config_byte_map) == 0
    assert b"\x3a\x00" in wire  # field 7, length 0
