"""t2gen.importer: Twister2 configuration -> t2gen job file."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from t2gen.errors import SchemaError
from t2gen.importer import import_config
from t2gen.importer.convert import port_name
from t2gen.importer.keys import KEYS, Use, lookup
from t2gen.inputs.jobfile import parse_job
from t2gen.model import Job
from t2gen.pipeline.job import generate
from t2gen.pipeline.load import validate, validate_files
from t2gen.record import replace
from t2gen.twister2.confkeys import LOAD_ORDER
from tests.conftest import ROOT, build_file_tree

CONF_08 = ROOT / "tests/fixtures/twister2-0.8-conf"
SEEDS = ROOT / "tests/fixtures/twister2-seeds"
T2GEN = Path(sys.executable).parent / "t2gen"

BASE = """\
twister2.job.id: "job"
twister2.resource.kubernetes.docker.image: "twister2/twister2-k8s:0.8.0"
twister2.network.channel.class: "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"
twister2.resource.worker.compute.resources:
  - cpu: 1.0
    ram: 1024
    disk: 0.0
    instances: 2
"""


def imported_job(text: str, path: str) -> Job:
    return validate(parse_job(text, path=path))


def problems_of(tmp_path: Path, files: dict[str, str | bytes]) -> list[str]:
    build_file_tree(tmp_path, files)
    with pytest.raises(SchemaError) as info:
        import_config([str(tmp_path / name) for name in files], jar_file="j.jar")
    return [str(problem) for problem in info.value.problems]


def warnings_of(tmp_path: Path, text: str) -> list[str]:
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    return [str(w) for w in result.warnings]


# --- the key table ------------------------------------------------------------------


def test_table_has_the_reference_keys_and_aliases() -> None:
    for name, canonical in {
        "kubernetes.worker.mapping.key": "twister2.resource.kubernetes.worker.mapping.key",
        "persistent.volume.per.worker": "twister2.resource.persistent.volume.per.worker",
        "twister2.docker.image.for.kubernetes": "twister2.resource.kubernetes.docker.image",
        "worker.compute.resources": "twister2.resource.worker.compute.resources",
    }.items():
        key = lookup(name)
        assert key is not None
        assert key.name == canonical
    for legacy in (
        "twister2.worker.instances",
        "kubernetes.workers.per.pod",
        "twister2.worker.volatile.disk",
    ):
        assert lookup(legacy) is not None
    names = [key.name for key in KEYS]
    assert len(names) == len(set(names))
    assert all(key.field for key in KEYS if key.use is Use.FIELD)
    assert LOAD_ORDER[:2] == ("task.yaml", "resource.yaml")


# --- round trips --------------------------------------------------------------------


def test_twister2_08_conf_imports_validates_and_renders() -> None:
    result = import_config([str(CONF_08)], jar_file="job.jar")
    job = imported_job(result.text, "imported.yaml")
    assert job.name == "job-id"
    assert job.spec.workers[0].count == 4
    assert job.spec.network.additional_ports == ("port1", "port2", "port3")
    assert not job.spec.mpi.enabled
    # the text is the job, with comments
    assert parse_job(result.text).data == result.job
    assert "# from twister2.resource.kubernetes.docker.image (" in result.text
    assert f"{CONF_08}/kubernetes/resource.yaml:1)" in result.text
    # every key of the fixture is accounted for: converted, listed, or counted
    unmapped = " ".join(str(w) for w in result.unmapped)
    for name in (
        "twister2.resource.racks.list",
        "kubernetes.log.in.client",
        "twister2.s3.bucket.name",
    ):
        assert name in unmapped
    assert "other key(s)" in unmapped
    rendered = subprocess.run(
        [str(T2GEN), "render", "-"],
        input=result.text.encode(),
        capture_output=True,
        check=False,
    )
    assert rendered.returncode == 0, rendered.stderr.decode()
    assert b"kind: StatefulSet" in rendered.stdout


def test_example_conf_renders_through_the_pipeline() -> None:
    result = import_config(
        [str(ROOT / "examples/twister2-conf")], jar_file="wordcount.jar"
    )
    documents = generate(["-"], stdin=io.BytesIO(result.text.encode()))
    assert {d.name for d in documents if d.kind == "StatefulSet"} == {
        "wordcount-0",
        "wordcount-1",
        "wordcount-jm",
    }
    assert "# from kubernetes.bind.worker.to.cpu (" in result.text


def _strip(job: Job, *, keep_required: int, drop_preferred: bool) -> Job:
    """The job with only what places each group's pods (job-wide or the group's own)."""
    workers = tuple(
        replace(
            group,
            placement=replace(
                group.placement,
                required=group.placement.required[:keep_required],
                preferred=() if drop_preferred else group.placement.preferred,
            ),
        )
        for group in job.spec.workers
    )
    nowhere = replace(
        job.spec.placement,
        required=(),
        preferred=(),
        uniform="none",
        node_selector=(),
        tolerations=(),
    )
    return replace(
        job, source="-", spec=replace(job.spec, workers=workers, placement=nowhere)
    )


# Twister2 has one node-mapping expression and no preferences, so the parts of the
# examples beyond that are removed before comparing. The import writes the mapping
# to group 0 (the one group here) and the examples job-wide: each group's pods are
# placed alike.
SEED_CASES = {
    "gpu-nodes": ("gpu-nodes", 1, False),
    "non-gpu-nodes": ("non-gpu-nodes", 1, True),
    "named-nodes": ("named-nodes", 1, False),
    "gpu-one-pod-per-node": ("gpu-one-pod-per-node", 1, False),
    "pinned-same-node": ("pinned-same-node", 0, False),
}


@pytest.mark.parametrize("seed", sorted(SEED_CASES))
def test_seed_imports_to_its_example(seed: str) -> None:
    example, keep, drop = SEED_CASES[seed]
    result = import_config([str(SEEDS / f"{seed}.yaml")], jar_file=f"{example}.jar")
    imported = _strip(
        imported_job(result.text, "-"), keep_required=keep, drop_preferred=False
    )
    [expected] = validate_files([str(ROOT / "examples" / f"{example}.yaml")])
    assert imported == _strip(expected, keep_required=keep, drop_preferred=drop)
    # legacy key names are cited as written
    assert "# from kubernetes.workers.per.pod (" in result.text
    assert any("legacy worker keys" in str(w) for w in result.warnings)


def test_seed_hostnames_not_in() -> None:
    result = import_config(
        [str(SEEDS / "not-named-nodes.yaml")], jar_file="named-nodes.jar"
    )
    imported = imported_job(result.text, "-")
    [example] = validate_files([str(ROOT / "examples/named-nodes.yaml")])
    [group] = example.spec.workers
    first = replace(group.placement.required[0], operator="NotIn")
    group = replace(group, placement=replace(group.placement, required=(first,)))
    expected = replace(
        example,
        name="not-named-nodes",
        spec=replace(
            example.spec,
            workers=(group,),
            # the job's own SSH key is named after the job
            mpi=replace(example.spec.mpi, ssh_secret_name="not-named-nodes-ssh"),
        ),
    )
    assert _strip(imported, keep_required=1, drop_preferred=False) == _strip(
        expected, keep_required=1, drop_preferred=False
    )


def test_directory_layers_common_then_kubernetes(tmp_path: Path) -> None:
    build_file_tree(
        tmp_path,
        {
            "common/core.yaml": 'twister2.job.id: "from-common"\n',
            "common/network.yaml": "kubernetes.worker.base.port: 7000\n",
            "kubernetes/resource.yaml": BASE.replace('"job"', '"from-resource"'),
            "kubernetes/core.yaml": 'twister2.job.id: "from-core"\n',
            "kubernetes/extra.yaml": "kubernetes.worker.base.port: 1\n",
        },
    )
    result = import_config([str(tmp_path)], jar_file="j.jar")
    # kubernetes/core.yaml is read after kubernetes/resource.yaml; extra.yaml is not read
    assert result.job["metadata"]["name"] == "from-core"
    assert result.job["spec"]["network"]["basePort"] == 7000
    assert not any("extra.yaml" in f for f in result.files)


# --- located errors -----------------------------------------------------------------


def test_not_yaml(tmp_path: Path) -> None:
    found = problems_of(
        tmp_path, {"resource.yaml": BASE + "kubernetes.bind.worker.to.cpu: [true\n"}
    )
    assert found[0].startswith(f"{tmp_path}/resource.yaml:")
    assert "job file" not in found[0]


def test_a_list_is_not_a_configuration(tmp_path: Path) -> None:
    found = problems_of(tmp_path, {"resource.yaml": "- a\n- b\n"})
    assert found == [
        f"{tmp_path}/resource.yaml:1:1: a Twister2 configuration file must be a mapping of keys to values"
    ]


def test_wrong_types_are_located(tmp_path: Path) -> None:
    text = (
        BASE
        + "kubernetes.bind.worker.to.cpu: yes please\nkubernetes.worker.base.port: [1]\n"
    )
    found = problems_of(tmp_path, {"resource.yaml": text})
    assert found == [
        f"{tmp_path}/resource.yaml:9:32: kubernetes.bind.worker.to.cpu: must be true or false, not 'yes please'",
        f"{tmp_path}/resource.yaml:10:30: kubernetes.worker.base.port: must be an integer, not a list",
    ]


def test_unknown_kubernetes_key_suggests_the_known_one(tmp_path: Path) -> None:
    found = problems_of(
        tmp_path, {"resource.yaml": BASE + "kubernetes.bind.worker.to.cpus: true\n"}
    )
    assert found == [
        f"{tmp_path}/resource.yaml:9:1: kubernetes.bind.worker.to.cpus: unknown Kubernetes key; did you mean kubernetes.bind.worker.to.cpu?"
    ]


def test_compute_resource_fields(tmp_path: Path) -> None:
    text = BASE.replace("    ram: 1024\n", "    memory: 1024\n")
    found = problems_of(tmp_path, {"resource.yaml": text})
    assert any("compute resource 0 has no ram" in f and ":5:5:" in f for f in found)
    assert any("unknown compute resource field 'memory'" in f for f in found)


def test_directory_without_kubernetes_keys(tmp_path: Path) -> None:
    build_file_tree(
        tmp_path, {"common/network.yaml": "twister2.network.buffer.size: 1024000\n"}
    )
    with pytest.raises(SchemaError) as info:
        import_config([str(tmp_path)])
    [line] = info.value.lines()
    assert line.startswith(f"{tmp_path}/common/network.yaml: no Kubernetes keys")


def test_job_t2gen_refuses_is_located_at_the_twister2_key(tmp_path: Path) -> None:
    text = BASE.replace('"job"', '"My_Job"')
    found = problems_of(tmp_path, {"resource.yaml": text})
    assert len(found) == 1
    assert found[0].startswith(
        f"{tmp_path}/resource.yaml:1:1: twister2.job.id: becomes metadata.name, which t2gen refuses:"
    )


def test_port_names_converted_or_refused(tmp_path: Path) -> None:
    assert port_name("port1") == ("port1", "")
    assert port_name("Metrics_Port")[0] == "metrics-port"
    assert port_name("8080")[0] == "port-8080"
    assert port_name("a-very-long-port-name-indeed")[0] == "a-very-long-por"
    assert port_name("__")[0] is None
    found = problems_of(
        tmp_path,
        {
            "resource.yaml": BASE
            + "twister2.resource.worker.additional.ports: ['Web_UI', 'web-ui']\n"
        },
    )
    assert found == [
        f"{tmp_path}/resource.yaml:9:55: twister2.resource.worker.additional.ports[1]: "
        "port name 'web-ui' is 'web-ui' as a Kubernetes port name, like port 0 ('Web_UI'); rename one of them"
    ]


def test_jvm_fraction_is_imported_as_the_workers_heap_share(tmp_path: Path) -> None:
    path = tmp_path / "core.yaml"
    path.write_text(
        BASE + "twister2.kubernetes.jvm.memory.fraction: 0.6\n", encoding="utf-8"
    )
    result = import_config([str(path)], jar_file="j.jar")
    assert result.job["spec"]["jvmMemoryFraction"] == 0.6
    documents = generate(["-"], stdin=io.BytesIO(result.text.encode()))
    (worker,) = [d.obj for d in documents if d.name == "job-0"]
    env = {
        e["name"]: e.get("value")
        for e in worker["spec"]["template"]["spec"]["containers"][0]["env"]
    }
    assert (
        env["JVM_MEMORY_MB"] == "614"
    )  # int(1024 x 0.6), RequestObjectBuilder.java:368-369


def test_nothing_on_stdout_for_a_missing_path(tmp_path: Path) -> None:
    with pytest.raises(SchemaError) as info:
        import_config([str(tmp_path / "missing")])
    assert info.value.lines() == [f"{tmp_path}/missing: no such file or directory"]


# --- warnings for semantic differences ----------------------------------------------


def test_instances_count_pods(tmp_path: Path) -> None:
    text = BASE.replace(
        "    instances: 2\n", "    instances: 3\n    workersPerPod: 4\n"
    )
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "r.yaml")], jar_file="j.jar")
    assert result.job["spec"]["workers"] == [
        {"count": 12, "perPod": 4, "cpu": 1, "memory": "1Gi"}
    ]
    assert "instances 3 (pods) x workersPerPod 4" in result.text


def test_missing_channel_class_means_openmpi(tmp_path: Path) -> None:
    text = BASE.replace(
        'twister2.network.channel.class: "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"\n', ""
    )
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "r.yaml")], jar_file="j.jar")
    assert result.job["spec"]["mpi"] == {"enabled": True}
    assert any(
        w.key == "twister2.network.channel.class" and "OpenMPI" in w.message
        for w in result.warnings
    )


def test_mapping_on_several_groups_warns(tmp_path: Path) -> None:
    text = BASE + (
        "  - {cpu: 1.0, ram: 512, disk: 0.0, instances: 1}\n"
        "kubernetes.worker.to.node.mapping: true\n"
        'twister2.resource.kubernetes.worker.mapping.key: "disk"\n'
        'twister2.resource.kubernetes.worker.mapping.operator: "exists"\n'
        'kubernetes.worker.mapping.uniform: "all-separate-nodes"\n'
    )
    found = warnings_of(tmp_path, text)
    assert any(
        ":10:1: kubernetes.worker.to.node.mapping: Twister2 applies node mapping to compute resource 0 only"
        in w
        for w in found
    )
    assert any(
        ":13:1: kubernetes.worker.mapping.uniform: Twister2 applies uniform mapping to compute resource 0 only"
        in w
        for w in found
    )
    assert any("operator 'exists' written as 'Exists'" in w for w in found)


def test_job_master_memory_keeps_the_heap(tmp_path: Path) -> None:
    """``twister2.job.master.ram`` is the heap and the request less 128Mi, as t2gen's ``jobMaster.memory``."""
    (tmp_path / "r.yaml").write_text(
        BASE + "twister2.job.master.ram: 2048\n", encoding="utf-8"
    )
    result = import_config([str(tmp_path / "r.yaml")], jar_file="j.jar")
    assert result.job["spec"]["jobMaster"]["memory"] == "2Gi"
    assert not any("job.master.ram" in str(w) for w in result.warnings)


