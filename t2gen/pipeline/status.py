"""``t2gen status`` and ``t2gen wait``: the job read once, then what the cluster says of it.

Orchestration only: the job file is read and validated once
(:func:`t2gen.pipeline.load.load_jobs`) and rendered once, for the kinds its
objects have (:mod:`t2gen.status.fetch`); the cluster's objects come from a
saved file (:mod:`t2gen.inputs.cluster`) or from kubectl itself
(:mod:`t2gen.status.live`), and are judged by :mod:`t2gen.status.phase`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from t2gen.errors import Warning_
from t2gen.inputs.cluster import read_cluster
from t2gen.model import Job
from t2gen.pipeline.job import generate_loaded
from t2gen.pipeline.load import load_jobs
from t2gen.record import Record
from t2gen.status.fetch import Kubectl, collect_command, fetched_kinds
from t2gen.status.live import KubectlFailed, fetch_objects
from t2gen.status.phase import FINAL_PHASES, JobStatus, exit_code, job_status
from t2gen.status.text import status_text

__all__ = [
    "MAX_FAILED_POLLS",
    "TIMEOUT_EXIT_CODE",
    "StatusOutcome",
    "WaitOutcome",
    "status_report",
    "wait_for_job",
    "watch_status",
]


class StatusOutcome(Record):
    """What ``t2gen status`` prints, and its exit code.

    Attributes:
        text: the status as a table or JSON, or the ``kubectl get`` to run.
        exit_code: by phase (:data:`t2gen.status.phase.EXIT_CODES`); 0 for the command.
        phase: the job's phase, ``""`` when only the command was printed.
    """

    text: str
    exit_code: int
    phase: str = ""


def _load(
    path: str, namespace: str | None, warnings: list[Warning_] | None
) -> tuple[Job, list[dict[str, Any]]]:
    """The job, read and validated once, and its rendered objects."""
    (loaded,) = load_jobs([path], namespace=namespace, warnings=warnings)
    return loaded[0], [d.obj for d in generate_loaded([loaded])]


def _outcome(found: JobStatus, json_output: bool) -> StatusOutcome:
    text = (
        json.dumps(found, indent=2, ensure_ascii=False) + "\n"
        if json_output
        else status_text(found)
    )
    return StatusOutcome(text, exit_code(found["phase"]), found["phase"])


def status_report(
    path: str,
    *,
    cluster: str | None = None,
    namespace: str | None = None,
    json_output: bool = False,
    kubectl: Kubectl | None = None,
    warnings: list[Warning_] | None = None,
) -> StatusOutcome:
    """What ``t2gen status`` prints for one job file, once.

    Args:
        path: the job file (``-``: standard input, read once).
        cluster: ``--cluster FILE`` (``kubectl get ... -o json`` of the job's
            objects, saved).
        namespace: ``--namespace``.
        json_output: JSON (RFC 8259) instead of a table.
        kubectl: read the cluster by running kubectl (``--live``); with
            neither ``cluster`` nor ``kubectl``, the command is returned.
        warnings: the job file's located warnings are appended to it.

    Raises:
        T2genError: the job file, the cluster file or kubectl's output is
            invalid (located), or kubectl fails.
    """
    job, rendered = _load(path, namespace, warnings)
    kinds = fetched_kinds(job, rendered)  # only what t2gen renders for the job
    if cluster is not None:
        return _outcome(job_status(job, read_cluster(cluster), kinds), json_output)
    if kubectl is None:
        return StatusOutcome(collect_command(job, rendered) + " > state.json\n", 0)
    return _outcome(
        job_status(job, fetch_objects(job, rendered, kubectl), kinds), json_output
    )


def watch_status(
    path: str,
    *,
    kubectl: Kubectl,
    interval: float,
    namespace: str | None = None,
    json_output: bool = False,
    warnings: list[Warning_] | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> Iterator[StatusOutcome]:
    """``status --watch``: the status each time it changes, until the job has ended.

    The job file is read once; kubectl is run every ``interval`` seconds.

    Yields:
        Each new status; the last one has a phase of
        :data:`~t2gen.status.phase.FINAL_PHASES`.
    """
    job, rendered = _load(path, namespace, warnings)
    last = None
    while True:
        outcome = _outcome(
            job_status(
                job, fetch_objects(job, rendered, kubectl), fetched_kinds(job, rendered)
            ),
            json_output,
        )
        if outcome.text != last:
            yield outcome
            last = outcome.text
        if outcome.phase in FINAL_PHASES:
            return
        sleep(interval)


class WaitOutcome(Record):
    """How ``t2gen wait`` ends: its exit code and the line it prints.

    Attributes:
        exit_code: 0 Succeeded; 3 Failed; 4 ended with no outcome kept;
            5 the timeout passed first.
        message: ``wordcount: Succeeded`` or the reason.
    """

    exit_code: int
    message: str


TIMEOUT_EXIT_CODE = 5
"""``t2gen wait``'s exit code when the timeout passes before the job ends."""

MAX_FAILED_POLLS = 3
"""Polls in a row ``t2gen wait`` lets kubectl fail (an API server restarting, a network
blip) before it gives up, once kubectl has read the cluster; a first failure ends it at once."""


def wait_for_job(
    path: str,
    *,
    kubectl: Kubectl,
    timeout: float,
    interval: float,
    namespace: str | None = None,
    warnings: list[Warning_] | None = None,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> WaitOutcome:
    """``t2gen wait``: poll the job's objects until it has ended, or ``timeout`` seconds pass.

    A job not found yet (not applied, or its objects not created yet) is
    waited for, as ``kubectl wait --for=create`` would. Once kubectl has read
    the cluster, up to :data:`MAX_FAILED_POLLS` failed polls in a row are
    waited through; a first poll that fails ends the wait at once.

    Returns:
        Succeeded: exit code 0; Failed: 3, with the supervisor's reason;
        Ended (no supervisor kept the outcome): 4; the timeout: 5, with the
        last phase seen.
    """
    job, rendered = _load(path, namespace, warnings)
    deadline = clock() + timeout
    failed = 0  # kubectl's failures in a row, after it has read the cluster once
    seen = False
    while True:
        try:
            objects = fetch_objects(job, rendered, kubectl)
        except KubectlFailed:
            failed += 1
            if not seen or failed > MAX_FAILED_POLLS or deadline - clock() <= 0:
                raise  # a kubeconfig that never worked, or an outage longer than a blip
            sleep(min(interval, max(0.0, deadline - clock())))
            continue
        failed, seen = 0, True
        found = job_status(job, objects, fetched_kinds(job, rendered))
        phase = found["phase"]
        if phase in FINAL_PHASES:
            return WaitOutcome(exit_code(phase), _line(job, found))
        left = deadline - clock()
        if left <= 0:
            return WaitOutcome(
                TIMEOUT_EXIT_CODE,
                f"{job.name}: timed out after {timeout:g} s, still {phase}: {found['reason']}",
            )
        sleep(min(interval, left))


def _line(job: Job, found: Mapping[str, Any]) -> str:
    reason = found["reason"]
    return f"{job.name}: {found['phase']}" + (f": {reason}" if reason else "")
