"""Reading a package is bounded: a hostile package gets a clear error, never a traceback, in bounded time and memory."""

from __future__ import annotations

import gzip
import io
import resource
import tarfile
import time
from pathlib import Path

import pytest

import t2gen.inputs.package as read
from t2gen.errors import ConfigError, SchemaError
from t2gen.inputs.jobfile import read_job
from t2gen.inputs.package import read_package
from t2gen.package.agree import with_package
from t2gen.pipeline.load import validate
from tests.package.cases import ROOT, build_case, jar_bytes


def _tar(path: Path, members: list[tarfile.TarInfo | tuple[str, bytes]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for member in members:
            if isinstance(member, tarfile.TarInfo):
                tar.addfile(member)
            else:
                name, data = member
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return path


def _link(name: str, kind: bytes, target: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = target
    return info


def _device(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.CHRTYPE
    return info


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _huge_header(path: Path) -> Path:
    """A member whose header claims 2 GB, with 1 KiB of data behind it."""
    info = tarfile.TarInfo("twister2-job/big.jar")
    info.size = 2 * 10**9
    header = info.tobuf(tarfile.PAX_FORMAT)
    path.write_bytes(gzip.compress(header + b"\0" * 1024, mtime=0))
    return path


HOSTILE = {
    "absolute": (lambda p: _tar(p, [("/etc/passwd", b"x")]), "absolute name or \\.\\."),
    "traversal": (
        lambda p: _tar(p, [("twister2-job/../../x", b"x")]),
        "absolute name or \\.\\.",
    ),
    "symlink": (
        lambda p: _tar(
            p, [_link("twister2-job/a.jar", tarfile.SYMTYPE, "/etc/shadow")]
        ),
        "is a link",
    ),
    "hardlink": (
        lambda p: _tar(
            p, [_link("twister2-job/a.jar", tarfile.LNKTYPE, "twister2-job/b")]
        ),
        "is a link",
    ),
    "device": (lambda p: _tar(p, [_device("twister2-job/tty")]), "device, FIFO"),
    "outside": (lambda p: _tar(p, [("other/x.job", b"x")]), "outside twister2-job/"),
    "truncated": (
        lambda p: _write(
            p, _tar(p, [("twister2-job/a.jar", jar_bytes())]).read_bytes()[:30000]
        ),
        "not a whole gzip-compressed tar",
    ),
    "not-gzip": (
        lambda p: _write(p, b"PK\x03\x04 a zip file"),
        "not a whole gzip-compressed tar",
    ),
    "two-gb-header": (_huge_header, "not a whole gzip-compressed tar"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_package_refused(case: str, tmp_path: Path) -> None:
    make, message = HOSTILE[case]
    package = make(tmp_path / f"{case}.tar.gz")
    with pytest.raises(ConfigError, match=message):
        read_package(str(package))


def test_gzip_bomb_stops_at_the_unpacked_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 MiB of zeros packs into 64 KiB; with the cap at 8 MiB reading stops there."""
    monkeypatch.setattr(read, "MAX_UNPACKED_BYTES", 8 * 2**20)
    path = tmp_path / "bomb.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        for i in range(8):
            info = tarfile.TarInfo(f"twister2-job/zeros-{i}")
            info.size = 8 * 2**20
            tar.addfile(info, io.BytesIO(bytes(info.size)))
    assert path.stat().st_size < 2**20
    start = time.process_time()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(ConfigError, match="gzip bomb"):
        read_package(str(path))
    assert time.process_time() - start < 5
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss < 64 * 1024  # KiB


def test_member_count_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "MAX_MEMBERS", 10)
    package = _tar(
        tmp_path / "many.tar.gz", [(f"twister2-job/f{i}", b"") for i in range(11)]
    )
    with pytest.raises(ConfigError, match="more than 10 members"):
        read_package(str(package))


def test_package_size_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(read, "MAX_PACKAGE_BYTES", 100)
    package = _tar(tmp_path / "p.tar.gz", [("twister2-job/a.jar", bytes(1000))])
    with pytest.raises(ConfigError, match="read up to 100 bytes"):
        read_package(str(package))


def test_job_description_that_is_not_protobuf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    package = _tar(
        tmp_path / "junk.tar.gz",
        [
            ("twister2-job/wordcount.job", b"\xff\xff\xff\xff not protobuf"),
            ("twister2-job/wordcount.jar", b""),
        ],
    )
    doc = read_job("examples/wordcount.yaml")
    with pytest.raises(SchemaError) as err:
        with_package([(validate(doc), doc)], str(package))
    (problem,) = err.value.problems
    assert "is not a Twister2 job description (tws.proto.job.Job)" in problem.message


def test_own_package_reads_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    _, built = build_case("wordcount", tmp_path)
    contents = read_package(built.path)
    assert contents.packed_bytes == built.size
    assert [name for name, _ in contents.job_files] == ["wordcount.job"]
    assert "kubernetes/resource.yaml" in dict(contents.conf)


def _whole(path: Path) -> bytes:
    """A small, whole package (gzip member of a tar with a jar and a ``.job``)."""
    return _tar(
        path,
        [("twister2-job/a.job", b"\x0a\x01a"), ("twister2-job/a.jar", jar_bytes())],
    ).read_bytes()


@pytest.mark.parametrize("cut", [1, 4, 8, 9, 20, 26, 27, 40])
def test_a_package_cut_short_by_its_last_bytes_is_refused(
    cut: int, tmp_path: Path
) -> None:
    """The gzip trailer (CRC-32 and length, 8 bytes) and the tar's end-of-archive
    blocks are read too: a copy cut short anywhere is refused as cut short."""
    whole = _whole(tmp_path / "whole.tar.gz")
    path = _write(tmp_path / "cut.tar.gz", whole[:-cut])
    with pytest.raises(ConfigError, match="cut short"):
        read_package(str(path))


def test_a_package_cut_at_every_length_is_refused_never_read(tmp_path: Path) -> None:
    """However a copy is cut, it is refused as not whole: never read as a package
    with fewer members (which --package would report as one missing its .job)."""
    whole = _whole(tmp_path / "whole.tar.gz")
    for length in range(0, len(whole), max(1, len(whole) // 97)):
        path = _write(tmp_path / "cut.tar.gz", whole[:length])
        with pytest.raises(ConfigError, match="not a whole gzip-compressed tar"):
            read_package(str(path))
    read_package(str(_write(tmp_path / "ok.tar.gz", whole)))


def test_a_bad_gzip_crc_is_refused(tmp_path: Path) -> None:
    whole = bytearray(_whole(tmp_path / "whole.tar.gz"))
    whole[-8] ^= 0xFF  # the CRC-32 of the gzip trailer (RFC 1952, 2.3)
    path = _write(tmp_path / "crc.tar.gz", bytes(whole))
    with pytest.raises(ConfigError, match="CRC-32"):
        read_package(str(path))


def _tar_bytes(
    members: list[tarfile.TarInfo | tuple[str, bytes]], *, end: bool
) -> bytes:
    """A plain tar of ``members``; without its end-of-archive blocks unless ``end``."""
    out = io.BytesIO()
    for member in members:
        if isinstance(member, tarfile.TarInfo):
            out.write(member.tobuf(tarfile.PAX_FORMAT))
        else:
            name, data = member
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.write(info.tobuf(tarfile.PAX_FORMAT))
            out.write(data + b"\0" * (-len(data) % 512))
    if end:
        out.write(b"\0" * 10240)
    return out.getvalue()


SECOND_MEMBERS = {
    # tar -xf, through gzip -d, unpacks a second gzip member as more of the same tar
    "symlink": gzip.compress(
        _tar_bytes([_link("twister2-job/common", tarfile.SYMTYPE, "/etc")], end=True),
        mtime=0,
    ),
    "big": gzip.compress(
        _tar_bytes([("twister2-job/big.bin", bytes(2**20))], end=True), mtime=0
    ),
    "garbage": b"trailing bytes",
}


@pytest.mark.parametrize("second", sorted(SECOND_MEMBERS))
def test_anything_after_the_first_gzip_member_is_refused(
    second: str, tmp_path: Path
) -> None:
    first = gzip.compress(
        _tar_bytes([("twister2-job/a.job", b"\x0a\x01a")], end=False), mtime=0
    )
    path = _write(tmp_path / "two.tar.gz", first + SECOND_MEMBERS[second])
    with pytest.raises(ConfigError, match="after the gzip stream"):
        read_package(str(path))


def test_data_after_the_tars_end_is_refused(tmp_path: Path) -> None:
    """A member after the end-of-archive blocks, or a damaged header, is no silent end."""
    tar = _tar_bytes([("twister2-job/a.job", b"\x0a\x01a")], end=False)
    extra = _tar_bytes([("twister2-job/b.bin", b"x")], end=True)
    for data in (tar + bytes(1024) + extra, tar + b"\x01" * 512 + bytes(1024)):
        path = _write(tmp_path / "after.tar.gz", gzip.compress(data, mtime=0))
        with pytest.raises(ConfigError, match="after its last member"):
            read_package(str(path))
