"""What a path t2gen writes to may be, and one file written whole (``import --output-file``).

One rule for every command that writes to a path (``import --output-file FILE``,
``package --output-file FILE``, ``render --output-dir DIR``), stated in
``docs/untrusted-input.md``:

* **Missing**: created (its parent directory must exist).
* **A regular file** (for a file) **or a directory** (for ``--output-dir``):
  replaced in one step, and only when t2gen wrote it: a file that starts as
  the writer's files start (``import``'s first line; ``package``'s gzip
  header with no name and no time), or is empty (nothing to lose), a
  directory whose every file does (:mod:`t2gen.output.directory`); otherwise
  refused, unless ``--force``.
* **Anything else** (a character or block device such as ``/dev/null``, a
  FIFO, a socket, a directory where a file is wanted): refused, ``--force`` or
  not. t2gen never writes into it, and never replaces it with a file.
* **Never replaced**, ``--force`` or not (:func:`refuse_own_ground`): for
  a directory, the file system root or a mount point (renaming one fails with
  ``EBUSY`` half-way), the user's home directory or one above it, the current
  directory or one above it, and a directory holding one of the command's own
  inputs; for a file, one of the command's own inputs (or a file inside an
  input directory).
* **A symbolic link** is written through when its target exists and is what
  the rules above let t2gen replace: the target is replaced, the link stays.
  A link whose target does not exist (a dangling link) is refused: it could
  point anywhere (``/etc/cron.d/x``), and no file of the user's stands there
  to say that the place is theirs.

A file is written into a temporary file beside its target, flushed, synced
(``fsync``) and closed, every error reported, and then renamed over the
target, so the target holds the old or the new content, never a part.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from t2gen.errors import OutputError, one_line

__all__ = [
    "refuse_own_ground",
    "replaceable_target",
    "resolve_target",
    "special_file_kind",
    "write_file",
]


def special_file_kind(mode: int) -> str | None:
    """What a file of ``mode`` is when it is neither a regular file nor a directory, or None."""
    kinds = (
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
    )
    for test, kind in kinds:
        if test(mode):
            return kind
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return "not a regular file"  # pragma: no cover - a door or a whiteout


def _real(path: Path | str) -> Path | None:
    """``path`` with every link and ``..`` resolved, or None when it cannot be (missing, a loop)."""
    try:
        return Path(os.path.realpath(path, strict=True))
    except (OSError, ValueError):
        return None


def _home() -> Path | None:
    """The user's home directory, resolved, or None when there is none to find."""
    try:
        return _real(Path.home())
    except (KeyError, RuntimeError, OSError):  # no HOME and no passwd entry
        return None


def _within(inner: Path, outer: Path) -> bool:
    """Whether ``inner`` is ``outer`` or lies below it (both resolved)."""
    return inner == outer or inner.is_relative_to(outer)


def refuse_own_ground(
    path: Path, *, directory: bool, inputs: Sequence[str] = ()
) -> None:
    """Refuse a target no ``--force`` may replace: what the command stands on or reads.

    Renaming a directory away (``--output-dir DIR --force``) must never take
    the ground from under the user: the file system root or a mount point
    (``rename(2)`` of one fails with ``EBUSY``, https://man7.org/linux/man-pages/man2/rename.2.html,
    after the staging directory was built), the home directory, the current
    directory or one above it (the shell would stand in a deleted directory),
    or a directory holding an input of the same command (it would be deleted
    with the old render). A file (``import``/``package --output-file``) must
    never be one of the command's inputs, or a file in an input directory.

    Args:
        path: the target as the user named it (a link is followed).
        directory: whether a directory is written (``--output-dir``); else a file.
        inputs: the paths the command reads (job files, ``--templates``,
            ``--package``, ``--job-object``, ``import``'s files and directories);
            ``-`` (standard input) and paths that do not exist are skipped.

    Raises:
        OutputError: one line naming why, before anything is written or moved.
    """
    real = _real(path)
    if real is None:
        return  # nothing there yet: nothing to lose
    shown = one_line(str(path))
    reason: str | None = None
    if directory:
        home, cwd = _home(), _real(".")
        if real == Path(real.anchor):
            reason = "is the file system root"
        elif os.path.ismount(real):
            reason = "is a mount point"
        elif home is not None and _within(home, real):
            reason = (
                "is your home directory"
                if home == real
                else "holds your home directory"
            )
        elif cwd is not None and _within(cwd, real):
            reason = (
                "is the current directory"
                if cwd == real
                else "holds the current directory"
            )
    if reason is None:
        for source in inputs:
            read = _real(source) if source != "-" else None
            if read is None:
                continue
            if directory and _within(read, real):
                reason = f"holds the input {one_line(source)}"
            elif not directory and (read == real or _within(real, read)):
                which = "is" if read == real else "lies in"
                reason = f"{which} the input {one_line(source)}"
            if reason is not None:
                break
    if reason is not None:
        what = "--output-dir" if directory else "--output-file"
        raise OutputError(
            f"{shown}: {reason}; t2gen never replaces it, --force or not: give an "
            f"{what} of its own"
        )


