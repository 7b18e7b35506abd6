"""A KRM function's input (``t2gen-kustomize`` on standard input): one ``ResourceList``, located.

kustomize and kpt call a KRM function with a ``ResourceList`` on standard input
(``config.kubernetes.io/v1``; its ``functionConfig`` is t2gen's job file, its
``items`` the objects so far), as the KRM Functions Specification says
(kubernetes-sigs/kustomize ``cmd/config/docs/api-conventions/functions-spec.md``).

Input bound: :data:`MAX_RESOURCE_LIST_BYTES` (20 MiB, as ``t2gen check``'s
largest manifest stream), measured while reading. Parser: the bounded YAML
event reader that manifests go through (:class:`t2gen.kube.yamlread.BoundedReader`
within :data:`RESOURCE_LIST_BOUNDS`: depth, values, integer digits, no
aliases). Errors: :class:`~t2gen.errors.InputError` at ``stdin:line:col``:
a YAML error or a passed bound where the reader stopped, a wrong ``kind`` or
``functionConfig`` where it is written.
"""

from __future__ import annotations

from typing import IO, Any

import yaml

from t2gen.errors import InputError, Problem
from t2gen.inputs.locate import locate_all
from t2gen.inputs.textfile import decode_source, read_source
from t2gen.kube.yamlbounds import ReadBounds, YamlLimitError
from t2gen.kube.yamlread import BoundedReader
from t2gen.record import Record

__all__ = [
    "KUSTOMIZE_ANNOTATIONS",
    "MAX_RESOURCE_LIST_BYTES",
    "RESOURCE_LIST_BOUNDS",
    "ResourceList",
    "parse_resource_list",
    "parse_resource_stream",
    "read_input",
    "read_resource_list",
]

MAX_RESOURCE_LIST_BYTES = 20 * 1024 * 1024
"""Largest ResourceList read from standard input: as ``t2gen check``'s largest manifest stream."""

RESOURCE_LIST_BOUNDS = ReadBounds(
    what="a ResourceList",
    advice="a KRM function reads one job's ResourceList",
    depth=100,
    nodes=300_000,
)
"""Bounds of a ResourceList: a manifest stream's (:data:`t2gen.kube.yamlbounds.MANIFEST_BOUNDS`):
300,000 values, read, passed through and written back in about seven plain renders' CPU (issue
41: 100,000 small items, 900,000 values in 5.7 MB, took 22)."""

KUSTOMIZE_ANNOTATIONS = ("config.kubernetes.io/", "internal.config.kubernetes.io/")
"""Annotation prefixes kustomize and kpt add to ``functionConfig`` (not the user's)."""

SOURCE = "stdin"
"""How messages name the ResourceList (it comes on standard input)."""


class ResourceList(Record):
    """A KRM function's input.

    Attributes:
        api_version: its ``apiVersion`` (``config.kubernetes.io/v1`` if absent).
        job: the job file: ``functionConfig`` without kustomize's annotations.
        items: the objects the pipeline made so far, in order.
        function_config: ``functionConfig`` as given (kustomize's annotations
            say where the package keeps it).
    """

    api_version: str
    job: dict[str, Any]
    items: tuple[Any, ...]
    function_config: dict[str, Any]


def _fail(text: str, path: str, message: str) -> InputError:
    """``message`` at the line and column where ``path`` is written (the document's start if nowhere)."""
    positions = locate_all(text, [path]) if path else {}
    line, col = positions.get(path, (1, 1))
    return InputError(problems=[Problem(SOURCE, line, col, message, path)])


def _job(config: dict[str, Any]) -> dict[str, Any]:
    """``functionConfig`` without the annotations kustomize and kpt add."""
    metadata = config.get("metadata")
    if not (
        isinstance(metadata, dict) and isinstance(metadata.get("annotations"), dict)
    ):
        return config
    kept = {
        key: value
        for key, value in metadata["annotations"].items()
        if not str(key).startswith(KUSTOMIZE_ANNOTATIONS)
    }
    metadata = {key: value for key, value in metadata.items() if key != "annotations"}
    if kept:
        metadata["annotations"] = kept
    return {**config, "metadata": metadata}


def _documents(text: str) -> list[Any]:
    """Every non-empty document of ``text``, read within :data:`RESOURCE_LIST_BOUNDS`.

    Raises:
        InputError: not YAML, or a bound passed (located).
    """
    try:
        return [
            d.data
            for d in BoundedReader(text, RESOURCE_LIST_BOUNDS).documents()
            if d.data is not None
        ]
    except (YamlLimitError, yaml.YAMLError) as err:
        mark = getattr(err, "problem_mark", None)
        line, col = (mark.line + 1, mark.column + 1) if mark is not None else (0, 0)
        problem = getattr(err, "problem", None) or str(err)
        prefix = "" if isinstance(err, YamlLimitError) else "not YAML: "
        raise InputError(
            problems=[Problem(SOURCE, line, col, f"{prefix}{problem}")]
        ) from None


def parse_resource_stream(text: str) -> list[Any]:
    """The objects kustomize gives an exec transformer: a YAML stream, within :data:`RESOURCE_LIST_BOUNDS`.

    Raises:
        InputError: not YAML, or a bound passed (located).
    """
    return _documents(text)


def parse_resource_list(text: str) -> ResourceList:
    """Parse a ResourceList (YAML or JSON) within :data:`RESOURCE_LIST_BOUNDS`.

    Raises:
        InputError: not YAML, a bound passed, not one document, not a
            ResourceList, or no mapping as ``functionConfig`` (located).
    """
    documents = _documents(text)
    if len(documents) != 1:
        raise InputError(
            problems=[
                Problem(
                    SOURCE,
                    0,
                    0,
                    f"{len(documents)} documents; a KRM function reads one ResourceList",
                )
            ]
        )
    given = documents[0]
    if not isinstance(given, dict) or given.get("kind") != "ResourceList":
        raise _fail(
            text,
            "kind" if isinstance(given, dict) and "kind" in given else "",
            "not a ResourceList (kind: ResourceList, config.kubernetes.io/v1)",
        )
    config = given.get("functionConfig")
    if not isinstance(config, dict):
        raise _fail(
            text,
            "functionConfig" if "functionConfig" in given else "",
            "functionConfig: missing; it is the job file (kind: Twister2Job)",
        )
    items = given.get("items")
    return ResourceList(
        str(given.get("apiVersion", "config.kubernetes.io/v1")),
        _job(config),
        tuple(items) if isinstance(items, list) else (),
        config,
    )


def read_input(stdin: IO[bytes] | None = None, *, what: str = "ResourceList") -> str:
    """Standard input as text, within :data:`MAX_RESOURCE_LIST_BYTES` (a ResourceList, or an exec plugin's stream).

    Raises:
        ConfigError: unreadable, too large, or not UTF-8 (located).
    """
    raw = read_source(
        "-",
        stdin=stdin,
        limit=MAX_RESOURCE_LIST_BYTES,
        what=what,
        advice="t2gen-kustomize reads at most that much",
    )
    return decode_source(SOURCE, raw, what=what)


def read_resource_list(stdin: IO[bytes] | None = None) -> ResourceList:
    """Read the ResourceList on standard input, within :data:`MAX_RESOURCE_LIST_BYTES`.

    Raises:
        ConfigError: unreadable, too large, or not UTF-8 (located).
        InputError: see :func:`parse_resource_list`.
    """
    return parse_resource_list(read_input(stdin))
