"""The lifecycle's limits as Twister2 enforces them, and the smaller checks of issue 40 (item 8).

Sources (DSC-SPIDAL/twister2 c6844d2; ``K8S/`` =
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``):
a worker that throws at restart count max - 1 is already FULLY_FAILED
(``K8S/worker/K8sWorkerStarter.java:191``), so the usable ``backoffLimit`` is
max - 2; an OpenMPI job's ranks fail at ``twister2.fault.tolerance.max.mpijob.restarts``,
default 1 (``K8S/mpi/MPIWorkerStarter.java:203-207``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.cli.test_package import t2gen

BASE = (
    "apiVersion: t2gen/v1\nkind: Twister2Job\nmetadata: {name: lim}\n"
    "spec:\n  image: twister2/twister2-k8s:0.8.0\n"
    "  workerClass: org.example.Worker\n"
    "  workers: [{count: 2}]\n"
)


def _validate(tmp_path: Path, extra: str) -> tuple[int, str]:
    job = tmp_path / "lim.yaml"
    job.write_text(BASE + extra, encoding="utf-8")
    done = t2gen("validate", str(job), cwd=tmp_path)
    return done.returncode, done.stderr


@pytest.mark.parametrize(("limit", "ok"), [(3, True), (4, False)])
def test_backoff_limit_at_most_max_minus_two(
    tmp_path: Path, limit: int, ok: bool
) -> None:
    code, err = _validate(
        tmp_path, f"  lifecycle: {{supervise: true, backoffLimit: {limit}}}\n"
    )
    assert (code == 0) is ok, err
    if not ok:
        assert "backoffLimit 4 never acts: with maxWorkerRestarts 5" in err
        assert "use at most 3" in err


def test_no_backoff_limit_for_an_openmpi_job(tmp_path: Path) -> None:
    code, err = _validate(
        tmp_path,
        "  mpi: {enabled: true}\n  lifecycle: {supervise: true, backoffLimit: 0}\n",
    )
    assert code == 1
    assert "Twister2 fails an OpenMPI job at its first worker failure" in err


def test_an_openmpi_jobs_supervisor_reads_twister2s_mpi_limit(tmp_path: Path) -> None:
    job = tmp_path / "lim.yaml"
    job.write_text(BASE + "  mpi: {enabled: true}\n  lifecycle: {supervise: true}\n")
    done = t2gen("render", str(job), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    (supervisor,) = [d for d in docs if d["kind"] == "Job"]
    env = supervisor["spec"]["template"]["spec"]["containers"][0]["env"]
    assert {"name": "T2_MAX_RESTARTS", "value": "1"} in env


@pytest.mark.parametrize("image", ["alpinex$HOME", "--all", "Alpine/K8s:1"])
def test_the_supervisors_image_is_checked_as_spec_image(
    tmp_path: Path, image: str
) -> None:
    code, err = _validate(
        tmp_path, f"  lifecycle: {{supervise: true, image: '{image}'}}\n"
    )
    assert code == 1
    assert "spec.lifecycle.image" in err or "lifecycle" in err
    assert "is not an image reference the kubelet accepts" in err


def test_argo_cd_hooks_with_a_ttl_warns(tmp_path: Path) -> None:
    code, err = _validate(
        tmp_path,
        "  lifecycle: {supervise: true, argoCDHooks: true, ttlSecondsAfterFinished: 60}\n",
    )
    assert code == 0, err
    assert "the next sync runs the job again" in err
