"""Per input kind: the worst accepted and the worst refused input, CPU as a ratio to a plain render in the same run, peak RSS.

Issue 41: every input within its documented limit (docs/untrusted-input.md)
must be judged within 10x the CPU (user + system, ``os.wait4``) of a plain
``t2gen render examples/wordcount.yaml`` measured in the same run, and
200 MB. For each input kind this script writes (``bench/hostile.py``, into a
temporary directory) the worst input at its limit that t2gen accepts and the
worst it refuses, runs each as a fresh process, and prints one row each:
exit code, CPU seconds and ratio, peak MB, the verdict against the budget
(``bench/budget.py``) and the first line of stderr. Figures are reported,
never asserted.

Run it with ``make bench`` or alone: ``python bench/kinds.py [--runs N] [--only TEXT]``.
"""

from __future__ import annotations

import argparse
import functools
import json
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path

import hostile as h
from budget import CPU_BUDGET_X, MEMORY_BUDGET_MB
from report import appended_to

BIN = Path(sys.executable).parent

P = functools.partial

KINDS: list[tuple[str, list[tuple[str, Callable[[Path], h.Made]]]]] = [
    ("status --cluster (16 MiB)", [
        ("accepted: 16 MiB of pods (26,000)", P(h.status_pods, size=16 * 2**20)),
        ("refused: the same, the last no object", P(h.status_pods, size=16 * 2**20, broken_last=True)),
        ("refused: 62 MB of pods (100,000)", P(h.status_pods, size=62_000_000)),
    ]),
    ("status -o json, a long pod name", [
        ("accepted: a 16 MB name", P(h.status_long_name, size=16_000_000)),
        ("refused: a 20 MB name (over 16 MiB)", P(h.status_long_name, size=20_000_000)),
    ]),
    ("t2gen-kustomize ResourceList (20 MiB, 300,000 values)", [
        ("accepted: 33,000 small items (300,000 values)", P(h.krm_items, count=33_000)),
        ("refused: the same, then a broken item", P(h.krm_items, count=33_000, broken_last=True)),
        ("refused: 100,000 small items (5.7 MB)", P(h.krm_items, count=100_000)),
    ]),
    ("render --package: .job JobConfig", [
        ("refused: 100,000 entries", P(h.package_config, entries=100_000)),
    ]),
    ("plan --quota: a LimitRange (10,000 limits)", [
        ("accepted: 10,000 limits (MAX_LIMITS)", P(h.quota_limits, count=10_000)),
        ("refused: the same, the last not a quantity", P(h.quota_limits, count=10_000, broken_last=True)),
        ("refused: 100,000 limits (16 MiB holds them)", P(h.quota_limits, count=100_000)),
        ("refused: 10 LimitRanges of 10,000", P(h.quota_limits, count=10_000, ranges=10)),
    ]),
    ("plan --nodes, --pods (96 MiB; 20,000 items; 1.5 MiB an item; 200,000 kept values)", [
        ("accepted: 20,000 nodes, 4 taints each", P(h.plan_nodes, count=20_000, tainted=True)),
        ("refused: 10,000 nodes of one name", P(h.plan_nodes, count=10_000, tainted=False, same_name=True)),
        ("accepted: 20,000 minimal nodes, 20,000 pods", P(h.plan_minimal, nodes=20_000, pods=20_000)),
        ("refused: 20,001 minimal nodes", P(h.plan_minimal, nodes=20_001)),
        ("refused: 32,000,000 empty items (96 MiB)", P(h.plan_tiny_items, count=32_000_000)),
        ("refused: 690,000 empty items (2 MiB, read whole)", P(h.plan_tiny_items, count=690_000)),
        ("accepted: 96 MiB of realistic nodes, of pods", P(h.plan_realistic, size=96 * 2**20)),
        ("refused: the same, the node list cut short", P(h.plan_realistic, size=96 * 2**20, broken_end=True)),
        ("accepted: 6,000 nodes of 29 taints (198,000 kept)", P(h.plan_taints, nodes=6_000, taints=29)),
        ("refused: 50 nodes of 38,000 taints", P(h.plan_taints, nodes=50, taints=38_000)),
        ("accepted: 63 nodes of 1.5 MB", P(h.plan_fat_items, count=63, size=1_500_000)),
        ("refused: a node of 1.7 MB", P(h.plan_fat_items, count=2, size=1_700_000)),
        ("refused: 20,000 nodes, no allocatable (2.6 MB)", P(h.plan_bad_items, count=20_000, pad=50)),
        ("refused: 20,000 nodes, no allocatable (read whole)", P(h.plan_bad_items, count=20_000)),
    ]),
    ("check (20 MiB, 25,000 objects, 300,000 values; 60,000 with aliases; 60,000 by jsonschema)", [
        ("accepted: 25,000 objects", P(h.check_objects, count=25_000)),
        ("refused: 25,001 objects", P(h.check_objects, count=25_001)),
        ("refused: 50,000 objects", P(h.check_objects, count=50_000)),
        ("accepted: 850 Deployments, NotIn selectors", P(h.check_not_in, count=850)),
        ("refused: 3,000 Deployments, NotIn selectors", P(h.check_not_in, count=3_000)),
        ("accepted: 5,000 Services, one selector", P(h.check_services, count=5_000)),
        ("accepted: 1,000 one-line Pods (jsonschema)", P(h.check_pods, count=1_000)),
        ("refused: 25,000 one-line Pods", P(h.check_pods, count=25_000)),
        ("accepted: 130 Pods of 20 containers", P(h.check_pods, count=130, containers=20)),
        ("refused: 2,000 Pods of 20 containers", P(h.check_pods, count=2_000, containers=20)),
        ("accepted: 149,990 small strings (300,000 values)", P(h.check_strings, count=149_990)),
        ("refused: 500,000 small strings", P(h.check_strings, count=500_000)),
        ("accepted: 3,000 merge keys (60,000 values)", P(h.check_merge_keys, count=3_000)),
        ("refused: 20,000 merge keys", P(h.check_merge_keys, count=20_000)),
        ("refused: 299,990 values, then an alias", P(h.check_late_alias, count=149_990)),
    ]),
    ("render --templates: slicing (2,000,000 work units)", [
        ("accepted: 140 slices of a 200,000-item list", P(h.overlay_slices, count=140, size=200_000, items=True)),
        ("refused: 1,000 slices of a 1,000,000-item list", P(h.overlay_slices, count=1_000, items=True)),
        ("accepted: 185 slices s[1:] of 4,000,000 chars", P(h.overlay_slices, count=185, size=4_000_000)),
        ("refused: 10,000 slices s[1:] of 4,000,000", P(h.overlay_slices, count=10_000, size=4_000_000)),
        ("accepted: 115 slices s[::-1] of 1,000,000", P(h.overlay_slices, count=115, step=True)),
        ("refused: 10,000 slices s[::-1] of 1,000,000", P(h.overlay_slices, count=10_000, step=True)),
    ]),
    ("render --templates: big-integer division", [
        ("accepted: 29,000 of 4,095 by 2,049 bits", P(h.overlay_division, count=29_000)),
        ("refused: 100,000 divisions", P(h.overlay_division, count=100_000)),
    ]),
    ("render --templates: deep filters, many ~ (compiling)", [
        ("accepted: 300 chained filters", P(h.overlay_filters, depth=300)),
        ("refused: 100,000 chained filters", P(h.overlay_filters, depth=100_000)),
        ("accepted: 2,400 ~ in one expression", P(h.overlay_tildes, count=2_400)),
        ("refused: 100,000 ~", P(h.overlay_tildes, count=100_000)),
        ("accepted: 850 blocks", P(h.overlay_blocks, count=850)),
        ("refused: 20,000 blocks", P(h.overlay_blocks, count=20_000)),
    ]),
    ("render --templates: outputs and sums", [
        ("accepted: 89,000 written expressions", P(h.overlay_outputs, count=89_000)),
        ("refused: 1,000,000 written expressions", P(h.overlay_outputs, count=1_000_000)),
        ("accepted: |sum(start=[]) of 11,000 lists", P(h.overlay_sum, count=11_000)),
        ("refused: |sum(start=[]) of 100,000 lists", P(h.overlay_sum, count=100_000)),
    ]),
    ("render --templates: overlay files (500), directories (16)", [
        ("accepted: 500 overlay templates", P(h.overlay_files, count=500)),
        ("refused: 2,000 overlay templates", P(h.overlay_files, count=2_000)),
        ("accepted: --templates 16 times", P(h.overlay_arguments, count=16)),
        ("refused: --templates 10,000 times (usage)", P(h.overlay_arguments, count=10_000)),
    ]),
    ("render --templates: read back (200,000 values)", [
        ("accepted: 196,000 values in 4 ConfigMaps", P(h.overlay_values, count=196_000, per=49_000)),
        ("refused: 950,000 values in 19 ConfigMaps", P(h.overlay_values, count=950_000)),
        ("accepted: a Service of 1,000 ports", P(h.overlay_ports, count=1_000)),
        ("accepted: a Service of 5,000 ports", P(h.overlay_ports, count=5_000)),
        ("refused: 10,000 ports (over 256 KiB)", P(h.overlay_ports, count=10_000)),
        ("accepted: largest valid job, one small template", h.overlay_largest_job),
    ]),
]  # fmt: skip
"""Input kind (with its documented limit) and its worst inputs, each a label and its generator."""


