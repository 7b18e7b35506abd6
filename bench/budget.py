"""The budget every ``make bench`` row is judged against, and how a child's CPU and memory are read.

docs/untrusted-input.md: every input is judged in at most 10x the CPU of a plain
``t2gen render examples/wordcount.yaml`` measured in the same run, and at most
200 MB. CPU is user + system of the child (``os.wait4``), never wall time: on a
shared machine wall time measures the neighbours (issue 41).
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Sequence
from pathlib import Path

CPU_BUDGET_X = 10.0
"""A t2gen command may take at most this many times a plain render's CPU (docs/untrusted-input.md)."""
MEMORY_BUDGET_MB = 200.0
"""... and at most this peak resident memory."""


def previous_figures(report: Path) -> dict[str, float]:
    """The CPU milliseconds per command of the report this run replaces (none if it gave wall times)."""
    try:
        text = report.read_text(encoding="utf-8")
    except OSError:
        return {}
    if "| command | median CPU ms |" not in text:
        return {}  # an older report: wall times, not comparable
    found = {}
    for label, value in re.findall(r"^\| `([^`]+)` \| ([\d.]+) \|", text, re.M):
        found[label] = float(value)
    return found


def run_child(
    command: Sequence[str], cwd: Path, env: dict[str, str]
) -> tuple[float, float]:
    """Run ``command`` once, its output discarded; its CPU seconds (user + system) and peak MB.

    Raises:
        subprocess.CalledProcessError: the command failed.
    """
    child = subprocess.Popen(
        list(command),
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise subprocess.CalledProcessError(child.returncode, list(command))
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024
