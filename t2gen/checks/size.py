"""Rendered objects too large for Kubernetes, located at what in the job file makes them so.

The limits are Kubernetes' (:mod:`t2gen.kube.limits`): an object must fit
``kubectl apply``'s last-applied annotation (:data:`~t2gen.kube.limits.APPLY_LIMIT_BYTES`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING

from t2gen.errors import Problem, format_json_path
from t2gen.kube.limits import APPLY_LIMIT_BYTES

if TYPE_CHECKING:
    from t2gen.inputs.yaml import SourceDoc
    from t2gen.model import Job
    from t2gen.render.engine import RenderedDocument

__all__ = ["size_problems", "surely_fits"]


_JOB_OBJECT_KEY = "TWISTER2_JOB_OBJECT"

_TEMPLATE = "\0template:"
"""Marks a template's ``# Source:`` name among the places blamed (no file name holds a NUL)."""

_ADVICE: dict[tuple[str | int, ...], str] = {
    ("metadata", "annotations"): "smaller annotations (every object carries them)",
    (
        "metadata",
        "labels",
    ): "fewer or shorter labels (every object and pod carries them)",
    ("spec", "env"): "fewer or shorter environment variables, or fewer workers per pod",
    ("spec", "placement"): "fewer or shorter node affinity terms",
    (
        "spec",
        "workers",
    ): "fewer workers per pod (each is a container), or fewer worker groups",
}


def _json_size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def _contributions(
    obj: object, user_env: frozenset[str], into: dict[str, int], key: str = ""
) -> None:
    """Add up the bytes of an object that come from each part of the job file."""
    if isinstance(obj, dict):
        if key == "annotations":
            into["annotations"] = into.get("annotations", 0) + _json_size(obj)
            return
        if key == "labels":
            into["labels"] = into.get("labels", 0) + _json_size(obj)
            return
        if key == "affinity":
            into["affinity"] = into.get("affinity", 0) + _json_size(obj)
            return
        if key == "data" and _JOB_OBJECT_KEY in obj:
            into["job_object"] = len(str(obj[_JOB_OBJECT_KEY]).encode())
        for child_key, child in obj.items():
            _contributions(child, user_env, into, str(child_key))
    elif isinstance(obj, list):
        for item in obj:
            if key == "env" and isinstance(item, dict) and item.get("name") in user_env:
                into["env"] = into.get("env", 0) + _json_size(item)
            else:
                _contributions(item, user_env, into, key)


_CONTAINER_FIXED = 8 * 1024
"""Bytes of a worker container's JSON that do not come from the job file's text: at
most this (about 1,500 measured: names, command, runtime variables, the job name
a few times, ports, mounts, resources)."""

_OBJECT_FIXED = 16 * 1024
"""Bytes of a worker StatefulSet's JSON outside its containers that do not come from
the job file's text (about 1,000 measured)."""

_TEXT_GROWTH = 6
"""Most bytes of compact JSON one byte of a job file's text can become (a control
character, ``"\\0"`` in YAML, is ``\\u0000`` in JSON)."""


def surely_fits(job: Job, text_bytes: int) -> bool:
    """Whether every object of ``job`` surely fits ``kubectl apply``, judged without rendering.

    An upper bound of a worker StatefulSet's JSON: every byte of the job file
    (``text_bytes`` of it) counted :data:`_TEXT_GROWTH` times in each of its
    containers and three times more outside them (labels and annotations on
    the object and its pods, placement, volumes), plus fixed parts larger than
    any measured. A job under it needs no rendering to be judged; one over it
    is rendered and measured exactly, by ``validate`` as by ``render``
    (:func:`t2gen.pipeline.load.validate_files`,
    :func:`t2gen.pipeline.job.render_loaded`, which measures only jobs this
    cannot clear, rendered with the built-in templates alone), so the two
    never disagree. ``tests/checks/test_size.py`` checks the bound against
    the measured size of every example, golden and case job.
    """
    containers = max((group.per_pod for group in job.spec.workers), default=1)
    text = _TEXT_GROWTH * text_bytes
    upper = _OBJECT_FIXED + 3 * text + containers * (_CONTAINER_FIXED + text)
    return upper <= APPLY_LIMIT_BYTES


