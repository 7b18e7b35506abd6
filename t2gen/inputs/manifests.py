"""Read any Kubernetes manifests (``t2gen check``): YAML streams or JSON, ``List`` kinds unwrapped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import IO, Any

import yaml

from t2gen.errors import ConfigError, Problem, SchemaError
from t2gen.inputs.aliased import load_with_aliases
from t2gen.inputs.textfile import decode_source, line_col, read_source
from t2gen.kube.validators import is_api_version, is_kind
from t2gen.kube.yamlbounds import ReadBounds
from t2gen.kube.yamlread import (
    MANIFEST_BOUNDS,
    BoundedReader,
    LocatedDocument,
    TooManyObjects,
    YamlLimitError,
)
from t2gen.record import Record

__all__ = [
    "MAX_MANIFEST_BYTES",
    "MAX_MANIFEST_OBJECTS",
    "LocatedDocument",
    "Manifest",
    "TooManyObjects",
    "load_all_yaml_located",
    "read_located_manifests",
    "read_manifests",
]

MAX_MANIFEST_BYTES = 20 * 1024 * 1024
"""Largest manifest stream ``t2gen check`` reads (20 MiB): thousands of objects.

Checking takes time and memory in proportion to the stream; this bound keeps
one stream within the 200 MB memory budget of ``bench/floods.py``. The API
server takes at most 3 MiB per object (``MaxRequestBodyBytes``,
kubernetes/kubernetes ``staging/src/k8s.io/apiserver/pkg/server/config.go``)."""

MAX_MANIFEST_OBJECTS = 25_000
"""Most objects ``t2gen check`` reads from one stream (documents, and the items of a ``List``).

20 MiB of t2gen's own output holds about 13,000 objects (1,150 jobs of 11); of
one-line objects it holds over 300,000, which took 19.6 s and 420 MB to check.
The count is taken on the parsed YAML before its objects are built, so such a
stream stops at the limit. 50,000 one-line objects, the limit until issue 41,
took 15 plain renders' CPU where the budget is ten; 25,000 take about seven."""

ALIASED_BOUNDS = ReadBounds(
    what="a manifest stream with anchors, aliases or merge keys",
    advice="split it into several files",
    depth=MANIFEST_BOUNDS.depth,
    nodes=60_000,
)
"""Bounds of a stream that uses anchors, aliases or ``<<`` merge keys: read by PyYAML's
composer (:mod:`t2gen.inputs.aliased`), about four times the work per value of the bounded
reader, so a fifth of its values (issue 41: 20,000 objects each merging its own labels,
400,000 values, took 25 plain renders' CPU)."""


class Manifest(Record):
    """One object read from a manifest file, with where it starts.

    Attributes:
        obj: the parsed object.
        path: the file as the user named it (``-`` for standard input).
        line: 1-based line of the object's first key (of the ``List`` item for
            an unwrapped ``List``).
    """

    obj: dict[str, Any]
    path: str
    line: int

    @property
    def origin(self) -> str:
        """``path:line``, as findings about the object name it."""
        return f"{self.path}:{self.line}"


def load_all_yaml_located(
    text: str, *, max_objects: int | None = None
) -> list[LocatedDocument]:
    """Parse a multi-document YAML stream as kubectl reads it, keeping each document's line.

    Read within :data:`~t2gen.kube.yamlread.MANIFEST_BOUNDS` (depth, values,
    aliases, integer digits), each checked as its event is read, before anything
    is built (:class:`~t2gen.kube.yamlread.BoundedReader`).

    Args:
        text: the stream (YAML or JSON).
        max_objects: when given, the most objects read: each document counts
            one, a document with a top-level ``items`` list (a ``List``) one per
            item, counted as each is read, so that neither many small documents
            nor one long ``List`` is built past the limit.

    Returns:
        One :class:`LocatedDocument` per document, in order.

    Raises:
        yaml.YAMLError: the text is not YAML, or a mapping repeats a key;
            :class:`~t2gen.kube.yamlread.YamlLimitError` for a bound passed.
        TooManyObjects: the stream holds more than ``max_objects`` objects.
    """
    try:
        return list(BoundedReader(text, MANIFEST_BOUNDS).documents(max_objects))
    except YamlLimitError as err:
        if not err.alias:
            raise
    # Anchors, aliases or merge keys: kubectl reads them, so t2gen does, within
    # the same bounds and go-yaml's bound on their expansion (t2gen.inputs.aliased).
    return load_with_aliases(text, ALIASED_BOUNDS, max_objects)


def read_manifests(
    paths: Sequence[str], *, stdin: IO[bytes] | None = None
) -> list[dict[str, Any]]:
    """Read every object of some manifest files (:func:`read_located_manifests` without the places).

    Raises:
        SchemaError: as :func:`read_located_manifests`.
    """
    return [manifest.obj for manifest in read_located_manifests(paths, stdin=stdin)]


