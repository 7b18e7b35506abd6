"""``t2gen import`` and ``t2gen plan`` end to end, and the worker map against the topology."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from t2gen.pipeline.job import generate
from t2gen.pipeline.load import validate_files
from t2gen.plan.workermap import (
    build_worker_map,
    pod_dns_name,
    worker_map_to_dict,
    write_json,
    write_table,
)
from tests.conftest import ROOT
from tests.helpers import Completed, run_cli


def _t2gen(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env={**os.environ, "PYTHONIOENCODING": "utf-8"},
        check=False,
        timeout=120,
    )


def _in_process(*args: str, stdin: str | None = None) -> Completed:
    """``t2gen ARGS`` run in this process (:func:`tests.helpers.run_cli`), from the root."""
    return run_cli(list(args), cwd=ROOT, input=stdin)


def test_import_pipes_into_render() -> None:
    """End to end: ``t2gen import ... | t2gen render -``, both real processes."""
    imported = _t2gen("import", "examples/twister2-conf", "--jar", "wordcount.jar")
    assert imported.returncode == 0, imported.stderr
    assert "warning: keys with no t2gen equivalent" in imported.stderr
    rendered = _t2gen("render", "-", stdin=imported.stdout)
    assert rendered.returncode == 0, rendered.stderr
    kinds = [
        line.split(": ", 1)[1]
        for line in rendered.stdout.splitlines()
        if line.startswith("kind: ")
    ]
    assert kinds.count("StatefulSet") == 3  # two worker groups and the job master


def test_import_writes_a_file_and_nothing_on_stdout(tmp_path: Path) -> None:
    target = tmp_path / "job.yaml"
    result = _in_process(
        "import", "examples/twister2-conf", "--output-file", str(target)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert f"wrote {target}" in result.stderr
    (job,) = validate_files([str(target)])
    assert job.name == "wordcount"


def test_import_error_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "job.yaml"
    result = _in_process("import", str(tmp_path), "--output-file", str(target))
    assert result.returncode == 1
    assert result.stdout == ""
    assert "holds no Twister2 configuration file" in result.stderr
    assert not target.exists()


def test_plan_reads_the_job_from_stdin() -> None:
    text = (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
    result = _in_process("plan", "-", "--nodes", "examples/nodes.json", stdin=text)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("feasible: all 5 pods fit at once")


def test_plan_exit_codes(in_root: Path) -> None:
    runner = CliRunner()
    job = "examples/gpu-one-pod-per-node.yaml"
    feasible = runner.invoke(app, ["plan", job, "--nodes", "examples/nodes.json"])
    assert feasible.exit_code == 0
    infeasible = runner.invoke(
        app,
        ["plan", job, "--nodes", "examples/nodes.json", "--pods", "examples/pods.json"],
    )
    assert infeasible.exit_code == 1
    assert infeasible.stdout.startswith("infeasible: 4 of 5 pods")
    assert "node02: 5765m cpu free, pod needs 8" in infeasible.stdout
    # the same verdict for scripts
    data = json.loads(
        runner.invoke(
            app,
            [
                "plan",
                job,
                "--nodes",
                "examples/nodes.json",
                "--pods",
                "examples/pods.json",
                "-o",
                "json",
            ],
        ).stdout
    )
    assert data["feasible"] is False


@pytest.mark.parametrize(
    "args",
    [
        ["--pods", "examples/pods.json"],
        ["--gang"],
        ["--nodes", "examples/nodes.json", "--summary"],
    ],
)
def test_plan_options_that_need_another(args: list[str], in_root: Path) -> None:
    result = CliRunner().invoke(app, ["plan", "examples/wordcount.yaml", *args])
    assert result.exit_code == 2
    assert result.stdout == ""


def _map(example: str, namespace: str | None = None) -> Any:
    path = str(ROOT / "examples" / f"{example}.yaml")
    (job,) = validate_files([path], namespace=namespace)
    objects = [d.obj for d in generate([path], namespace=namespace)]
    return build_worker_map(job, objects), objects


@pytest.mark.parametrize("example", ["heterogeneous", "openmpi", "wordcount"])
def test_worker_map_rows_are_the_topology(example: str) -> None:
    wmap, _ = _map(example)
    data = worker_map_to_dict(wmap)
    expected = [
        {
            "id": slot.worker_id,
            "group": slot.group,
            "statefulSet": slot.statefulset,
            "pod": slot.pod_name,
            "container": slot.container_name,
            # mpirun assigns ranks at run time (PodWatchUtils.java:592-604)
            **({"mpiRank": None} if wmap.mpi else {}),
            "ports": dict(slot.ports),
            "dnsName": pod_dns_name(slot.pod_name, example, wmap.namespace),
        }
        for slot in wmap.topology.iter_workers()
    ]
    assert data["workers"] == expected
    stream = io.StringIO()
    write_json(wmap, stream)
    assert json.loads(stream.getvalue()) == data
    summary = io.StringIO()
    write_json(wmap, summary, summary=True)
    assert "workers" not in json.loads(summary.getvalue())


def test_worker_map_table_has_one_row_per_worker() -> None:
    wmap, _ = _map("heterogeneous")
    stream = io.StringIO()
    write_table(wmap, stream)
    rows = stream.getvalue().split("\nWORKER ")[1].splitlines()[1:]
    assert len(rows) == wmap.topology.total_workers == 16
    assert rows[5].split() == [
        "5",
        "1",
        "heterogeneous-1",
        "heterogeneous-1-0",
        "twister2-container-1",
        "worker-1=9002,metrics-1=9003",
        "heterogeneous-1-0.heterogeneous.analytics.svc.cluster.local",
    ]
    short = io.StringIO()
    write_table(wmap, short, summary=True)
    assert "\nWORKER " not in short.getvalue()


def test_dns_names_with_and_without_a_namespace() -> None:
    assert pod_dns_name("wc-0-1", "wc", None) == "wc-0-1.wc"
    assert pod_dns_name("wc-0-1", "wc", "ml") == "wc-0-1.wc.ml.svc.cluster.local"
    wmap, _ = _map("wordcount", namespace="ml")
    assert wmap.job_master.host == "wordcount-jm.ml.svc.cluster.local"
    assert worker_map_to_dict(wmap)["workers"][0]["dnsName"] == (
        "wordcount-0-0.wordcount.ml.svc.cluster.local"
    )


def test_totals_sum_every_rendered_request() -> None:
    wmap, objects = _map("gpu-one-pod-per-node")
    assert (wmap.pods, wmap.requests.cpu_millis) == (5, 4 * 8000 + 200)
    # 4 worker pods of 16Gi, each + its 128Mi memory volume, and the job master's
    # 1Gi + 128Mi (the launcher's request; its memory volume is in its limit only)
    assert (
        wmap.requests.memory_bytes
        == 4 * (16 * 1024 + 128) * 2**20 + (1024 + 128) * 2**20
    )
    # An extended resource on the worker containers is counted per pod, like cpu.
    for obj in objects:
        if obj["metadata"]["name"] == "gpu-one-pod-per-node-0":
            container = obj["spec"]["template"]["spec"]["containers"][0]
            container["resources"]["requests"]["nvidia.com/gpu"] = "1"
    (job,) = validate_files([str(ROOT / "examples" / "gpu-one-pod-per-node.yaml")])
    gpu = build_worker_map(job, objects)
    assert gpu.requests.get("nvidia.com/gpu") == 4
    stream = io.StringIO()
    write_table(gpu, stream, summary=True)
    assert "requests 32.2 cpu, 67200Mi memory, 4 nvidia.com/gpu" in stream.getvalue()


def test_a_node_list_of_megabytes_is_read(tmp_path: Path, in_root: Path) -> None:
    doc = json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8"))
    items = []
    for i in range(400):  # 4,000 nodes, several MiB: more than a job file may be
        for node in doc["items"]:
            copy = json.loads(json.dumps(node))
            copy["metadata"]["name"] = f"{node['metadata']['name']}-{i}"
            items.append(copy)
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps({**doc, "items": items}), encoding="utf-8")
    assert nodes.stat().st_size > 2**20
    result = CliRunner().invoke(
        app, ["plan", "examples/wordcount.yaml", "--nodes", str(nodes)]
    )
    assert result.exit_code == 0, result.stderr
    assert "of 4000 nodes" in result.stdout


def test_a_fifo_as_node_list_is_refused_not_waited_on(tmp_path: Path) -> None:
    # The node list is read like a job file (t2gen.inputs.textfile.read_source), only
    # without the 1 MiB limit: a FIFO would block for ever, so it is refused. A process,
    # so that a regression ends at the timeout instead of hanging the test run.
    fifo = tmp_path / "nodes"
    os.mkfifo(fifo)
    result = _t2gen("plan", str(ROOT / "examples/wordcount.yaml"), "--nodes", str(fifo))
    assert result.returncode == 1 and result.stdout == ""
    assert "not a regular file" in result.stderr


def test_mpi_ranks_are_marked_as_assigned_at_run_time() -> None:
    wmap, _ = _map("openmpi")
    data = worker_map_to_dict(wmap)
    assert "assigned at run time" in data["mpiRanks"]
    assert {worker["mpiRank"] for worker in data["workers"]} == {None}
    stream = io.StringIO()
    write_table(wmap, stream)
    text = stream.getvalue()
    assert "WORKER (MPI RANK, AT RUN TIME)" in text
    assert "in the order the pods reach Running" in text


def test_node_port_workers_have_no_dns_names() -> None:
    wmap, _ = _map("nodeport")
    data = worker_map_to_dict(wmap)
    assert {worker["dnsName"] for worker in data["workers"]} == {None}
    stream = io.StringIO()
    write_table(wmap, stream)
    assert (
        "workers' NodePort Service: nodeport (no per-pod DNS names" in stream.getvalue()
    )
