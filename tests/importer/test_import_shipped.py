"""``t2gen import`` of what Twister2 users have: the shipped configuration, older keys, user positions.

Run as a user would: the CLI from a temporary directory, on a copy of
``tests/fixtures/twister2-0.8-shipped`` (Twister2 0.8's ``conf/common`` and
``conf/kubernetes`` as shipped). The command lines run in the test's process
(:func:`tests.helpers.run_cli`); the first test runs its ``t2gen import conf``
with the console script too and asks for the same exit code and output.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from t2gen.importer.keys import lookup
from t2gen.kube.yamlio import load_all_yaml
from tests.conftest import ROOT
from tests.helpers import Completed, run_cli

T2GEN = Path(sys.executable).parent / "t2gen"
SHIPPED = ROOT / "tests/fixtures/twister2-0.8-shipped"


def _run(cwd: Path, *argv: str) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _process(cwd: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` from ``cwd``, run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )


def _conf(tmp_path: Path) -> Path:
    conf = tmp_path / "conf"
    shutil.copytree(SHIPPED, conf, ignore=shutil.ignore_patterns("README.md"))
    return conf


def test_shipped_conf_fails_at_the_commented_out_examples(tmp_path: Path) -> None:
    _conf(tmp_path)
    result = _run(tmp_path, "import", "conf")
    process = _process(tmp_path, "import", "conf")
    assert (process.returncode, process.stdout, process.stderr) == (
        result.returncode,
        result.stdout,
        result.stderr,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert [line.split(": ")[0] for line in lines] == [
        "conf/kubernetes/resource.yaml:41:3",
        "conf/kubernetes/resource.yaml:52:3",
    ]
    name, workers = lines
    assert "no job name: give it with --name NAME" in name
    assert "(twister2.resource.job.name is commented out here, line 41)" in name
    assert "no worker groups" in workers
    assert "is commented out here, lines 52-58" in workers
    # the snippet it offers is one line a user can paste
    snippet = workers.split("`")[1]
    (tmp_path / "snippet.yaml").write_text(snippet + "\n", encoding="utf-8")
    pasted = _run(tmp_path, "import", "conf", "snippet.yaml", "--name", "t2-job")
    assert pasted.returncode == 0, pasted.stderr


def test_uncommented_example_and_a_name_render(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    resource = conf / "kubernetes/resource.yaml"
    lines = resource.read_text(encoding="utf-8").splitlines(keepends=True)
    assert lines[51].startswith("# twister2.resource.worker.compute.resources:")
    for index in range(51, 58):  # lines 52-58: the documented example
        lines[index] = lines[index].removeprefix("#").removeprefix(" ")
    resource.write_text("".join(lines), encoding="utf-8")
    imported = _run(
        tmp_path,
        "import",
        "conf",
        "--name",
        "t2-job",
        "--jar",
        "x.jar",
        "--output-file",
        "job.yaml",
    )
    assert imported.returncode == 0, imported.stderr
    job = (tmp_path / "job.yaml").read_text(encoding="utf-8")
    assert "count: 4" in job and "cpu: 0.2" in job and "memory: 1Gi" in job
    rendered = _run(tmp_path, "render", "job.yaml")
    assert rendered.returncode == 0, rendered.stderr
    kinds = [obj["kind"] for obj in load_all_yaml(rendered.stdout)]
    assert kinds.count("StatefulSet") == 2


def test_errors_cite_the_users_file_not_the_job_file(tmp_path: Path) -> None:
    """A rule that cites another field's line cites its Twister2 key's file and line."""
    (tmp_path / "resource.yaml").write_text(
        'twister2.job.id: "three"\n'
        'twister2.resource.kubernetes.docker.image: "twister2/twister2-k8s:0.8.0"\n'
        'twister2.network.channel.class: "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"\n'
        "twister2.resource.worker.compute.resources:\n"
        "  - {cpu: 1.0, ram: 1024, disk: 0.0, instances: 3}\n"
        "  - {cpu: 1.0, ram: 1024, disk: 0.0, instances: 4}\n"
        "kubernetes.worker.to.node.mapping: true\n"
        'twister2.resource.kubernetes.worker.mapping.key: "kubernetes.io/hostname"\n'
        'twister2.resource.kubernetes.worker.mapping.operator: "In"\n'
        "twister2.resource.kubernetes.worker.mapping.values: ['e012', 'e013']\n"
        'kubernetes.worker.mapping.uniform: "all-separate-nodes"\n',
        encoding="utf-8",
    )
    result = _run(tmp_path, "import", "resource.yaml")
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith("resource.yaml:11:1: kubernetes.worker.mapping.uniform: ")
    assert "In list at resource.yaml:10 allows only 2 nodes" in line
    assert "line " not in line


def test_older_keys_are_imported_or_listed(tmp_path: Path) -> None:
    (tmp_path / "old.yaml").write_text(
        'twister2.job.id: "old"\n'
        'twister2.docker.image.for.kubernetes: "twister2/twister2-k8s:0.8.0"\n'
        'twister2.network.channel.class: "edu.iu.dsc.tws.comms.tcp.TWSTCPChannel"\n'
        "twister2.worker.instances: 2\n"
        'twister2.kubernetes.uploading.method: "webserver"\n'
        "kubernetes.racks.list: []\n"
        "kubernetes.storage.reclaim.policy: Retain\n",
        encoding="utf-8",
    )
    result = _run(tmp_path, "import", "old.yaml", "--jar", "x.jar")
    assert result.returncode == 0, result.stderr
    assert (
        "uploadMethod: webserver             # from twister2.kubernetes.uploading.method (old.yaml:5)"
        in result.stdout
    )
    assert (
        "old.yaml:6:1: kubernetes.racks.list: read from the job package"
        in result.stderr
    )
    assert (
        "old.yaml:7:1: kubernetes.storage.reclaim.policy: not used on Kubernetes"
        in (result.stderr)
    )
    assert "unknown" not in result.stderr


# Every key of Twister2 0.8's KubernetesContext (cylondata/twister2 c6844d2,
# twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/
# KubernetesContext.java:21-97), and the older names the Twister2 docs use.
KUBERNETES_CONTEXT_KEYS = (
    "twister2.resource.kubernetes.docker.image",
    "kubernetes.namespace",
    "kubernetes.log.in.client",
    "kubernetes.worker.base.port",
    "twister2.resource.kubernetes.node.locations.from.config",
    "kubernetes.node.port.service.requested",
    "kubernetes.service.node.port",
    "kubernetes.worker.transport.protocol",
    "kubernetes.image.pull.policy",
    "twister2.resource.kubernetes.persistent.storage.class",
    "twister2.resource.kubernetes.storage.access.mode",
    "kubernetes.bind.worker.to.cpu",
    "kubernetes.worker.to.node.mapping",
    "twister2.resource.kubernetes.worker.mapping.key",
    "twister2.resource.kubernetes.worker.mapping.operator",
    "twister2.resource.kubernetes.worker.mapping.values",
    "kubernetes.worker.mapping.uniform",
    "kubernetes.secret.name",
    "twister2.kubernetes.uploader.web.server",
    "twister2.kubernetes.uploader.web.server.directory",
    "twister2.kubernetes.uploader.web.server.label",
    "twister2.kubernetes.check.pwd.free.ssh",
    "twister2.kubernetes.jvm.memory.fraction",
)
OLDER_KEYS = (
    "twister2.kubernetes.uploading.method",  # docs yaml-templates/statefulset-for-workers.yaml:119
    "kubernetes.storage.reclaim.policy",  # docs yaml-templates/persistent-volume.yaml:17
    "kubernetes.racks.list",  # docs deployment/kubernetes/twister2-install-kubernetes.md:294
    "kubernetes.datacenters.list",  # ibid.:290
    "twister2.docker.image.for.kubernetes",
    "kubernetes.worker.mapping.key",
    "kubernetes.worker.mapping.operator",
    "kubernetes.worker.mapping.values",
    "kubernetes.persistent.storage.class",
    "kubernetes.storage.access.mode",
    "kubernetes.node.locations.from.config",
    "kubernetes.workers.per.pod",
)


def test_every_kubernetes_context_key_is_known() -> None:
    unknown = [k for k in KUBERNETES_CONTEXT_KEYS + OLDER_KEYS if lookup(k) is None]
    assert unknown == []


def test_warning_about_an_unset_key_is_at_its_commented_example(tmp_path: Path) -> None:
    conf = _conf(tmp_path)
    network = conf / "kubernetes/network.yaml"
    text = network.read_text(encoding="utf-8")
    network.write_text(
        text.replace(
            "\ntwister2.network.channel.class:", "\n# twister2.network.channel.class:"
        ),
        encoding="utf-8",
    )
    snippet = "twister2.resource.worker.compute.resources: [{cpu: 1.0, ram: 1024, disk: 0.0, instances: 2}]\n"
    (tmp_path / "workers.yaml").write_text(snippet, encoding="utf-8")
    result = _run(
        tmp_path, "import", "conf", "workers.yaml", "--name", "t2-job", "--jar", "x.jar"
    )
    assert result.returncode == 0, result.stderr
    assert (
        "warning: conf/kubernetes/network.yaml:8:3: twister2.network.channel.class: not set"
        in result.stderr
    )


# Issue 42, item 9: the shipped configuration with node mapping switched on names the
# key that is still commented out (it said the key and operator were "not both set"),
# and its -SNAPSHOT image gets a remark (it was taken silently).

_MAPPING = "twister2.resource.kubernetes.worker.mapping"


def _uncomment(conf: Path, *prefixes: str) -> None:
    """Uncomment the shipped lines of conf/kubernetes/resource.yaml that start with ``# <prefix>``."""
    resource = conf / "kubernetes/resource.yaml"
    lines = resource.read_text(encoding="utf-8").splitlines(keepends=True)
    for index, line in enumerate(lines):
        if any(line.startswith(f"# {prefix}") for prefix in prefixes):
            lines[index] = line.removeprefix("# ")
    resource.write_text("".join(lines), encoding="utf-8")


