"""Restart limits the supervisor is given, against Twister2's own (issue 40, item 8).

Sources: DSC-SPIDAL/twister2 ``c6844d2``; ``K8S/`` is
``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/schedulers/k8s/``.
A worker whose exception comes at restart count ``max.worker.restarts - 1``
already reports FULLY_FAILED (``K8S/worker/K8sWorkerStarter.java:191-195``),
so a ``backoffLimit`` of ``max - 1`` can never act before Twister2 does; an
OpenMPI rank fails at ``twister2.fault.tolerance.max.mpijob.restarts``
(default 1: ``K8S/mpi/MPIWorkerStarter.java:203-207,215-216``,
``twister2/config/src/yaml/conf/common/checkpoint.yaml:32``), not at the
worker limit. ``tests/kubeapi/test_lifecycle.py`` plays both failures on a real
API server.
"""

from __future__ import annotations

import pytest

from t2gen.errors import SchemaError
from t2gen.render.context.supervisor import supervisor
from tests.helpers import job_text, valid_job


def _supervisor_env(text: str) -> dict[str, str]:
    context = supervisor(valid_job(text), [])
    assert context is not None
    container = context["podTemplate"]["spec"]["containers"][0]
    return {e["name"]: e["value"] for e in container["env"] if "value" in e}


def test_an_openmpi_job_is_supervised_with_the_mpi_limit() -> None:
    env = _supervisor_env(
        job_text(
            """\
            workers:
              - count: 4
                perPod: 2
            mpi:
              enabled: true
            lifecycle:
              supervise: true
            """
        )
    )
    assert env["T2_MAX_RESTARTS"] == "1"


def test_a_backoff_limit_twister2_always_beats_is_refused() -> None:
    with pytest.raises(SchemaError):
        valid_job(
            job_text(
                """\
                workers:
                  - count: 2
                lifecycle:
                  supervise: true
                  backoffLimit: 4
                  maxWorkerRestarts: 5
                """
            )
        )
