"""Benchmark t2gen's start-up and rendering against a baseline measured in the same run.

Prints the median wall time of each command over several runs and its ratio
to ``python -c pass`` (the interpreter's floor), and writes them to
``bench/results.md`` with a description of the machine. Figures are relative
on purpose: absolute times depend on the machine, ratios much less.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
T2GEN = str(BIN / "t2gen")


@dataclass
class Figure:
    """One measured command: its label, its runs' wall times in seconds."""

    label: str
    command: list[str]
    times: list[float]

    @property
    def median_ms(self) -> float:
        """Median wall time in milliseconds."""
        return statistics.median(self.times) * 1000


def measure(label: str, command: list[str], runs: int, warmup: int = 2) -> Figure:
    """Run ``command`` ``warmup + runs`` times; keep the wall times of the last ``runs``."""
    times = []
    for index in range(warmup + runs):
        start = time.perf_counter()
        subprocess.run(
            command,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=True,
        )
        if index >= warmup:
            times.append(time.perf_counter() - start)
    return Figure(label, command, times)


def machine() -> str:
    """One line describing where the figures were taken."""
    cpus = os.cpu_count()
    return f"{platform.platform()}, Python {platform.python_version()}, {cpus} CPUs"


def main() -> None:
    """Measure, print and record."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--runs", type=int, default=21, help="timed runs per command (default 21)"
    )
    args = parser.parse_args()

    floor = measure("python -c pass", [sys.executable, "-c", "pass"], args.runs)
    figures = [
        floor,
        measure("t2gen --version", [T2GEN, "--version"], args.runs),
        measure(
            "t2gen validate examples/wordcount.yaml",
            [T2GEN, "validate", "examples/wordcount.yaml"],
            args.runs,
        ),
        measure(
            "t2gen render examples/wordcount.yaml",
            [T2GEN, "render", "examples/wordcount.yaml"],
            args.runs,
        ),
    ]
    lines = [
        "# t2gen benchmark",
        "",
        f"Machine: {machine()}. Median of {args.runs} runs after 2 warm-up runs; ratio = median / `python -c pass`.",
        "",
        "| command | median ms | x python -c pass |",
        "|---|---:|---:|",
    ]
    for figure in figures:
        ratio = figure.median_ms / floor.median_ms
        lines.append(f"| `{figure.label}` | {figure.median_ms:.1f} | {ratio:.1f} |")
    report = "\n".join(lines) + "\n"
    print(report)
    (ROOT / "bench" / "results.md").write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
