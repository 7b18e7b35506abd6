"""The round-4 hostile corpus (issue 32): CPU and peak memory against a plain render, same run.

Every reproducer of issue 32 that is about work or memory, run as a fresh
``t2gen`` process by :func:`floods.run_once`: deep manifests and overlay
output, a 20 MiB ``List``, 50,000 tiny objects, a ``kind`` that is a path,
template overlays that built values before sizing them, escaped the method
list through ``Markup`` or did their work inside one call, a value flood in
an overlay's output, a node list that forges lines, and the largest job
``validate`` accepts. Each row: exit code, CPU (user + system) and its ratio
to a plain ``t2gen render examples/wordcount.yaml`` measured in the same run,
peak resident memory, and the first line of stderr. The budget (10x the CPU,
200 MB) is reported, never asserted.

Run it with ``make bench`` or alone: ``python bench/round4.py [--runs N] [--only TEXT]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

from floods import CPU_BUDGET_X, EXAMPLE, MEMORY_BUDGET_MB, run_once
from report import appended_to

_CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "
_ANNOTATED = (
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deep\n  annotations:\n    a: "
)

OVERLAYS: dict[str, str] = {
    "overlay: ('{0}' * 400).format(4 MB)": (
        "{% set s = 'x' * 4000000 %}{{ ('{0}' * 400).format(s) | length }}"
    ),
    "overlay: 4 MB .join(generator)": (
        "{% set s = 'x' * 4000000 %}{{ s.join(range(1000)|map('string')) | length }}"
    ),
    "overlay: tojson(indent=10**8)": "{{ [1, 2, 3]|tojson(indent=10**8)|length }}",
    "overlay: Markup .translate": (
        "{% set s = ('x' * 4000000)|safe %}{{ s.translate({120: 'y' * 10})|length }}"
    ),
    "overlay: Markup .expandtabs": (
        "{% set s = ('\\t' * 4000000)|safe %}{{ s.expandtabs(1000)|length }}"
    ),
    "overlay: |title of 4 MB": "{{ ('ab ' * 1333333)|title|length }}",
    "overlay: |urlize of 4 MB": "{{ ('a.b ' * 1000000)|urlize|length }}",
    "overlay: |slice of 4 MB": "{{ ('x' * 4000000)|slice(3)|list|length }}",
    "overlay: |sort of 4 MB": "{{ ('x' * 4000000)|sort|length }}",
    "overlay: |sum(start=[]) quadratic": (
        "{{ ([[0] * 1000] * 2000)|sum(start=[])|length }}"
    ),
    "overlay: s.isdigit() x 10,000 on 4 MB": (
        "{% set s = '1' * 4000000 %}{% for i in range(10000) %}{{ s.isdigit() }}{% endfor %}"
    ),
    "overlay: |wordwrap of 4 MB": "{{ ('a ' * 2000000)|wordwrap(10)|length }}",
    "overlay: |pprint of 1,000,000 items": (
        "{{ (range(10000)|list * 100)|pprint|length }}"
    ),
    "overlay: |unique of 4 MB": "{{ ('ab' * 2000000)|unique|list|length }}",
    "overlay: 10,000 x 10,000 macro calls": (
        "{% macro f() %}{% endmacro %}{% for i in range(10000) %}"
        "{% for j in range(10000) %}{{ f() }}{% endfor %}{% endfor %}"
    ),
    "overlay: output nested 50,000 deep": "[" * 50_000 + "]" * 50_000,
    "overlay: output with a 5,000-digit integer": "9" * 5000,
    "overlay: output of 1,000,000 values": (
        "[\n{%- for i in range(10000) %}\n" + "0," * 210 + "\n{%- endfor %}\n  0]"
    ),
}


def _largest_job(env_bytes: int) -> str:
    groups = "".join("    - {count: 1984, perPod: 64}\n" for _ in range(50))
    return (
        "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: largest\nspec:\n"
        "  image: twister2/twister2-k8s:0.8.0\n  workers:\n" + groups
        + f"  env:\n    - {{name: V0, value: \"{'x' * env_bytes}\"}}\n"
    )  # fmt: skip


def _list_of_20_mib() -> str:
    item = (
        "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c, labels: {a: b}}, "
        "data: {k: v, l: w}}\n"
    )
    count = (20 * 1024 * 1024 - 100) // len(item)
    return "apiVersion: v1\nkind: List\nitems:\n" + item * count


def corpus(directory: Path) -> dict[str, list[str]]:
    """Write every input into ``directory``; return each one's command line (after ``t2gen``)."""
    files: dict[str, tuple[str, str]] = {
        "check: 100,000 nested [": ("check", _ANNOTATED + "[" * 100_000 + "]" * 100_000),
        "check: 5,000 nested {a:": ("check", _ANNOTATED + "{a: " * 5000 + "1" + "}" * 5000),
        "check: 990 nested, JSON": ("check", '{"apiVersion": "apps/v1", "kind": "StatefulSet", '
            '"metadata": {"name": "d"}, "spec": ' + '{"a": ' * 990 + "1" + "}" * 991),
        "check: a kind: List of 20 MiB": ("check", _list_of_20_mib()),
        "check: 50,000 one-line objects": ("check", "".join(
            f"---\n{{apiVersion: v1, kind: ConfigMap, metadata: {{name: c{i}}}}}\n"
            for i in range(50_000))),
        "check: a kind with ../": ("check", "apiVersion: v1\nkind: ../../../../tmp/x\n"
            "metadata:\n  name: a\n"),
        "validate: the largest job (2,500-byte env)": ("validate", _largest_job(2500)),
        "render: the same": ("render", _largest_job(2500)),
        "validate: 2,700-byte env (render refuses it)": ("validate", _largest_job(2700)),
    }  # fmt: skip
    commands: dict[str, list[str]] = {}
    for index, (label, (command, text)) in enumerate(files.items()):
        path = directory / f"input-{index}.yaml"
        path.write_text(text, encoding="utf-8")
        commands[label] = [command, str(path)]
    nodes = directory / "forged-nodes.json"
    nodes.write_text(
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}\nforged row\x1b[2K"},
             "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}}}
            for i in range(1000)]}),
        encoding="utf-8",
    )  # fmt: skip
    commands["plan --nodes: 1,000 names forging lines"] = [
        "plan", str(EXAMPLE), "--nodes", str(nodes),
    ]  # fmt: skip
    for index, (label, body) in enumerate(OVERLAYS.items()):
        overlay = directory / f"overlay-{index}"
        overlay.mkdir()
        (overlay / "x.yaml.j2").write_text(_CM + body + "\n", encoding="utf-8")
        commands[label] = ["render", str(EXAMPLE), "--templates", str(overlay)]
    return commands


