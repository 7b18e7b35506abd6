"""Hostile inputs of issue 23 that the case tree cannot hold: memory, time, and inputs made in the test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from t2gen.cli.app import app
from tests.conftest import ROOT

runner = CliRunner()


def test_check_refuses_a_billion_laughs_without_expanding_it() -> None:
    # tracemalloc's peak counts what t2gen allocates: the nine levels of aliases
    # would need gigabytes. Time is measured by `make bench` (bench/floods.py).
    case = ROOT / "tests" / "cases" / "check-billion-laughs" / "config.yaml"
    code = (
        "import sys, tracemalloc\n"
        "tracemalloc.start()\n"
        "from t2gen.cli.app import main\n"
        f"sys.argv = ['t2gen', 'check', {str(case)!r}]\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print(code, tracemalloc.get_traced_memory()[1], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    code_text, peak_bytes = done.stderr.strip().splitlines()[-1].split()
    assert code_text == "1"
    assert int(peak_bytes) < 100 * 1024 * 1024


def test_check_reads_a_manifest_stream_of_several_megabytes(tmp_path: Path) -> None:
    # The job-file limit (1 MiB, "a job file is a few hundred bytes") once
    # refused every manifest stream over 1 MiB.
    documents = [
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
        f"  name: data-{index}\ndata:\n  blob: '{'x' * 700_000}'\n"
        for index in range(3)
    ]
    stream = tmp_path / "stream.yaml"
    stream.write_text("---\n".join(documents), encoding="utf-8")
    assert stream.stat().st_size > 2 * 1024 * 1024
    result = runner.invoke(app, ["check", str(stream)])
    assert result.exit_code == 0, result.stderr


def test_plan_gt_against_a_5000_digit_label_value(tmp_path: Path) -> None:
    nodes = json.loads((ROOT / "examples" / "nodes.json").read_text(encoding="utf-8"))
    nodes["items"][0]["metadata"].setdefault("labels", {})["num"] = "9" * 5000
    nodes_file = tmp_path / "nodes.json"
    nodes_file.write_text(json.dumps(nodes), encoding="utf-8")
    job = tmp_path / "job.yaml"
    job.write_text(
        (ROOT / "examples" / "wordcount.yaml").read_text(encoding="utf-8")
        + "  placement:\n    nodeAffinity:\n      required:\n"
        + '        - {key: num, operator: Gt, values: ["5"]}\n',
        encoding="utf-8",
    )
    result = runner.invoke(app, ["plan", str(job), "--nodes", str(nodes_file)])
    assert "Traceback" not in result.output
    # A label value is at most 63 characters: the API server never writes this
    # one, so the node list is refused where it says so (issue 32), not read.
    assert (result.exit_code, result.stdout) == (1, "")
    # json.dumps writes one line: the labels' mapping starts after items[0]'s keys.
    column = json.dumps(nodes).index('"labels": {') + len('"labels": ') + 1
    assert result.stderr == (
        f"{nodes_file}:1:{column}: items[0].metadata.labels: must map label keys to "
        "label values (strings), as the API server writes them\n"
    )


def test_validate_and_plan_judge_object_sizes_without_rendering(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The 64 KiB variable x 50 groups x 64 workers per pod: once 2.3 s of CPU
    # rendering 200 MB before it was refused; now refused by the object-size rule.
    def no_render(*_: object, **__: object) -> None:
        raise AssertionError("validate rendered a template")

    from t2gen.pipeline import job
    from t2gen.render import engine

    monkeypatch.setattr(engine, "render", no_render)
    monkeypatch.setattr(job, "render", no_render)
    case = ROOT / "tests" / "cases" / "env-64k-50-groups-64-per-pod" / "config.yaml"
    for command in (["validate", str(case)], ["plan", str(case)]):
        result = runner.invoke(app, command)
        assert result.exit_code == 1
        assert "would take at least 4,175 KiB, mostly 64 containers" in result.stderr
    example = str(ROOT / "examples" / "wordcount.yaml")
    assert runner.invoke(app, ["validate", example]).exit_code == 0