def test_legacy_and_new_name_together(tmp_path: Path) -> None:
    text = (
        BASE
        + "persistent.volume.per.worker: 1.0\ntwister2.resource.persistent.volume.per.worker: 2.0\n"
    )
    found = warnings_of(tmp_path, text)
    assert any(":9:1: persistent.volume.per.worker: legacy name of" in w for w in found)


def test_integer_cpu_warns_and_a_last_scalable_group_is_imported(
    tmp_path: Path,
) -> None:
    text = BASE.replace("cpu: 1.0", "cpu: 1") + "    scalable: true\n"
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    assert any("casts cpu to Double; write 1.0" in str(w) for w in result.warnings)
    assert result.job["spec"]["workers"][0]["scalable"] is True


def test_scalable_compute_resource_moves_last_as_twister2_orders_it(
    tmp_path: Path,
) -> None:
    """Twister2Job.java:137-168: the scalable resource gets the last index, the rest move up."""
    text = BASE.replace(
        "    instances: 2\n", "    instances: 2\n    scalable: true\n"
    ) + (
        "  - cpu: 2.0\n    ram: 2048\n    disk: 0.0\n    instances: 1\n"
        "  - cpu: 3.0\n    ram: 1024\n    disk: 0.0\n    instances: 3\n"
    )
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    workers = result.job["spec"]["workers"]
    assert [(w["cpu"], w.get("scalable", False)) for w in workers] == [
        (2, False),
        (3, False),
        (1, True),
    ]
    (moved,) = [
        w for w in result.warnings if "imported as the last worker group" in str(w)
    ]
    assert str(moved).startswith(f"{tmp_path}/resource.yaml:9:")
    assert "compute resources 1-2 move up one, as their workers" in str(moved)
    job = imported_job(result.text, "job.yaml")
    assert [g.count for g in job.spec.workers] == [1, 3, 2]


