"""Total requested CPU and memory of every golden job: t2gen before, t2gen now, the Twister2 launcher.

For each golden whose command renders a job (``render ...``, or ``import ...``
whose job file is then rendered): "before" is what t2gen at a git revision
(``--before``) rendered, its checked-in golden output (an import golden's job
file is rendered by that revision's t2gen, extracted into a temporary
directory); "now" is this tree's render. Each render's pods are summed as the scheduler sums requests
(replicas x the containers' requests). The launcher's requests come from
:func:`t2gen.plan.workermap.launcher.launcher_pod_requests`, the formulas of
DSC-SPIDAL/twister2 ``RequestObjectBuilder.java:306-326`` and
``master/JobMasterRequestObject.java:170-174`` (the module cites them), over
this tree's typed job. The table is Markdown, for docs/resources.md::

    .venv/bin/python -m scripts.launcher_table --before 3de7590
"""

from __future__ import annotations

import argparse
import io
import os
import shlex
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import yaml

from t2gen.pipeline.load import validate_files
from t2gen.plan.workermap.launcher import launcher_pod_requests

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "golden"
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _t2gen(source: Path, args: list[str], stdin: str | None = None) -> str:
    """Run the t2gen whose package is under ``source``; return its stdout (fail loudly)."""
    done = subprocess.run(
        [
            sys.executable,
            "-P",
            "-c",
            "from t2gen.cli.launch import main; main()",
            *args,
        ],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(source)},
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"t2gen {' '.join(args)} ({source}): {done.stderr}")
    return done.stdout


def _quantity(text: Any) -> float:
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "m": 1e-3}
    value = str(text)
    for suffix, factor in units.items():
        if value.endswith(suffix):
            return float(value[: -len(suffix)]) * factor
    return float(value)


def _totals(stream: str) -> tuple[float, float]:
    """(cores, bytes) the rendered pods request: replicas x each container's requests."""
    cores = memory = 0.0
    for obj in yaml.load_all(stream, Loader=_Loader):
        if not isinstance(obj, dict) or obj.get("kind") != "StatefulSet":
            continue
        replicas = obj["spec"].get("replicas", 1)
        for container in obj["spec"]["template"]["spec"]["containers"]:
            resources = container.get("resources") or {}
            requests = {
                **(resources.get("limits") or {}),
                **(resources.get("requests") or {}),
            }
            cores += replicas * _quantity(requests.get("cpu", 0))
            memory += replicas * _quantity(requests.get("memory", 0))
    return cores, memory


def _job_and_render(source: Path, args: list[str]) -> tuple[str, str]:
    """(job file text, rendered stream) of one golden's command under ``source``'s t2gen."""
    if args[0] == "import":
        job = _t2gen(source, args)
        return job, _t2gen(source, ["render", "-"], stdin=job)
    render = [a for a in args if a not in ("--validate",)]
    return "", _t2gen(source, render)


def _before(revision: str, tree: Path, case: str, args: list[str]) -> str:
    """What t2gen at ``revision`` rendered for a golden: its checked-in output, or a render."""
    if args[0] == "render":
        shown = subprocess.run(
            ["git", "show", f"{revision}:tests/golden/{case}/expected.stdout"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            check=False,
        )
        return shown.stdout if shown.returncode == 0 else ""
    return _job_and_render(tree, args)[1]


def _launcher(job_text: str, args: list[str]) -> tuple[float, float]:
    """(cores, bytes) the Twister2 launcher requests for the job of ``args``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = args[1] if args[0] == "render" else str(Path(tmp) / "job.yaml")
        if args[0] != "render":
            Path(path).write_text(job_text, encoding="utf-8")
        (job,) = validate_files([str(ROOT / path) if args[0] == "render" else path])
    groups = {f"{job.name}-{g.index}": g.replicas for g in job.spec.workers}
    cores = memory = 0.0
    for name, (millis, size) in launcher_pod_requests(job).items():
        pods = groups.get(name, 1)
        cores += pods * millis / 1000
        memory += pods * size
    return cores, memory


def _extract(revision: str, into: Path) -> None:
    """Put ``t2gen/``, ``templates/`` and ``schemas/`` of ``revision`` under ``into``."""
    archive = subprocess.run(
        ["git", "archive", revision, "t2gen", "templates", "schemas"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def _cases() -> list[tuple[str, list[str]]]:
    found = []
    for args_file in sorted(GOLDEN.glob("*/args")):
        args = shlex.split(args_file.read_text(encoding="utf-8"))
        case = args_file.parent.name
        args = [a.replace("{case}", f"tests/golden/{case}") for a in args]
        stdout = args_file.parent / "expected.stdout"
        if not stdout.is_file() or not stdout.stat().st_size:
            continue  # a job t2gen refuses
        if (
            args[0] == "render" and "-o" not in args and "--format" not in args
        ) or args[0] == "import":
            found.append((case, args))
    return found


def _cell(cores: float, memory: float) -> str:
    return f"{cores:g} cpu, {memory / 2**30:.2f}Gi"


def main() -> None:
    """Print the Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git revision of 'before'")
    options = parser.parse_args()
    rows = [
        "| job (golden) | t2gen before | t2gen now | Twister2 launcher | now - launcher |",
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        before_tree = Path(tmp)
        _extract(options.before, before_tree)
        for case, args in _cases():
            old = _before(options.before, before_tree, case, args)
            job, new = _job_and_render(ROOT, args)
            before = _totals(old) if old else None
            after = _totals(new)
            launcher = _launcher(job, args)
            rows.append(
                f"| {case} | {_cell(*before) if before else 'new golden'} | {_cell(*after)} "
                f"| {_cell(*launcher)} | +{(after[1] - launcher[1]) / 2**20:g}Mi, "
                f"{after[0] - launcher[0]:+g} cpu |"
            )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
