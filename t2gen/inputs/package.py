"""Read a job package, t2gen's or ``twister2 submit``'s, within bounds: ``render|validate|plan --package``.

A package is untrusted input (docs/untrusted-input.md): it is read as a
stream, never unpacked, and refused with a clear error when it is larger than
:data:`MAX_PACKAGE_BYTES`, has more than :data:`MAX_MEMBERS` members or more
than :data:`MAX_UNPACKED_BYTES` unpacked (a gzip bomb stops there, and a
member whose header claims more is refused before a byte of it is read), a
member outside ``twister2-job/`` (absolute, ``..``), a link or device, a
truncated or corrupt gzip stream, or a ``.job`` that is not a
``tws.proto.job.Job``. It is read to its last byte, as ``tar -xf`` in the pod
reads it (DSC-SPIDAL/twister2
``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:49,89``): the
gzip member's CRC-32 and length (RFC 1952, 2.3.1) are checked, nothing may
follow it (``gzip -d`` would unpack a second member as more of the same tar),
and the tar must end with its end-of-archive blocks, all zeros to the end
(POSIX ``pax``, ustar Interchange Format: "two consecutive 512-byte blocks
of zero bytes"). Only the ``.job`` (at most :data:`MAX_JOB_BYTES`) and
the configuration files (at most :data:`MAX_CONF_BYTES` each) are kept in
memory; the jar is only counted.
"""

from __future__ import annotations

import posixpath
import tarfile
import zlib
from pathlib import Path
from typing import Any, BinaryIO

from t2gen.errors import ConfigError
from t2gen.record import Record

__all__ = [
    "MAX_CONF_BYTES",
    "MAX_JOB_BYTES",
    "MAX_MEMBERS",
    "MAX_PACKAGE_BYTES",
    "MAX_UNPACKED_BYTES",
    "PackageContents",
    "read_package",
    "tmpfs_bytes",
]

MAX_PACKAGE_BYTES = 2 * 2**30
"""The largest package read: 2 GiB, four times ``jobPackage.maxSize``'s default."""
MAX_UNPACKED_BYTES = 4 * 2**30
"""The most bytes its members may hold, together."""
MAX_MEMBERS = 10_000
"""Members: Twister2's packages hold a dozen."""
MAX_JOB_BYTES = 16 * 2**20
"""The ``.job`` message: a few hundred bytes plus the job configuration."""
MAX_CONF_BYTES = 2**20
"""Each configuration file, as ``t2gen import`` reads them."""
_PAGE = 4096
_CHUNK = 1 << 20
_END_BLOCKS = 1024
"""The tar's end-of-archive: two 512-byte blocks of zeros (POSIX ``pax``, ustar format)."""
_MAX_END = 1 << 20
"""The most zeros read after the last member: tar pads to its record size, 10,240 bytes by default."""
_TAIL = 1 << 16
"""What :class:`_Gunzip` keeps of what it gave ``tarfile``: more than ``tarfile`` reads ahead (10,240 bytes)."""
_WHOLE = "rebuild it with t2gen package, or copy it again if the copy was cut short"


class PackageContents(Record):
    """What ``--package`` needs of a package.

    Attributes:
        path: the package file as named.
        packed_bytes: its size.
        unpacked_bytes: its members' sizes, each rounded up to a 4 KiB page (tmpfs).
        members: every member's name, in archive order.
        job_files: ``(name, bytes)`` of each ``twister2-job/*.job``.
        conf: ``{"common/core.yaml": bytes, ...}`` of ``twister2-job/{common,kubernetes}/``.
    """

    path: str
    packed_bytes: int
    unpacked_bytes: int
    members: tuple[str, ...]
    job_files: tuple[tuple[str, bytes], ...]
    conf: tuple[tuple[str, bytes], ...]

    def conf_file(self, name: str) -> bytes | None:
        """The bytes of ``common/<file>`` or ``kubernetes/<file>``, or None."""
        return dict(self.conf).get(name)


