"""The rule ``job-config-runtime-key``: a jobConfig key the pods read as configuration."""

from __future__ import annotations

import pytest

from t2gen.twister2.confkeys import POD_KEYS
from tests.helpers import job_text, problems


@pytest.mark.parametrize("key", sorted(POD_KEYS))
def test_every_runtime_key_is_refused_naming_its_field(key: str) -> None:
    text = job_text(f"workers:\n  - count: 2\njobConfig:\n  {key}: 1\n")
    found = [p for p in problems(text) if p[2] == f'spec.jobConfig["{key}"]']
    assert len(found) == 1
    assert key in found[0][3] and POD_KEYS[key] in found[0][3]


def test_a_key_of_the_users_own_is_allowed() -> None:
    from tests.helpers import valid_job

    job = valid_job(job_text("workers:\n  - count: 2\njobConfig:\n  MAX_CHARS: 5\n"))
    assert job.spec.job_config == (("MAX_CHARS", 5),)
