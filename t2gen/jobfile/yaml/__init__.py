"""Reading a job file (YAML 1.2 or JSON): one entry, :func:`read_job`, whatever reads it.

Two readers give the same :class:`SourceDoc` (data, and the ``line:col`` of
every node) and refuse the same things in the same words:

* :mod:`~t2gen.jobfile.yaml.fastload` builds it from PyYAML's C parser
  (:mod:`~t2gen.jobfile.yaml.plainscalars` reads its plain scalars as YAML 1.2
  does), and gives up where it cannot be sure;
* :mod:`~t2gen.jobfile.yaml.loader` reads everything with ruamel.yaml, and
  words every YAML error.

:mod:`~t2gen.jobfile.yaml.yaml12` holds the rules and messages both apply,
:mod:`~t2gen.jobfile.yaml.source` the limits, and :mod:`t2gen.textfile` the bytes: reading within limits, decoding,
offsets as ``line:col``. Callers use :func:`read_job` (a file) or
:func:`parse_job` (text) and never choose a reader.
"""

from __future__ import annotations

from typing import IO

from t2gen import fastpaths
from t2gen.jobfile.yaml.loader import JsonPath, SourceDoc, parse_config
from t2gen.textfile import decode_source, read_source

__all__ = ["JsonPath", "SourceDoc", "parse_job", "read_job"]


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
    return parse_job(decode_source(path, read_source(path, stdin=stdin)), path=path)


def parse_job(text: str, *, path: str = "<string>") -> SourceDoc:
    """Parse job-file text (see :func:`read_job`).

    The fast reader reads it when it is sure of the meaning (and
    ``T2GEN_NO_FAST_YAML`` is not set: the ``FAST_YAML`` fast path of
    :mod:`t2gen.fastpaths`); otherwise (and for every YAML error) the full
    reader does. Both give the same document.
    """
    if fastpaths.enabled("FAST_YAML"):
        # imported here: it imports PyYAML, which SourceDoc's users (the rules,
        # the command line's Typer app) need not load
        from t2gen.jobfile.yaml.fastload import fast_load_doc

        doc = fast_load_doc(text, path=path)
        if doc is not None:
            return doc
    return parse_config(text, path=path)
