"""``t2gen status`` for people: the phase, the supervisor, one line per worker, and the leftovers."""

from __future__ import annotations

from t2gen.status.phase import JobStatus

__all__ = ["status_text"]


def status_text(status: JobStatus) -> str:
    """:func:`job_status` for people: the phase, the supervisor, one line per worker, and the leftovers."""
    where = f" in namespace {status['namespace']}" if status["namespace"] else ""
    lines = [f"job {status['job']}{where}: {status['phase']}: {status['reason']}"]
    supervisor = status["supervisor"]
    if supervisor is None and status.get("supervised"):
        lines.append(
            "supervisor: none found (not applied yet, or its Job was deleted: "
            "its ttlSecondsAfterFinished, or by hand)"
        )
    elif supervisor is None:
        lines.append(
            "supervisor: none (spec.lifecycle.supervise renders one that keeps the outcome)"
        )
    else:
        message = f": {supervisor['message']}" if supervisor["message"] else ""
        lines.append(f"supervisor: {supervisor['state']}{message}")
    if status["killJob"]:
        lines.append("KILL_JOB is set in the job's ConfigMap")
    if status["phase"] not in ("Succeeded", "Failed", "Ended", "NotFound"):
        rows = [("WORKER", "POD", "CONTAINER", "STATE")]
        if status["jobMaster"]:
            rows.append(
                (
                    "jm",
                    status["jobMaster"]["pod"],
                    "twister2-job-master-0",
                    status["jobMaster"]["state"],
                )
            )
        rows += [
            (str(w["id"]), w["pod"], w["container"], w["state"])
            for w in status["workers"]
        ]
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        lines += [
            "",
            *(
                "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=False))
                + "  "
                + row[3]
                for row in rows
            ),
        ]
    if status["leftovers"]:
        lines += [
            "",
            f"left over ({len(status['leftovers'])}): {' '.join(status['leftovers'])}",
            f"to clear: {status['clear']}",
        ]
    if status.get("keptForRestore"):
        lines.append(
            f"kept: {status['keptForRestore']} holds the checkpoints of a failed run: restore "
            "with checkpointing.restore: true, or delete it to start afresh"
        )
    if status.get("keptLogs"):
        lines.append(
            f"kept: {status['keptLogs']} holds every worker's and the job master's log file "
            f"(spec.logs): `t2gen logs` prints them; delete it when you no longer need them"
        )
    return "\n".join(lines) + "\n"
