"""``render -o DIR`` under SIGKILL and concurrency (issue 14, item 7).

Each kill runs ``t2gen render JOB -o DIR`` in a subprocess whose directory swap
is delayed (``t2gen.output.atomicdir.exchange`` wrapped with a sleep, in the child only;
``strace -e inject`` need not be installed) and kills it at a random moment.
After every kill DIR must hold the old or the new complete render, never a
mix and never nothing; the next run must remove the killed run's leftovers.

The quick variants run in the normal suite; ``test_kills_and_concurrency_at_length``
is marked ``slow`` and runs with ``make fuzz`` (``T2GEN_SLOW=1``). Both print
their figures (kills tried, states seen, leftovers) with ``pytest -s``.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from tests.helpers import job_text

runner = CliRunner()

# A child t2gen whose swap waits (before the atomic exchange; between the fallback's renames)
# T2GEN_TEST_DELAY seconds; T2GEN_TEST_FALLBACK=1 forces the two-rename fallback.
_CHILD = """
import os, sys, time
from pathlib import Path
import t2gen.output.atomicdir as atomicdir
delay = float(os.environ.get("T2GEN_TEST_DELAY", "0"))
if os.environ.get("T2GEN_TEST_FALLBACK") == "1":
    atomicdir._renameat2.cache_clear()
    atomicdir._renameat2 = lambda: None
real_exchange = atomicdir.exchange
def slow_exchange(new, current):
    time.sleep(delay)
    return real_exchange(new, current)
atomicdir.exchange = slow_exchange
real_rename = Path.rename
def slow_rename(self, target):
    result = real_rename(self, target)
    if ".t2gen-old-" in str(target):  # between the fallback's two renames
        time.sleep(delay)
    return result
