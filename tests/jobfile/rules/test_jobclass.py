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


def test_the_restart_limit_is_refused_as_a_job_config_key() -> None:
    """A JobConfig entry would move Twister2's restart limit away from the supervisor's.

    The pods put every JobConfig entry over the package's configuration
    (``JobUtils.java:122-138``, called at ``K8sWorkerStarter.java:99``) and read the
    limit after it (``K8sWorkerStarter.java:175``), while ``t2gen package`` writes
    ``spec.lifecycle.maxWorkerRestarts`` into the package and the supervisor counts
    against it: the supervisor would report WorkerFailed for a job Twister2 goes on with.
    """
    key = "twister2.fault.tolerance.max.worker.restarts"
    text = job_text(
        "workers:\n  - count: 2\n"
        "lifecycle:\n  supervise: true\n  maxWorkerRestarts: 2\n"
        f"jobConfig:\n  {key}: 50\n"
    )
    found = [p for p in problems(text) if p[2] == f'spec.jobConfig["{key}"]']
    assert len(found) == 1, problems(text)
    assert "spec.lifecycle.maxWorkerRestarts" in found[0][3]


def test_the_openmpi_restart_limit_is_refused_as_a_job_config_key() -> None:
    """An OpenMPI job's ranks fail at the JobConfig's count, the supervisor at Twister2's default 1.

    The ranks read ``twister2.fault.tolerance.max.mpijob.restarts`` after
    ``overrideConfigs`` (``K8S/mpi/MPIWorkerStarter.java:203-207``), while the
    rendered supervisor's ``T2_MAX_RESTARTS`` is 1 for an OpenMPI job. No field sets
    it, so the advice is to remove the key, not to set a field to the value.
    """
    key = "twister2.fault.tolerance.max.mpijob.restarts"
    text = job_text(
        "workers:\n  - count: 2\n"
        "mpi:\n  enabled: true\n"
        "lifecycle:\n  supervise: true\n"
        f"jobConfig:\n  {key}: 4\n"
    )
    found = [p for p in problems(text) if p[2] == f'spec.jobConfig["{key}"]']
    assert len(found) == 1, problems(text)
    message = found[0][3]
    assert "spec.mpi.enabled" in message
    assert (
        "remove this key: for an OpenMPI job t2gen keeps Twister2's default 1"
        in message
    )
    assert "set spec.mpi.enabled instead" not in message
