"""The package file: the same bytes whatever the clock, time zone, umask or input times; whole or nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from t2gen.errors import ConfigError
from t2gen.package.write import Member, write_package
from tests.package.cases import ROOT, jar_bytes


def _package(tmp: Path, out: str, *, tz: str, umask: int) -> bytes:
    script = (
        f"import os, sys; os.umask({umask}); "
        "from t2gen.cli.app import main; sys.argv = ['t2gen'] + sys.argv[1:]; main()"
    )
    subprocess.run(
        [
            sys.executable,
            "-c",
            script,
            "package",
            str(ROOT / "examples" / "wordcount.yaml"),
            "--jar",
            str(tmp / "user.jar"),
            "--output-file",
            out,
        ],
        cwd=tmp,
        env={**os.environ, "TZ": tz},
        check=True,
        capture_output=True,
    )
    return (tmp / out).read_bytes()


def test_same_bytes_whatever_the_time_zone_umask_and_input_times(
    tmp_path: Path,
) -> None:
    jar = tmp_path / "user.jar"
    jar.write_bytes(jar_bytes())
    os.utime(jar, (1_000_000_000, 1_000_000_000))
    first = _package(tmp_path, "a.tar.gz", tz="UTC", umask=0o022)
    os.utime(jar, (1_700_000_000, 1_700_000_000))
    second = _package(tmp_path, "b.tar.gz", tz="Pacific/Kiritimati", umask=0o077)
    assert first == second
    assert first[4:8] == b"\0\0\0\0"  # gzip MTIME: none
    assert first[3] & 0x08 == 0  # gzip FNAME: no file name
    with tarfile.open(tmp_path / "a.tar.gz") as tar:
        names = tar.getnames()
        assert names == sorted(names)
        assert {(m.mtime, m.uid, m.gid, m.uname, m.mode) for m in tar} == {
            (315532800, 0, 0, "", 0o644)
        }


def test_an_error_leaves_nothing_behind(tmp_path: Path) -> None:
    out = tmp_path / "job.tar.gz"
    missing = Member("gone.jar", source=str(tmp_path / "gone.jar"))
    with pytest.raises(ConfigError, match=r"gone\.jar.*cannot read"):
        write_package(str(out), [Member("a.job", data=b"x"), missing])
    assert list(tmp_path.iterdir()) == []


def test_a_jar_that_shrinks_while_read_fails_whole(tmp_path: Path) -> None:
    class Shrinking(Member):
        pass

    jar = tmp_path / "user.jar"
    jar.write_bytes(b"x" * 10)
    out = tmp_path / "job.tar.gz"
    real_fstat = os.fstat

    def lying_fstat(fd: int) -> os.stat_result:
        result = real_fstat(fd)
        return os.stat_result((*result[:6], 20, *result[7:]))  # claims 20 bytes

    import t2gen.package.write as write

    write.os.fstat = lying_fstat  # type: ignore[assignment]
    try:
        with pytest.raises(ConfigError, match="ended 10 bytes early"):
            write_package(str(out), [Shrinking("user.jar", source=str(jar))])
    finally:
        write.os.fstat = real_fstat
    assert sorted(p.name for p in tmp_path.iterdir()) == ["user.jar"]


def test_never_over_an_input(tmp_path: Path) -> None:
    jar = tmp_path / "user.jar"
    jar.write_bytes(b"jar")
    with pytest.raises(ConfigError, match="is the input"):
        write_package(
            str(jar), [Member("user.jar", source=str(jar))], inputs=[str(jar)]
        )
    assert jar.read_bytes() == b"jar"


def test_never_replaces_a_symlink_fifo_or_directory(tmp_path: Path) -> None:
    target = tmp_path / "precious"
    target.write_bytes(b"keep")
    link = tmp_path / "link.tar.gz"
    link.symlink_to(target)
    fifo = tmp_path / "fifo.tar.gz"
    os.mkfifo(fifo)
    for out, message in (
        (link, "symbolic link"),
        (fifo, "not a regular file"),
        (tmp_path, "not a regular file"),
    ):
        with pytest.raises(ConfigError, match=message):
            write_package(str(out), [Member("a.job", data=b"x")])
    assert target.read_bytes() == b"keep"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fifo.tar.gz",
        "link.tar.gz",
        "precious",
    ]


def test_replaces_its_own_earlier_package(tmp_path: Path) -> None:
    out = tmp_path / "job.tar.gz"
    write_package(str(out), [Member("a.job", data=b"1")])
    size = write_package(str(out), [Member("a.job", data=b"22")]).size
    assert out.stat().st_size == size
    with tarfile.open(out) as tar:
        assert tar.extractfile("twister2-job/a.job").read() == b"22"  # type: ignore[union-attr]
