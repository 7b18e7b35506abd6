"""kubectl lists: what ``kubectl get ... -o json|yaml`` prints, read within bounds and located.

The node list (``plan --nodes``), the pod list (``--pods``), the quota file
(``--quota``) and a job's objects (``status --cluster``) are all such lists.

Input bounds: :data:`MAX_LIST_BYTES` (96 MiB) and :data:`MAX_LIST_ITEMS` (20,000
nodes or pods, counted before any is decoded) for node and pod lists, the bytes measured
while reading (a regular file is mapped, after its size is checked; anything
else is read through :func:`t2gen.inputs.textfile.read_source`, which reads
at most one byte past the bound); the quota file and the cluster file state
their own, smaller bounds (:mod:`t2gen.plan.quotaread`, :mod:`t2gen.inputs.cluster`).
Parsers: JSON (Python's ``json``; ``plan``'s typed msgspec reader,
:mod:`t2gen.plan.typedread`, decodes node and pod lists first and hands
everything it cannot take to :func:`plain_document`), then YAML through the
bounded event reader (:data:`LIST_BOUNDS`: depth, values, integer digits).
Errors: :class:`~t2gen.errors.InputError`, every problem of a file at once;
a problem found in the data carries its JSON path (``items[3].status.allocatable``)
and :func:`with_positions` gives it the ``line:col`` where that path is written.
"""

from __future__ import annotations

import codecs
import contextlib
import json
import mmap
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml

from t2gen.errors import ConfigError, InputError, Problem
from t2gen.inputs.textfile import read_source
from t2gen.kube.yamlbounds import ReadBounds, YamlLimitError
from t2gen.kube.yamlread import load_all_bounded

__all__ = [
    "LIST_BOUNDS",
    "MAX_LIST_BYTES",
    "MAX_LIST_ITEMS",
    "MAX_LOCATE_BYTES",
    "MAX_OBJECT_BYTES",
    "PLAIN_MAX_BYTES",
    "json_path",
    "list_contents",
    "list_items",
    "load_document",
    "plain_document",
    "read_list",
    "string_map",
    "too_many",
    "utf8_view",
    "with_positions",
]

_BOM = b"\xef\xbb\xbf"
_CHUNK = 1 << 20

#: The largest node or pod list read, in bytes (96 MiB). A regular file is mapped
#: whole, and its pages count toward the process's memory, so this and the records
#: read from it stay within the budget of docs/untrusted-input.md (200 MB):
#: ``kubectl get nodes -o json`` is about 11 KB a node, so this is some 9,000
#: nodes of a managed cloud cluster, over twice the 5,000 nodes Kubernetes supports
#: per cluster (https://kubernetes.io/docs/setup/best-practices/cluster-large/).
#: A larger file is refused before it is read.
MAX_LIST_BYTES = 96 * 1024 * 1024
_LIST_ADVICE = (
    "pass only the nodes the job can use (`kubectl get nodes -l KEY=VALUE -o json`) "
    "and the pods bound to them"
)

MAX_LIST_ITEMS = 20_000
"""The most nodes, or pods, a list may hold: four times the 5,000 nodes Kubernetes
supports per cluster (https://kubernetes.io/docs/setup/best-practices/cluster-large/).
Counted before any item is decoded (:mod:`t2gen.plan.largelists`), so a list of
millions of tiny items costs no more than one of 20,000: each node or pod costs
about 10 µs and 1 KB once read, and the bound keeps a list within the budget."""

MAX_OBJECT_BYTES = 1536 * 1024
"""The largest node or pod in a list, in bytes of JSON (1.5 MiB): the API server
stores no object larger than etcd's request limit (``--max-request-bytes``, 1.5 MiB
by default: https://etcd.io/docs/v3.5/dev-guide/limit/), so a larger item is not what
``kubectl`` printed. Each item of a large list is decoded on its own, so this bounds
the memory one item can take while it is read."""

PLAIN_MAX_BYTES = 2 * 1024 * 1024
"""Lists up to this size (2 MiB) that the typed reader cannot take are read whole by
the plain reader (``json``, then YAML), whose messages are the contract; every Python
object it builds costs some 20 times its bytes, so a larger list is judged item by
item instead (:mod:`t2gen.plan.largelists`)."""


def read_list(path: str, *, limit: int, advice: str) -> bytes:
    """The bytes of a kubectl list (``-``: standard input), at most ``limit``, measured while reading.

    Args:
        path: the file as the user named it.
        limit: the list's bound in bytes.
        advice: what to say after ``larger than N KiB;``.

    Raises:
        ConfigError: missing, not a regular file, unreadable or too large.
    """
    return read_source(path, limit=limit, what="file", advice=advice)


def _read_list(path: str) -> bytes:
    """The bytes of a node or pod list that cannot be mapped (stdin, a FIFO, an empty file)."""
    return read_list(path, limit=MAX_LIST_BYTES, advice=_LIST_ADVICE)


LIST_BOUNDS = ReadBounds(
    what="a node or pod list",
    advice="pass `kubectl get nodes -o json` (or pods), which t2gen reads without this bound",
    depth=100,
    nodes=400_000,
    int_digits=4300,
)
"""Bounds of a node or pod list read as YAML (JSON goes to the typed reader first).

``kubectl get pods -o yaml`` nests about 15 levels (managed fields). The bounded
reader costs some 4 µs a value, so 400,000 values keeps a YAML list within the
budget of docs/untrusted-input.md. A YAML list is read only up to
:data:`PLAIN_MAX_BYTES` (2 MiB, some 200 nodes of a managed cloud cluster); a larger
list must be JSON (``-o json``), which the typed reader reads without this bound."""


