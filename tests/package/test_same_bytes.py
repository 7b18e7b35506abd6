"""The package's bytes did not change when packaging got faster (issue 41).

``t2gen package`` hashes the package as it writes it (no read-back) and runs
without Typer for its plain command lines; the bytes a user pins in
``jobPackage.source.sha256`` must stay what they were. Two proofs:

* the SHA-256 of every golden case's package, with a 64 KiB and a 3 MiB jar, as
  ``main`` at a2aa9d9 (before the change) wrote them with zlib 1.2.13, pinned;
  another zlib may compress differently (tests/package/test_golden_packages.py),
  so on another zlib these are compared with the next proof's writer instead;
* on any zlib, the writer against a copy of a2aa9d9's writer (``gzip.GzipFile``
  at level 6, no name, time 0, around a PAX ``tarfile``), byte for byte, for jars
  whose sizes cross tar's 512-byte blocks and the 1 MiB read chunks, compressible
  and not; and the digest ``t2gen package`` prints is the file's.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import subprocess
import sys
import tarfile
import zlib
from collections.abc import Sequence
from pathlib import Path

import pytest

import tests.package.cases as cases
from t2gen.package.write import ARCHIVE_DIRECTORY, MTIME, Member, write_package
from tests.package.cases import CASES, ROOT, build_case, jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"

PINNED_ZLIB = "1.2.13"
"""The zlib the digests below were written with (``zlib.ZLIB_RUNTIME_VERSION``)."""
PINNED: dict[tuple[str, int], str] = {
    (
        "elastic",
        65536,
    ): "882eccef6d7c55ec872dc39df7355e24164646e6251fdfdb691f293a5ffc2024",
    (
        "isolated",
        65536,
    ): "ecdbb562e1d88c545bf898f288c2d0cba51bb4a45734bbef57cd821beb2b9a6b",
    (
        "openmpi",
        65536,
    ): "e452e8328f179e741c4311cbc399d3379efc9069bc455fdfb3b3d719c607bc8c",
    (
        "wordcount",
        65536,
    ): "6b57ec6187ae479621aa3d05104f80775e49da2b80a54c133e59edc765092c1a",
    (
        "elastic",
        3158073,
    ): "317c1332d1a906469f8eb7cd3e8768bb16e99c0c7a33bd8c096322d8509d6655",
    (
        "isolated",
        3158073,
    ): "7bc2f611dcfa50279d1deae3892a9fd6d3f2035642c222ec931b2ed2b135c28b",
    (
        "openmpi",
        3158073,
    ): "4266717923c76698607008d9e1bce350d08eebd2fdea2fe0471f73051abb53c8",
    (
        "wordcount",
        3158073,
    ): "17cb06ff5be1e476964ceaa07aeeeaba505aa22851196fbcf6548885bf8b30ff",
}
"""SHA-256 of each case's package with a jar of that many bytes, as a2aa9d9 wrote it."""


def _reference(out: Path, members: Sequence[Member]) -> bytes:
    """a2aa9d9's ``_write_members``, kept as it was: the bytes the writer must still give."""
    buffer = io.BytesIO()
    with (
        gzip.GzipFile(
            filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=6
        ) as zipped,
        tarfile.open(
            fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT, encoding="utf-8"
        ) as tar,
    ):
        for member in sorted(members, key=lambda m: m.name):
            data = (
                member.data
                if member.data is not None
                else Path(member.source or "").read_bytes()
            )
            info = tarfile.TarInfo(f"{ARCHIVE_DIRECTORY}/{member.name}")
            info.size = len(data)
            info.mtime = MTIME
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.type = tarfile.REGTYPE
            tar.addfile(info, io.BytesIO(data))
    out.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def _text(size: int) -> bytes:
    """Compressible bytes (class names, as a jar's directory has), varied so deflate has work."""
    lines = (
        f"edu/iu/dsc/tws/examples/batch/wordcount/tset/WordCount{n % 977}.class\n".encode()
        for n in range(size // 40 + 1)
    )
    return b"".join(lines)[:size]


@pytest.mark.parametrize(
    "size",
    [0, 1, 511, 512, 513, (1 << 20) - 1, 1 << 20, (1 << 20) + 1, 3 * (1 << 20) + 777],
)
@pytest.mark.parametrize("kind", ["noise", "text"])
def test_the_writer_gives_a2aa9d9s_bytes(tmp_path: Path, size: int, kind: str) -> None:
    jar = tmp_path / "user.jar"
    jar.write_bytes(os.urandom(size) if kind == "noise" else _text(size))
    members = [
        Member("wordcount.job", data=b"\n\x09wordcount"),
        Member("wordcount.jar", source=str(jar)),
        Member("common/logger.properties", data=b"handlers=x\n" * 50),
        Member("kubernetes/resource.yaml", data=b"kubernetes.namespace: default\n"),
    ]
    written = write_package(str(tmp_path / "new.tar.gz"), members, inputs=[str(jar)])
    expected = _reference(tmp_path / "old.tar.gz", members)
    data = (tmp_path / "new.tar.gz").read_bytes()
    assert data == expected
    assert written.size == len(data)
    assert written.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("size", sorted({size for _, size in PINNED}))
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_golden_package_keeps_its_digest(
    case: str, size: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(cases, "jar_bytes", lambda: jar_bytes(size))
    _, built = build_case(case, tmp_path)
    data = Path(built.path).read_bytes()
    assert built.sha256 == hashlib.sha256(data).hexdigest()
    assert built.size == len(data)
    if zlib.ZLIB_RUNTIME_VERSION == PINNED_ZLIB:
        assert built.sha256 == PINNED[(case, size)]
    else:  # another zlib: the same bytes as a2aa9d9's writer on this one
        with tarfile.open(built.path) as tar:
            members = [
                Member(
                    info.name.removeprefix(f"{ARCHIVE_DIRECTORY}/"),
                    data=tar.extractfile(info).read(),  # type: ignore[union-attr]
                )
                for info in tar
            ]
        assert data == _reference(tmp_path / "old.tar.gz", members)


@pytest.mark.parametrize("fast", [True, False], ids=["fast start", "Typer"])
def test_the_command_prints_the_digest_of_the_bytes_it_wrote(
    tmp_path: Path, fast: bool
) -> None:
    """Both ways through the console script write the same file and print its own SHA-256."""
    jar = tmp_path / "user.jar"
    jar.write_bytes(jar_bytes(3158073))
    env = {k: v for k, v in os.environ.items() if not k.startswith("T2GEN_NO_")}
    if not fast:
        env["T2GEN_NO_FAST_START"] = "1"
    argv = ["package", str(ROOT / "examples" / "wordcount.yaml"), "--jar", str(jar)]
    result = subprocess.run(
        [str(T2GEN), *argv, "--output-file", "out.tar.gz"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    assert result.returncode == 0, result.stderr
    data = (tmp_path / "out.tar.gz").read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    assert f"wrote out.tar.gz: {len(data)} bytes, sha256 {digest}\n" in result.stderr
    if zlib.ZLIB_RUNTIME_VERSION == PINNED_ZLIB:
        assert digest == PINNED[("wordcount", 3158073)]
