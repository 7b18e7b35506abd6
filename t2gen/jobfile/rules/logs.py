"""Kept logs (``spec.logs``): claim settings only with a claim, and an access mode every pod can write with."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from t2gen.errors import Problem, Warning_
from t2gen.inputs.yaml import SourceDoc
from t2gen.jobfile.rules._base import (
    Rule,
    as_dict,
    as_int,
    as_quantity,
    groups,
    problem,
    rule,
    warning,
)


def _logs(data: dict[str, Any]) -> dict[str, Any]:
    return as_dict(as_dict(data.get("spec")).get("logs"))


@rule(
    "logs-settings-unused",
    fields=("spec.logs.size", "spec.logs.storageClassName", "spec.logs.accessMode"),
)
def check_logs_settings(data: dict[str, Any], doc: SourceDoc) -> Iterator[Problem]:
    """``storageClassName`` and ``accessMode`` of ``spec.logs`` are set only with a ``size`` above 0.

    Without a size there is no claim ``<job>-logs`` and no log is kept: the
    other settings would be ignored, which is a mistake, not a silent no-op
    (as ``storage-class-unused`` for ``spec.storage.persistent``).

    Sources: docs/lifecycle.md, "Kept logs".
    """
    logs = _logs(data)
    size = as_quantity(logs.get("size", 0))
    if size is None or not size.is_zero():
        return
    written = _logs(as_dict(doc.data))  # as written: accessMode has a default
    for key in ("storageClassName", "accessMode"):
        if key in written:
            yield problem(
                doc,
                ("spec", "logs", key),
                f"{key} is set but spec.logs.size is 0 (or not set), so no log is kept; "
                f"set size (e.g. 1Gi) or remove {key}",
                key=True,
            )


@rule(
    "logs-access-mode",
    fields=(
        "spec.logs.accessMode",
        "spec.logs.size",
        "spec.workers[].count",
        "spec.workers[].perPod",
        "spec.jobMaster.enabled",
    ),
)
def check_logs_access_mode(data: dict[str, Any], doc: SourceDoc) -> Iterator[Warning_]:
    """``accessMode: ReadWriteOnce`` of ``spec.logs`` warns when more than one pod mounts the claim.

    Every worker pod and the job master's pod mount ``<job>-logs`` and write
    their log files to it; nothing places the job master with the workers, so
    with more than one such pod a ``ReadWriteOnce`` volume, attached to one
    node, leaves a pod on another node waiting in ContainerCreating
    (Multi-Attach error). ``ReadWriteMany`` (e.g. NFS) is the default.

    Sources: Kubernetes, "Persistent Volumes", access modes
    (https://kubernetes.io/docs/concepts/storage/persistent-volumes/#access-modes).
    """
    logs = _logs(data)
    size = as_quantity(logs.get("size", 0))
    if logs.get("accessMode") != "ReadWriteOnce" or size is None or size.is_zero():
        return
    pods = 0
    for _, group in groups(data):
        count, per_pod = as_int(group.get("count")), as_int(group.get("perPod")) or 1
        if count is None or count % per_pod:
            return  # other rules report it
        pods += count // per_pod
    pods += (
        as_dict(as_dict(data.get("spec")).get("jobMaster")).get("enabled", True)
        is not False
    )
    if pods > 1:
        yield warning(
            doc,
            ("spec", "logs", "accessMode"),
            f"ReadWriteOnce attaches the claim to one node, but {pods} pods (the worker pods and "
            "the job master) write their logs to it and nothing keeps them on one node: a pod on "
            "another node would wait in ContainerCreating; use ReadWriteMany",
        )


RULES: tuple[Rule, ...] = (check_logs_settings, check_logs_access_mode)
"""This module's rules, in the order ``docs/rules.md`` lists them."""