_RUNNER = """
import json, os, resource, subprocess, sys
command, stdin, bounded = json.loads(sys.stdin.read())
def bound():
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 65))
with open(stdin or os.devnull, "rb") as feed:
    child = subprocess.Popen(command, stdin=feed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             preexec_fn=bound if bounded else None)
    head = child.stderr.read(400).decode("utf-8", "replace").partition("\\n")[0]
    child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
print(json.dumps([usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,
                  os.waitstatus_to_exitcode(status), head]))
"""
"""Runs the command from a small process of its own: a child's peak RSS counts its parent's at fork
(Linux keeps the larger), so measuring from this script, which built the inputs, would report its size.
The previous version runs bounded (4 GiB of address space, 60 s of CPU): a version from before
issue 41's bounds can take all the machine's memory on an input of today's table (e451634 held
15.9 GB after 5 minutes of CPU), and its row then shows the signal or error it ended with."""


def run(
    command: list[str], stdin: Path | None, previous: Path | None = None
) -> tuple[float, float, int, str]:
    """Run ``command`` once (with ``previous``: that checkout's t2gen); CPU seconds, peak MB, exit code, first stderr line."""
    program = [shutil.which(command[0], path=str(BIN)) or command[0]]
    if previous is not None:
        # -S: no .pth file runs, so the editable install's finder cannot bring
        # this checkout's t2gen in ahead of the previous one.
        entry = "kustomize" if command[0] == "t2gen-kustomize" else "launch"
        paths = [str(previous), sysconfig.get_paths()["purelib"]]
        code = (
            f"import sys; sys.path[0:0] = {paths!r}; sys.argv[0] = {command[0]!r}; "
            f"from t2gen.cli.{entry} import main; main()"
        )
        program = [sys.executable, "-S", "-c", code]
    argument = json.dumps(
        [[*program, *command[1:]], str(stdin) if stdin else None, previous is not None]
    )
    out = subprocess.run(  # the command on stdin: 10,000 arguments pass one argument's 128 KiB
        [sys.executable, "-c", _RUNNER],
        input=argument,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    cpu, peak, code, head = json.loads(out)
    return float(cpu), float(peak), int(code), str(head)


def _measure(runs: int, only: str, previous: Path | None) -> None:
    with tempfile.TemporaryDirectory(prefix="t2gen-kinds-") as tmp:
        render = ["t2gen", "render", str(h.EXAMPLE)]
        base = statistics.median(  # at least three: every ratio divides by it
            run(render, None)[0] for _ in range(max(3, runs))
        )
        old = (
            statistics.median(
                run(render, None, previous)[0] for _ in range(max(3, runs))
            )
            if previous
            else 0.0
        )
        print(
            f"plain render: {base:.3f} s CPU; budget {CPU_BUDGET_X:.0f}x, {MEMORY_BUDGET_MB:.0f} MB"
        )
        extra = f" {'before':>6} {'MB':>5} exit" if previous else ""
        print(
            f"{'input':48} {'exit':>4} {'CPU s':>6} {'x base':>6} {'peak MB':>7}{extra} budget  first line of stderr"
        )
        misses = 0
        for kind, inputs in KINDS:
            rows = [
                (label, make) for label, make in inputs if only in f"{kind} {label}"
            ]
            if not rows:
                continue
            print(f"{kind}")
            for label, make in rows:
                command, stdin = make(Path(tmp))
                measured = [run(command, stdin) for _ in range(runs)]
                cpu = statistics.median(m[0] for m in measured)
                peak = max(m[1] for m in measured)
                code, head = measured[0][2], measured[0][3]
                within = cpu / base <= CPU_BUDGET_X and peak <= MEMORY_BUDGET_MB
                misses += not within
                before = ""
                if previous:
                    then = run(command, stdin, previous)
                    before = f" {then[0] / old:6.1f} {then[1]:5.0f} {then[2]:4d}"
                print(
                    f"  {label:46} {code:4d} {cpu:6.2f} {cpu / base:6.1f} {peak:7.1f}{before} "
                    f"{'PASS' if within else 'MISS':6}  {head[:90]}"
                )
        print(f"{misses} row(s) over the budget: {'PASS' if not misses else 'MISS'}")


def main(argv: list[str] | None = None) -> int:
    """Measure every input kind and print the table; returns 0 (budgets are reported, not asserted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=1, help="runs per input (median CPU)"
    )
    parser.add_argument("--append", metavar="FILE", help="also append the table here")
    parser.add_argument(
        "--only", default="", help="only the inputs whose kind or label holds this"
    )
    parser.add_argument(
        "--previous",
        type=Path,
        help="a checkout of the previous version: its ratio, MB and exit beside each row",
    )
    args = parser.parse_args(argv)
    with appended_to(args.append, "Worst inputs per kind (bench/kinds.py, issue 41)"):
        _measure(args.runs, args.only, args.previous)
    return 0


if __name__ == "__main__":
    sys.exit(main())
