"""The largest job t2gen handles, and a clear error (not a hang) beyond it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import SchemaError
from t2gen.jobfile.rules import MAX_ENV_ENTRIES, MAX_TOTAL_WORKERS
from t2gen.kube.yamlio import dump_yaml
from t2gen.pipeline.job import generate


def _job(groups: int, per_pod: int, workers: int, env: int) -> dict[str, Any]:
    count = workers // groups // per_pod * per_pod
    return {
        "apiVersion": "t2gen/v1",
        "kind": "Twister2Job",
        "metadata": {"name": "largest"},
        "spec": {
            "image": "twister2/twister2-k8s:0.8.0",
            "workers": [{"count": count, "perPod": per_pod} for _ in range(groups)],
            "env": [
                {"name": f"VARIABLE_{index}", "value": f"value {index}"}
                for index in range(env)
            ],
        },
    }


def _generate(tmp_path: Path, job: dict[str, Any]) -> Any:
    path = tmp_path / "job.yaml"
    path.write_text(dump_yaml(job), encoding="utf-8")
    return generate([str(path)])


def test_the_largest_job_renders(tmp_path: Path) -> None:
    # 100,000 workers in 50 groups, with 1,000 extra environment variables.
    documents = _generate(
        tmp_path, _job(groups=50, per_pod=1, workers=MAX_TOTAL_WORKERS, env=1000)
    )
    statefulsets = [
        d.obj for d in documents if d.kind == "StatefulSet" and d.name != "largest-jm"
    ]
    assert len(statefulsets) == 50
    assert sum(s["spec"]["replicas"] for s in statefulsets) == MAX_TOTAL_WORKERS
    assert (
        len(statefulsets[0]["spec"]["template"]["spec"]["containers"][0]["env"]) > 1000
    )
    # How fast is measured by make bench, never asserted in a test.


@pytest.mark.parametrize(
    ("job", "fragment"),
    [
        (
            _job(groups=2, per_pod=1, workers=200_000, env=0),
            "the job has 200000 workers; t2gen supports at most 100000",
        ),
        (
            _job(groups=50, per_pod=4, workers=80_000, env=1000),
            "would hold 204,000 environment variables (200 containers x 1020)",
        ),
    ],
)
def test_beyond_the_limits_is_a_clear_error_not_a_hang(
    tmp_path: Path, job: dict[str, Any], fragment: str
) -> None:
    with pytest.raises(SchemaError) as info:
        _generate(tmp_path, job)
    assert any(fragment in problem.message for problem in info.value.problems), (
        info.value.problems
    )
    assert MAX_ENV_ENTRIES == 100_000
