"""Time and peak memory of ``t2gen validate`` on flood files: large hostile job files under 1 MiB.

Every file t2gen accepts to read (at most 1 MiB, ``t2gen.jobfile.yaml.source.MAX_FILE_BYTES``)
must be judged in about a second, with a bounded report (``... and N more
problems``). This script generates one file per flood (issue 14, item 3), runs
``t2gen validate`` on each as a fresh process, and reports its wall time, its
peak resident memory (``ru_maxrss`` of the child) and its stderr size, each also
as a ratio against ``t2gen validate examples/wordcount.yaml`` measured in the
same run. Budgets (slowest about 1 s, peak under 200 MB) are reported as PASS
or MISS, never asserted: timings vary with the machine and its load.

Run it with ``make bench`` (after ``bench/bench.py``) or on its own:
``python bench/floods.py [--runs N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from report import appended_to

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordcount.yaml"
MAX_BYTES = 1024 * 1024
TIME_BUDGET_S = 1.0
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
    # both readers refuse each at once (t2gen.jobfile.yaml.source.check_line_breaks).
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


def flood_files(directory: Path) -> dict[str, Path]:
    """Write every flood file into ``directory``; each is under 1 MiB.

    Returns:
        The files, by flood label.

    Raises:
        ValueError: a generated flood is over 1 MiB (t2gen would refuse to read it).
    """
    files = {}
    for index, (label, make) in enumerate(FLOODS.items()):
        data = make().encode()
        if len(data) > MAX_BYTES:
            raise ValueError(f"{label}: {len(data)} bytes, over 1 MiB")
        path = directory / f"flood-{index}.yaml"
        path.write_bytes(data)
        files[label] = path
    return files


def run_once(path: Path) -> tuple[float, float, int, int]:
    """Run ``t2gen validate path`` once.

    Returns:
        (wall seconds, peak resident MB of the child, stderr bytes, exit code).
    """
    code = (
        "import resource, subprocess, sys, time\n"
        "start = time.perf_counter()\n"
        "done = subprocess.run([sys.executable, '-m', 't2gen', 'validate', sys.argv[1]],"
        " capture_output=True)\n"
        "wall = time.perf_counter() - start\n"
        "peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(wall, peak, len(done.stderr), done.returncode)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2]), int(out[3])


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
    with appended_to(args.append, "Flood files: t2gen validate (bench/floods.py)"):
        _measure(args.runs, args.only)
    return 0


def _measure(runs_per_file: int, only: str = "") -> None:
    """Measure every flood file (or those whose label holds ``only``) and print the table and the verdict."""
    with tempfile.TemporaryDirectory(prefix="t2gen-floods-") as tmp:
        files = {
            "examples/wordcount.yaml (baseline)": EXAMPLE,
            **flood_files(Path(tmp)),
        }
        files = {
            label: path
            for index, (label, path) in enumerate(files.items())
            if index == 0 or only in label
        }
        rows = []
        for label, path in files.items():
            runs = [run_once(path) for _ in range(runs_per_file)]
            wall = statistics.median(r[0] for r in runs)
            peak = max(r[1] for r in runs)
            rows.append(
                (label, wall, peak, runs[0][2], runs[0][3], path.stat().st_size)
            )
    base_wall, base_peak = rows[0][1], rows[0][2]
    print(f"{'file':46} {'bytes':>8} {'exit':>4} {'time s':>7} {'x base':>7} "
          f"{'peak MB':>8} {'x base':>7} {'stderr B':>9}")  # fmt: skip
    for label, wall, peak, stderr, code, size in rows:
        print(
            f"{label:46} {size:8d} {code:4d} {wall:7.3f} {wall / base_wall:7.1f} "
            f"{peak:8.1f} {peak / base_peak:7.1f} {stderr:9d}"
        )
    slowest = max(row[1] for row in rows)
    largest = max(row[2] for row in rows)
    print(
        f"slowest {slowest:.2f} s (budget ~{TIME_BUDGET_S:.0f} s): "
        f"{'PASS' if slowest <= TIME_BUDGET_S * 1.2 else 'MISS'}; "
        f"peak {largest:.0f} MB (budget {MEMORY_BUDGET_MB:.0f} MB): "
        f"{'PASS' if largest < MEMORY_BUDGET_MB else 'MISS'}"
    )


if __name__ == "__main__":
    sys.exit(main())
