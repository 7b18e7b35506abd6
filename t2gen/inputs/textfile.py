"""The byte door: an input's bytes within its bound, decoded as UTF-8, offsets as ``line:col``.

Every input t2gen reads from a path or standard input comes through here, each
with the bound its own module of :mod:`t2gen.inputs` states: a regular file
whose length (``st_size``) is over the bound is refused before a byte is read
(a 1 GiB sparse file costs nothing), and the size is measured while reading
too, since a file may grow or state no length (``/proc`` files say 0): at most
``limit + 1`` bytes are ever read, whatever the file claims to be, and
standard input is read the same way. A path that is not a regular file is
refused before a byte is read, and an undecodable byte is located.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import IO

from t2gen.errors import ConfigError

__all__ = ["decode_source", "line_col", "read_source"]


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


def read_source(
    path: str,
    *,
    stdin: IO[bytes] | None = None,
    limit: int,
    what: str = "job file",
    advice: str | None = None,
) -> bytes:
    """Read an input's bytes, at most ``limit``, measured while reading.

    Args:
        path: a file path, or ``-`` for standard input.
        stdin: the stream to read for ``-`` (default ``sys.stdin.buffer``).
        limit: the most bytes accepted (the input's bound, stated in its
            module of :mod:`t2gen.inputs`); at most one byte more is read.
        what: what the file is, for messages (``a directory, not a job file``).
        advice: what to say after ``larger than N KiB;`` (default: that a
            ``what`` is a few hundred bytes, which fits job files only).

    Returns:
        The raw bytes.

    Raises:
        ConfigError: the file is missing, a directory, not a regular file (a
            FIFO, socket or device, which could block or never end: use ``-``
            to read standard input), unreadable, or too large: by its stated
            length before any read, or by what was read.
    """
    try:
        if path == "-":
            stream = stdin if stdin is not None else sys.stdin.buffer
            raw = _read_at_most(stream, limit + 1)
        else:
            # O_NONBLOCK: opening a FIFO must not wait for a writer.
            descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            with os.fdopen(descriptor, "rb") as handle:
                info = os.fstat(handle.fileno())
                mode = info.st_mode
                if stat.S_ISDIR(mode):
                    raise IsADirectoryError
                if not stat.S_ISREG(mode):
                    raise ConfigError(
                        path=path,
                        message="not a regular file (a pipe, socket or device); "
                        "give a file, or - to read standard input",
                    )
                if info.st_size > limit:  # refused before a byte is read
                    raise _TooLarge
                os.set_blocking(handle.fileno(), True)
                raw = _read_at_most(handle, limit + 1)
    except _TooLarge:
        pass
    except FileNotFoundError:
        raise ConfigError(path=path, message="no such file") from None
    except IsADirectoryError:
        raise ConfigError(path=path, message=f"is a directory, not a {what}") from None
    except PermissionError:
        raise ConfigError(path=path, message="permission denied") from None
    except OSError as err:
        raise ConfigError(
            path=path, message=f"cannot read: {err.strerror or err}"
        ) from None
    else:
        if len(raw) <= limit:
            return raw
    raise ConfigError(
        path=path,
        message=f"larger than {limit // 1024} KiB; "
        + (advice or f"a {what} is a few hundred bytes"),
    )


class _TooLarge(Exception):
    """A regular file's stated length is over the bound: refused before it is read."""


def _read_at_most(stream: IO[bytes], most: int) -> bytes:
    """Read until end of file or ``most`` bytes, whichever is first.

    A stream may return fewer bytes than asked (a raw pipe) before its end;
    the reads go on until it returns none, never asking for more than what
    is left of ``most``, so at most ``most`` bytes are ever read.
    """
    parts: list[bytes] = []
    total = 0
    while total < most:
        chunk = stream.read(most - total)
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def decode_source(path: str, raw: bytes, *, what: str = "job file") -> str:
    """Decode UTF-8 (a BOM is dropped), reporting the line and column of a bad byte.

    Args:
        path: the file as the user named it, for the error.
        raw: the file's bytes.
        what: what the file is, for the error (``save the job file as UTF-8``).

    Returns:
        The text.

    Raises:
        ConfigError: the bytes are not UTF-8; located at the first bad byte.
    """
    # A BOM is dropped, as by the "utf-8-sig" codec (without importing it).
    text = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError as err:
        line, col = line_col(text, err.start)  # an editor shows no column for a BOM
        raise ConfigError(
            path=path,
            line=line,
            col=col,
            message=f"not UTF-8 (byte 0x{text[err.start]:02x}); save the {what} as UTF-8 text",
        ) from None
