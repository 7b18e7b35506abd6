"""Writers of rendered objects, which arrive checked and in install order.

* :mod:`t2gen.output.stream`: standard output: one YAML stream (as
  ``kubectl`` reads it), Helm-escaped YAML (``--format helm``), a JSON ``List``
  (``--format json``);
* :mod:`t2gen.output.directory`: a kustomize directory (``-o DIR``), swapped in
  whole by :mod:`t2gen.output.atomicdir` (one writer at a time, recovery after
  a kill);
* :mod:`t2gen.output.files`: one file (``import --output-file``), replaced in
  one step, and the rule for what a path t2gen writes to may be.
* :mod:`t2gen.output.ocilayout`: ``package --oci DIR``, the job package as an
  OCI image layout, swapped in whole as a directory is.

This module holds only :func:`write_stdout` and :func:`write_text`, which every
command that prints uses, so it imports nothing but the standard library's
``os``, ``stat`` and ``sys``, which every Python process has loaded.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import sys
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["write_all", "write_stdout", "write_text"]


def write_stdout(text: str) -> None:
    """Write UTF-8 text with LF line ends to stdout, whole or not at all, whatever the locale.

    See :func:`write_text`.

    Raises:
        OSError: the write failed (a full disk, a closed pipe, ``>&-``); what
            this call wrote of ``text`` into a regular file is taken back.
    """
    write_text(sys.stdout, text)


def write_text(stream: IO[str], text: str) -> None:
    r"""Write ``text`` to a standard stream, every byte or an error.

    ``write(2)`` may write less than it was given and return the count (a
    nearly full file system: on a 4 KiB tmpfs one ``write(1, ..., 10343)``
    returns 4096), and Python's unbuffered standard streams
    (``PYTHONUNBUFFERED=1``, ``python -u``) pass that count on without trying
    again, so a render could end with exit code 0 and half its stream written.
    Here the bytes go to the stream's file descriptor with
    ``os.write`` until every one is written: a short write is followed by
    another, which writes more or fails with the reason (``ENOSPC``). When the
    descriptor is a regular file, it is then closed once through a duplicate,
    which reports what a file system defers to ``close(2)`` (NFS and FUSE
    report quota and space errors there); on failure the file is cut back to
    its length before this call, so ``render > out.yaml`` on a full disk
    leaves no half stream for ``kubectl apply``. A stream without a descriptor
    (a test's capture) gets the bytes through its binary buffer, checked the
    same way.

    Args:
        stream: ``sys.stdout`` or ``sys.stderr`` (a text stream with a ``buffer``).
        text: what to write; encoded as UTF-8 (a lone surrogate, as a
            non-UTF-8 file name brings, is written as its byte's escape ``\xff``
            with the text's controls: :func:`t2gen.errors.inert`).

    Raises:
        OSError: the write, or the deferred close, failed.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: a non-UTF-8 file name's byte
        from t2gen.errors import inert

        data = inert(text).encode("utf-8")
    stream.flush()  # what was printed before goes first
    try:
        descriptor = stream.fileno()
    except (
        AttributeError,
        OSError,
        ValueError,
    ):  # io.UnsupportedOperation: no descriptor
        descriptor = -1
    if descriptor < 0:
        buffer = getattr(stream, "buffer", None)
        if buffer is None:  # pragma: no cover - a text-only stand-in
            stream.write(text)
            stream.flush()
            return
        write_all(buffer.write, data)
        buffer.flush()
        return
    write_all(lambda chunk: _write_descriptor(descriptor, chunk), data, descriptor)


def _write_descriptor(descriptor: int, chunk: memoryview) -> int:
    """One ``os.write``; a non-blocking descriptor that is full is waited for, not an error."""
    while True:
        try:
            return os.write(descriptor, chunk)
        except BlockingIOError:  # a pipe set O_NONBLOCK by whoever holds the other end
            import select

            select.select([], [descriptor], [])


def write_all(
    write: Callable[[memoryview], int | None], data: bytes, descriptor: int = -1
) -> None:
    """Call ``write`` (``os.write``-like: returns the count written) until all of ``data`` is written.

    Args:
        write: takes a ``memoryview`` and returns how many bytes it wrote (or
            None, as a non-blocking buffered stream may).
        data: the bytes.
        descriptor: the file descriptor written to, when there is one: for a
            regular file the write is taken back on failure and checked at
            close (see :func:`write_text`).

    Raises:
        OSError: a write failed, wrote nothing (``EIO``), or the deferred close failed.
    """
    start = _regular_file_end(descriptor)
    view = memoryview(data)
    try:
        while view:
            written = write(view)
            if not written:  # None or 0 for a non-empty chunk: it will never be written
                raise OSError(errno.EIO, "the write did not complete")
            view = view[written:]
        if start is not None:
            # A duplicate's close(2) runs the file system's flush, which NFS and FUSE
            # use to report what they deferred (EDQUOT, ENOSPC, EIO); the descriptor
            # itself stays open for the rest of the output.
            os.close(os.dup(descriptor))
    except OSError:
        if start is not None:
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, start)
        raise


def _regular_file_end(descriptor: int) -> int | None:
    """The length of the regular file open at ``descriptor`` when writing appends to it, else None.

    Only then can a failed write be taken back by cutting the file to that
    length; a write into the middle of a file (``1<> file``) is left alone.
    """
    if descriptor < 0:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            return None
        appending = bool(_flags(descriptor) & os.O_APPEND)
        position = info.st_size if appending else os.lseek(descriptor, 0, os.SEEK_CUR)
    except OSError:
        return None
    return info.st_size if position >= info.st_size else None


def _flags(descriptor: int) -> int:
    """The descriptor's status flags (``fcntl(F_GETFL)``), or 0 where there is no fcntl."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return 0
    return fcntl.fcntl(descriptor, fcntl.F_GETFL)