def size_problems(
    job: Job,
    doc: SourceDoc,
    documents: Sequence[RenderedDocument],
    *,
    job_object: str | None = None,
    builtin: str | None = None,
) -> list[Problem]:
    """Objects too large for ``kubectl apply``, located at what makes them so.

    The size is the object as compact UTF-8 JSON (what kubectl stores) plus the
    job's annotations, which every object carries. The part blamed is the one
    that contributes most bytes to the object: ``metadata.annotations``,
    ``metadata.labels``, ``spec.env`` (the user's variables, in every
    container), ``spec.placement`` (node affinity), the ``--job-object`` file
    (in the ConfigMap); else ``spec.workers``, whose ``perPod`` makes the
    containers that repeat the rest. An object an overlay's template made
    (its template outside ``builtin``) is blamed on that template, never on
    the job file.

    Args:
        job: the validated job.
        doc: the job file as read, whose positions locate the part blamed.
        documents: the job's rendered objects.
        job_object: the ``--job-object`` file as the user named it, if any.
        builtin: the built-in templates' ``# Source:`` prefix (``k8s/``) when
            overlays are laid over them; None: every template is built in.

    Returns:
        One problem per part blamed: the largest object it makes too large;
        ``[]`` if all fit.
    """
    annotations = sum(len(key) + len(value) for key, value in job.annotations)
    user_env = frozenset(variable.name for variable in job.spec.env)
    largest: dict[tuple[str | int, ...] | str, tuple[int, RenderedDocument]] = {}
    for document in documents:
        size = annotations + _json_size(document.obj)
        if size <= APPLY_LIMIT_BYTES:
            continue
        parts: dict[str, int] = {}
        _contributions(document.obj, user_env, parts)
        parts["annotations"] = parts.get("annotations", 0) + annotations
        culprit, share = max(parts.items(), key=lambda item: item[1], default=("", 0))
        where: tuple[str | int, ...] | str
        if builtin is not None and not document.template.startswith(builtin):
            where = _TEMPLATE + document.template
        elif culprit == "job_object" and job_object is not None:
            where = job_object
        elif share * 3 >= size and culprit in _PARTS:
            where = _PARTS[culprit]
        else:
            where = ("spec", "workers")
        if where not in largest or largest[where][0] < size:
            largest[where] = (size, document)
    if not largest:
        return []
    problems = []
    for where, (size, document) in largest.items():
        too_large = (
            f"{document.kind} {document.name} would take {size // 1024} KiB, but kubectl apply keeps each "
            f"object in an annotation of at most {APPLY_LIMIT_BYTES // 1024} KiB"
        )
        if isinstance(where, str) and where.startswith(_TEMPLATE):
            problems.append(
                Problem(
                    where.removeprefix(_TEMPLATE),
                    0,
                    0,
                    f"{too_large}: this template renders it; make it render a smaller object",
                )
            )
            continue
        if isinstance(where, str):
            problems.append(
                Problem(
                    where,
                    0,
                    0,
                    f"{too_large}: the job object (base64 in the ConfigMap) is too large; "
                    "give a smaller one",
                )
            )
            continue
        line, col = doc.position(where)
        problems.append(
            Problem(
                job.source,
                line,
                col,
                f"{too_large}: use {_ADVICE[where]}",
                format_json_path(where),
            )
        )
    return problems


_PARTS: dict[str, tuple[str | int, ...]] = {
    "annotations": ("metadata", "annotations"),
    "labels": ("metadata", "labels"),
    "env": ("spec", "env"),
    "affinity": ("spec", "placement"),
}
