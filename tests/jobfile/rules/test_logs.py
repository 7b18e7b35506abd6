"""The kept-logs rules (``spec.logs``): settings without a claim, and a ReadWriteOnce claim many pods write to."""

from __future__ import annotations

from t2gen.inputs.jobfile import parse_job
from t2gen.jobfile.rules import rule_warnings
from t2gen.jobfile.schema import apply_defaults
from t2gen.kube.quantity import parse_quantity
from t2gen.model import KeptLogs
from tests.helpers import job_text, problems, valid_job

WORKERS = "workers:\n  - count: 4\n    perPod: 2\n"


def _warnings(spec: str) -> list[str]:
    doc = parse_job(job_text(spec), path="job.yaml")
    return [w.message for w in rule_warnings(apply_defaults(doc.data), doc)]


def test_off_by_default_and_read_when_sized() -> None:
    assert valid_job(job_text(WORKERS)).spec.logs is None
    assert valid_job(job_text(WORKERS + "logs: {size: 0}\n")).spec.logs is None
    job = valid_job(job_text(WORKERS + "logs: {size: 2Gi, storageClassName: nfs}\n"))
    assert job.spec.logs == KeptLogs(
        size=parse_quantity("2Gi"),
        storage_class_name="nfs",
        access_mode="ReadWriteMany",
    )


def test_settings_without_a_size_are_refused_located() -> None:
    found = problems(
        job_text(
            WORKERS + "logs:\n  storageClassName: nfs\n  accessMode: ReadWriteMany\n"
        )
    )
    assert [(line, path) for line, _, path, _ in found] == [
        (11, "spec.logs.storageClassName"),
        (12, "spec.logs.accessMode"),
    ]
    assert "spec.logs.size is 0 (or not set), so no log is kept" in found[0][3]


def test_read_only_modes_are_not_offered() -> None:
    (found,) = problems(
        job_text(WORKERS + "logs: {size: 1Gi, accessMode: ReadOnlyMany}\n")
    )
    assert found[2] == "spec.logs.accessMode"


def test_read_write_once_warns_when_more_than_one_pod_writes() -> None:
    (said,) = _warnings(WORKERS + "logs: {size: 1Gi, accessMode: ReadWriteOnce}\n")
    assert "3 pods (the worker pods and the job master)" in said
    one_pod = "workers:\n  - count: 1\njobMaster: {enabled: false}\n"
    assert _warnings(one_pod + "logs: {size: 1Gi, accessMode: ReadWriteOnce}\n") == []
    assert _warnings(WORKERS + "logs: {size: 1Gi}\n") == []