def main(argv: list[str] | None = None) -> int:
    """Measure the corpus and print a table; returns 0 (budgets are reported, not asserted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per input (median CPU)"
    )
    parser.add_argument("--append", metavar="FILE", help="also append the table here")
    parser.add_argument(
        "--only", default="", help="only the inputs whose label holds this"
    )
    args = parser.parse_args(argv)
    with appended_to(args.append, "Round 4 hostile corpus (bench/round4.py, issue 32)"):
        _measure(args.runs, args.only)
    return 0


def _measure(runs: int, only: str) -> None:
    with tempfile.TemporaryDirectory(prefix="t2gen-round4-") as tmp:
        commands = {
            "render examples/wordcount.yaml (baseline)": ["render", str(EXAMPLE)]
        }
        commands.update(
            (label, argv) for label, argv in corpus(Path(tmp)).items() if only in label
        )
        rows = []
        for label, argv in commands.items():
            measured = [run_once(argv, stderr_head=True) for _ in range(runs)]
            cpu = statistics.median(m[1] for m in measured)
            peak = max(m[2] for m in measured)
            rows.append((label, cpu, peak, measured[0][4], measured[0][5]))
    base = rows[0][1]
    print(
        f"{'input':46} {'exit':>4} {'CPU s':>6} {'x base':>7} {'peak MB':>8} budget  first line of stderr"
    )
    for label, cpu, peak, code, head in rows:
        within = cpu / base <= CPU_BUDGET_X and peak < MEMORY_BUDGET_MB
        print(
            f"{label:46} {code:4d} {cpu:6.2f} {cpu / base:7.1f} {peak:8.1f} "
            f"{'PASS' if within else 'MISS':6}  {head[:110]}"
        )
    worst = max(row[1] / base for row in rows)
    largest = max(row[2] for row in rows)
    print(
        f"worst {worst:.1f}x the CPU of a plain render (budget {CPU_BUDGET_X:.0f}x): "
        f"{'PASS' if worst <= CPU_BUDGET_X else 'MISS'}; peak {largest:.0f} MB "
        f"(budget {MEMORY_BUDGET_MB:.0f} MB): {'PASS' if largest < MEMORY_BUDGET_MB else 'MISS'}"
    )


if __name__ == "__main__":
    sys.exit(main())