def test_node_mapping_without_its_key_names_the_commented_out_keys(
    tmp_path: Path,
) -> None:
    conf = _conf(tmp_path)
    _uncomment(conf, "kubernetes.worker.to.node.mapping:")  # shipped as `false`: set it
    resource = conf / "kubernetes/resource.yaml"
    text = resource.read_text(encoding="utf-8")
    assert "\nkubernetes.worker.to.node.mapping: false\n" in text
    resource.write_text(text.replace("mapping: false", "mapping: true"), "utf-8")
    args = (
        "import",
        "conf",
        str(ROOT / "tests/fixtures/twister2-0.8-shipped-example.yaml"),
    )
    result = _run(tmp_path, *args, "--name", "t2-job", "--jar", "x.jar")
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "conf/kubernetes/resource.yaml:204:1: kubernetes.worker.to.node.mapping: true here, "
        f"but {_MAPPING}.key (commented out at line 207) and {_MAPPING}.operator "
        "(commented out at line 213) are not set:"
    ), line

    _uncomment(conf, f"{_MAPPING}.key:")
    result = _run(tmp_path, *args, "--name", "t2-job", "--jar", "x.jar")
    (line,) = result.stderr.splitlines()
    assert f"but {_MAPPING}.operator (commented out at line 213) is not set" in line
    assert f"{_MAPPING}.key" not in line

    # key and operator set, the values still commented out: named (it said "operator In
    # needs at least one value, e.g. values: [gpu]", a job-file field the user has not)
    _uncomment(conf, f"{_MAPPING}.operator:")
    result = _run(tmp_path, *args, "--name", "t2-job", "--jar", "x.jar")
    assert result.returncode == 1
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        f"conf/kubernetes/resource.yaml:213:1: {_MAPPING}.operator: operator In needs at "
        f"least one value in {_MAPPING}.values (commented out at line 217), which is not set"
    ), line

    _uncomment(conf, f"{_MAPPING}.values:")
    result = _run(tmp_path, *args, "--name", "t2-job", "--jar", "x.jar")
    assert result.returncode == 0, result.stderr


