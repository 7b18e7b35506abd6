"""Many job files over several processes (t2gen/pipeline/batch.py) answer exactly as one process does.

Each command line runs twice, through the real console script path, with the
threshold lowered (a test-only hook: the module attribute ``MIN_JOBS``, set in
the child process) so that small batches take the pool: once with ``--jobs 1``
and once over several processes. Standard output, standard error and the exit
code must be the same bytes, for valid batches and for batches where anything
is wrong anywhere. A spy records whether the pool ran and how it ended.
"""

from __future__ import annotations

import copy
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from t2gen.checks import object_problems
from t2gen.pipeline import batch as parallel
from t2gen.pipeline.job import generate
from tests.conftest import GOLDEN, ROOT

EXAMPLE = ROOT / "examples" / "wordcount.yaml"

SCRIPT = """
import os
import sys
import t2gen.pipeline.batch as p

p.MIN_JOBS = int(sys.argv[1])
if os.environ.get("T2GEN_TEST_CPUS"):  # as if the machine had this many CPUs
    p.usable_cpus = lambda: int(os.environ["T2GEN_TEST_CPUS"])
log = sys.argv[2]
real = p._parallel


def spy(paths, count, *args):
    done = real(paths, count, *args)
    with open(log, "a", encoding="utf-8") as file:
        file.write(f"{count} {'pool' if done is not None else 'again'}\\n")
    return done


p._parallel = spy
sys.argv = ["t2gen", *sys.argv[3:]]
from t2gen.cli.launch import main

main()
"""


def _run(
    args: list[str], tmp_path: Path, *, min_jobs: int = 4, cpus: int | None = 4
) -> tuple[int, bytes, bytes, list[str]]:
    """Run ``t2gen ARGS`` as if on ``cpus`` CPUs (None: this machine's); return
    (exit code, stdout, stderr, what the pool did)."""
    log = tmp_path / "pool.log"
    log.unlink(missing_ok=True)
    env = {key: value for key, value in os.environ.items() if key != "T2GEN_TEST_CPUS"}
    if cpus is not None:
        env["T2GEN_TEST_CPUS"] = str(cpus)
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(min_jobs), str(log), *args],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        env=env,
    )
    pool = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return done.returncode, done.stdout, done.stderr, pool


def _job(name: str, count: int = 2, **replace: str) -> str:
    text = EXAMPLE.read_text(encoding="utf-8").replace(
        "name: wordcount", f"name: {name}"
    )
    text = text.replace("count: 8", f"count: {count}")
    for old, new in replace.items():
        text = text.replace(old, new)
    return text


ENV = "  env:\n" + "".join(
    f"    - name: V{index}\n      value: {'x' * 1000}\n" for index in range(300)
)
PLACEMENT = (
    "  placement:\n    nodeAffinity:\n      required:\n"
    "        - {key: beta.kubernetes.io/os, operator: In, values: [linux]}\n"
)


def _batch(tmp_path: Path, count: int = 12, **special: str) -> list[str]:
    """``count`` valid job files ``wc-00.yaml``...; ``special`` replaces some files' text."""
    names = []
    for index in range(count):
        name = f"wc-{index:02}.yaml"
        text = special.get(
            f"wc_{index:02}", _job(f"wc-{index:02}", 2 + 2 * (index % 4))
        )
        (tmp_path / name).write_text(text, encoding="utf-8")
        names.append(name)
    return names


def _same(
    args: list[str], tmp_path: Path, *, processes: str = "3"
) -> tuple[list[str], tuple[int, bytes, bytes]]:
    """Assert one process and several give the same bytes.

    Returns what the pool did, and the one process's (exit code, stdout, stderr).
    """
    one = _run(["render", "--jobs", "1", *args], tmp_path)
    assert one[3] == []  # --jobs 1: no pool
    many = _run(["render", "--jobs", processes, *args], tmp_path)
    assert many[:3] == one[:3]
    return many[3], one[:3]


def test_a_valid_batch_is_the_same_bytes_through_the_pool(tmp_path: Path) -> None:
    files = _batch(tmp_path)
    pool, (code, out, err) = _same(files, tmp_path)
    assert pool == ["3 pool"]
    assert code == 0 and err == b"" and out.count(b"\nkind: StatefulSet\n") == 24


