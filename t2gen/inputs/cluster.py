"""``status --cluster FILE``: a job's objects as ``kubectl get ... -o json`` printed them, located.

Input bound: :data:`MAX_CLUSTER_BYTES`, measured while reading (a file or
standard input alike, :func:`t2gen.inputs.kubelist.read_list`). Parser: the
kubectl list reader's (:func:`t2gen.inputs.kubelist.load_document`: JSON,
then bounded YAML), after UTF-8 decoding located at the first bad byte. Errors: :class:`~t2gen.errors.InputError`, every item that
is no Kubernetes object at once, each at the ``line:col`` of its item
(:func:`t2gen.inputs.kubelist.with_positions`), as ``plan --nodes`` locates
its problems.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from t2gen.errors import InputError, Problem
from t2gen.inputs.kubelist import (
    list_items,
    load_document,
    read_list,
    with_positions,
)
from t2gen.inputs.textfile import decode_source

__all__ = [
    "COLLECT_HINT",
    "MAX_CLUSTER_BYTES",
    "parse_cluster",
    "parse_objects",
    "read_cluster",
]

MAX_CLUSTER_BYTES = 16 * 1024 * 1024
"""Largest cluster file read (16 MiB): a job's objects as ``kubectl get -o json`` prints them,
some 26,000 pods of a few hundred bytes, or 3,000 of 5 KiB. Read whole as JSON, a state takes
about seven times its size in memory: 62 MB of 100,000 pods took 433 MB and 12 plain renders'
CPU, so the node list's bound (512 MiB), which this was until issue 41, was beyond the
budget of 200 MB and ten renders."""

COLLECT_HINT = "kubectl get ... -o json (t2gen status JOB prints it)"
"""What the file should be, for messages."""


def parse_objects(document: object, source: str) -> list[dict[str, Any]]:
    """The objects of a parsed ``kubectl get -o json`` (a ``List``), each a mapping with ``kind`` and ``metadata.name``.

    Args:
        document: the parsed file.
        source: the file as the user named it.

    Returns:
        The objects, in the file's order.

    Raises:
        InputError: not a list, or an item without kind or name (each
            located by its JSON path, ``items[3]``).
    """
    found: list[dict[str, Any]] = []
    problems: list[Problem] = []
    for path, item in list_items(document, "Kubernetes object", COLLECT_HINT, source):
        metadata = item.get("metadata") if isinstance(item, Mapping) else None
        if not (
            isinstance(item, Mapping)
            and isinstance(item.get("kind"), str)
            and isinstance(metadata, Mapping)
            and isinstance(metadata.get("name"), str)
        ):
            problems.append(
                Problem(
                    source,
                    0,
                    0,
                    "not a Kubernetes object with kind and metadata.name",
                    path,
                )
            )
            continue
        found.append(dict(item))
    if problems:
        raise InputError(problems=problems)
    return found


def parse_cluster(raw: bytes, source: str) -> list[dict[str, Any]]:
    """The objects of a ``kubectl get -o json`` given as bytes (a file's, or kubectl's own output).

    Args:
        raw: the bytes, at most :data:`MAX_CLUSTER_BYTES` (the caller measured them).
        source: how messages name them: the file, or ``kubectl get``.

    Raises:
        ConfigError: not UTF-8 (located).
        InputError: see :func:`parse_objects`; located in ``source`` when it is a file.
    """
    text = decode_source(source, raw, what="file")
    try:
        return parse_objects(load_document(text, source), source)
    except InputError as err:
        # Without its traceback, whose frames hold the parsed document (seven times
        # the file's size), while the file is read again to locate the problems.
        failed = err.with_traceback(None)
    del text
    raise with_positions(failed, source) from None


def read_cluster(path: str) -> list[dict[str, Any]]:
    """Read ``status --cluster FILE`` (``-``: standard input): the job's objects.

    Raises:
        ConfigError: missing, unreadable, too large or not UTF-8.
        InputError: not JSON or YAML, not a list, or items that are no
            Kubernetes objects; each problem at its ``line:col``.
    """
    raw = read_list(
        path, limit=MAX_CLUSTER_BYTES, advice="a job's objects are far less"
    )
    return parse_cluster(raw, path)