def test_a_snapshot_image_gets_a_remark_at_its_value(tmp_path: Path) -> None:
    _conf(tmp_path)
    example = str(ROOT / "tests/fixtures/twister2-0.8-shipped-example.yaml")
    result = _run(
        tmp_path, "import", "conf", example, "--name", "t2-job", "--jar", "x.jar"
    )
    assert result.returncode == 0, result.stderr
    remark = next(line for line in result.stderr.splitlines() if "SNAPSHOT" in line)
    assert remark.startswith(
        "warning: conf/kubernetes/resource.yaml:5:44: twister2.resource.kubernetes.docker.image: "
        "'twister2/twister2-k8s:0.8.0-SNAPSHOT' is a -SNAPSHOT tag, a development build"
    ), remark
    assert "pin the build by digest" in remark

    # a release tag, or a snapshot pinned by its digest, gets none
    resource = tmp_path / "conf/kubernetes/resource.yaml"
    text = resource.read_text(encoding="utf-8")
    for image in (
        "twister2/twister2-k8s:0.8.0",
        "twister2/twister2-k8s:0.8.0-SNAPSHOT@sha256:" + "a" * 64,
    ):
        resource.write_text(
            text.replace("twister2/twister2-k8s:0.8.0-SNAPSHOT", image), "utf-8"
        )
        result = _run(
            tmp_path, "import", "conf", example, "--name", "t2-job", "--jar", "x.jar"
        )
        assert result.returncode == 0, result.stderr
        assert "SNAPSHOT tag" not in result.stderr