Path.rename = slow_rename
from t2gen.cli.app import main
import t2gen.cli.render, t2gen.pipeline.job  # loaded before the kill window opens
sys.stdout.write("ready\\n"); sys.stdout.flush()
sys.argv = ["t2gen", "render", *sys.argv[1:]]
main()
"""


def _jobs(tmp_path: Path, count: int) -> list[Path]:
    jobs = []
    for index in range(count):
        job = tmp_path / f"job{index}.yaml"
        job.write_text(
            job_text(
                f"workers: [{{count: {index + 1}}}]\n",
            ).replace("name: job", f"name: job{index}"),
            encoding="utf-8",
        )
        jobs.append(job)
    return jobs


def _snapshot(directory: Path) -> dict[str, bytes] | None:
    if not directory.is_dir():
        return None
    return {entry.name: entry.read_bytes() for entry in sorted(directory.iterdir())}


def _leftovers(parent: Path, name: str) -> list[str]:
    return sorted(
        entry.name for entry in parent.iterdir() if entry.name.startswith(f".{name}.")
    )


def _reference(job: Path, tmp_path: Path) -> dict[str, bytes]:
    out = tmp_path / f"ref-{job.stem}"
    result = runner.invoke(app, ["render", str(job), "--output-dir", str(out)])
    assert result.exit_code == 0, result.stderr
    snapshot = _snapshot(out)
    assert snapshot is not None
    return snapshot


def _kill_run(
    tmp_path: Path, kills: int, *, fallback: bool, seed: int
) -> dict[str, object]:
    """Kill renders at random moments; return the figures."""
    rng = random.Random(seed)
    a, b = _jobs(tmp_path, 2)
    references = {"a": _reference(a, tmp_path), "b": _reference(b, tmp_path)}
    parent = tmp_path / "site"
    parent.mkdir()
    out = parent / "out"
    assert (
        runner.invoke(app, ["render", str(a), "--output-dir", str(out)]).exit_code == 0
    )
    current = "a"
    states: Counter[str] = Counter()
    leftovers_seen = 0
    env = {**os.environ, "T2GEN_TEST_FALLBACK": "1" if fallback else "0"}

    def start(job: Path, delay: float) -> subprocess.Popen[bytes]:
        env["T2GEN_TEST_DELAY"] = f"{delay:.3f}"
        child = subprocess.Popen(
            [sys.executable, "-c", _CHILD, str(job), "--output-dir", str(out)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        assert child.stdout is not None
        child.stdout.readline()  # imported and patched: the kill window opens
        return child

    # Calibrate: how long a whole run takes here once imported (then put DIR back).
    calibration = start(b, 0.0)
    began = time.perf_counter()
    calibration.communicate()
    duration = time.perf_counter() - began
    assert (
        runner.invoke(app, ["render", str(a), "--output-dir", str(out)]).exit_code == 0
    )
    for _ in range(kills):
        target = "b" if current == "a" else "a"
        delay = rng.uniform(0.0, 0.3)
        child = start(a if target == "a" else b, delay)
        time.sleep(rng.uniform(0.0, duration + delay))
        child.send_signal(signal.SIGKILL)
        child.communicate()
        snapshot = _snapshot(out)
        if snapshot == references[current]:
            states["old"] += 1
        elif snapshot == references[target]:
            states["new"] += 1
            current = target
        elif snapshot is None:
            states["missing"] += 1
        else:
            states["mixed"] += 1
        leftovers_seen += len(_leftovers(parent, "out"))
        if (
            snapshot is None
        ):  # only the fallback can leave this; the next run restores it
            result = runner.invoke(app, ["render", str(a), "--output-dir", str(out)])
            assert result.exit_code == 0, result.stderr
            current = "a"
            assert _leftovers(parent, "out") == []
    # The next run cleans up whatever the last kill left.
    assert (
        runner.invoke(app, ["render", str(a), "--output-dir", str(out)]).exit_code == 0
    )
    return {
        "kills": kills,
        "states": dict(states),
        "leftovers seen after kills": leftovers_seen,
        "leftovers after the next run": len(_leftovers(parent, "out")),
        "final": _snapshot(out) == references["a"],
    }


def _concurrent_run(tmp_path: Path, rounds: int, writers: int = 8) -> dict[str, object]:
    jobs = _jobs(tmp_path, writers)
    references = [_reference(job, tmp_path) for job in jobs]
    parent = tmp_path / "shared"
    parent.mkdir()
    out = parent / "out"
    failures = 0
    for _ in range(rounds):
        children = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "t2gen",
                    "render",
                    str(job),
                    "--output-dir",
                    str(out),
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
            )
            for job in jobs
        ]
        for child in children:
            _, stderr = child.communicate(timeout=120)
            if child.returncode:
                failures += 1
                print(stderr)
        assert _snapshot(out) in references
        assert _leftovers(parent, "out") == []
    return {"rounds": rounds, "writers": writers * rounds, "failures": failures}


def _check(figures: dict[str, object], *, fallback: bool) -> None:
    print(
        f"\n-o DIR kills ({'two-rename fallback' if fallback else 'renameat2'}): {figures}"
    )
    states = figures["states"]
    assert isinstance(states, dict)
    assert states.get("mixed", 0) == 0
    if not fallback:
        assert states.get("missing", 0) == 0  # the atomic swap leaves no gap
    assert figures["leftovers after the next run"] == 0
    assert figures["final"]


@pytest.mark.parametrize("fallback", [False, True], ids=["renameat2", "fallback"])
def test_a_killed_render_leaves_the_old_or_the_new_render(
    tmp_path: Path, fallback: bool
) -> None:
    # 4 kills: one each side of the swap is what a single run can show; the slow
    # tier kills 100 runs of each.
    _check(_kill_run(tmp_path, 4, fallback=fallback, seed=14), fallback=fallback)


def test_concurrent_renders_into_one_directory_are_serialised(tmp_path: Path) -> None:
    # Four renders at once (each a process of some 0.25 s of CPU); the slow tier
    # runs ten rounds of eight.
    figures = _concurrent_run(tmp_path, rounds=1, writers=4)
    print(f"\n-o DIR concurrency: {figures}")
    assert figures["failures"] == 0


@pytest.mark.slow
def test_kills_and_concurrency_at_length(tmp_path: Path) -> None:
    for fallback in (False, True):
        (tmp_path / str(fallback)).mkdir()
        _check(
            _kill_run(tmp_path / str(fallback), 100, fallback=fallback, seed=1),
            fallback=fallback,
        )
    (tmp_path / "c").mkdir()
    figures = _concurrent_run(tmp_path / "c", rounds=10)
    print(f"\n-o DIR concurrency: {figures}")
    assert figures["failures"] == 0


# --- the other promises of -o DIR ----------------------------------------------


def test_leftovers_of_killed_runs_are_removed(tmp_path: Path) -> None:
    (job,) = _jobs(tmp_path, 1)
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["render", str(job), "--output-dir", str(out)]).exit_code
        == 0
    )
    stale = [
        tmp_path / ".out.t2gen-0123456789ab",
        tmp_path / ".out.t2gen-old-ba9876543210",
    ]
    for directory in stale:
        directory.mkdir()
        (directory / "x.yaml").write_text("x", encoding="utf-8")
    unrelated = tmp_path / ".out.t2gen-notmine"
    unrelated.mkdir()
    result = runner.invoke(app, ["render", str(job), "--output-dir", str(out)])
    assert result.exit_code == 0, (result.stderr, result.exception)
    assert _leftovers(tmp_path, "out") == [".out.t2gen-notmine"]


def test_a_missing_dir_with_an_old_render_aside_is_restored(tmp_path: Path) -> None:
    # What a fallback run killed between its two renames leaves behind.
    a, b = _jobs(tmp_path, 2)
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["render", str(a), "--output-dir", str(out)]).exit_code == 0
    )
    before = _snapshot(out)
    out.rename(tmp_path / ".out.t2gen-old-0123456789ab")
    (out.parent / "user-notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "out-new").mkdir()
    result = runner.invoke(app, ["render", str(b), "--output-dir", str(out)])
    assert result.exit_code == 0, result.stderr
    assert _snapshot(out) != before and _leftovers(tmp_path, "out") == []


def test_o_onto_a_symlink_writes_through_it(tmp_path: Path) -> None:
    (job,) = _jobs(tmp_path, 1)
    real = tmp_path / "real"
    link = tmp_path / "link"
    link.symlink_to(real)
    # Dangling: refused (the link could point anywhere), and nothing is created there.
    result = runner.invoke(app, ["render", str(job), "--output-dir", str(link)])
    assert result.exit_code == 1 and not os.path.lexists(real)
    assert result.stderr == (
        f"{link}: is a symbolic link to {real}, which does not exist; t2gen writes "
        "through a link only to a file or directory already there (a dangling link "
        "could point anywhere): create the target, or remove the link\n"
    )
    real.mkdir()
    for _ in range(2):  # written into the empty target, then replaced
        result = runner.invoke(app, ["render", str(job), "--output-dir", str(link)])
        assert result.exit_code == 0, result.stderr
        assert link.is_symlink() and (real / "kustomization.yaml").is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_user_file_listed_in_the_kustomization_is_never_deleted(
    tmp_path: Path,
) -> None:
    (job,) = _jobs(tmp_path, 1)
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["render", str(job), "--output-dir", str(out)]).exit_code
        == 0
    )
    (out / "mine.yaml").write_text("kind: ConfigMap\n", encoding="utf-8")
    kustomization = out / "kustomization.yaml"
    kustomization.write_text(
        kustomization.read_text(encoding="utf-8").replace(
            "resources:\n", "resources:\n- mine.yaml\n"
        ),
        encoding="utf-8",
    )
    result = runner.invoke(app, ["render", str(job), "--output-dir", str(out)])
    assert result.exit_code == 1
    assert "holds files t2gen did not write" in result.stderr
    assert (out / "mine.yaml").read_text(encoding="utf-8") == "kind: ConfigMap\n"


def test_a_generated_file_taken_over_is_never_overwritten(tmp_path: Path) -> None:
    """Deleting t2gen's first line makes a file the user's: refused, unless --force."""
    (job,) = _jobs(tmp_path, 1)
    out = tmp_path / "out"
    assert (
        runner.invoke(app, ["render", str(job), "--output-dir", str(out)]).exit_code
        == 0
    )
    edited = next(p for p in out.iterdir() if p.name.startswith("configmap-"))
    edited.write_text(
        edited.read_text(encoding="utf-8").split("\n", 1)[1] + "# my note\n",
        encoding="utf-8",
    )
    result = runner.invoke(app, ["render", str(job), "--output-dir", str(out)])
    assert result.exit_code == 1
    assert f"holds files t2gen did not write ({edited.name})" in result.stderr
    assert edited.read_text(encoding="utf-8").endswith("# my note\n")
    forced = runner.invoke(
        app, ["render", str(job), "--output-dir", str(out), "--force"]
    )
    assert forced.exit_code == 0, forced.stderr
    assert not edited.read_text(encoding="utf-8").endswith("# my note\n")