def resolve_target(
    path: Path, *, directory: bool, inputs: Sequence[str] = ()
) -> tuple[Path, os.stat_result | None]:
    """Where a write to ``path`` lands, by the rule of this module, and what is there now.

    Args:
        path: the path as the user named it.
        directory: whether a directory is written (``--output-dir``); else a file.
        inputs: the paths the command reads (see :func:`refuse_own_ground`).

    Returns:
        ``(target, status)``: the path to replace (``path`` itself, or a
        symbolic link's final target) and its ``lstat``, None when nothing is there.

    Raises:
        OutputError: ``path`` is a dangling symbolic link, a link loop, a
            device, FIFO or socket, a directory where a file is wanted or a
            file where a directory is, its parent directory is missing, or it
            is ground no write may take (:func:`refuse_own_ground`).
    """
    refuse_own_ground(path, directory=directory, inputs=inputs)
    target = path
    if path.is_symlink():
        try:
            target = Path(os.path.realpath(path, strict=True))
        except OSError as err:
            where = (
                "which leads back to itself (a loop)"
                if err.errno == errno.ELOOP
                else "which does not exist"
            )
            raise OutputError(
                f"{path}: is a symbolic link to {path.readlink()}, {where}; t2gen writes "
                "through a link only to a file or directory already there (a dangling "
                "link could point anywhere): create the target, or remove the link"
            ) from None
    try:
        status: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        status = None
    except OSError as err:
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
    shown = path if target == path else f"{path} (a symbolic link to {target})"
    if status is not None:
        kind = special_file_kind(status.st_mode)
        if kind is not None:
            raise OutputError(
                f"{shown}: is {kind}; t2gen replaces only a "
                f"{'directory' if directory else 'regular file'} it wrote: give another path"
            )
        if directory and not stat.S_ISDIR(status.st_mode):
            raise OutputError(f"{shown}: exists and is not a directory")
        if not directory and stat.S_ISDIR(status.st_mode):
            raise OutputError(f"{shown}: is a directory; give a file name")
    if not target.parent.is_dir():
        raise OutputError(f"{path}: parent directory {target.parent} does not exist")
    return target, status


def replaceable_target(
    path: Path, *, marker: bytes, force: bool = False, inputs: Sequence[str] = ()
) -> Path:
    """Where a write of one file to ``path`` may land by this module's rule, or an error.

    Args:
        path: the file as the user named it.
        marker: how every file this writer makes starts (bytes): an existing
            file is replaced only when it starts so (or is empty).
        force: replace a regular file whatever it holds (never a device,
            FIFO, socket or dangling link).
        inputs: the paths the command reads, never replaced (:func:`refuse_own_ground`).

    Returns:
        The path to replace: ``path``, or a symbolic link's final target.

    Raises:
        OutputError: see :func:`resolve_target`; or the file exists and t2gen
            did not write it, without ``force``.
    """
    target, status = resolve_target(path, directory=False, inputs=inputs)
    if status is not None and not force and not _starts_with(target, marker):
        raise OutputError(
            f"{path}: exists and t2gen did not write it (it does not start as t2gen's "
            "do); t2gen refuses rather than lose it: give another file name, or pass "
            "--force to replace it"
        )
    return target


def _starts_with(target: Path, marker: bytes) -> bool:
    """Whether the regular file ``target`` is empty or starts with ``marker`` (read without following links)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(target, flags)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return False
        head = os.read(descriptor, len(marker))
    except OSError:
        return False
    finally:
        os.close(descriptor)
    return head == b"" or head == marker


def write_file(
    path: Path,
    text: str,
    *,
    marker: str,
    force: bool = False,
    inputs: Sequence[str] = (),
) -> None:
    """Write ``text`` to ``path`` in one step, by the rule of this module.

    Args:
        path: the file as the user named it.
        text: the whole content; written as UTF-8 with LF line ends.
        marker: how every file this writer makes starts (its first line, or
            part of it): an existing file is replaced only when it starts so.
        force: replace a regular file whatever it holds (never a device,
            FIFO, socket or dangling link).
        inputs: the paths the command reads, never replaced (:func:`refuse_own_ground`).

    Raises:
        OutputError: the target may not be replaced (see the module's rule),
            or a write, ``fsync``, close or rename failed; the target is then
            unchanged and no temporary file is left.
    """
    target, status = resolve_target(path, directory=False, inputs=inputs)
    if status is not None and not force and not _starts_with(target, marker.encode()):
        raise OutputError(
            f"{path}: exists and t2gen did not write it (it does not start with "
            f"{marker.splitlines()[0]!r}); t2gen refuses rather than lose it: give another "
            "file name, or pass --force to replace it"
        )
    mode = stat.S_IMODE(status.st_mode) if status is not None else 0o666 & ~_umask()
    import tempfile

    data = text.encode("utf-8")
    try:
        descriptor, temporary = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=".t2gen-tmp", dir=target.parent
        )
    except OSError as err:
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
    try:
        try:
            from t2gen.output import write_all

            write_all(lambda chunk: os.write(descriptor, chunk), data)
            os.fchmod(descriptor, mode)
            os.fsync(descriptor)
        finally:
            os.close(descriptor)  # a deferred write error is reported here
        Path(temporary).replace(target)
    except OSError as err:
        Path(temporary).unlink(missing_ok=True)
        raise OutputError(f"{path}: cannot write: {err.strerror or err}") from None
    _sync_directory(target.parent)


def _umask() -> int:
    """The process's umask (read by setting and restoring it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _sync_directory(directory: Path) -> None:
    """Flush a directory's entries (the rename) to disk; a file system that cannot is no error."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)