def test_client_to_pods_is_kept_with_a_note_saying_where_its_size_comes_from(
    tmp_path: Path,
) -> None:
    """``client-to-pods`` maps to ``uploadMethod: client-to-pods``, and the note's advice works.

    No configuration holds the package's size, which the pods wait for
    (``get_job_package.sh:30-46``): import exited 1 on rule ``package-file-size``.
    The job file is now written, checked as with ``--package``; ``t2gen package``
    needs no size, and ``render --package`` takes it from the package, as the note says.
    """
    from tests.package.cases import jar_bytes

    conf = tmp_path / "conf"
    shutil.copytree(ROOT / "examples/twister2-conf", conf)
    with (conf / "kubernetes/resource.yaml").open("a", encoding="utf-8") as file:
        file.write(
            'twister2.kubernetes.uploading.method: "client-to-pods"\n'
            'twister2.resource.job.worker.class: "edu.iu.dsc.tws.examples.basic.HelloWorld"\n'
        )
    result = _run(
        tmp_path, "import", "conf", "--jar", "wc.jar", "--output-file", "job.yaml"
    )
    assert result.returncode == 0, result.stderr
    job = (tmp_path / "job.yaml").read_text(encoding="utf-8")
    assert "    uploadMethod: client-to-pods " in job
    assert "fileSize" not in job.split("\n# ", 1)[0]
    (note,) = [
        line for line in result.stderr.splitlines() if "uploading.method" in line
    ]
    assert note.startswith(
        "warning: conf/kubernetes/resource.yaml:26:1: twister2.kubernetes.uploading.method: "
        "kept as Twister2's delivery, which needs the package's size, in no configuration: "
        "write jobPackage.fileSize: <the bytes t2gen package prints>, or give render, "
        "validate and plan --package FILE; its nearest digest-pinned form is jobPackage.source"
    )
    (tmp_path / "wc.jar").write_bytes(jar_bytes())
    packaged = _run(tmp_path, "package", "job.yaml", "--jar", "wc.jar")
    assert packaged.returncode == 0, packaged.stderr
    rendered = _run(tmp_path, "render", "job.yaml", "--package", "wordcount.tar.gz")
    assert rendered.returncode == 0, rendered.stderr
    size = (tmp_path / "wordcount.tar.gz").stat().st_size
    assert (
        f"value: '{size}'" in rendered.stdout or f'value: "{size}"' in rendered.stdout
    )
