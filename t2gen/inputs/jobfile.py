"""The job file: at most :data:`MAX_JOB_FILE_BYTES`, UTF-8, one YAML 1.2 (or JSON) mapping, located.

Input bound: :data:`MAX_JOB_FILE_BYTES` (1 MiB), measured while reading, for a
file and standard input alike (:func:`t2gen.inputs.textfile.read_source`).
Parser bounds: the positioned YAML reader's (:mod:`t2gen.inputs.yaml.source`:
nesting depth, entries per list or mapping, values per file, integer digits).
Errors: :class:`~t2gen.errors.ConfigError` with ``file:line:col``; the
returned :class:`~t2gen.inputs.yaml.SourceDoc` keeps every node's position,
so every later stage (schema, rules, package agreement, size checks) locates
its problems in the file without parsing it again.
"""

from __future__ import annotations

from typing import IO

from t2gen.inputs.textfile import decode_source, read_source
from t2gen.inputs.yaml import SourceDoc, parse_yaml

__all__ = ["MAX_JOB_FILE_BYTES", "parse_job", "read_job"]

MAX_JOB_FILE_BYTES = 1024 * 1024
"""Largest job file t2gen reads (1 MiB); a real one is a few hundred bytes."""


def read_job(path: str, *, stdin: IO[bytes] | None = None) -> SourceDoc:
    """Read and parse a job file, keeping its text and the position of every node.

    Args:
        path: a file path, or ``-`` for standard input.
        stdin: the stream read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        The parsed document.

    Raises:
        ConfigError: unreadable, too large, not UTF-8, not YAML, empty, several
            documents, aliases or anchors, explicit tags, or nested too deep.
    """
    raw = read_source(path, stdin=stdin, limit=MAX_JOB_FILE_BYTES)
    return parse_job(decode_source(path, raw), path=path)


def parse_job(text: str, *, path: str = "<string>") -> SourceDoc:
    """Parse job-file text (see :func:`read_job`; :func:`t2gen.inputs.yaml.parse_yaml`)."""
    return parse_yaml(text, path=path)
