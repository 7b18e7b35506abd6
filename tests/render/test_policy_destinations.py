"""``spec.network.policy`` and the destinations the job is configured to reach (issue 42, item 6).

The Twister2 dashboard (``twister2.dashboard.host``) and HDFS checkpoint storage
(``checkpointing.storageType: hdfs``, ``twister2.data.hdfs.namenode``) come from
the job's configuration (``spec.jobConfig``, or the package's with ``--package``),
not from the manifests. Before, the policy blocked them without a word: the job
master hung registering with the dashboard and every worker restarted
(DSC-SPIDAL/twister2 ``JobMaster.java:276-284``, ``JMWorkerAgent.java:122,205-209``).
Now Twister2's own dashboard Service is allowed by its pods' labels (judged by
the NetworkPolicy evaluator of ``test_network_policy``), and every other
destination is allowed by a ``network.policy.egress`` entry or warned of, located.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import Warning_
from t2gen.inputs.jobfile import parse_job
from t2gen.pipeline.job import generate
from t2gen.pipeline.load import validate
from tests.helpers import Completed, job_text, run_cli
from tests.package.cases import jar_bytes
from tests.render.test_network_policy import allowed

T2GEN = Path(sys.executable).parent / "t2gen"
WORKERS = "workers:\n  - count: 2\n"
POLICY = WORKERS + "network:\n  policy:\n    enabled: true\n"
DASHBOARD_POD = {
    "namespace": "monitoring",
    "labels": {"app": "twister2-dashboard"},
    "ip": "10.1.7.1",
}


def _warnings(spec: str) -> list[Warning_]:
    found: list[Warning_] = []
    validate(parse_job(job_text(spec), path="job.yaml"), warnings=found)
    return found


def _objects(tmp_path: Path, spec: str) -> list[dict[str, Any]]:
    path = tmp_path / "job.yaml"
    path.write_text(job_text(spec, metadata="namespace: ns\n"), encoding="utf-8")
    return [d.obj for d in generate([str(path)])]


def _job_master(objects: list[dict[str, Any]]) -> dict[str, Any]:
    sts = next(
        o
        for o in objects
        if o["kind"] == "StatefulSet" and o["metadata"]["name"] == "job-jm"
    )
    return {
        "namespace": "ns",
        "labels": sts["spec"]["template"]["metadata"]["labels"],
        "ip": "10.1.0.9",
    }


def test_twister2s_own_dashboard_is_allowed_by_its_pods_labels(tmp_path: Path) -> None:
    spec = (
        POLICY
        + 'jobConfig:\n  twister2.dashboard.host: "http://twister2-dashboard.monitoring.svc.cluster.local"\n'
    )
    assert _warnings(spec) == []
    objects = _objects(tmp_path, spec)
    policies = [o for o in objects if o["kind"] == "NetworkPolicy"]
    job_master = _job_master(objects)
    assert allowed(policies, job_master, DASHBOARD_POD, 8080)
    # only those pods, on that port: not another namespace's, not another port
    assert not allowed(
        policies, job_master, {**DASHBOARD_POD, "namespace": "other"}, 8080
    )
    assert not allowed(policies, job_master, DASHBOARD_POD, 9090)
    # before: the same job's policy let the job master reach no dashboard
    plain = _objects(tmp_path, POLICY)
    assert not allowed(
        [o for o in plain if o["kind"] == "NetworkPolicy"],
        job_master,
        DASHBOARD_POD,
        8080,
    )


@pytest.mark.parametrize(
    ("host", "egress", "warned"),
    [
        ("http://dash.example.com:8080", "", True),
        ("http://dash.example.com:8080", "- {ports: [8080]}", False),
        ("http://dash.example.com", "- {ports: [8080]}", True),  # port 80
        ("http://10.2.0.5:8080", "- {cidrs: [10.2.0.0/24], ports: [8080]}", False),
        ("http://10.2.0.5:8080", "- {cidrs: [10.3.0.0/24], ports: [8080]}", True),
        (
            "https://twister2-dashboard.monitoring.svc.cluster.local",
            "",
            True,
        ),  # not the shipped Service
    ],
)
def test_another_dashboard_needs_an_egress_entry_or_is_warned_of_at_its_key(
    host: str, egress: str, warned: bool
) -> None:
    spec = POLICY + (f"    egress:\n      {egress}\n" if egress else "")
    spec += f'jobConfig:\n  twister2.dashboard.host: "{host}"\n'
    found = _warnings(spec)
    assert bool(found) == warned, found
    if warned:
        (w,) = found
        assert w.json_path == 'spec.jobConfig["twister2.dashboard.host"]'
        assert w.message.startswith(
            f"network.policy lets no pod reach the Twister2 dashboard at {host}"
        )
        assert "every worker fails and restarts" in w.message


def test_an_ip_dashboard_warning_gives_the_block_to_add() -> None:
    (w,) = _warnings(
        POLICY + 'jobConfig:\n  twister2.dashboard.host: "http://10.2.0.5:8080"\n'
    )
    assert (
        "add network.policy.egress: [{cidrs: [10.2.0.5/32], ports: [8080]}]"
        in w.message
    )


HDFS = "checkpointing: {enabled: true, storageType: hdfs}\n"


def test_hdfs_checkpoints_need_an_egress_entry() -> None:
    (w,) = _warnings(POLICY + HDFS)  # the name node is the package's to say
    assert w.json_path == "spec.checkpointing.storageType"
    assert w.message.startswith(
        "checkpoints go to HDFS, but network.policy allows no egress entry"
    )
    assert "9866 by Hadoop 3's default" in w.message
    # an entry t2gen cannot judge against an unknown name node is taken as meant
    assert (
        _warnings(POLICY + "    egress:\n      - {cidrs: [10.20.0.0/16]}\n" + HDFS)
        == []
    )
    # no policy, or checkpoints on the claim: nothing to say
    assert _warnings(WORKERS + HDFS) == []
    mounted = _warnings(POLICY + "checkpointing: {enabled: true}\n")  # another rule's
    assert not [w for w in mounted if "HDFS" in w.message]


@pytest.mark.parametrize(
    ("ports", "warned"), [("[8020, 9866]", False), ("[9866]", True), ("[]", False)]
)
def test_a_name_node_in_job_config_is_judged_by_address_and_port(
    ports: str, warned: bool
) -> None:
    egress = (
        "    egress:\n      - {cidrs: [10.20.0.0/16]"
        + (f", ports: {ports}" if ports != "[]" else "")
        + "}\n"
    )
    spec = POLICY + egress + HDFS
    spec += 'jobConfig:\n  twister2.data.hdfs.namenode: "10.20.3.4"\n  twister2.data.hdfs.namenode.port: 8020\n'
    found = _warnings(spec)
    assert bool(found) == warned
    if warned:
        (w,) = found
        assert w.json_path == 'spec.jobConfig["twister2.data.hdfs.namenode"]'
        assert (
            "whose name node is 10.20.3.4:8020 (twister2.data.hdfs.namenode)"
            in w.message
        )


def _t2gen(*argv: str, cwd: Path) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _process(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``t2gen ARGV`` from ``cwd``, run by the console script."""
    return subprocess.run(
        [str(T2GEN), *argv], cwd=cwd, capture_output=True, text=True, encoding="utf-8",
        check=False, timeout=120,
    )  # fmt: skip


