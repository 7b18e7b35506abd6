"""Time the plan engine on 5,000 nodes and a 100,000-worker job (issue 13's budget: < 1 s).

Builds, in memory:

* a node list as ``kubectl get nodes -o json`` prints it: 5,000 nodes, a quarter
  labelled ``extra-hardware=gpu``, every 50th cordoned, every 40th tainted;
* 10,000 running pods (two system pods per node), as ``kubectl get pods -A -o json``;
* the rendered job, from ``t2gen render --format json`` of a job file with
  100,000 workers: 4 per pod in two groups (25,000 worker pods) plus the job master,
  and a second job of 100,000 workers, 25 per pod, ``all-separate-nodes`` on the
  GPU nodes.

It prints the time of each step (median of several runs): parsing the node and
pod JSON, and planning; the budget is checked on parsing the nodes plus
planning (``--pods`` is optional). Then it times the whole command as a user
runs it (``t2gen plan JOB --nodes FILE``, and the worker map ``t2gen plan JOB``
with and without ``--summary``), start-up, validation and rendering included.
Timings are reported, never asserted.

Run: ``make bench`` (or ``.venv/bin/python bench/plan_bench.py``)
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from t2gen.plan import load_document, parse_nodes, parse_pods, plan

NODES = 5000
RUNS = 5


def node(i: int) -> dict[str, Any]:
    name = f"node{i:05d}"
    gpu = i % 4 == 0
    labels = {
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": "g5.8xlarge" if gpu else "m5.8xlarge",
        "topology.kubernetes.io/zone": f"us-east-1{'abc'[i % 3]}",
        "cores": "32",
    }
    if gpu:
        labels["extra-hardware"] = "gpu"
        labels["nvidia.com/gpu.present"] = "true"
    allocatable = {
        "cpu": "31850m",
        "memory": f"{127_000_000 + i}Ki",
        "pods": "110",
        "ephemeral-storage": "95551679920",
    }
    if gpu:
        allocatable["nvidia.com/gpu"] = "1"
    spec: dict[str, Any] = {}
    if i % 50 == 7:
        spec["unschedulable"] = True
        spec["taints"] = [
            {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}
        ]
    elif i % 40 == 3:
        spec["taints"] = [
            {"key": "dedicated", "value": "batch", "effect": "NoSchedule"}
        ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": spec,
        "status": {
            "allocatable": allocatable,
            "capacity": {**allocatable, "cpu": "32"},
        },
    }


def system_pods(i: int) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{app}-{i}",
                "namespace": "kube-system",
                "labels": {"k8s-app": app},
            },
            "spec": {
                "nodeName": f"node{i:05d}",
                "containers": [
                    {
                        "name": app,
                        "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}},
                    }
                ],
            },
            "status": {"phase": "Running"},
        }
        for app, cpu in (("kube-proxy", "100m"), ("aws-node", "25m"))
    ]


JOBS = {
    "25,000 pods (100,000 workers, 4 per pod, 2 groups)": """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata: {name: big}
spec:
  image: twister2/twister2-k8s:0.8.0
  workers:
    - {count: 40000, perPod: 4, cpu: 1, memory: 2Gi}
    - {count: 60000, perPod: 4, cpu: 500m, memory: 1Gi}
""",
    "4,000 pods all-separate-nodes on GPU nodes (100,000 workers, 25 per pod)": """\
apiVersion: t2gen/v1
kind: Twister2Job
metadata: {name: spread}
spec:
  image: twister2/twister2-k8s:0.8.0
  workers:
    - {count: 25000, perPod: 25, cpu: 1, memory: 1Gi}
    - {count: 75000, perPod: 25, cpu: 1, memory: 1Gi}
  placement:
    nodeAffinity:
      required:
        - {key: extra-hardware, operator: NotIn, values: [cpu-only]}
    uniform: all-separate-nodes
""",
}


def render(job: str) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "job.yaml"
        path.write_text(job, encoding="utf-8")
        out = subprocess.run(
            [sys.executable, "-m", "t2gen", "render", str(path), "--format", "json"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    items = json.loads(out)["items"]
    assert isinstance(items, list)
    return items


def median_time(fn: Callable[[], object]) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(RUNS):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    nodes_text = json.dumps(
        {"apiVersion": "v1", "kind": "List", "items": [node(i) for i in range(NODES)]}
    )
    pods_text = json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [p for i in range(NODES) for p in system_pods(i)],
        }
    )
    t_nodes, nodes = median_time(
        lambda: parse_nodes(load_document(nodes_text, "nodes"), "nodes")
    )
    t_pods, pods = median_time(
        lambda: parse_pods(load_document(pods_text, "pods"), "pods")
    )
    assert isinstance(nodes, tuple) and isinstance(pods, tuple)
    print(
        f"parse {len(nodes):,} nodes ({len(nodes_text) / 1e6:.1f} MB JSON): {t_nodes * 1000:7.1f} ms"
    )
    print(
        f"parse {len(pods):,} running pods ({len(pods_text) / 1e6:.1f} MB JSON): {t_pods * 1000:7.1f} ms"
    )
    for title, job in JOBS.items():
        objects = render(job)
        t_plan, result = median_time(lambda objects=objects: plan(objects, nodes, pods))
        feasible = getattr(result, "feasible", None)
        print(f"plan {title}: {t_plan * 1000:7.1f} ms (feasible: {feasible})")
        total = t_nodes + t_plan
        verdict = "PASS" if total < 1.0 else "MISS"
        print(
            f"  parse nodes + plan: {total * 1000:7.1f} ms  [{verdict}: budget 1000 ms]"
        )
        print(f"  with --pods parsed too: {(total + t_pods) * 1000:7.1f} ms")
    _commands(nodes_text, pods_text)


def _commands(nodes_text: str, pods_text: str) -> None:
    """Time ``t2gen plan`` end to end, as a subprocess, on the first job."""
    with tempfile.TemporaryDirectory() as tmp:
        job = Path(tmp) / "job.yaml"
        job.write_text(next(iter(JOBS.values())), encoding="utf-8")
        (Path(tmp) / "nodes.json").write_text(nodes_text, encoding="utf-8")
        (Path(tmp) / "pods.json").write_text(pods_text, encoding="utf-8")
        for args in (
            ["--nodes", "nodes.json"],
            ["--nodes", "nodes.json", "--pods", "pods.json"],
            [],
            ["--summary"],
            ["-o", "json"],
        ):
            command = [sys.executable, "-m", "t2gen", "plan", "job.yaml", *args]
            runs = 3

            def run(command: list[str] = command) -> object:
                return subprocess.run(
                    command, cwd=tmp, capture_output=True, check=False
                ).returncode

            seconds, code = median_time(run) if runs else (0.0, None)
            shown = " ".join(["t2gen", "plan", "job.yaml", *args])
            print(f"{shown} (100,000 workers): {seconds * 1000:7.1f} ms (exit {code})")


if __name__ == "__main__":
    import argparse

    from report import appended_to

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--append", metavar="FILE", help="also append the figures to this report"
    )
    with appended_to(
        parser.parse_args().append,
        "t2gen plan: 5,000 nodes, 100,000 workers (bench/plan_bench.py)",
    ):
        main()
