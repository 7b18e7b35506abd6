"""Read a job package, t2gen's or ``twister2 submit``'s, within bounds: ``render|validate|plan --package``.

A package is untrusted input (docs/untrusted-input.md): it is read as a
stream, never unpacked, and refused with a clear error when it is larger than
:data:`MAX_PACKAGE_BYTES`, has more than :data:`MAX_MEMBERS` members or more
than :data:`MAX_UNPACKED_BYTES` unpacked (a gzip bomb stops there, and a
member whose header claims more is refused before a byte of it is read), a
member outside ``twister2-job/`` (absolute, ``..``), a link or device, a
truncated or corrupt gzip stream, or a ``.job`` that is not a
``tws.proto.job.Job``. Only the ``.job`` (at most :data:`MAX_JOB_BYTES`) and
the configuration files (at most :data:`MAX_CONF_BYTES` each) are kept in
memory; the jar is only counted.
"""

from __future__ import annotations

import posixpath
import tarfile
import zlib
from pathlib import Path
from typing import Any

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
        with tarfile.open(path, mode="r|gz") as tar:
            for info in tar:
                if len(members) >= MAX_MEMBERS:
                    raise _fail(
                        path, f"more than {MAX_MEMBERS} members: refusing the package"
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
