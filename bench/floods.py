"""CPU time and peak memory of t2gen on flood inputs: large or hostile files under its size limits.

Every input t2gen accepts to read (a job file of at most 1 MiB,
``t2gen.inputs.jobfile.MAX_JOB_FILE_BYTES``; manifests, node lists, template
overlays) must be judged within ten times the CPU of a plain
``t2gen render examples/wordcount.yaml`` measured in the same run (issue 23),
with a bounded report (``... and N more problems``). This script generates one
input per flood (issue 14, item 3; issue 23's hostile corpus: perPod 2^31, a
64 KiB variable x 50 groups x 64 workers per pod, a billion laughs for
``check``, a 100,000-deep node list, template overlays that loop, allocate or
escape, a 1 GB template file; manifest streams whose objects share a
selector or a name, which ``check`` once compared in pairs), runs its command as a fresh process, and
reports the child's CPU time (user + system), its peak resident memory
(``ru_maxrss``) and its stderr size. Budgets (10x the render's CPU, peak under
200 MB) are reported as PASS or MISS, never asserted: timings vary with the
machine and its load.

Run it with ``make bench`` (after ``bench/bench.py``) or on its own:
``python bench/floods.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from report import appended_to

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordcount.yaml"
MAX_BYTES = 1024 * 1024
CPU_BUDGET_X = 10.0
"""Every input is judged in at most this many times the CPU of a plain render of
``examples/wordcount.yaml`` in the same run (issue 23)."""
MEMORY_BUDGET_MB = 200.0

_HEAD = (
    "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata:\n  name: flood\n"
    "spec:\n  image: twister2/twister2-k8s:0.8.0\n  jobPackage:\n    jarFile: a.jar\n"
)
_WORKERS = "  workers:\n    - count: 1\n"


def _invalid_env() -> str:
    return _HEAD + _WORKERS + "  env: [" + ",".join(["{name: 9}"] * 100_000) + "]\n"


def _valid_env() -> str:
    items = ",".join(["{name: A}"] * 99_900)  # Kubernetes allows repeats: the last wins
    return _HEAD + _WORKERS + "  env: [" + items + "]\n"


def _labels() -> str:
    items = ",".join(f"k{i}: v" for i in range(90_000))
    return (
        _HEAD.replace("  name: flood\n", "  name: flood\n  labels: {" + items + "}\n")
        + _WORKERS
    )


def _unknown_keys() -> str:
    items = "".join(f"  x{i}: 1\n" for i in range(50_000))
    return _HEAD + _WORKERS + items


def _affinity() -> str:
    expression = "{key: zone, operator: In, values: [a]}"
    items = ",".join([expression] * 10_000)
    return (
        _HEAD
        + _WORKERS
        + "  placement:\n    nodeAffinity:\n      required: ["
        + items
        + "]\n"
    )


def _invalid_env_at_limit() -> str:
    return _HEAD + _WORKERS + "  env: [" + ",".join(["{name: 9}"] * 1000) + "]\n"


def _unknown_keys_at_limit() -> str:
    values = "[" + ",".join(["1"] * 18) + "]"
    return _HEAD + _WORKERS + "".join(f"  x{i}: {values}\n" for i in range(990))


def _unusual_scalars() -> str:
    values = "[" + ",".join([".nan"] * 18) + "]"  # .nan: left to ruamel.yaml
    return _HEAD + _WORKERS + "".join(f"  x{i}: {values}\n" for i in range(990))


def _duplicate_key_at_the_end() -> str:
    return _unknown_keys_at_limit() + "  x0: 1\n"


def _integer_key_at_the_end() -> str:
    return _unknown_keys_at_limit() + "  1: x\n"


def _tag_at_the_end() -> str:
    return _unknown_keys_at_limit() + "  y: !custom x\n"  # only ruamel.yaml says why


def _long_integer_at_the_end() -> str:
    return _unknown_keys_at_limit() + "  y: " + "9" * 101 + "\n"


def _local_tag_in_a_list() -> str:
    return _unknown_keys_at_limit() + "  y: [1, !custom x]\n"


def _second_document() -> str:
    return _unknown_keys_at_limit() + "---\nkind: Twister2Job\n"


def _yaml11_line_break() -> str:
    # U+0085, U+2028 and U+2029 are line breaks to YAML 1.1 and text to YAML 1.2:
    # both readers refuse each at once (t2gen.inputs.yaml.source.check_line_breaks).
    return _unknown_keys_at_limit() + "  y: a\u2028b\n"


def _next_line_first() -> str:
    # U+0085 (NEL) early in the file: refused before the flood is read.
    return _HEAD + "  y: a\x85b\n" + _unknown_keys_at_limit()[len(_HEAD) :]


def _paragraph_separator() -> str:
    return _unknown_keys_at_limit() + '  y: "a\u2029b"\n'


def _core_tag(tag: str) -> Callable[[], str]:
    def make() -> str:
        return _unknown_keys_at_limit() + f"  y: {tag}\n"

    return make


def _tagged_key() -> str:
    return _unknown_keys_at_limit() + "  !!str y: 1\n"


def _local_tagged_key() -> str:
    return _unknown_keys_at_limit() + "  !custom y: 1\n"


def _worker_groups() -> str:
    items = "".join("    - {count: 1}\n" for _ in range(10_000))
    return _HEAD + "  workers:\n" + items


FLOODS: dict[str, Callable[[], str]] = {
    "100,000 invalid env entries (one flow list)": _invalid_env,
    "99,900 valid compact env entries": _valid_env,
    "90,000 label keys": _labels,
    "50,000 unknown keys": _unknown_keys,
    "10,000 affinity expressions": _affinity,
    "10,000 worker groups": _worker_groups,
    "1,000 invalid env entries (at the entry limit)": _invalid_env_at_limit,
    "990 unknown keys x 18 values (at the value limit)": _unknown_keys_at_limit,
    "the same with .nan values": _unusual_scalars,
    "the same, then a duplicate key": _duplicate_key_at_the_end,
    "the same, then an integer key": _integer_key_at_the_end,
    "the same, then a tag": _tag_at_the_end,
    "the same, then a tag in a list": _local_tag_in_a_list,
    "the same, then a 101-digit integer": _long_integer_at_the_end,
    "the same, then a second document": _second_document,
    "the same, then U+2028 in a value": _yaml11_line_break,
    "the same, U+0085 (NEL) in the first value": _next_line_first,
    "the same, then U+2029 in a quoted value": _paragraph_separator,
    "the same, then !!str": _core_tag("!!str x"),
    "the same, then !!int": _core_tag("!!int 5"),
    "the same, then !!float, !!bool, !!null": _core_tag(
        "[!!float 1, !!bool true, !!null ]"
    ),
    "the same, then !!map and !!seq": _core_tag("!!map {a: !!seq [1]}"),
    "the same, then !!binary": _core_tag("!!binary aGVsbG8="),
    "the same, then !!int x (not an integer)": _core_tag("!!int x"),
    "the same, then !!set and !!foo": _core_tag("[!!set {a}, !!foo x]"),
    "the same, then a !!str-tagged key": _tagged_key,
    "the same, then a !custom-tagged key": _local_tagged_key,
}


def _job_with(text: str) -> str:
    return _HEAD + _WORKERS + text


def _per_pod_2_31() -> str:
    return _HEAD + "  workers:\n    - count: 8\n      perPod: 2147483648\n"


def _per_pod_2_31_json() -> str:
    job = {
        "apiVersion": "t2gen/v1",
        "kind": "Twister2Job",
        "metadata": {"name": "flood"},
        "spec": {
            "image": "twister2/twister2-k8s:0.8.0",
            "workers": [{"count": 8, "perPod": 2147483648}],
            "jobPackage": {"jarFile": "a.jar"},
        },
    }
    return json.dumps(job)


def _env_64k_50_groups_64_per_pod() -> str:
    groups = "".join("    - {count: 64, perPod: 64}\n" for _ in range(50))
    return (
        _HEAD + "  workers:\n" + groups + "  env:\n    - name: V\n"
        "      value: '" + "x" * 65536 + "'\n"
    )


_BILLION_LAUGHS = "".join(
    f"{name}: &{name} [{','.join([f'*{prev}'] * 9) if prev else ','.join(['lol'] * 9)}]\n"
    for prev, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)

STREAM_OBJECTS = 2_000
"""Objects of each kind in the manifest streams that share a selector or a name."""


def _statefulset(name: str, selector: str, labels: str, extra: str = "") -> str:
    return (
        f"---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: {name}{extra}}}\n"
        f"spec: {{serviceName: svc, selector: {selector}, template: {{metadata: {{labels: {labels}}}, "
        "spec: {containers: [{name: c, image: i}]}}}\n"
    )


def _one_selector() -> str:
    """StatefulSets that all select each other's pods: a finding per pair before 2026-11-26."""
    return "".join(
        _statefulset(f"s{i}", "{matchLabels: {a: x}}", "{a: x}")
        for i in range(STREAM_OBJECTS)
    )


