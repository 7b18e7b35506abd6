"""``lifecycle.maxWorkerRestarts`` reaches the pods, and a package that disagrees is refused (issue 40, item 8).

With ``maxWorkerRestarts: 2`` and a package saying 7, Twister2 (limit 7)
completed a job whose worker failed twice while the supervisor reported
``WorkerFailed``. The pods read ``twister2.fault.tolerance.max.worker.restarts``
from the package (DSC-SPIDAL/twister2
``twister2/api/src/java/edu/iu/dsc/tws/api/faulttolerance/FaultToleranceContext.java:30-31,46-48``,
``.../schedulers/k8s/worker/K8sWorkerStarter.java:175,191``); ``t2gen package``
writes it, and ``render --package`` checks it.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

from tests.cli.test_package import jar, t2gen

__all__ = ["jar"]

JOB = (
    "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: ft}\n"
    "spec:\n  image: twister2/twister2-k8s:0.8.0\n"
    "  workerClass: org.example.Worker\n"
    "  workers: [{count: 2}]\n"
    "  lifecycle: {supervise: true, maxWorkerRestarts: RESTARTS}\n"
)


def test_the_package_carries_the_restart_limit_and_render_checks_it(
    tmp_path: Path, jar: Path
) -> None:
    job = tmp_path / "ft.yaml"
    job.write_text(JOB.replace("RESTARTS", "7"), encoding="utf-8")
    done = t2gen("package", str(job), "--jar", str(jar), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    with tarfile.open(tmp_path / "ft.tar.gz") as tar:
        names = tar.getnames()
        core = next(n for n in names if n.endswith("kubernetes/core.yaml"))
        member = tar.extractfile(core)
        assert member is not None
        text = member.read().decode()
    assert "twister2.fault.tolerance.max.worker.restarts: 7" in text
    done = t2gen("render", str(job), "--package", "ft.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    job.write_text(JOB.replace("RESTARTS", "2"), encoding="utf-8")
    done = t2gen("render", str(job), "--package", "ft.tar.gz", cwd=tmp_path)
    assert done.returncode == 1
    assert (
        "lifecycle.maxWorkerRestarts is 2 here, but the package sets "
        "twister2.fault.tolerance.max.worker.restarts 7" in done.stderr
    )
    assert done.stdout == ""  # nothing half-written
