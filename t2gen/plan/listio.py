"""Reading what ``kubectl get ... -o json|yaml`` prints: documents, lists, located errors.

Shared by the node list (:mod:`t2gen.plan.nodes`) and the pod list
(:mod:`t2gen.plan.pods`). Every problem in an input is reported at once, as
``--nodes: items[3].status.allocatable: ...``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from t2gen.errors import Problem, T2genError
from t2gen.kube.yamlbounds import ReadBounds, YamlLimitError
from t2gen.kube.yamlread import load_all_bounded

__all__ = [
    "LIST_BOUNDS",
    "MAX_LOCATE_BYTES",
    "PlanInputError",
    "json_path",
    "list_items",
    "load_document",
    "string_map",
    "with_positions",
]


LIST_BOUNDS = ReadBounds(
    what="a node or pod list",
    advice="pass `kubectl get nodes -o json` (or pods), which t2gen reads without this bound",
    depth=100,
    nodes=5_000_000,
    int_digits=4300,
)
"""Bounds of a node or pod list read as YAML (JSON goes to the typed reader first).

``kubectl get pods -o yaml`` nests about 15 levels (managed fields); five million
values is a list of about 5,000 nodes in YAML, the most Kubernetes supports
per cluster."""


class PlanInputError(T2genError):
    """A node or pod list that cannot be used: not a list of Nodes/Pods, or fields missing."""

    def __init__(self, *, problems: Iterable[Problem]) -> None:
        """Create the error from located problems (at least one)."""
        items = sorted(problems)
        source = items[0].path if items else "input"
        super().__init__(f"{len(items)} problem(s) in {source}", problems=items)


MAX_LOCATE_BYTES = 64 * 1024 * 1024
"""Largest input whose problems are given a line and column (read again, on the error
path only); a larger one keeps the JSON path alone. One pass locates every problem,
within :data:`t2gen.kube.locate.MAX_EVENTS` events."""


def with_positions(err: PlanInputError, path: str) -> PlanInputError:
    """``err`` with each problem that has a JSON path but no position located in ``path``.

    A path missing from the file (a field that is absent) is located at its
    nearest parent that is there. Standard input (``-``) and files over
    :data:`MAX_LOCATE_BYTES` keep the JSON paths alone.

    Args:
        err: the reader's error.
        path: the file the reader read, as the user named it.

    Returns:
        A new error with the positions filled in, or ``err`` itself.
    """
    from t2gen.kube.locate import locate_all, parent_path

    unplaced = [p for p in err.problems if not p.line and p.json_path]
    if path == "-" or not unplaced or not Path(path).is_file():
        return err
    try:
        with Path(path).open("rb") as file:
            raw = file.read(MAX_LOCATE_BYTES + 1)
        if len(raw) > MAX_LOCATE_BYTES:
            return err
        text = raw.decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return err
    positions = locate_all(text, [p.json_path for p in unplaced])
    located = []
    for problem in err.problems:
        where = problem.json_path if not problem.line else ""
        while where and where not in positions:
            where = parent_path(where)
        if where:
            problem = Problem(
                problem.path, *positions[where], problem.message, problem.json_path
            )
        located.append(problem)
    return PlanInputError(problems=located)


def load_document(text: str, source: str) -> object:
    """Parse JSON or YAML text (``kubectl ... -o json`` or ``-o yaml``).

    Args:
        text: the file's contents.
        source: how the user named it (``--nodes FILE``), for messages.

    Returns:
        The document; several YAML documents become a ``List`` of them.

    Raises:
        PlanInputError: the text is neither JSON nor YAML, or is empty.
    """
    try:
        return json.loads(text)
    except (RecursionError, ValueError):
        pass  # not JSON, or deeper or longer than json reads: the YAML reader locates it
    try:
        docs = [d for d in load_all_bounded(text, LIST_BOUNDS) if d is not None]
    except YamlLimitError as err:
        mark = err.problem_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise PlanInputError(
            problems=[Problem(source, line, col, str(err.problem))]
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        col = mark.column + 1 if mark is not None else 0
        problem = getattr(err, "problem", None) or str(err)
        raise PlanInputError(
            problems=[Problem(source, line, col, f"not JSON or YAML: {problem}")]
        ) from None
    if not docs:
        raise PlanInputError(problems=[Problem(source, 0, 0, "is empty")])
    if len(docs) == 1:
        return docs[0]
    return {"apiVersion": "v1", "kind": "List", "items": docs}


def list_items(
    document: object, kind: str, command: str, source: str
) -> list[tuple[str, Any]]:
    """Return (json path, item) of a List/<kind>List or a single <kind>, or raise."""

    def fail(message: str) -> PlanInputError:
        return PlanInputError(problems=[Problem(source, 0, 0, message)])

    if not isinstance(document, Mapping):
        raise fail(
            f"is not a {kind} list (a JSON or YAML map): pass the output of `{command}`"
        )
    found = document.get("kind")
    if found == kind:
        return [("", document)]
    if found in ("List", f"{kind}List") or (found is None and "items" in document):
        items = document.get("items")
        if not isinstance(items, list):
            raise fail(f"items: must be a list of {kind}s, from `{command}`")
        return [(f"items[{i}]", item) for i, item in enumerate(items)]
    shown = f"a {found}" if isinstance(found, str) and found else "a map without `kind`"
    raise fail(f"is {shown}, not a {kind} list: pass the output of `{command}`")


def string_map(raw: object) -> dict[str, str]:
    """Return ``metadata.labels`` as strings (a null value as ``""``); anything else gives none."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def json_path(prefix: str, suffix: str) -> str:
    """Join a JSON path prefix (``items[3]``, possibly empty) and a field path."""
    return f"{prefix}.{suffix}" if prefix else suffix