def _shared_term() -> str:
    """Workloads of one job with one pod anti-affinity term: the term read all of them, each."""
    term = (
        "{podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: "
        "[{labelSelector: {matchLabels: {t2-wp: j}}, topologyKey: h}]}}"
    )
    return "".join(
        _statefulset(
            f"s{i}", f"{{matchLabels: {{id: s{i}}}}}", f"{{t2-wp: j, t2-job: j, id: s{i}}}",
            ", labels: {t2-job: j}",
        ).replace("containers: [", f"affinity: {term}, containers: [")
        for i in range(STREAM_OBJECTS)
    )  # fmt: skip


def _groups_of_one_job() -> str:
    """PodGroups and StatefulSets of one job, none joining: a finding per pair before."""
    group = (
        "---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n"
        "metadata: {{name: g{0}, labels: {{t2-job: j}}}}\nspec: {{minMember: 1}}\n"
    )
    return "".join(
        group.format(i)
        + _statefulset(f"s{i}", f"{{matchLabels: {{id: s{i}}}}}", f"{{t2-job: j, id: s{i}}}")
        for i in range(STREAM_OBJECTS)
    )  # fmt: skip


def _services_of_one_name() -> str:
    """ClusterIP Services named svc and StatefulSets it governs: a finding per pair before."""
    service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: svc}\nspec: {ports: [{port: 80}]}\n"
    return "".join(
        service + _statefulset(f"s{i}", f"{{matchLabels: {{id: s{i}}}}}", f"{{id: s{i}}}")
        for i in range(STREAM_OBJECTS)
    )  # fmt: skip


