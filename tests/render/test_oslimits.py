"""The operating system's bound behind the work meter (:mod:`t2gen.render.oslimits`).

Each test runs t2gen in a fresh single-threaded process with the bound
lowered (and, for CPU, the meter's budget raised so that only the bound can
stop the template): what the meter misses ends as one located error naming
the template, exit code 1, never a kill or a traceback, and the limits are
put back after the render.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "

_RUN = """
import resource, sys
from t2gen.render import budget, engine, oslimits
oslimits.OS_MEMORY_MB = int(sys.argv[2])
oslimits.OS_CPU_SECONDS = int(sys.argv[3])
engine.OS_MEMORY_MB = oslimits.OS_MEMORY_MB
if sys.argv[4] == "unmetered":
    budget.WORK_BUDGET = 10**12
    budget.metered.__wrapped__.__defaults__ = (10**12,)
before = [resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)]
from t2gen.cli.commands import run_render
code = run_render([sys.argv[5]], templates=[sys.argv[1]])
after = [resource.getrlimit(resource.RLIMIT_AS), resource.getrlimit(resource.RLIMIT_CPU)]
print(code, before == after, file=sys.stderr)
"""


def _render(
    tmp_path: Path, body: str, memory_mb: int, cpu_s: int, mode: str
) -> tuple[int, str]:
    if sys.platform == "win32":
        pytest.skip("no setrlimit here")
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "x.yaml.j2").write_text(HEAD + body + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", _RUN, str(overlay), str(memory_mb), str(cpu_s), mode,
         str(ROOT / "examples/wordcount.yaml")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    *lines, last = done.stderr.strip().splitlines()
    assert last == "1 True"  # exit code 1, and every limit put back
    (line,) = lines
    assert line.startswith(f"{overlay}/x.yaml.j2"), line
    return done.returncode, line


def test_memory_past_the_bound_is_a_located_error(tmp_path: Path) -> None:
    # Within the meter (4 Mi characters a string, a few strings), over a 30 MB bound:
    # each of these strings of 4-byte characters takes 16 MB.
    body = (
        "{% set a = '\U0001f600' * 4000000 %}{% set b = a ~ '' %}"
        "{% set c = b ~ '' %}{% set d = c ~ '' %}{{ (a ~ b ~ c ~ d)|length }}"
    )
    _, line = _render(tmp_path, body, memory_mb=30, cpu_s=60, mode="metered")
    assert "the templates needed more than 30 MB of memory" in line


def test_cpu_past_the_bound_is_a_located_error(tmp_path: Path) -> None:
    body = (
        "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}"
    )
    _, line = _render(tmp_path, body, memory_mb=150, cpu_s=1, mode="unmetered")
    assert line.endswith(
        "the templates used more than 1 s of CPU (the operating system's bound "
        "behind the work meter)"
    )
