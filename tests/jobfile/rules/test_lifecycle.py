"""The lifecycle rules: what spec.lifecycle needs and what it cannot combine with, located."""

from __future__ import annotations

from t2gen.model import Lifecycle
from tests.helpers import job_text, problems, valid_job

WORKERS = "workers:\n  - count: 2\n"


def _messages(spec: str) -> list[tuple[str, str]]:
    return [(path, message) for _, _, path, message in problems(job_text(spec))]


def test_off_by_default_and_nothing_changes() -> None:
    assert valid_job(job_text(WORKERS)).spec.lifecycle == Lifecycle()


def test_a_supervised_job_reads_every_field() -> None:
    job = valid_job(
        job_text(
            WORKERS
            + "lifecycle: {supervise: true, activeDeadlineSeconds: 60, backoffLimit: 1,"
            " ttlSecondsAfterFinished: 600, suspend: true, logTailLines: 50}\n"
        )
    )
    assert job.spec.lifecycle == Lifecycle(
        supervise=True,
        active_deadline_seconds=60,
        backoff_limit=1,
        ttl_seconds_after_finished=600,
        suspend=True,
        log_tail_lines=50,
    )


def test_bounds_need_the_supervisor() -> None:
    found = _messages(
        WORKERS
        + "lifecycle: {activeDeadlineSeconds: 60, suspend: true, argoCDHooks: true}\n"
    )
    assert [path for path, _ in found] == [
        "spec.lifecycle.activeDeadlineSeconds",
        "spec.lifecycle.suspend",
        "spec.lifecycle.argoCDHooks",
    ]
    assert found[0][1].startswith(
        "activeDeadlineSeconds acts through the supervisor Job, which is not rendered: add "
        "spec.lifecycle.supervise: true"
    )


def test_the_supervisor_needs_a_job_master_in_the_cluster_and_t2gens_rbac() -> None:
    found = _messages(
        WORKERS
        + "jobMaster: {enabled: false, address: 10.0.0.1}\nrbac: {create: false}\n"
        + "lifecycle: {supervise: true}\n"
    )
    messages = [m for path, m in found if path == "spec.lifecycle.supervise"]
    assert len(messages) == 2
    assert any("jobMaster.enabled is false" in m for m in messages)
    assert any("rbac.create is false" in m for m in messages)


def test_a_retry_limit_is_below_twister2s_and_not_with_a_scalable_group() -> None:
    found = _messages(
        "workers:\n  - count: 2\n    scalable: true\n"
        "lifecycle: {supervise: true, backoffLimit: 5}\n"
    )
    assert [path for path, _ in found] == ["spec.lifecycle.backoffLimit"] * 2
    assert found[0][1].startswith("backoffLimit 5 never acts: with maxWorkerRestarts 5")
    assert "spec.workers[0] is scalable" in found[1][1]


def test_a_suspended_job_has_no_gang() -> None:
    found = _messages(
        WORKERS
        + "scheduling: {gang: volcano}\nlifecycle: {supervise: true, suspend: true}\n"
    )
    assert [path for path, _ in found] == ["spec.lifecycle.suspend"]
    assert "scheduling.gang volcano asks for every pod" in found[0][1]
