"""``t2gen status``: the job read once, then the ``kubectl get`` to run, or what the cluster says of it.

Orchestration only: the job file is read and validated once
(:func:`t2gen.pipeline.load.load_jobs`); without ``--cluster`` it is rendered
for the command that fetches its objects (:func:`t2gen.status.fetch.collect_command`),
with it the cluster file is read (:mod:`t2gen.inputs.cluster`) and judged
(:mod:`t2gen.status`).
"""

from __future__ import annotations

import json

from t2gen.errors import Warning_
from t2gen.inputs.cluster import read_cluster
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import load_jobs
from t2gen.status.fetch import collect_command, fetched_kinds
from t2gen.status.phase import job_status
from t2gen.status.text import status_text

__all__ = ["status_report"]


def status_report(
    path: str,
    *,
    cluster: str | None = None,
    namespace: str | None = None,
    json_output: bool = False,
    warnings: list[Warning_] | None = None,
) -> str:
    """What ``t2gen status`` prints for one job file.

    Args:
        path: the job file (``-``: standard input, read once).
        cluster: ``--cluster FILE`` (``kubectl get ... -o json`` of the job's
            objects); None: the command that saves it is returned.
        namespace: ``--namespace``.
        json_output: JSON (RFC 8259) instead of a table.
        warnings: the job file's located warnings are appended to it.

    Returns:
        The text to print: the ``kubectl get ... > state.json`` line, or the
        status as a table or JSON.

    Raises:
        T2genError: the job file or the cluster file is invalid (located).
    """
    (loaded,) = load_jobs([path], namespace=namespace, warnings=warnings)
    job = loaded[0]
    rendered = [d.obj for d in generate_loaded([loaded])]
    if cluster is None:
        return collect_command(job, rendered) + " > state.json\n"
    found = job_status(job, read_cluster(cluster), fetched_kinds(job, rendered))
    if json_output:
        return json.dumps(found, indent=2, ensure_ascii=False) + "\n"
    return status_text(found)
