"""Write ``<job>.tar.gz``: reproducible bytes, the jar streamed, the file whole or not at all.

The layout is ``ResourceAllocator.prepareJobFiles``'s (DSC-SPIDAL/twister2 at
c6844d2, ``twister2/resource-scheduler/src/java/edu/iu/dsc/tws/rsched/core/ResourceAllocator.java:184-246``,
``rsched/utils/TarGzipPacker.java:173-250``): every member under
``twister2-job/`` (``Context.JOB_ARCHIVE_DIRECTORY``), no directory entries,
gzip-compressed tar, which the image's ``get_job_package.sh`` unpacks with
``tar -xf`` into the memory volume (``docker/kubernetes/image/rootfs/twister2/get_job_package.sh:49,89``).

Unlike Twister2's packer, t2gen writes the same bytes for the same input
whatever the clock, time zone, umask, user or the inputs' own times: members
sorted by name, modification time :data:`MTIME`, owner 0:0 with no names,
mode 0644, POSIX (pax) tar, and a gzip header with no time and no file name.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import os
import stat
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import BinaryIO

from t2gen.errors import ConfigError
from t2gen.record import Record

__all__ = [
    "ARCHIVE_DIRECTORY",
    "GZIP_HEADER",
    "MTIME",
    "Member",
    "Written",
    "write_package",
]

ARCHIVE_DIRECTORY = "twister2-job"
"""The directory every member is in (``Context.java:81``)."""
GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00"
"""How every package t2gen writes starts: gzip, deflate, no flags (no file name), time 0
(RFC 1952, 2.3); ``package --output-file`` replaces only a file that starts so."""
MTIME = 315532800
"""Every member's modification time: 1980-01-01T00:00:00Z, fixed (as ZIP's epoch), never the clock's."""
COMPRESS_LEVEL = 6
"""gzip's and ``tar -czf``'s default level."""
_CHUNK = 1 << 20


class Member(Record):
    """One file of the package: its name under ``twister2-job/`` and its bytes, or a file to stream."""

    name: str
    data: bytes | None = None
    source: str | None = None


class Written(Record):
    """A package as written: its size in bytes and the SHA-256 (hex) of those bytes."""

    size: int
    sha256: str


class _Hashed:
    """The package file, hashed as it is written: every byte goes to the file and to SHA-256.

    The digest is of the bytes handed to the file, so the package is not read
    back to hash it (one pass over the output instead of two); a short write
    raises ``OSError``.
    """

    def __init__(self, out: BinaryIO) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes | bytearray | memoryview) -> int:
        view = memoryview(data).cast("B")
        self.digest.update(view)
        if self.out.write(view) != len(view):
            raise OSError(f"short write of {len(view)} bytes")
        self.size += len(view)
        return len(view)

    def flush(self) -> None:
        self.out.flush()


def _info(name: str, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(f"{ARCHIVE_DIRECTORY}/{name}")
    info.size = size
    info.mtime = MTIME
    info.mode = 0o644
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    info.type = tarfile.REGTYPE
    return info


def _write_members(out: _Hashed, members: Sequence[Member]) -> None:
    with (
        gzip.GzipFile(
            filename="", mode="wb", fileobj=out, mtime=0, compresslevel=COMPRESS_LEVEL
        ) as zipped,
        tarfile.open(
            fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT, encoding="utf-8"
        ) as tar,
    ):
        for member in sorted(members, key=lambda m: m.name):
            if member.data is not None:
                tar.addfile(
                    _info(member.name, len(member.data)), io.BytesIO(member.data)
                )
                continue
            assert member.source is not None
            try:
                stream = Path(member.source).open("rb")  # noqa: SIM115 - closed below
            except OSError as err:
                raise ConfigError(
                    path=member.source, message=f"cannot read: {err.strerror}"
                ) from None
            with stream:
                size = os.fstat(stream.fileno()).st_size
                try:
                    tar.addfile(_info(member.name, size), _Exact(stream, size))
                except OSError as err:
                    raise ConfigError(
                        path=member.source,
                        message=f"{err}; was it written while t2gen read it?",
                    ) from None


class _Exact(io.RawIOBase):
    """A file read in chunks that must give exactly ``size`` bytes (it may change while read)."""

    def __init__(self, stream: BinaryIO, size: int) -> None:
        self.stream = stream
        self.left = size

    def readable(self) -> bool:
        return True

    def read(self, n: int = -1) -> bytes:
        want = self.left if n < 0 else min(n, self.left, _CHUNK)
        data = self.stream.read(want)
        if len(data) < want:
            raise OSError(f"ended {self.left - len(data)} bytes early")
        self.left -= len(data)
        return data


def _refuse_target(output: Path, inputs: Sequence[str]) -> None:
    """Refuse an output that is not a regular file, or that is one of the inputs."""
    try:
        target = output.lstat()
    except FileNotFoundError:
        return
    if not stat.S_ISREG(target.st_mode):
        kind = (
            "a symbolic link" if stat.S_ISLNK(target.st_mode) else "not a regular file"
        )
        raise ConfigError(
            path=str(output),
            message=f"{kind}; t2gen replaces only a regular file: give another --output-file",
        )
    for source in inputs:
        with contextlib.suppress(OSError):
            if output.samefile(source):
                raise ConfigError(
                    path=str(output),
                    message=f"is the input {source}; give an --output-file that is none of the inputs",
                )


def write_package(
    output: str, members: Sequence[Member], *, inputs: Sequence[str] = ()
) -> Written:
    """Write the package to ``output`` in one step: a temporary file beside it, renamed over it.

    Args:
        output: the package file to write; an existing regular file is replaced.
        members: the files, each named relative to ``twister2-job/``.
        inputs: the files read (jar, job file, configuration), none of which
            may be ``output``.

    Returns:
        The package's size in bytes and its SHA-256, hashed as written (the
        file is not read back).

    Raises:
        ConfigError: ``output`` is an input, a symbolic link, a directory, a
            device or FIFO, its directory is missing, or a read or write
            failed; nothing is left behind.
    """
    path = Path(output)
    _refuse_target(path, inputs)
    folder = path.parent
    try:
        handle, temp = tempfile.mkstemp(
            dir=folder, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as err:
        raise ConfigError(
            path=output, message=f"cannot write here: {err.strerror}"
        ) from None
    try:
        with os.fdopen(handle, "wb") as out:
            hashed = _Hashed(out)
            _write_members(hashed, members)
            out.flush()
            os.fsync(out.fileno())
            size = out.tell()
        if size != hashed.size:  # every byte written was hashed, and nothing else
            raise OSError(f"wrote {size} bytes but hashed {hashed.size}")
        mask = os.umask(0)
        os.umask(mask)
        Path(temp).chmod(0o666 & ~mask)
        _refuse_target(path, inputs)  # again: it may have appeared meanwhile
        Path(temp).replace(path)
    except BaseException as err:
        Path(temp).unlink(missing_ok=True)
        if isinstance(err, OSError):
            raise ConfigError(path=output, message=str(err.strerror or err)) from None
        raise
    return Written(size, hashed.digest.hexdigest())