def test_without_options_the_pool_takes_one_process_per_cpu(tmp_path: Path) -> None:
    files = _batch(tmp_path)
    sequential = _run(["render", "--jobs", "1", *files], tmp_path)
    code, out, err, pool = _run(
        ["render", *files], tmp_path, cpus=None
    )  # the launcher's fast path, on this machine's CPUs
    assert (code, out, err) == sequential[:3]
    cpus = parallel.usable_cpus()
    assert pool == ([f"{cpus} pool"] if cpus > 1 else [])


def test_below_the_threshold_there_is_no_pool(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _batch(tmp_path, count=3)
    code, _, _, pool = _run(["render", "--jobs", "3", *files], tmp_path)
    assert code == 0 and pool == []
    assert (
        parallel.plan_processes(files, None, job_object=None) == 1
    )  # below MIN_JOBS (32)
    many = [f"{index}.yaml" for index in range(parallel.MIN_JOBS)]
    monkeypatch.setattr(parallel, "usable_cpus", lambda: 4)
    assert parallel.plan_processes(many, 1) == 1
    assert parallel.plan_processes(many, 64) == 4  # never more than the usable CPUs
    assert parallel.plan_processes(many, None) == 4
    assert parallel.plan_processes(many, 3) == 3
    assert parallel.plan_processes([*many, "-"], 3) == 1  # standard input: read once
    assert parallel.plan_processes(many, 3, job_object="wc.job") == 1
    assert parallel.plan_processes(many[:2] * 2, 8) == 1


def test_chunks_are_contiguous_and_in_order() -> None:
    paths = [str(index) for index in range(500)]
    for count in (2, 3, 7):
        chunks = parallel._chunks(paths, count)
        assert len(chunks) == count and all(chunks)
        assert [path for chunk in chunks for path in chunk] == paths


@pytest.mark.parametrize(
    "problem",
    [
        # Invalid files in several chunks: every problem of every file, in order.
        {"wc_01": _job("wc-01", count=-1), "wc_10": "spec: [\n"},
        # The same job in two chunks (duplicate objects across jobs).
        {"wc_11": _job("wc-00")},
        # An object too large for kubectl apply, in a worker's chunk.
        {"wc_09": _job("wc-09", **{"  jobPackage:": ENV + "  jobPackage:"})},
        # Warnings only: exit 0, every warning once, sorted.
        {
            "wc_02": _job("wc-02", **{"  jobPackage:": PLACEMENT + "  jobPackage:"}),
            "wc_10": _job("wc-10", **{"  jobPackage:": PLACEMENT + "  jobPackage:"}),
        },
    ],
    ids=["invalid-files", "duplicate-job", "too-large", "warnings"],
)
def test_a_bad_batch_reports_exactly_as_one_process(
    tmp_path: Path, problem: dict[str, str]
) -> None:
    files = _batch(tmp_path, **problem)
    pool, one = _same(files, tmp_path)
    assert one[2]  # something was reported
    assert pool == (["3 pool"] if one[0] == 0 else ["3 again"])


def test_a_template_error_reports_exactly_as_one_process(tmp_path: Path) -> None:
    files = _batch(tmp_path)
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "extra.yaml.j2").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ nope.name }}\n",
        encoding="utf-8",
    )
    assert _same(["--templates", "overlay", *files], tmp_path)[0] == ["3 again"]


def test_a_finding_across_jobs_reports_exactly_as_one_process(tmp_path: Path) -> None:
    # Only job wc-00 renders its Role: every other job's RoleBinding then names a
    # Role missing from a stream that has Roles, which only the whole batch shows.
    files = _batch(tmp_path)
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    role = (ROOT / "templates" / "k8s" / "role.yaml.j2").read_text(encoding="utf-8")
    (overlay / "role.yaml.j2").write_text(
        role.replace(
            "{% if rbac.create %}",
            '{% if rbac.create and "wc-00" in job.name %}',
        ),
        encoding="utf-8",
    )
    pool, (code, _, err) = _same(["--templates", "overlay", *files], tmp_path)
    assert code == 1 and b"RoleBinding/wc-11" in err
    assert pool == ["3 again"]
    alone = _run(
        ["render", "--jobs", "1", "--templates", "overlay", files[5]], tmp_path
    )
    assert alone[0] == 0  # the finding needs the other jobs' objects


