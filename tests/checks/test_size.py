"""surely_fits, the bound render and validate judge object sizes by, never clears an object too large.

``render`` measures only the jobs :func:`t2gen.checks.size.surely_fits` cannot
clear from their text (issue 41: the measuring was a tenth of a batch's CPU),
so the bound must hold: every job it clears renders only objects that fit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from t2gen.checks.size import size_problems, surely_fits
from t2gen.errors import T2genError
from t2gen.kube.limits import APPLY_LIMIT_BYTES
from t2gen.pipeline.job import render_loaded
from t2gen.pipeline.load import load_jobs
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "wordcount.yaml"


def _jobs() -> list[Path]:
    return sorted(
        [
            *(ROOT / "examples").glob("*.yaml"),
            *(ROOT / "tests" / "cases").glob("*/config.yaml"),
            *(ROOT / "tests" / "golden").glob("*/*.yaml"),
        ]
    )


def _largest(path: Path) -> tuple[bool, int] | None:
    """Whether surely_fits clears the job, and its largest object's measured size; None if it does not render."""
    try:
        [(job, doc)] = load_jobs([str(path)])
        documents = render_loaded([(job, doc)])
    except (T2genError, ValueError):
        return None
    cleared = surely_fits(job, len(doc.text.encode("utf-8")))
    measured = size_problems(job, doc, documents)
    assert measured == [] or not cleared
    largest = max(
        len(json.dumps(d.obj, separators=(",", ":"), ensure_ascii=False).encode())
        for d in documents
    )
    return cleared, largest


def test_every_job_the_bound_clears_renders_objects_that_fit() -> None:
    cleared = 0
    for path in _jobs():
        found = _largest(path)
        if found is None or not found[0]:
            continue
        cleared += 1
        assert found[1] <= APPLY_LIMIT_BYTES, path
    assert cleared > 50  # the walk found the jobs (most cases are invalid ones)


@pytest.mark.parametrize(
    ("value_bytes", "per_pod", "variables"), [(1_000, 4, 2), (8_000, 1, 1)]
)
def test_the_bound_holds_for_the_largest_jobs_it_clears(
    tmp_path: Path, value_bytes: int, per_pod: int, variables: int
) -> None:
    """Large variables repeated in several containers, as large as the bound still clears."""
    env = "".join(
        f"    - {{name: V{index}, value: {'x' * value_bytes}}}\n"
        for index in range(variables)
    )
    text = (
        EXAMPLE.read_text(encoding="utf-8")
        .replace("perPod: 2", f"perPod: {per_pod}")
        .replace("count: 8", f"count: {per_pod}")
        .replace("  jobPackage:", f"  env:\n{env}  jobPackage:")
    )
    path = tmp_path / "job.yaml"
    path.write_text(text, encoding="utf-8")
    found = _largest(path)
    assert found is not None
    assert found[0]  # cleared, so render does not measure it
    assert found[1] <= APPLY_LIMIT_BYTES