def test_the_packages_dashboard_and_name_node_are_checked_with_package(
    tmp_path: Path,
) -> None:
    """``--package``: the package's configuration, with ``spec.jobConfig`` over it, located in the package."""
    conf = tmp_path / "conf"
    (conf / "common").mkdir(parents=True)
    (conf / "kubernetes").mkdir()
    (conf / "common" / "core.yaml").write_text(
        '# the dashboard\ntwister2.dashboard.host: "http://dash.example.com:8080"\n',
        "utf-8",
    )
    (conf / "common" / "data.yaml").write_text(
        'twister2.data.hdfs.namenode: "10.20.3.4"\ntwister2.data.hdfs.namenode.port: 8020\n',
        "utf-8",
    )
    job = tmp_path / "job.yaml"
    job.write_text(job_text("workerClass: a.B\n" + POLICY + HDFS), encoding="utf-8")
    (tmp_path / "job.jar").write_bytes(jar_bytes(classes=("a.B",)))
    packaged = _t2gen(
        "package", "job.yaml", "--jar", "job.jar", "--conf", "conf", cwd=tmp_path
    )
    assert packaged.returncode == 0, packaged.stderr
    done = _t2gen("render", "job.yaml", "--package", "job.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    # The console script prints the same as the in-process run.
    process = _process("render", "job.yaml", "--package", "job.tar.gz", cwd=tmp_path)
    assert (process.returncode, process.stdout, process.stderr) == (
        done.returncode,
        done.stdout,
        done.stderr,
    )
    warned = [line for line in done.stderr.splitlines() if ": warning: " in line]
    assert len(warned) == 2, done.stderr
    dashboard, name_node = sorted(warned, key=lambda line: "HDFS" in line)
    assert (
        "(twister2.dashboard.host, in the job package at job.tar.gz:twister2-job/common/core.yaml:2)"
        in dashboard
    )
    assert dashboard.startswith("job.yaml:") and ": spec.network.policy: " in dashboard
    assert ": spec.checkpointing.storageType: " in name_node
    assert (
        "name node is 10.20.3.4:8020 (twister2.data.hdfs.namenode, in the job package at job.tar.gz:twister2-job/common/data.yaml:1)"
        in name_node
    )
    # without --package the job file alone knows no dashboard, and no name node
    alone = _t2gen("render", "job.yaml", cwd=tmp_path)
    assert "dashboard" not in alone.stderr and "allows no egress entry" in alone.stderr

    # Twister2's own dashboard Service named in the package: allowed, nothing to say
    (conf / "common" / "core.yaml").write_text(
        'twister2.dashboard.host: "http://twister2-dashboard.default.svc.cluster.local"\n',
        "utf-8",
    )
    assert (
        _t2gen(
            "package", "job.yaml", "--jar", "job.jar", "--conf", "conf", cwd=tmp_path
        ).returncode
        == 0
    )
    done = _t2gen("render", "job.yaml", "--package", "job.tar.gz", cwd=tmp_path)
    assert done.returncode == 0 and "dashboard" not in done.stderr, done.stderr
    assert "app: twister2-dashboard" in done.stdout