MAX_LOCATE_BYTES = 64 * 1024 * 1024
"""Largest input whose problems are given a line and column (read again, on the error
path only); a larger one keeps the JSON path alone. One pass locates every problem,
within :data:`t2gen.inputs.locate.MAX_EVENTS` events."""


def with_positions(err: InputError, path: str) -> InputError:
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
    from t2gen.inputs.locate import locate_all, parent_path

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
    return InputError(problems=located)


def load_document(text: str, source: str) -> object:
    """Parse JSON or YAML text (``kubectl ... -o json`` or ``-o yaml``).

    Args:
        text: the file's contents.
        source: how the user named it (``--nodes FILE``), for messages.

    Returns:
        The document; several YAML documents become a ``List`` of them.

    Raises:
        InputError: the text is neither JSON nor YAML, or is empty.
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
        raise InputError(
            problems=[Problem(source, line, col, str(err.problem))]
        ) from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 0
        col = mark.column + 1 if mark is not None else 0
        problem = getattr(err, "problem", None) or str(err)
        raise InputError(
            problems=[Problem(source, line, col, f"not JSON or YAML: {problem}")]
        ) from None
    if not docs:
        raise InputError(problems=[Problem(source, 0, 0, "is empty")])
    if len(docs) == 1:
        return docs[0]
    return {"apiVersion": "v1", "kind": "List", "items": docs}


def list_items(
    document: object, kind: str, command: str, source: str, most: int | None = None
) -> list[tuple[str, Any]]:
    """Return (json path, item) of a List/<kind>List or a single <kind>, or raise.

    ``most``: the most items the list may hold (:data:`MAX_LIST_ITEMS`); more is
    one problem, at the first item past it, before any item is looked at.
    """

    def fail(message: str) -> InputError:
        return InputError(problems=[Problem(source, 0, 0, message)])

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
        if most is not None and len(items) > most:
            raise too_many(source, kind, most)
        return [(f"items[{i}]", item) for i, item in enumerate(items)]
    shown = f"a {found}" if isinstance(found, str) and found else "a map without `kind`"
    raise fail(f"is {shown}, not a {kind} list: pass the output of `{command}`")


def too_many(source: str, kind: str, most: int) -> InputError:
    """The problem of a list of more than ``most`` items, placed at the first one past it."""
    return InputError(
        problems=[
            Problem(
                source,
                0,
                0,
                f"holds more than {most:,} {kind}s, the most t2gen reads; "
                f"{_LIST_ADVICE}",
                f"items[{most}]",
            )
        ]
    )


def string_map(raw: object) -> dict[str, str]:
    """Return ``metadata.labels`` as strings (a null value as ``""``); anything else gives none."""
    if not isinstance(raw, Mapping):
        return {}
    return {str(k): "" if v is None else str(v) for k, v in raw.items()}


def json_path(prefix: str, suffix: str) -> str:
    """Join a JSON path prefix (``items[3]``, possibly empty) and a field path."""
    return f"{prefix}.{suffix}" if prefix else suffix


def plain_document(raw: bytes, source: str) -> object:
    """Parse a list as the plain reader does: UTF-8 (a BOM allowed), then JSON or YAML.

    Raises:
        ConfigError: the bytes are not UTF-8.
        InputError: the text is neither JSON nor YAML.
    """
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise ConfigError(
            path=source,
            message=f"is not UTF-8 (byte {err.start}): save the kubectl output as UTF-8",
        ) from None
    return load_document(text, source)


def _is_ascii(view: memoryview) -> bool:
    """True if every byte is ASCII (then it is UTF-8), checked in 1 MiB pieces."""
    return all(
        bytes(view[start : start + _CHUNK]).isascii()
        for start in range(0, len(view), _CHUNK)
    )


def _is_utf8(view: memoryview) -> bool:
    """True if the bytes are UTF-8: ASCII quickly, else decoded in pieces (no copy of the whole)."""
    if _is_ascii(view):
        return True
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        for start in range(0, len(view), _CHUNK):
            decoder.decode(view[start : start + _CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


@contextlib.contextmanager
def list_contents(path: str) -> Iterator[memoryview]:
    """The bytes of ``path``: a regular file mapped into memory, else read (``-``: stdin).

    Mapping saves copying hundreds of megabytes; anything else (a missing file,
    a FIFO, standard input) goes through :func:`read_source`, whose messages
    name what is wrong.
    """
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if path != "-" else -1
    except OSError:
        descriptor = -1
    if descriptor < 0:
        with memoryview(_read_list(path)) as view:
            yield view
        return
    try:
        info = os.fstat(descriptor)
        if stat.S_ISREG(info.st_mode) and info.st_size > MAX_LIST_BYTES:
            raise ConfigError(  # before reading a byte of it
                path=path,
                message=f"larger than {MAX_LIST_BYTES // 1024} KiB; {_LIST_ADVICE}",
            )
        if not stat.S_ISREG(info.st_mode) or info.st_size == 0:
            os.close(descriptor)
            descriptor = -1
            with memoryview(_read_list(path)) as view:
                yield view
            return
        flags = mmap.MAP_PRIVATE | getattr(mmap, "MAP_POPULATE", 0)
        mapped = mmap.mmap(descriptor, 0, flags=flags, prot=mmap.PROT_READ)
    finally:
        if descriptor >= 0:
            os.close(descriptor)
    view = memoryview(mapped)
    try:
        yield view
    finally:
        try:
            view.release()
            mapped.close()
        except BufferError:
            # A view of the file is still alive (in the frames of an error's
            # traceback): the mapping goes when that is freed; the error stays.
            pass


def utf8_view(view: memoryview) -> memoryview | None:
    """``view`` without a UTF-8 byte order mark, or None when it is not UTF-8 (checked in pieces, no copy)."""
    if view[:3] == _BOM:
        view = view[3:]
    return view if _is_utf8(view) else None