_OVERLAY_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: "

OVERLAYS: dict[str, str] = {
    "overlay: range(10**9)": "{% for i in range(10**9) %}{% endfor %}",
    "overlay: 10,000 x 10,000 nested loops": (
        "{% for i in range(10000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}"
    ),
    "overlay: 'x' * 10**9": "{{ 'x' * 10**9 }}",
    "overlay: doubling a string 64 times": (
        "{% set ns = namespace(s='x') %}{% for i in range(64) %}"
        "{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s }}"
    ),
    "overlay: macro calling itself twice, 60 deep": (
        "{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}"
        "{{ f(60) }}"
    ),
    "overlay: cycler.__init__.__globals__": (
        "{{ cycler.__init__.__globals__.os.system('true') }}"
    ),
}


def flood_files(directory: Path) -> dict[str, list[str]]:
    """Write every flood input into ``directory``; each job file is under 1 MiB.

    Returns:
        The t2gen command line of each flood (after ``t2gen``), by label.

    Raises:
        ValueError: a generated job file is over 1 MiB (t2gen would refuse to read it).
    """
    commands: dict[str, list[str]] = {}
    for index, (label, make) in enumerate(FLOODS.items()):
        data = make().encode()
        if len(data) > MAX_BYTES:
            raise ValueError(f"{label}: {len(data)} bytes, over 1 MiB")
        path = directory / f"flood-{index}.yaml"
        path.write_bytes(data)
        commands[label] = ["validate", str(path)]
    hostile = {
        "perPod 2^31 (YAML)": ("validate", _per_pod_2_31(), "yaml"),
        "perPod 2^31 (JSON)": ("validate", _per_pod_2_31_json(), "json"),
        "perPod 2^31: render": ("render", _per_pod_2_31(), "yaml"),
        "64 KiB env x 50 groups x 64 per pod": (
            "validate",
            _env_64k_50_groups_64_per_pod(),
            "yaml",
        ),
        "the same: render": ("render", _env_64k_50_groups_64_per_pod(), "yaml"),
        "the same: plan": ("plan", _env_64k_50_groups_64_per_pod(), "yaml"),
        "check: billion laughs (700 bytes)": ("check", _BILLION_LAUGHS, "yaml"),
        "check: 2,000 StatefulSets, one selector": ("check", _one_selector(), "yaml"),
        "check: 2,000 workloads, one affinity term": ("check", _shared_term(), "yaml"),
        "check: 2,000 PodGroups x 2,000 StatefulSets": (
            "check",
            _groups_of_one_job(),
            "yaml",
        ),
        "check: 2,000 Services named svc": ("check", _services_of_one_name(), "yaml"),
    }
    for index, (label, (command, text, suffix)) in enumerate(hostile.items()):
        path = directory / f"hostile-{index}.{suffix}"
        path.write_text(text, encoding="utf-8")
        commands[label] = [command, str(path)]
    deep = directory / "deep-nodes.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    commands["plan --nodes: 100,000-deep JSON"] = [
        "plan", str(EXAMPLE), "--nodes", str(deep),
    ]  # fmt: skip
    for index, (label, body) in enumerate(OVERLAYS.items()):
        overlay = directory / f"overlay-{index}"
        overlay.mkdir()
        (overlay / "x.yaml.j2").write_text(
            _OVERLAY_HEAD + body + "\n", encoding="utf-8"
        )
        commands[label] = ["render", str(EXAMPLE), "--templates", str(overlay)]
    sparse = directory / "overlay-sparse"
    sparse.mkdir()
    with (sparse / "x.yaml.j2").open("wb") as file:
        file.truncate(1024**3)  # a 1 GB sparse file: no disk used
    commands["overlay: a 1 GB template file"] = [
        "render", str(EXAMPLE), "--templates", str(sparse),
    ]  # fmt: skip
    return commands


