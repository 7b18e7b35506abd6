"""The template work meter's unit costs, measured: CPU per operation as a multiple of an empty loop iteration.

``t2gen/render/budget.py`` charges every operation of a metered template in
units; one unit is the CPU time of one empty ``{% for %}`` iteration in the
sandbox. This script measures, in one process (``time.process_time``, the
best of three), that iteration and the operations the meter charges by
their own weights (written expressions, big-integer arithmetic, slices,
compiling a template per token of its tags), and prints each as units, to
compare with the charges in ``budget.py``. Figures are reported, never
asserted.

Run it alone: ``python bench/units.py``.
"""

from __future__ import annotations

import re
import sys
import tempfile
import time

from t2gen.render import budget, estimate
from t2gen.render.engine import make_environment

LOOPS = "{% for i in range(1000) %}{% for j in range(N) %}BODY{% endfor %}{% endfor %}"

RUNTIME: list[tuple[str, str, str, int]] = [
    ("empty loop iteration", "", "", 1000),
    ("n // d, 4,095 by 2,049 bits", "{% set n = 2**4095-1 %}{% set d = 2**2048+1 %}", "{% set q = n // d %}", 100),
    ("n % d, 4,095 by 2,049 bits", "{% set n = 2**4095-1 %}{% set d = 2**2048+1 %}", "{% set q = n % d %}", 100),
    ("n * n, 2,047 bits", "{% set n = 2**2047-1 %}", "{% set q = n * n %}", 100),
    ("i + j", "", "{% set q = i + j %}", 100),
    ("s[1:] of 1,000,000 characters", "{% set s = 'x' * 1000000 %}", "{% set t = s[1:] %}", 1),
    ("s[::-1] of 1,000,000 characters", "{% set s = 'x' * 1000000 %}", "{% set t = s[::-1] %}", 1),
    ("l[1:] of 100,000 items", "{% set s = [1, 'a'] * 50000 %}", "{% set t = s[1:] %}", 1),
    ("{{ s }} written", "{% set s = 'abcdefg' %}", "{{ s }}", 100),
    ("{{ j }} written", "", "{{ j }}", 100),
]  # fmt: skip
"""Label, set-up, loop body and inner count (the outer loop runs 1,000 times)."""

COMPILED: list[tuple[str, str, int]] = [
    ("{{ a + b * c }}", "{{ a + b * c }}", 2000),
    ("{{a+b*c}}", "{{a+b*c}}", 2000),
    ("{{ a.b.c }}", "{{ a.b.c }}", 2000),
    ("{{ a }}", "{{ a }}", 4000),
    ("{% set a = 1 %}", "{% set a = 1 %}", 2000),
    ("~ in one expression", "~ 'a' ", 4000),
    ("{% block %}", "{% block bN %}{% endblock %}", 2000),
    ("|abs, 100 deep", "{{ 1" + "|abs" * 100 + " }}", 40),
    ("static text", "abc: def\n", 20000),
]
"""Label, a piece of template and how many times it is repeated in one template."""


def _best(function: object, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        function()  # type: ignore[operator]
        best = min(best, time.process_time() - start)
    return best


def main() -> int:
    """Print each operation's CPU time and its units."""
    environment = make_environment([tempfile.mkdtemp(prefix="t2gen-units-")])
    unit = 0.0
    print(f"{'operation':34} {'µs':>8} {'units':>7}")
    for label, setup, body, inner in RUNTIME:
        template = environment.from_string(
            setup + LOOPS.replace("N", str(inner)).replace("BODY", body)
        )
        with budget.metered(10**12):
            seconds = _best(template.render) / (1000 * inner)
        unit = unit or seconds
        print(f"{label:34} {seconds * 1e6:8.3f} {seconds / unit:7.1f}")
    print(
        f"\n{'compiling':34} {'µs/token':>8} {'units':>7}  (tokens as estimate.compile_units counts them)"
    )
    for label, piece, count in COMPILED:
        if piece.startswith("~"):
            source = "{{ 'a' " + piece * count + "}}"
        else:
            source = "".join(piece.replace("bN", f"b{i}") for i in range(count))
        tokens = sum(
            len(re.findall(r"\w+|[^\w\s]", tag))
            for tag in re.findall(r"\{[{%#].*?[}%#]\}", source, re.S)
        ) or len(source)
        seconds = _best(lambda s=source: environment.from_string(s), runs=2) / tokens
        print(f"{label:34} {seconds * 1e6:8.2f} {seconds / unit:7.1f}")
    print(
        f"\ncharged: written expression {budget.OUTPUT_UNITS}, operator {budget.BINOP_UNITS} "
        f"+ digit products / {budget.INT_PRODUCTS_PER_UNIT}, slice 1 per "
        f"{budget.SLICE_CHARS_PER_UNIT} characters ({budget.STEP_SLICE_CHARS_PER_UNIT} with a step, "
        f"{budget.SLICE_ITEMS_PER_UNIT} items of a list), "
        f"compiling {estimate.COMPILE_TOKEN_UNITS} a token and 1 a character"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