def read_located_manifests(
    paths: Sequence[str], *, stdin: IO[bytes] | None = None
) -> list[Manifest]:
    """Read every object of some manifest files, each with its file and line.

    Each file is UTF-8 (a BOM is allowed) holding a YAML stream or JSON; empty
    documents are skipped and the ``items`` of a ``List`` are read as objects.

    Args:
        paths: files; ``-`` reads standard input.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        The objects with their places, in file and document order.

    Raises:
        SchemaError: any file is unreadable, not UTF-8, not YAML, or holds a
            document that is not a mapping, or the files hold no object at all;
            holds the problems of every file.
    """
    objects: list[Manifest] = []
    problems: list[Problem] = []
    for path in paths:
        try:
            raw = read_source(
                path,
                stdin=stdin,
                limit=MAX_MANIFEST_BYTES,
                what="manifest stream",
                advice="t2gen check reads at most that much of one stream: "
                "split it into several files",
            )
            text = decode_source(path, raw, what="manifest file")
            documents = load_all_yaml_located(text, max_objects=MAX_MANIFEST_OBJECTS)
        except TooManyObjects as err:
            problems.append(
                Problem(
                    path,
                    err.line,
                    1,
                    f"more than {MAX_MANIFEST_OBJECTS:,} objects in one stream; t2gen check "
                    "reads at most that many from one file: split it into several files",
                )
            )
            continue
        except ConfigError as err:  # unreadable, too large, or not UTF-8 (located)
            problems += err.problems
            continue
        except YamlLimitError as err:  # too deep, too many values, an alias (located)
            mark = err.problem_mark
            line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
            # An alias is YAML t2gen does not read; the other bounds are sizes.
            prefix = "not valid YAML: " if err.alias else ""
            problems.append(Problem(path, line, col, f"{prefix}{err.problem}"))
            continue
        except yaml.reader.ReaderError as err:  # a character YAML forbids
            line, col = line_col(text, err.position)
            what = (
                f"character U+{err.character:04X}"
                if isinstance(err.character, int)
                else "a byte"
            )
            problems.append(
                Problem(
                    path,
                    line,
                    col,
                    f"not valid YAML: {what} is not allowed ({err.reason})",
                )
            )
            continue
        except yaml.YAMLError as err:
            mark = getattr(err, "problem_mark", None)
            line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
            problems.append(
                Problem(
                    path,
                    line,
                    col,
                    f"not valid YAML: {getattr(err, 'problem', None) or err}",
                )
            )
            continue
        for index, located in enumerate(documents):
            document = located.data
            if document is None:
                continue
            if not isinstance(document, dict):
                what = "a list" if isinstance(document, list) else "a scalar"
                problems.append(
                    Problem(
                        path,
                        located.line,
                        1,
                        f"document {index + 1} is {what}, not a Kubernetes object "
                        "(a mapping with apiVersion, kind and metadata)",
                    )
                )
            elif document.get("kind") == "List" and isinstance(
                document.get("items"), list
            ):
                for number, (item, item_line) in enumerate(
                    zip(document["items"], located.item_lines, strict=True), 1
                ):
                    if not isinstance(item, dict):
                        continue
                    if wrong := _identity_problem(item):
                        field, message = wrong
                        problems.append(
                            Problem(
                                path,
                                item_line,
                                1,
                                f"document {index + 1}, item {number}: {message}",
                                field,
                            )
                        )
                    else:
                        objects.append(Manifest(item, path, item_line))
            elif wrong := _identity_problem(document):
                field, message = wrong
                problems.append(
                    Problem(
                        path,
                        located.line,
                        1,
                        f"document {index + 1}: {message}",
                        field,
                    )
                )
            else:
                objects.append(Manifest(document, path, located.line))
    if not problems and not objects:
        # kubectl apply refuses an empty input too ("no objects passed to apply"):
        # an empty stream is most often a command before the pipe that wrote nothing.
        problems = [
            Problem(
                path,
                1,
                1,
                "no Kubernetes object to check (the stream is empty or holds only comments); "
                "if a command wrote it, see why it printed nothing",
            )
            for path in paths
        ]
    if problems:
        raise SchemaError(problems=problems)
    return objects


def _identity_problem(document: dict[str, Any]) -> tuple[str, str] | None:
    """What makes a document no Kubernetes object, as ``(JSON path, message)``: a missing or non-string kind, apiVersion or name.

    A ``kind`` or ``apiVersion`` must also be a name (:func:`~t2gen.kube.validators.is_kind`,
    :func:`~t2gen.kube.validators.is_api_version`): the schema checks find a
    kind's schema file by them, and ``../`` in one once read a file elsewhere.

    Every API object has string ``apiVersion`` and ``kind`` and, when given, a
    string ``metadata.name`` (Kubernetes API conventions,
    https://github.com/kubernetes/community/blob/master/contributors/devel/sig-architecture/api-conventions.md#resources);
    the checks group objects by them. A t2gen job file (``apiVersion:
    t2gen/v1``, ``kind: Twister2Job``) is no object either: no API server serves
    it, and ``t2gen validate`` reads it.
    """
    for field in ("apiVersion", "kind"):
        if field not in document:
            return field, f"no {field}; every Kubernetes object has one (a string)"
        if not isinstance(document.get(field), str):
            return (
                field,
                f"{field} must be a string, not {type(document.get(field)).__name__}",
            )
    if (document["apiVersion"], document["kind"]) == ("t2gen/v1", "Twister2Job"):
        return "kind", (
            "a t2gen job file, not a Kubernetes object: `t2gen validate` checks it, "
            "and `t2gen render <file> | t2gen check -` the manifests it renders"
        )
    if not is_api_version(document["apiVersion"]):
        return "apiVersion", (
            f"{document['apiVersion']!r} is no API version: it is [group/]version, a "
            "DNS subdomain and a DNS label such as apps/v1 or v1"
        )
    if not is_kind(document["kind"]):
        return "kind", (
            f"{document['kind']!r} is no kind: a kind is a name of letters, digits and "
            "'-' starting with a letter, such as ConfigMap"
        )
    metadata = document.get("metadata", {})
    if not isinstance(metadata, dict):
        return "metadata", f"metadata must be a mapping, not {type(metadata).__name__}"
    if not isinstance(metadata.get("name", ""), str):
        return (
            "metadata.name",
            f"metadata.name must be a string, not {type(metadata['name']).__name__}",
        )
    return None
