"""``t2gen package`` and ``render|validate|plan --package`` end to end, as a user runs them."""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
import yaml

from t2gen.importer import import_config
from t2gen.jobfile.schema import apply_defaults
from t2gen.kube.quantity import parse_quantity
from tests.conftest import ROOT
from tests.helpers import Completed, run_cli
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"
ELASTIC = ROOT / "tests/fixtures/package/scalable"


def t2gen(*argv: str, cwd: Path) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` from ``cwd``, run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


@pytest.fixture
def jar(tmp_path: Path) -> Path:
    path = tmp_path / "user.jar"
    path.write_bytes(jar_bytes(960 * 1024))  # about 1 MiB, incompressible as a jar
    return path


def test_import_of_the_package_configuration_gives_the_job_back(
    tmp_path: Path, jar: Path
) -> None:
    """Package then import is the identity on what they share: workers, namespace, ports.

    The one ``t2gen package`` of this file run by the console script; the rest run
    in the test's process.
    """
    done = _process(
        "package",
        str(ELASTIC / "job.yaml"),
        "--jar",
        str(jar),
        "--conf",
        str(ELASTIC / "conf"),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    with tarfile.open(tmp_path / "elastic.tar.gz") as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    imported = apply_defaults(
        import_config([str(tmp_path / "unpacked/twister2-job")]).job
    )
    original = apply_defaults(
        yaml.safe_load((ELASTIC / "job.yaml").read_text(encoding="utf-8"))
    )
    assert imported["metadata"]["namespace"] == original["metadata"]["namespace"]
    assert (
        imported["spec"]["network"]["basePort"]
        == original["spec"]["network"]["basePort"]
    )
    assert len(imported["spec"]["network"]["additionalPorts"]) == len(
        original["spec"]["network"]["additionalPorts"]
    )
    assert (
        imported["spec"]["jobMaster"]["port"] == original["spec"]["jobMaster"]["port"]
    )
    for got, want in zip(
        imported["spec"]["workers"], original["spec"]["workers"], strict=True
    ):
        for field in ("count", "perPod", "scalable"):
            assert got.get(field, False) == want.get(field, False), field
        for field in ("cpu", "memory", "volatileDisk"):
            assert (
                parse_quantity(got.get(field, 0)).value
                == parse_quantity(want.get(field, 0)).value
            ), field


def test_render_with_another_jobs_package_names_both_sides(
    tmp_path: Path, jar: Path
) -> None:
    job = ROOT / "examples/wordcount.yaml"
    assert (
        t2gen(
            "package", str(ELASTIC / "job.yaml"), "--jar", str(jar), cwd=tmp_path
        ).returncode
        == 0
    )
    done = t2gen("render", str(job), "--package", "elastic.tar.gz", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert any(
        f"{job}:9:9: metadata.name: job ID 'wordcount' here, but elastic.tar.gz:twister2-job/elastic.job has job_id 'elastic'"
        in line
        for line in lines
    ), done.stderr
    assert any(
        "spec.workers: 1 worker group(s) here, but the package's" in line
        and "has 2 compute resource(s)" in line
        for line in lines
    )
    assert any(
        "network.basePort 9000 here, but the package sets kubernetes.worker.base.port 9100"
        in line
        for line in lines
    )


def test_the_right_package_sizes_the_memory_volume(tmp_path: Path, jar: Path) -> None:
    job = ROOT / "examples/wordcount.yaml"
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    size = (tmp_path / "wordcount.tar.gz").stat().st_size
    done = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    objects = [
        o for o in yaml.safe_load_all(done.stdout) if o and o["kind"] == "StatefulSet"
    ]
    for obj in objects:
        pod = obj["spec"]["template"]["spec"]
        (memory,) = [v for v in pod["volumes"] if v["name"] == "twister2-memory-dir"]
        assert (
            memory["emptyDir"]["sizeLimit"] == "3Mi"
        )  # 1 MiB packed + 1 MiB unpacked + slack
        env = {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}
        assert env["JOB_PACKAGE_FILE_SIZE"] == str(size)
    without = t2gen("render", str(job), cwd=tmp_path)
    assert "sizeLimit: 128Mi" in without.stdout  # twice jobPackage.maxSize (64Mi)


def test_validate_and_plan_take_the_package(tmp_path: Path, jar: Path) -> None:
    job = ROOT / "examples/openmpi.yaml"
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    done = t2gen("validate", str(job), "--package", "openmpi.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        "client-to-pods" in done.stderr
    )  # the warning: a pod created later waits for ever
    assert (
        t2gen("plan", str(job), "--package", "openmpi.tar.gz", cwd=tmp_path).returncode
        == 0
    )


def test_package_needs_a_worker_class(tmp_path: Path, jar: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: nowork}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n  workers: [{count: 2}]\n",
        encoding="utf-8",
    )
    done = t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path)
    assert done.returncode == 1
    assert (
        f"{job}:5:3: spec.workerClass: t2gen package needs spec.workerClass"
        in done.stderr
    )
    assert not (tmp_path / "nowork.tar.gz").exists()


def test_a_java_keyword_is_no_class_name(tmp_path: Path) -> None:
    job = tmp_path / "job.yaml"
    job.write_text(
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: kw}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n  workerClass: edu.iu.class.Worker\n"
        "  workers: [{count: 2}]\n",
        encoding="utf-8",
    )
    done = t2gen("validate", str(job), cwd=tmp_path)
    assert done.returncode == 1
    assert "'class' is a Java keyword" in done.stderr and ":6:16:" in done.stderr


def test_a_memory_volume_too_small_is_refused_and_another_file_size_warned(
    tmp_path: Path, jar: Path
) -> None:
    """The memory volume must hold the package; fileSize is the package's (get_job_package.sh:39-49)."""
    text = (ROOT / "examples/wordcount.yaml").read_text(encoding="utf-8")
    job = tmp_path / "wordcount.yaml"
    job.write_text(text, encoding="utf-8")
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    size = (tmp_path / "wordcount.tar.gz").stat().st_size
    small = text.replace(
        "  jobPackage:\n", "  storage: {memoryVolumeSize: 1Mi}\n  jobPackage:\n"
    )
    assert small != text
    job.write_text(small, encoding="utf-8")
    done = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert (
        "spec.storage.memoryVolumeSize: memoryVolumeSize 1Mi here, but wordcount.tar.gz needs"
        in done.stderr
    )
    stale = text.replace("  jobPackage:\n", "  jobPackage:\n    fileSize: 1000\n")
    job.write_text(stale, encoding="utf-8")
    done = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (
        f"warning: spec.jobPackage.fileSize: fileSize 1000 here, but wordcount.tar.gz has {size} bytes"
        in done.stderr
    )
    assert f'value: "{size}"' in done.stdout and 'value: "1000"' not in done.stdout


def test_classes_and_job_config_the_job_file_states_must_be_the_package_s(
    tmp_path: Path, jar: Path
) -> None:
    """The pods run the .job's classes and see its JobConfig (JobUtils.java:122-138)."""
    text = (ROOT / "examples/wordcount.yaml").read_text(encoding="utf-8")
    job = tmp_path / "wordcount.yaml"
    job.write_text(text, encoding="utf-8")
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    assert (
        t2gen(
            "render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path
        ).returncode
        == 0
    )
    changed = text.replace("tset.WordCount", "tset.WordCountAgain").replace(
        "    NO_OF_SAMPLE_WORDS: 100\n",
        "    NO_OF_SAMPLE_WORDS: 101\n    extra: true\n",
    )
    assert changed.count("WordCountAgain") == 1 and "101" in changed
    job.write_text(changed, encoding="utf-8")
    done = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert done.returncode == 1 and done.stdout == ""
    assert (
        "spec.workerClass: workerClass 'edu.iu.dsc.tws.examples.batch.wordcount.tset.WordCountAgain' here, but wordcount.tar.gz:twister2-job/wordcount.job names 'edu.iu.dsc.tws.examples.batch.wordcount.tset.WordCount'"
        in done.stderr
    )
    assert (
        "spec.jobConfig.NO_OF_SAMPLE_WORDS: jobConfig NO_OF_SAMPLE_WORDS is 101 here (java.lang.Integer), but wordcount.tar.gz:twister2-job/wordcount.job has 100"
        in done.stderr
    )
    assert (
        "spec.jobConfig.extra: jobConfig extra is True here (java.lang.Boolean), but wordcount.tar.gz:twister2-job/wordcount.job has no such key"
        in done.stderr
    )


def test_the_package_carries_checkpointing_and_zookeeper(
    tmp_path: Path, jar: Path
) -> None:
    """``spec.checkpointing`` and ``spec.zooKeeper`` go into the package; a job file that says otherwise is refused.

    The runtime reads them from the package's configuration
    (``CheckpointingContext.java:23,37-40``, ``ZKContext.java:37,54-61``), while
    t2gen's restore and job-master rules read the job file: the two must agree.
    """
    job = tmp_path / "ck.yaml"
    text = (
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: ck}\n"
        "spec:\n  image: twister2/twister2-k8s:0.8.0\n"
        "  workerClass: org.example.Worker\n"
        "  workers: [{count: 2}]\n"
        "  storage: {persistent: {perWorker: 1Gi}}\n"
        "  checkpointing: {enabled: true}\n"
        "  zooKeeper: {serverAddresses: 'zk:2181'}\n"
    )
    job.write_text(text, encoding="utf-8")
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    with tarfile.open(tmp_path / "ck.tar.gz") as tar:
        tar.extractall(tmp_path / "unpacked", filter="data")
    imported = import_config([str(tmp_path / "unpacked/twister2-job")]).job["spec"]
    assert imported["checkpointing"] == {"enabled": True, "storageType": "mounted"}
    assert imported["zooKeeper"] == {
        "serverAddresses": "zk:2181",
        "rootNode": "/twister2",
    }
    assert (
        t2gen("render", str(job), "--package", "ck.tar.gz", cwd=tmp_path).returncode
        == 0
    )
    job.write_text(
        text.replace("{enabled: true}", "{enabled: false}").replace(
            "  zooKeeper: {serverAddresses: 'zk:2181'}\n", ""
        ),
        encoding="utf-8",
    )
    done = t2gen("render", str(job), "--package", "ck.tar.gz", cwd=tmp_path)
    assert done.returncode == 1
    assert "but the package sets twister2.checkpointing.enable True" in done.stderr
    assert (
        "but the package sets twister2.resource.zookeeper.server.addresses 'zk:2181'"
        in (done.stderr)
    )


def _shipped_conf(tmp_path: Path, extra: dict[str, str]) -> Path:
    """A copy of examples/twister2-conf (Twister2's shipped files: no logger.properties), with lines added."""
    import shutil

    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "examples/twister2-conf", conf)
    for name, lines in extra.items():
        with (conf / name).open("a", encoding="utf-8") as file:
            file.write(lines)
    return conf


def test_conf_keeps_no_zookeeper_or_checkpointing_the_job_file_does_not_name(
    tmp_path: Path, jar: Path
) -> None:
    """They are set from the job file, each change reported, and render --package then agrees."""
    conf = _shipped_conf(
        tmp_path,
        {
            "kubernetes/resource.yaml": (
                'twister2.resource.zookeeper.server.addresses: "zk:2181"\n'
            ),
            "kubernetes/core.yaml": "twister2.checkpointing.enable: true\n",
        },
    )
    job = ROOT / "examples/wordcount.yaml"
    done = t2gen(
        "package", str(job), "--jar", str(jar), "--conf", str(conf), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert (
        'twister2.resource.zookeeper.server.addresses: "zk:2181" -> null' in done.stderr
    )
    assert "twister2.checkpointing.enable: true -> false" in done.stderr
    render = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert render.returncode == 0, render.stderr


def test_conf_keeps_no_openmpi_restart_limit_but_the_supervisors(
    tmp_path: Path,
) -> None:
    """``max.mpijob.restarts: 4`` in --conf is set back to 1, reported, and render --package agrees.

    The ranks fail at that count (``K8S/mpi/MPIWorkerStarter.java:203-207``); the
    supervisor of an OpenMPI job counts with Twister2's default 1
    (``T2_MAX_RESTARTS``), so a package keeping 4 is refused by ``render
    --package``, whose advice (package this job file again) must then give one it
    accepts.
    """
    key = "twister2.fault.tolerance.max.mpijob.restarts"
    conf = _shipped_conf(tmp_path, {"kubernetes/core.yaml": f"{key}: 4\n"})
    text = (ROOT / "examples/openmpi.yaml").read_text(encoding="utf-8")
    job = tmp_path / "openmpi.yaml"
    job.write_text(
        text.replace("  mpi:\n", "  lifecycle:\n    supervise: true\n  mpi:\n"),
        encoding="utf-8",
    )
    jar = tmp_path / "openmpi.jar"
    jar.write_bytes(jar_bytes(4096, ("edu.iu.dsc.tws.examples.basic.HelloWorld",)))
    done = t2gen(
        "package", str(job), "--jar", str(jar), "--conf", str(conf), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert f"conf/kubernetes/core.yaml:4: {key}: 4 -> 1" in done.stderr
    with tarfile.open(tmp_path / "openmpi.tar.gz") as tar:
        member = tar.extractfile("twister2-job/kubernetes/core.yaml")
        assert member is not None
        assert yaml.safe_load(member.read())[key] == 1
    render = t2gen("render", str(job), "--package", "openmpi.tar.gz", cwd=tmp_path)
    assert render.returncode == 0, render.stderr
    supervisor_env = [
        env
        for doc in yaml.safe_load_all(render.stdout)
        if doc and doc["kind"] == "Job"
        for container in doc["spec"]["template"]["spec"]["containers"]
        for env in container.get("env", [])
    ]
    assert {"name": "T2_MAX_RESTARTS", "value": "1"} in supervisor_env


def test_conf_without_logger_properties_gets_the_default_and_says_so(
    tmp_path: Path, jar: Path
) -> None:
    """init.sh hands every JVM common/logger.properties (its line 23, 28)."""
    conf = _shipped_conf(tmp_path, {})
    assert not (conf / "common/logger.properties").exists()
    job = ROOT / "examples/wordcount.yaml"
    done = t2gen(
        "package", str(job), "--jar", str(jar), "--conf", str(conf), cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert (
        "common/logger.properties: java.util.logging.config.file: (no such file) -> "
        "t2gen's default" in done.stderr
    )
    with tarfile.open(tmp_path / "wordcount.tar.gz") as tar:
        assert "twister2-job/common/logger.properties" in tar.getnames()


def test_render_with_a_package_without_logger_properties_warns(
    tmp_path: Path, jar: Path
) -> None:
    job = ROOT / "examples/wordcount.yaml"
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    members = []
    with tarfile.open(tmp_path / "wordcount.tar.gz") as tar:
        for info in tar:
            stream = tar.extractfile(info)
            assert stream is not None
            members.append((info, stream.read()))
    with tarfile.open(tmp_path / "wordcount.tar.gz", "w:gz") as tar:
        for info, data in members:
            if not info.name.endswith("logger.properties"):
                import io

                tar.addfile(info, io.BytesIO(data))
    done = t2gen("render", str(job), "--package", "wordcount.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "warning" in done.stderr
    assert "twister2-job/common/logger.properties" in done.stderr


def test_render_refuses_a_cut_copy_in_one_line(tmp_path: Path, jar: Path) -> None:
    """A copy cut short by its last byte: exit 1, one line naming the file, no traceback."""
    job = ROOT / "examples/wordcount.yaml"
    assert t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path).returncode == 0
    whole = (tmp_path / "wordcount.tar.gz").read_bytes()
    (tmp_path / "cut.tar.gz").write_bytes(whole[:-1])
    done = t2gen("render", str(job), "--package", "cut.tar.gz", cwd=tmp_path)
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "cut.tar.gz: not a whole gzip-compressed tar file: it ends before its gzip stream "
        "does (cut short): rebuild it with t2gen package, or copy it again if the copy was "
        "cut short"
    ]