def run_once(argv: list[str], *, stderr_head: bool = False) -> tuple[Any, ...]:
    """Run ``t2gen ARGV`` once as a fresh process.

    Returns:
        (wall seconds, CPU seconds (user + system) of the child, its peak resident
        MB, stderr bytes, exit code), and with ``stderr_head`` the first line of
        its stderr.
    """
    code = (
        "import json, resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run([sys.executable, '-m', 't2gen', *json.loads(sys.argv[1])],"
        " capture_output=True)\n"
        "wall = time.perf_counter() - start\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "head = done.stderr.decode('utf-8', 'replace').partition('\\n')[0]\n"
        "print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,"
        " len(done.stderr), done.returncode, head]))\n"
    )
    out = json.loads(
        subprocess.run(
            [sys.executable, "-c", code, json.dumps(argv)],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        ).stdout
    )
    values = (float(out[0]), float(out[1]), float(out[2]), int(out[3]), int(out[4]))
    return (*values, str(out[5])) if stderr_head else values


def main(argv: list[str] | None = None) -> int:
    """Measure every flood and print a table; returns 0 (budgets are reported, not asserted)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs per file (median)")
    parser.add_argument(
        "--append", metavar="FILE", help="also append the figures to this report"
    )
    parser.add_argument(
        "--only", default="", help="measure only the floods whose label holds this text"
    )
    args = parser.parse_args(argv)
    with appended_to(
        args.append, "Flood inputs: CPU against a plain render (bench/floods.py)"
    ):
        _measure(args.runs, args.only)
    return 0


def _measure(runs_per_file: int, only: str = "") -> None:
    """Measure every flood (or those whose label holds ``only``) and print the table and the verdict."""
    with tempfile.TemporaryDirectory(prefix="t2gen-floods-") as tmp:
        commands = {
            "render examples/wordcount.yaml (baseline)": ["render", str(EXAMPLE)],
            **flood_files(Path(tmp)),
        }
        commands = {
            label: argv
            for index, (label, argv) in enumerate(commands.items())
            if index == 0 or only in label
        }
        rows = []
        for label, argv in commands.items():
            runs = [run_once(argv) for _ in range(runs_per_file)]
            cpu = statistics.median(r[1] for r in runs)
            peak = max(r[2] for r in runs)
            rows.append((label, argv[0], cpu, peak, runs[0][3], runs[0][4]))
    base_cpu = rows[0][2]
    print(f"{'input':46} {'command':8} {'exit':>4} {'CPU s':>6} {'x base':>7} "
          f"{'peak MB':>8} {'stderr B':>9}  budget")  # fmt: skip
    for label, command, cpu, peak, stderr, code in rows:
        within = cpu / base_cpu <= CPU_BUDGET_X and peak < MEMORY_BUDGET_MB
        print(
            f"{label:46} {command:8} {code:4d} {cpu:6.3f} {cpu / base_cpu:7.1f} "
            f"{peak:8.1f} {stderr:9d}  {'PASS' if within else 'MISS'}"
        )
    worst = max(row[2] / base_cpu for row in rows)
    largest = max(row[3] for row in rows)
    print(
        f"worst {worst:.1f}x the CPU of a plain render (budget {CPU_BUDGET_X:.0f}x): "
        f"{'PASS' if worst <= CPU_BUDGET_X else 'MISS'}; "
        f"peak {largest:.0f} MB (budget {MEMORY_BUDGET_MB:.0f} MB): "
        f"{'PASS' if largest < MEMORY_BUDGET_MB else 'MISS'}"
    )


if __name__ == "__main__":
    sys.exit(main())
