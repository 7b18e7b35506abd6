"""What each fast path buys: every command with all fast paths, and with one switched off.

For each fast path of ``t2gen/fastpaths.py`` the command it speeds up runs
round-robin, one run of each per round, with every fast path and with
``T2GEN_NO_<NAME>=1`` (so drift in the machine's speed falls on both alike);
the report gives both medians, the time the fast path saves and that saving as
a share of the plain command (with the switch set). ``make bench`` appends the
table to ``bench/results.md``; ``docs/performance.md`` quotes it.

The commands: a cold ``t2gen render`` of the example (the start, the job-file
reading and checking, the templates); ``render --validate`` (the Kubernetes
schema code); a batch of job files, in one process (``--jobs 1``: the
per-job paths) and by default (the batch over processes); and ``t2gen plan`` on
5,000 realistic nodes and 2,500 pods (the typed reader).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from plan_bench import node, node_name, pod, write_list
from report import appended_to

from bench import job_text
from t2gen.fastpaths import FAST_PATHS, switch_variable

ROOT = Path(__file__).resolve().parent.parent

T2GEN = str(Path(sys.executable).with_name("t2gen"))
EXAMPLE = "examples/wordcount.yaml"


def _time(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        command,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
        env=env,
    )
    return time.perf_counter() - start


def ablate(name: str, command: list[str], runs: int) -> tuple[float, float]:
    """Median wall times (ms) of ``command`` with every fast path, and with ``name`` off."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("T2GEN_NO_")}
    base["KUBECONFIG"] = os.devnull
    off = {**base, switch_variable(name): "1"}
    times: dict[str, list[float]] = {"on": [], "off": []}
    for index in range(runs + 2):  # two warm-up rounds
        for label, env in (("on", base), ("off", off)):
            elapsed = _time(command, env)
            if index >= 2:
                times[label].append(elapsed)
    return statistics.median(times["on"]) * 1000, statistics.median(times["off"]) * 1000


def main() -> None:
    """Measure every fast path, print the table (and append it with ``--append``)."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--runs", type=int, default=15, help="rounds per single command"
    )
    parser.add_argument("--batch-runs", type=int, default=5, help="rounds per batch")
    parser.add_argument("--append", metavar="FILE", help="append the table to FILE")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        batch = []
        for index in range(500):
            path = Path(temporary, f"job{index}.yaml")
            path.write_text(
                job_text(f"job{index}", 4 + index % 8 * 2), encoding="utf-8"
            )
            batch.append(str(path))
        nodes, pods = Path(temporary, "nodes.json"), Path(temporary, "pods.json")
        write_list(nodes, node, 5000)
        write_list(pods, lambda i: pod(i, node_name(i % 5000)), 2500)
        render = [T2GEN, "render", EXAMPLE]
        one = [T2GEN, "render", "--jobs", "1", *batch[:100]]
        commands = {
            "FAST_START": [("cold render", render, args.runs)],
            "SCHEMA_CODE": [
                ("cold render", render, args.runs),
                ("100 jobs, --jobs 1", one, args.batch_runs),
            ],
            "FAST_YAML": [
                ("cold render", render, args.runs),
                ("100 jobs, --jobs 1", one, args.batch_runs),
            ],
            "SKELETON": [
                ("cold render", render, args.runs),
                ("100 jobs, --jobs 1", one, args.batch_runs),
            ],
            "UNWRITTEN_RULES": [("100 jobs, --jobs 1", one, args.batch_runs)],
            "PRECOMPILED": [("cold render", render, args.runs)],
            "KUBE_SCHEMA_CODE": [
                ("cold render --validate", [*render, "--validate"], args.runs)
            ],
            "TYPED_READER": [
                (
                    "plan, 5,000 nodes and 2,500 pods",
                    [
                        T2GEN,
                        "plan",
                        EXAMPLE,
                        "--nodes",
                        str(nodes),
                        "--pods",
                        str(pods),
                    ],
                    args.batch_runs,
                )
            ],
            "FUSED_CHECKS": [("100 jobs, --jobs 1", one, args.batch_runs)],
            "PROCESSES": [
                ("500 jobs, default --jobs", [T2GEN, "render", *batch], args.batch_runs)
            ],
        }
        assert set(commands) == set(FAST_PATHS), "measure every fast path"
        with appended_to(args.append, "Fast paths by ablation (bench/ablation.py)"):
            print(
                "| fast path | switch | command | with (ms) | switched off (ms) | saves (ms) | share of the plain command |"
            )
            print("|---|---|---|---:|---:|---:|---:|")
            for name, runs in commands.items():
                for label, command, count in runs:
                    on, off = ablate(name, command, count)
                    print(
                        f"| {name} | `{switch_variable(name)}` | {label} | {on:.1f} | {off:.1f} "
                        f"| {off - on:.1f} | {(off - on) / off:.0%} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
