"""Replace a directory atomically: one writer at a time, a one-step swap, recovery after a kill.

What ``t2gen render -o DIR`` (:func:`t2gen.output.directory.write_directory`) builds on:
an exclusive ``flock`` on the parent, Linux's ``renameat2(RENAME_EXCHANGE)``
(https://man7.org/linux/man-pages/man2/rename.2.html) with a two-rename
fallback, and the clean-up of ``.DIR.t2gen-<hex>`` directories that a killed
run left behind.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["exchange", "fsync_directory", "locked", "recover", "stale_pattern"]


@contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``directory`` (the output's parent) while writing.

    Concurrent ``t2gen render -o`` runs into one parent are serialised, so none
    sees another's half-finished staging or judges another's files. The lock is
    on the directory itself, so it leaves no lock file behind, and the kernel
    releases it when a killed process dies. No lock where ``fcntl`` is missing.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


_RENAME_EXCHANGE = 2  # linux/include/uapi/linux/fs.h
_AT_FDCWD = -100


@functools.cache
def _renameat2() -> object | None:
    """Libc's ``renameat2`` (Linux, glibc 2.28+), or None."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.renameat2
    except (OSError, AttributeError):
        return None


def exchange(new: Path, current: Path) -> bool:
    """Swap two directories in one atomic step (``renameat2(RENAME_EXCHANGE)``).

    Returns:
        True when swapped; False when the system or file system cannot
        (the caller then uses two renames).

    Raises:
        OSError: the swap failed for another reason.
    """
    function = _renameat2()
    if function is None:
        return False
    result = function(  # type: ignore[operator]
        _AT_FDCWD, os.fsencode(new), _AT_FDCWD, os.fsencode(current), _RENAME_EXCHANGE
    )
    if result == 0:
        return True
    import ctypes

    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
        return False
    raise OSError(code, os.strerror(code))


def stale_pattern(name: str) -> re.Pattern[str]:
    """The names of what runs into ``name`` leave beside it: ``.NAME.t2gen-[old-]<hex>``."""
    return re.compile(rf"^\.{re.escape(name)}\.t2gen-(old-)?[0-9a-f]{{12}}$")


def recover(parent: Path, name: str) -> None:
    """Clean up after killed runs (under the lock, so none is running).

    A run killed between the two renames of the fallback left ``DIR`` missing
    and the old render as ``.DIR.t2gen-old-<hex>``: it is put back. Every other
    ``.DIR.t2gen-<hex>`` (a staging directory, or an old render already
    replaced) is removed.
    """
    pattern = stale_pattern(name)
    stale = sorted(
        entry
        for entry in parent.iterdir()
        if pattern.match(entry.name) and entry.is_dir() and not entry.is_symlink()
    )
    target = parent / name
    if not os.path.lexists(target):
        olds = [
            entry for entry in stale if entry.name.startswith(f".{name}.t2gen-old-")
        ]
        if olds:
            olds[0].rename(target)
            stale.remove(olds[0])

    for entry in stale:
        shutil.rmtree(entry, ignore_errors=True)


def fsync_directory(directory: Path) -> None:
    """Flush a directory's entries (created or renamed files) to disk."""
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
