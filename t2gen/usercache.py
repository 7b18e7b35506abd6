"""The user's cache directory for code t2gen generates, trusted only when nobody else can write it.

Code read from a cache is code that t2gen runs, so (as :mod:`t2gen.kube.fastschema`
explains for the Kubernetes schema validators kept here):

* the directory is ``$T2GEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/t2gen``, else
  ``~/.cache/t2gen``; it is created with mode 0700 and ignored unless it is a
  directory owned by the user and not writable by group or others;
* a file is read only if it is a regular file (not a symlink) owned by the user
  and not writable by group or others, and its content has the SHA-256 its
  name records;
* files are written to a temporary name and renamed into place.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

__all__ = ["cache_dir", "listing", "read_verified", "write_verified"]


def cache_dir() -> Path | None:
    """The user's t2gen cache directory, created 0700 if missing; None when it cannot be trusted.

    ``$T2GEN_CACHE_DIR``, else ``$XDG_CACHE_HOME/t2gen`` (an absolute
    ``XDG_CACHE_HOME`` only, as the XDG Base Directory specification says),
    else ``~/.cache/t2gen``.

    Returns:
        The directory, or None if it cannot be created, or is not a directory
        owned by the user (the effective user ID) with no write permission for
        group or others.
    """
    configured = os.environ.get("T2GEN_CACHE_DIR")
    memo = (configured, os.environ.get("XDG_CACHE_HOME"), os.environ.get("HOME"))
    if memo not in _CACHE_DIRS:
        _CACHE_DIRS[memo] = _cache_dir(configured)
    return _CACHE_DIRS[memo]


_CACHE_DIRS: dict[tuple[str | None, ...], Path | None] = {}


def _cache_dir(configured: str | None) -> Path | None:
    try:
        if configured:
            directory = Path(configured)
        else:
            xdg = os.environ.get("XDG_CACHE_HOME", "")
            base = (
                Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".cache"
            )
            directory = base / "t2gen"
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        status = directory.stat()
    except (OSError, RuntimeError, ValueError):
        return None
    return directory if _trusted(status, stat.S_ISDIR) else None


def _trusted(status: os.stat_result, is_type: Callable[[int], bool]) -> bool:
    """Whether a file or directory is of the right type, ours, and not writable by group or others."""
    return (
        is_type(status.st_mode)
        and status.st_uid == os.geteuid()
        and not status.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def listing(directory: Path) -> list[str]:
    """The cache's file names (read once per process)."""
    if directory not in _LISTINGS:
        try:
            _LISTINGS[directory] = sorted(path.name for path in directory.iterdir())
        except OSError:
            _LISTINGS[directory] = []
    return _LISTINGS[directory]


_LISTINGS: dict[Path, list[str]] = {}


def read_verified(path: Path, digest: str) -> bytes | None:
    """A cache file's bytes if it is a regular file of ours, not writable by others, with this SHA-256."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        if not _trusted(os.fstat(descriptor), stat.S_ISREG):
            return None
        with os.fdopen(descriptor, "rb", closefd=False) as stream:
            data = stream.read()
    except OSError:
        return None
    finally:
        os.close(descriptor)
    return data if hashlib.sha256(data).hexdigest() == digest else None


def write_verified(directory: Path, prefix: str, suffix: str, data: bytes) -> None:
    """Store ``data`` as ``<prefix><sha256 of data><suffix>`` in ``directory``, atomically; errors are ignored.

    Args:
        directory: from :func:`cache_dir`.
        prefix: the start of the name (what the data is, and its key).
        suffix: the end of the name (``.marshal``).
        data: the bytes; :func:`read_verified` later checks them against the name.
    """
    import tempfile

    name = f"{prefix}{hashlib.sha256(data).hexdigest()}{suffix}"
    try:
        descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    except OSError:
        return
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
        Path(temporary).replace(directory / name)
        listing(directory).append(name)
    except OSError:
        with contextlib.suppress(OSError):
            Path(temporary).unlink()