def test_one_compute_resource_after_the_scalable_one_moves_up_one(
    tmp_path: Path,
) -> None:
    text = BASE.replace(
        "    instances: 2\n", "    instances: 2\n    scalable: true\n"
    ) + ("  - cpu: 2.0\n    ram: 2048\n    disk: 0.0\n    instances: 1\n")
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    (moved,) = [
        w for w in result.warnings if "imported as the last worker group" in str(w)
    ]
    assert "compute resource 1 moves up one, as its workers will look it up" in str(
        moved
    )


def test_two_scalable_compute_resources_are_refused(tmp_path: Path) -> None:
    one = "  - cpu: 1.0\n    ram: 1024\n    disk: 0.0\n    instances: 1\n    scalable: true\n"
    found = problems_of(tmp_path, {"resource.yaml": BASE + one + one})
    assert any("more than one scalable compute resource" in p for p in found)


def test_missing_jar_file_warns(tmp_path: Path) -> None:
    (tmp_path / "r.yaml").write_text(BASE, encoding="utf-8")
    result = import_config([str(tmp_path / "r.yaml")])
    assert any(w.key == "spec.jobPackage.jarFile" for w in result.warnings)


def test_worker_and_driver_classes_become_the_job_s_own(tmp_path: Path) -> None:
    """twister2.resource.job.{worker,driver}.class (SchedulerContext.java:38-39) -> spec.workerClass, driverClass."""
    path = tmp_path / "resource.yaml"
    path.write_text(
        BASE
        + 'twister2.resource.job.worker.class: "edu.iu.dsc.tws.examples.basic.HelloWorld"\n'
        + 'twister2.resource.job.driver.class: "edu.iu.dsc.tws.examples.internal.rsched.DriverExample"\n',
        encoding="utf-8",
    )
    result = import_config([str(path)], jar_file="j.jar")
    spec = result.job["spec"]
    assert spec["workerClass"] == "edu.iu.dsc.tws.examples.basic.HelloWorld"
    assert (
        spec["driverClass"] == "edu.iu.dsc.tws.examples.internal.rsched.DriverExample"
    )
    assert (
        "workerClass: edu.iu.dsc.tws.examples.basic.HelloWorld # from twister2.resource.job.worker.class ("
        in result.text
    )
    job = imported_job(result.text, str(path))
    assert job.spec.worker_class == "edu.iu.dsc.tws.examples.basic.HelloWorld"