_EVERY_OPTION = [
    *("--format", "json", "--namespace", "analytics", "--kube-version", "1.35"),
    *("--validate", "--templates", "overlay"),
]


# Each run renders the batch twice (one process, then the pool): `make test` runs
# every option at once (but helm, which takes no namespace) and helm, `make fuzz`
# each alone as well (six runs were 70 s of CPU).
@pytest.mark.parametrize(
    "options",
    [
        pytest.param(_EVERY_OPTION, id="all-at-once"),
        pytest.param(["--format", "helm"], id="format-helm"),
        *(
            pytest.param(options, id=options[0].strip("-"), marks=pytest.mark.slow)
            for options in (
                ["--format", "json"],
                ["--namespace", "analytics"],
                ["--kube-version", "1.35"],
                ["--validate"],
                ["--templates", "overlay"],
            )
        ),
    ],
)
def test_options_work_through_the_pool(tmp_path: Path, options: list[str]) -> None:
    files = _batch(tmp_path)
    overlay = tmp_path / "overlay"
    overlay.mkdir()
    (overlay / "extra.yaml.j2").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ job.name }}-extra\n"
        "data:\n  braces: '{{ '{{' }} not a template }}'\n",
        encoding="utf-8",
    )
    assert _same([*options, *files], tmp_path)[0] == ["3 pool"]


def test_output_directory_through_the_pool(tmp_path: Path) -> None:
    files = _batch(tmp_path)
    one = _run(["render", "--jobs", "1", "--output-dir", "one", *files], tmp_path)
    many = _run(["render", "--jobs", "2", "--output-dir", "many", *files], tmp_path)
    assert one[0] == many[0] == 0 and many[3] == ["2 pool"]
    assert one[2].replace(b"one/", b"many/") == many[2]
    written = sorted(path.name for path in (tmp_path / "one").iterdir())
    assert written == sorted(path.name for path in (tmp_path / "many").iterdir())
    for name in written:
        assert (tmp_path / "one" / name).read_bytes() == (
            tmp_path / "many" / name
        ).read_bytes()


def test_standard_input_is_read_in_one_process(tmp_path: Path) -> None:
    files = _batch(tmp_path)
    log = tmp_path / "pool.log"
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            "4",
            str(log),
            "render",
            "--jobs",
            "3",
            "-",
            *files[1:],
        ],
        cwd=tmp_path,
        input=(tmp_path / files[0]).read_bytes(),
        capture_output=True,
        check=False,
    )
    sequential = _run(["render", "--jobs", "1", *files], tmp_path)
    assert done.returncode == 0 and not log.exists()
    assert done.stdout == sequential[1]


def _golden_objects() -> list[list[dict[str, Any]]]:
    import yaml

    _LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml: same objects

    renders = []
    for expected in sorted(GOLDEN.glob("*/expected.stdout")):
        if expected.parent.name.startswith("invalid-"):
            continue
        try:
            loaded = list(
                yaml.load_all(expected.read_text(encoding="utf-8"), Loader=_LOADER)
            )
        except yaml.YAMLError:  # not a manifest stream (plan's tables)
            continue
        objects = [obj for obj in loaded if isinstance(obj, dict)]
        if len(objects) == 1 and objects[0].get("kind") == "List":
            objects = objects[0]["items"]
        if objects:
            renders.append(objects)
    return renders


def _broken_renders() -> list[list[dict[str, Any]]]:
    """The example with each breakage of tests/checks/test_checks.py: every check fires."""
    from tests.checks.test_checks import BREAKAGES

    good = [d.obj for d in generate([str(ROOT / "examples/heterogeneous.yaml")])]
    renders = []
    for breakage, _ in BREAKAGES.values():
        broken = copy.deepcopy(good)
        breakage(broken)
        renders.append(broken)
    return renders


