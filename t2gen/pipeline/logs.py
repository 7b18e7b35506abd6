"""``t2gen logs``: the job read once, then its kept log files read from the cluster.

Orchestration only: the job file is read, validated and rendered once (as for
``t2gen status``: :mod:`t2gen.pipeline.status`), and :mod:`t2gen.status.logs`
reads the files of ``spec.logs`` through kubectl.
"""

from __future__ import annotations

from typing import IO

from t2gen.errors import T2genError, Warning_
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import load_jobs
from t2gen.status.fetch import Kubectl
from t2gen.status.logs import print_logs

__all__ = ["job_logs"]


def job_logs(
    path: str,
    out: IO[bytes],
    *,
    kubectl: Kubectl,
    worker: int | None = None,
    job_master: bool = False,
    timeout: int = 300,
    namespace: str | None = None,
    warnings: list[Warning_] | None = None,
) -> list[str]:
    """Print the kept log files of the job in ``path`` (:func:`t2gen.status.logs.print_logs`).

    Returns:
        The names of the files printed.

    Raises:
        InputError: the job file is invalid.
        T2genError: the job has no ``spec.logs``, ``worker`` is not one of its
            worker IDs, or reading the files failed.
    """
    (loaded,) = load_jobs([path], namespace=namespace, warnings=warnings)
    job = loaded[0]
    if job.spec.logs is None:
        raise T2genError(
            f"{path}: job {job.name} keeps no logs (spec.logs is not set): its logs went "
            "with its pods; add spec.logs.size to keep the next run's, or read a "
            "running pod's with kubectl logs"
        )
    if worker is not None and worker >= job.spec.total_workers:
        raise T2genError(
            f"{path}: job {job.name} has workers 0 to {job.spec.total_workers - 1}, "
            f"not {worker}"
        )
    rendered = [d.obj for d in generate_loaded([loaded])]
    return print_logs(
        job,
        rendered,
        kubectl,
        out,
        worker=worker,
        job_master=job_master,
        timeout=timeout,
    )