# --- checkpointing, restore and ZooKeeper (issue 31) ---------------------------------


def test_restore_and_zookeeper_import_as_fields_and_render_restore_job(
    tmp_path: Path,
) -> None:
    """``twister2.checkpointing.restore.job`` becomes ``RESTORE_JOB=true``, as Twister2's restart sets it.

    ``K8S/RequestObjectBuilder.java:499-501`` writes the key as ``RESTORE_JOB``
    (``K8S/`` = ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``).
    """
    text = (
        BASE
        + "twister2.resource.persistent.volume.per.worker: 1.0\n"
        + "twister2.checkpointing.enable: true\n"
        + "twister2.checkpointing.restore.job: true\n"
        + 'twister2.resource.zookeeper.server.addresses: "zk-0.zk:2181,zk-1.zk:2181"\n'
        + 'twister2.resource.zookeeper.root.node.path: "/jobs"\n'
    )
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "r.yaml")], jar_file="j.jar")
    spec = result.job["spec"]
    assert spec["checkpointing"] == {"enabled": True, "restore": True}
    assert spec["zooKeeper"] == {
        "serverAddresses": "zk-0.zk:2181,zk-1.zk:2181",
        "rootNode": "/jobs",
    }
    job_file = tmp_path / "job.yaml"
    job_file.write_text(result.text, encoding="utf-8")
    objects = [d.obj for d in generate([str(job_file)])]
    kinds = {obj["kind"] for obj in objects}
    assert "PersistentVolumeClaim" not in kinds  # the failed run's claim is mounted
    for obj in objects:
        if obj["kind"] == "StatefulSet":
            for container in obj["spec"]["template"]["spec"]["containers"]:
                env = {e["name"]: e.get("value") for e in container["env"]}
                assert env["RESTORE_JOB"] == "true"


