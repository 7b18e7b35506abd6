"""A job file's bytes and text: reading within limits, decoding, and offsets as ``line:col``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO

from t2gen.errors import ConfigError

__all__ = [
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "decode_source",
    "line_col",
    "read_source",
]

MAX_FILE_BYTES = 1024 * 1024
"""Largest job file t2gen reads (1 MiB); a real one is a few hundred bytes."""

MAX_DEPTH = 32
"""Deepest nesting of mappings and lists accepted (both readers); the job schema needs 6."""


def line_col(text: str | bytes, offset: int) -> tuple[int, int]:
    """The 1-based line and column of a 0-based offset into text or bytes.

    Args:
        text: the decoded text (columns count characters) or the raw bytes
            (columns count bytes).
        offset: where in ``text``, from 0.

    Returns:
        ``(line, col)``, both counted from 1; a line ends at a line feed.
    """
    if isinstance(text, bytes):
        start = text.rfind(b"\n", 0, offset) + 1
        return text.count(b"\n", 0, offset) + 1, offset - start + 1
    start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - start + 1


def read_source(path: str, *, stdin: IO[bytes] | None = None) -> bytes:
    """Read a job file's bytes, at most :data:`MAX_FILE_BYTES`.

    Args:
        path: a file path, or ``-`` for standard input.
        stdin: the stream to read for ``-`` (default ``sys.stdin.buffer``).

    Returns:
        The raw bytes.

    Raises:
        ConfigError: the file is missing, a directory, unreadable or too large.
    """
    try:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = stream.read(MAX_FILE_BYTES + 1)
        else:
            with Path(path).open("rb") as handle:
                raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ConfigError(path=path, message="no such file") from None
    except IsADirectoryError:
        raise ConfigError(path=path, message="is a directory, not a job file") from None
    except PermissionError:
        raise ConfigError(path=path, message="permission denied") from None
    except OSError as err:
        raise ConfigError(
            path=path, message=f"cannot read: {err.strerror or err}"
        ) from None
    if len(raw) > MAX_FILE_BYTES:
        raise ConfigError(
            path=path,
            message=f"larger than {MAX_FILE_BYTES // 1024} KiB; a job file is a few hundred bytes",
        )
    return raw


def decode_source(path: str, raw: bytes) -> str:
    """Decode UTF-8 (a BOM is dropped), reporting the line and column of a bad byte.

    Args:
        path: the file as the user named it, for the error.
        raw: the file's bytes.

    Returns:
        The text.

    Raises:
        ConfigError: the bytes are not UTF-8; located at the first bad byte.
    """
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, col = line_col(raw, err.start)
        raise ConfigError(
            path=path,
            line=line,
            col=col,
            message=f"not UTF-8 (byte 0x{raw[err.start]:02x}); save the job file as UTF-8 text",
        ) from None
