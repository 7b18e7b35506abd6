"""Packaging benchmark: `t2gen package` of a 10 MB and a 100 MB jar against `tar -czf` of the same files.

CPU (user + system of the child) is reported as a ratio to `tar -czf` run in
the same process on the same files (the jar and the configuration t2gen
writes, unpacked from t2gen's own package), so the figure does not depend on
the machine; the two commands run in turn, at least 5 times each (``--runs``),
and the minimum and the median of each are printed; the median ratio is judged
against the budget, on every jar. Peak memory (max RSS of the child) is
reported for both jar sizes and must not grow with the jar: t2gen streams it.
t2gen runs as installed from a wheel: its bytecode compiled first. Budgets are
reported, not asserted (docs/development.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from report import appended_to

ROOT = Path(__file__).resolve().parent.parent
T2GEN = Path(sys.executable).parent / "t2gen"
EXAMPLE = ROOT / "examples" / "wordcount.yaml"
BUDGET = 1.5
"""t2gen's CPU may be at most this many times tar -czf's (issue 30)."""
MIN_RUNS = 5
"""The fewest repetitions a minimum and a median are taken over (issue 41)."""
ENV = {
    key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"
}
"""The children's environment: as a user's, whose installed t2gen has its bytecode."""


def _jar(path: Path, size: int) -> None:
    """A jar of about ``size`` bytes: the worker class and a stored entry of mostly random bytes,
    some text, as compressed classes compress little (``t2gen package`` checks it is a jar
    holding the class)."""
    chunk = os.urandom(1 << 20)
    text = b"edu/iu/dsc/tws/examples/batch/wordcount/tset/WordCount.class\n" * 16384
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as jar:
        jar.writestr(
            "edu/iu/dsc/tws/examples/batch/wordcount/tset/WordCount.class",
            b"\xca\xfe\xba\xbe",
        )
        with jar.open(zipfile.ZipInfo("data.bin"), "w", force_zip64=True) as out:
            written = 0
            while written < size:
                block = (chunk[: (3 << 18)] + text[: (1 << 18)])[: size - written]
                out.write(block)
                written += len(block)


def _child(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, int]:
    """CPU seconds (user + system, its own children's included) and peak RSS (KiB) of one child process."""
    pid = os.fork()
    if pid == 0:  # the child: exec the command with no output
        os.chdir(cwd)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.execve(argv[0], argv, ENV if env is None else env)
    _, status, usage = os.wait4(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv} failed")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss


class Row:
    """One jar's figures: the CPU seconds of every run of each command, and their peak RSS (KiB)."""

    def __init__(
        self,
        ours: list[float],
        theirs: list[float],
        our_rss: int,
        their_rss: int,
        before: list[float],
    ) -> None:
        self.ours, self.theirs = ours, theirs
        self.our_rss, self.their_rss = our_rss, their_rss
        self.before = before
        """The previous version's CPU seconds of every run (``--previous``), or empty."""

    @property
    def before_ratio(self) -> float | None:
        """The previous version's median over tar's median, if it ran."""
        if not self.before:
            return None
        return statistics.median(self.before) / statistics.median(self.theirs)

    @property
    def ratio_min(self) -> float:
        """t2gen's fastest run over tar's fastest."""
        return min(self.ours) / min(self.theirs)

    @property
    def ratio(self) -> float:
        """t2gen's median over tar's median: the judged figure."""
        return statistics.median(self.ours) / statistics.median(self.theirs)


def measure(size: int, runs: int, tmp: Path, previous: str | None = None) -> Row:
    """CPU of every run of t2gen package and tar -czf, in turn, and their peak RSS, for a jar of ``size`` bytes.

    With ``previous`` (a checkout of the previous version), its ``t2gen package``
    runs in the same turns, through its console script's ``main``.
    """
    work = tmp / f"jar-{size}"
    work.mkdir()
    _jar(work / "wordcount.jar", size)
    t2gen = [
        str(T2GEN),
        "package",
        str(EXAMPLE),
        "--jar",
        "wordcount.jar",
        "--output-file",
        "out.tar.gz",
    ]
    _child(t2gen, work)  # warm the page cache and the bytecode
    with tarfile.open(work / "out.tar.gz") as tar:
        tar.extractall(work / "tree", filter="data")
    shutil.copy(
        work / "wordcount.jar", work / "tree" / "twister2-job" / "wordcount.jar"
    )
    tar_argv = [
        shutil.which("tar") or "/bin/tar",
        "-czf",
        str(work / "tar.tar.gz"),
        "-C",
        str(work / "tree"),
        "twister2-job",
    ]
    _child(tar_argv, work)  # and tar's
    before_argv = [
        sys.executable,
        "-c",
        "import sys; sys.argv[0] = 't2gen'; from t2gen.cli.launch import main; main()",
        *t2gen[1:-1],
        "before.tar.gz",
    ]
    before_env = {**ENV, "PYTHONPATH": str(previous)}
    if previous is not None:
        _child(before_argv, work, before_env)
    ours, theirs, before, our_rss, their_rss = [], [], [], 0, 0
    for _ in range(runs):
        cpu, rss = _child(t2gen, work)
        ours.append(cpu)
        our_rss = max(our_rss, rss)
        cpu, rss = _child(tar_argv, work)
        theirs.append(cpu)
        their_rss = max(their_rss, rss)
        if previous is not None:
            before.append(_child(before_argv, work, before_env)[0])
    return Row(ours, theirs, our_rss, their_rss, before)


def main(argv: list[str] | None = None) -> int:
    """Print the table (and append it to a report with --append); returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--runs", type=int, default=7, help=f"repetitions (at least {MIN_RUNS})"
    )
    parser.add_argument("--append", metavar="FILE")
    parser.add_argument(
        "--previous",
        metavar="DIR",
        help="a checkout of the previous version: its package runs in the same turns",
    )
    parser.add_argument("--sizes", default="10,100", help="jar sizes in MB")
    args = parser.parse_args(argv)
    if args.runs < MIN_RUNS:
        parser.error(f"--runs: at least {MIN_RUNS}, for a minimum and a median")
    # An editable install runs t2gen from the checkout: compile it as pip compiles a wheel.
    for checkout in (str(ROOT), *([args.previous] if args.previous else [])):
        subprocess.run(
            [sys.executable, "-m", "compileall", "-q", str(Path(checkout) / "t2gen")],
            check=True,
        )
    title = "Packaging: t2gen package against tar -czf (bench/package_bench.py)"
    with (
        appended_to(args.append, title),
        tempfile.TemporaryDirectory(prefix="t2gen-package-") as tmp,
    ):
        print(
            f"CPU s (user + system) over {args.runs} runs of each, min / median; "
            f"ratio t2gen / tar, judged on the median"
        )
        print(
            f"{'jar':>8} {'t2gen min':>9} {'median':>7} {'tar min':>8} {'median':>7} "
            f"{'ratio min':>9} {'median':>7} {'t2gen MiB':>10} {'tar MiB':>8}  budget {BUDGET}x"
        )
        rows = []
        for mb in (int(s) for s in args.sizes.split(",")):
            row = measure(mb * 1_000_000, args.runs, Path(tmp), args.previous)
            rows.append(row)
            before = (
                ""
                if row.before_ratio is None
                else f"  (previous version: median {statistics.median(row.before):.3f} s, "
                f"{row.before_ratio:.2f}x)"
            )
            print(
                f"{mb:>6}MB {min(row.ours):>9.3f} {statistics.median(row.ours):>7.3f} "
                f"{min(row.theirs):>8.3f} {statistics.median(row.theirs):>7.3f} "
                f"{row.ratio_min:>9.2f} {row.ratio:>7.2f} {row.our_rss / 1024:>10.1f} "
                f"{row.their_rss / 1024:>8.1f}  {'PASS' if row.ratio <= BUDGET else 'MISS'}"
                f"{before}"
            )
        # Every row is judged: the worst one decides (a 1.56x row once printed
        # "within the budget" because only the last jar was judged).
        worst = max(row.ratio for row in rows)
        verdict = "within" if worst <= BUDGET else "OVER"
        grows = rows[-1].our_rss - rows[0].our_rss >= 16 * 1024
        print(
            f"CPU {verdict} the budget of {BUDGET}x tar -czf on every jar (worst median "
            f"{worst:.2f}x); peak memory {'GROWS' if grows else 'does not grow'} with the jar "
            f"({rows[0].our_rss / 1024:.1f} -> {rows[-1].our_rss / 1024:.1f} MiB)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