def test_an_unknown_checkpoint_store_is_refused_at_its_key(tmp_path: Path) -> None:
    found = problems_of(
        tmp_path, {"r.yaml": BASE + 'twister2.persistent.storage.type: "none"\n'}
    )
    assert any(
        ":9:1: " in p and "'none' is not a checkpoint store t2gen knows" in p
        for p in found
    ), found


def test_a_job_master_in_the_client_is_refused_at_the_twister2_key(
    tmp_path: Path,
) -> None:
    found = problems_of(
        tmp_path,
        {
            "r.yaml": BASE
            + "twister2.job.master.runs.in.client: true\n"
            + 'twister2.job.master.provided.ip: "10.0.0.1"\n'
        },
    )
    assert any(
        "twister2.job.master.runs.in.client" in p
        and "leaves the workers without a job master" in p
        for p in found
    ), found


def test_an_openmpi_scalable_compute_resource_moves_last_too(tmp_path: Path) -> None:
    """``Twister2Job.serialize()`` moves the scalable resource last for every job (``Twister2Job.java:93-96,137-168``).

    An OpenMPI pod looks its compute resource up by that index
    (``K8S/mpi/MPIWorkerStarter.java:176``), so the StatefulSets must follow it,
    although OpenMPI never scales.
    """
    text = (
        BASE.replace(
            "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel",
            "edu.iu.dsc.tws.comms.mpi.TWSMPIChannel",
        ).replace(
            "    instances: 2\n",
            "    instances: 2\n    scalable: true\n    workersPerPod: 2\n",
        )
        + "  - {cpu: 2.0, ram: 2048, disk: 0.0, instances: 1, workersPerPod: 2}\n"
        + "  - {cpu: 3.0, ram: 1024, disk: 0.0, instances: 3, workersPerPod: 2}\n"
    )
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    assert [w["cpu"] for w in result.job["spec"]["workers"]] == [2, 3, 1]
    assert not any("scalable" in w for w in result.job["spec"]["workers"])
    assert any(
        "imported as the last worker group" in str(w) and "OpenMPI" in str(w)
        for w in result.warnings
    )
    job = imported_job(result.text, "job.yaml")
    assert job.spec.mpi.enabled and [g.count for g in job.spec.workers] == [2, 6, 4]


@pytest.mark.parametrize(
    ("word", "meaning"), [("yes", True), ("On", True), ("NO", False), ("off", False)]
)
def test_snakeyaml_booleans_import_as_booleans(
    tmp_path: Path, word: str, meaning: bool
) -> None:
    """A plain ``yes``/``on``/``no``/``off`` is a boolean to Twister2's SnakeYAML 1.x (``Resolver.BOOL``)."""
    text = BASE + f"kubernetes.bind.worker.to.cpu: {word}\n"
    (tmp_path / "resource.yaml").write_text(text, encoding="utf-8")
    result = import_config([str(tmp_path / "resource.yaml")], jar_file="j.jar")
    assert (
        result.job["spec"].get("bindWorkersToCpu", False) is meaning
    )  # false is the default


def test_a_quoted_yes_stays_a_string_and_is_refused(tmp_path: Path) -> None:
    """SnakeYAML keeps ``"yes"`` a string, which Twister2's ``TypeUtils.getBoolean`` reads as false: refused as unclear."""
    found = problems_of(
        tmp_path, {"resource.yaml": BASE + 'kubernetes.bind.worker.to.cpu: "yes"\n'}
    )
    assert any("must be true or false" in p for p in found), found