def tmpfs_bytes(size: int) -> int:
    """What a file of ``size`` bytes takes in a memory-backed emptyDir: whole 4 KiB pages."""
    return -(-size // _PAGE) * _PAGE


def _fail(path: str, message: str) -> ConfigError:
    return ConfigError(path=path, message=message)


def _check_member(path: str, info: tarfile.TarInfo) -> str | None:
    """The member's name under ``twister2-job/`` if it is a safe regular file; None for a directory."""
    name = info.name
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or "\\" in name or "\x00" in name:
        raise _fail(
            path,
            f"member {name!r} would be unpacked outside the pod's memory volume "
            "(an absolute name or ..): refusing the package",
        )
    if info.islnk() or info.issym():
        raise _fail(
            path,
            f"member {name!r} is a link (to {info.linkname!r}): a job package holds regular files only",
        )
    if info.isdir():
        return None
    if not info.isreg():
        raise _fail(
            path,
            f"member {name!r} is a device, FIFO or other special file: refusing the package",
        )
    clean = posixpath.normpath(name)
    if not clean.startswith("twister2-job/"):
        raise _fail(
            path,
            f"member {name!r} is outside twister2-job/, where Twister2 packs every file "
            "(Context.JOB_ARCHIVE_DIRECTORY)",
        )
    return clean


def _read_all(tar: Any, info: tarfile.TarInfo, limit: int, path: str) -> bytes:
    if info.size > limit:
        raise _fail(
            path, f"member {info.name!r} is {info.size} bytes; at most {limit} are read"
        )
    stream = tar.extractfile(info)
    assert stream is not None
    return bytes(stream.read())


class _Gunzip:
    """The package's one gzip member, inflated as ``tarfile`` reads it, within a bound.

    ``zlib`` in gzip mode (``wbits=31``) checks the member's CRC-32 and length
    when it reaches the trailer (RFC 1952, 2.3.1); a file that ends before the
    trailer is cut short, and a byte after it (a second gzip member, which
    ``gzip -d`` and so ``tar -xf`` would also unpack, or other data) is refused.
    The last :data:`_TAIL` bytes given out are kept, so the end of the tar can
    be checked after ``tarfile`` stops reading (:func:`_check_end`).
    """

    def __init__(self, file: BinaryIO, path: str, limit: int) -> None:
        self._file = file
        self._path = path
        self._limit = limit
        self._inflate = zlib.decompressobj(wbits=31)
        self._pending = bytearray()
        self._inflated = 0
        self.given = 0
        """Bytes given out so far."""
        self.tail = bytearray()
        """The last :data:`_TAIL` bytes given out."""

    def _fill(self, want: int) -> None:
        while len(self._pending) < want and not self._inflate.eof:
            data = self._inflate.unconsumed_tail or self._file.read(_CHUNK)
            if not data:
                raise _fail(
                    self._path,
                    "not a whole gzip-compressed tar file: it ends before its gzip stream "
                    f"does (cut short): {_WHOLE}",
                )
            try:
                out = self._inflate.decompress(data, _CHUNK)
            except zlib.error as err:
                what = (
                    "its gzip CRC-32 or length does not match its data (corrupt)"
                    if "check" in str(err)
                    else f"not gzip data ({err})"
                )
                raise _fail(
                    self._path,
                    f"not a whole gzip-compressed tar file: {what}: {_WHOLE}",
                ) from None
            self._inflated += len(out)
            if self._inflated > self._limit:
                raise _fail(
                    self._path,
                    f"more than {self._limit} bytes unpacked (a gzip bomb?): refusing the package",
                )
            self._pending += out
            if self._inflate.eof and (self._inflate.unused_data or self._file.read(1)):
                raise _fail(
                    self._path,
                    "not a whole gzip-compressed tar file: bytes follow after the gzip stream "
                    "(a second gzip member, which tar -xf in the pod would also unpack, or "
                    "other data); a job package is one gzip member: rebuild it with t2gen package",
                )

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` inflated bytes (all the rest for a negative size); b"" at the end."""
        self._fill(size if size >= 0 else self._limit + 1)
        count = len(self._pending) if size < 0 else min(size, len(self._pending))
        out = bytes(self._pending[:count])
        del self._pending[:count]
        self.given += count
        self.tail += out
        if len(self.tail) > _TAIL:
            del self.tail[: len(self.tail) - _TAIL]
        return out


def _check_end(stream: _Gunzip, offset: int, path: str) -> None:
    """Everything after the last member (``offset``) is the end-of-archive: zeros, at least two blocks.

    ``tarfile`` ends its walk quietly at a zero block, a damaged header or the
    end of the data; only the end-of-archive is a whole tar.
    """
    behind = stream.given - offset
    end = bytes(stream.tail[len(stream.tail) - behind :]) if behind > 0 else b""
    while len(end) <= _MAX_END:
        chunk = stream.read(_CHUNK)
        if not chunk:
            break
        end += chunk
    if end.strip(b"\0") or len(end) > _MAX_END:
        raise _fail(
            path,
            "not a whole gzip-compressed tar file: it holds data after its last member that "
            f"is neither a member nor the end-of-archive (a damaged header?): {_WHOLE}",
        )
    if len(end) < _END_BLOCKS:
        raise _fail(
            path,
            "not a whole gzip-compressed tar file: the tar ends without its end-of-archive "
            f"blocks (cut short): {_WHOLE}",
        )


def _skip(tar: Any, info: tarfile.TarInfo) -> None:
    """Read a member through (to find a truncated stream) without keeping it."""
    stream = tar.extractfile(info)
    assert stream is not None
    while stream.read(_CHUNK):
        pass


def read_package(path: str) -> PackageContents:
    """Read a job package within the bounds of this module.

    Args:
        path: a ``.tar.gz`` file.

    Returns:
        Its sizes, member names, ``.job`` files and configuration files.

    Raises:
        ConfigError: unreadable, too large, not gzip-compressed tar, truncated,
            or a member that breaks a bound (the message says which).
    """
    file = Path(path)
    try:
        packed = file.stat().st_size
        if not file.is_file():
            raise _fail(path, "not a regular file: give the package's .tar.gz file")
    except OSError as err:
        raise _fail(path, f"cannot read the job package: {err.strerror}") from None
    if packed > MAX_PACKAGE_BYTES:
        raise _fail(
            path,
            f"{packed} bytes; a job package is read up to {MAX_PACKAGE_BYTES} bytes",
        )
    members: list[str] = []
    jobs: list[tuple[str, bytes]] = []
    conf: list[tuple[str, bytes]] = []
    unpacked = 0
    try:
        with file.open("rb") as raw:
            # the member headers and the end-of-archive come on top of the members' bytes
            bound = MAX_UNPACKED_BYTES + MAX_MEMBERS * 3 * 512 + _MAX_END
            stream = _Gunzip(raw, path, bound)
            with tarfile.open(fileobj=stream, mode="r|") as tar:  # type: ignore[call-overload]
                for info in tar:
                    if len(members) >= MAX_MEMBERS:
                        raise _fail(
                            path,
                            f"more than {MAX_MEMBERS} members: refusing the package",
                        )
                    members.append(info.name)
                    name = _check_member(path, info)
                    if name is None:
                        continue
                    unpacked += tmpfs_bytes(info.size)
                    if unpacked > MAX_UNPACKED_BYTES or info.size > MAX_UNPACKED_BYTES:
                        raise _fail(
                            path,
                            f"member {info.name!r} brings the unpacked size over {MAX_UNPACKED_BYTES} "
                            "bytes (a gzip bomb?): refusing the package",
                        )
                    inner = name[len("twister2-job/") :]
                    directory, _, leaf = inner.rpartition("/")
                    if directory == "" and leaf.endswith(".job"):
                        jobs.append((leaf, _read_all(tar, info, MAX_JOB_BYTES, path)))
                    elif directory in ("common", "kubernetes"):
                        conf.append((inner, _read_all(tar, info, MAX_CONF_BYTES, path)))
                    else:
                        _skip(tar, info)
                offset = tar.offset
            _check_end(stream, offset, path)
    except ConfigError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
        raise _fail(
            path,
            f"not a whole gzip-compressed tar file ({err}): rebuild it with t2gen package, "
            "or copy it again if the copy was cut short",
        ) from None
    return PackageContents(
        path, packed, unpacked, tuple(members), tuple(jobs), tuple(conf)
    )