def test_object_checks_never_read_the_stream_and_parts_find_what_all_finds() -> None:
    # A check marked reads="object" that looked at other objects would raise here.
    renders = [*_golden_objects(), *_broken_renders()]
    assert len(renders) > 40
    for objects in renders:
        everything = object_problems(objects)
        local = object_problems(objects, part="object")
        across = object_problems(objects, part="stream")
        assert sorted(everything) == sorted(local + across)
        # Object checks give the same findings whatever else is in the stream.
        alone = [p for obj in objects for p in object_problems([obj], part="object")]
        assert alone == local


ORPHAN_SCRIPT = """
import os
import signal
import sys
import t2gen.pipeline.batch as p

p.MIN_JOBS = 2
p.usable_cpus = lambda: 2
real_work, real_part = p._work, p._render_part
parent, pid_file = os.getpid(), sys.argv[1]


def work(*args):
    with open(pid_file + ".tmp", "w", encoding="utf-8") as file:
        file.write(str(os.getpid()))
    os.replace(pid_file + ".tmp", pid_file)
    real_work(*args)


calls = []


def part(paths, settings):
    calls.append(paths)
    # The parent renders its first job before it forks (to warm up), then dies
    # before it reads anything.
    if os.getpid() == parent and len(calls) == 2:
        while not os.path.exists(pid_file):
            pass
        os.kill(parent, signal.SIGKILL)
    return real_part(paths, settings)


p._work, p._render_part = work, part
sys.argv = ["t2gen", "render", *sys.argv[2:]]
from t2gen.cli.launch import main

main()
"""


def _gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return True
    return "\nState:\tZ" in status  # exited; its new parent has not reaped it


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_worker_ends_when_its_parent_is_killed(tmp_path: Path) -> None:
    # More than the pipe holds (1 MiB): a worker whose parent is gone used to
    # wait for ever on the write, holding the output pipe open.
    env = "  env:\n" + "".join(
        f"    - name: V{index}\n      value: {'x' * 1000}\n" for index in range(100)
    )
    files = _batch(
        tmp_path,
        count=24,
        **{
            f"wc_{index:02}": _job(
                f"wc-{index:02}", **{"  jobPackage:": env + "  jobPackage:"}
            )
            for index in range(24)
        },
    )
    pid_file = tmp_path / "worker.pid"
    done = subprocess.run(  # no pipes: an orphan holding them would block the test
        [sys.executable, "-c", ORPHAN_SCRIPT, str(pid_file), *files],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
        timeout=60,
    )
    assert done.returncode == -signal.SIGKILL
    worker = int(pid_file.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 30
    while not _gone(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not _gone(worker):
        os.kill(worker, signal.SIGKILL)
        pytest.fail("the worker outlived its parent")


def test_a_workers_objects_cross_the_pipe_as_they_were() -> None:
    """_pack/_unpack keep every type, key order and shared container; odd data goes pickled."""
    import math
    import pickle

    from t2gen.render.engine import RenderedDocument

    shared = {"app": "wordcount"}
    obj: dict[str, Any] = {
        "kind": "ConfigMap",
        "flags": [True, 1, 1.0, -0.0, None, 10**40, "\ud800", float("inf")],
        "labels": shared,
        "again": shared,
        "z": {"b": 1, "a": 2},
    }
    sent = ([RenderedDocument("k8s/configmap.yaml.j2", obj)], [])
    message = pickle.loads(pickle.dumps(parallel._pack(sent)))  # as the pipe does
    assert isinstance(message[0], bytes)
    (document,), warnings = parallel._unpack(message)
    assert warnings == [] and document.template == "k8s/configmap.yaml.j2"
    got = document.obj
    assert got == obj and list(got) == list(obj) and list(got["z"]) == ["b", "a"]
    assert [type(value) for value in got["flags"]] == [type(v) for v in obj["flags"]]
    assert math.copysign(1, got["flags"][3]) == -1
    # one container, as PyYAML's emitter must see it
    assert got["labels"] is got["again"]

    class Name(str):
        pass

    odd = ([RenderedDocument("t", {"name": Name("x")})], [])
    message = parallel._pack(odd)  # (a local class pickles nowhere: not sent)
    assert not isinstance(message[0], bytes)
    assert type(parallel._unpack(message)[0][0].obj["name"]) is Name
