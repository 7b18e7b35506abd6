"""Every input's byte bound, in one table: measured while reading, a file and standard input alike.

One row per reader of ``t2gen/inputs/`` (and ``plan``'s typed node reader and
quota reader, whose bytes come through ``inputs.kubelist``). Each bound is set
to 8 KiB for the test (the real ones run to 2 GiB; docs/untrusted-input.md
lists them): a file one byte over it is refused, and standard input that never
ends is read no further than one byte past it.
"""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from t2gen.errors import T2genError
from t2gen.inputs import (
    cluster,
    jobfile,
    jobobject,
    kubelist,
    manifests,
    package,
    privatekey,
    resourcelist,
    twister2conf,
)
from t2gen.plan import quotaread, typedread

BOUND = 8 * 1024

# reader, the module whose constant is the bound, the constant's name, whether `-` reads stdin
READERS: dict[str, tuple[Callable[[str], Any], Any, str, bool]] = {
    "job file": (jobfile.read_job, jobfile, "MAX_JOB_FILE_BYTES", True),
    "Twister2 configuration": (
        twister2conf.read_conf_file,
        twister2conf,
        "MAX_CONF_FILE_BYTES",
        True,
    ),
    "node list": (typedread.read_nodes, kubelist, "MAX_LIST_BYTES", True),
    "pod list": (typedread.read_pods, kubelist, "MAX_LIST_BYTES", True),
    "quota file": (quotaread.read_quota, quotaread, "MAX_QUOTA_BYTES", True),
    "cluster file": (cluster.read_cluster, cluster, "MAX_CLUSTER_BYTES", True),
    "manifests": (
        lambda path: manifests.read_located_manifests([path]),
        manifests,
        "MAX_MANIFEST_BYTES",
        True,
    ),
    "job package": (package.read_package, package, "MAX_PACKAGE_BYTES", False),
    "ResourceList": (
        lambda path: resourcelist.read_resource_list(),
        resourcelist,
        "MAX_RESOURCE_LIST_BYTES",
        True,
    ),
    "job object": (jobobject.read_job_object, jobobject, "MAX_JOB_OBJECT_BYTES", True),
    "private key": (
        privatekey.read_private_key,
        privatekey,
        "MAX_PRIVATE_KEY_BYTES",
        True,
    ),
}


class _Endless(io.RawIOBase):
    """A stream that never ends; reading all of it (``read()``) is a bug."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        view[:] = b"#" * len(view)
        self.read_bytes += len(view)
        return len(view)


def _messages(err: T2genError) -> str:
    return "\n".join(err.lines())


@pytest.mark.parametrize("name", sorted(READERS))
def test_a_file_one_byte_over_the_bound_is_refused(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, module, constant, _ = READERS[name]
    monkeypatch.setattr(module, constant, BOUND)
    path = tmp_path / "input"
    path.write_bytes(b"#" * (BOUND + 1))
    if name == "ResourceList":  # it reads standard input only
        monkeypatch.setattr(
            sys, "stdin", io.TextIOWrapper(io.BytesIO(path.read_bytes()))
        )
    with pytest.raises(T2genError) as raised:
        reader(str(path))
    said = _messages(raised.value)
    assert "larger than 8 KiB" in said or f"{BOUND + 1} bytes" in said, said


@pytest.mark.parametrize("name", sorted(n for n, row in READERS.items() if row[3]))
def test_standard_input_is_read_no_further_than_one_byte_past_the_bound(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, module, constant, _ = READERS[name]
    monkeypatch.setattr(module, constant, BOUND)
    stream = _Endless()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    with pytest.raises(T2genError) as raised:
        reader("-")
    assert "larger than 8 KiB" in _messages(raised.value)
    # a buffered reader reads whole buffers: never more than the bound and one buffer
    assert stream.read_bytes <= BOUND + 1 + io.DEFAULT_BUFFER_SIZE


def test_every_reader_of_the_package_has_a_row() -> None:
    """A new input gets its row here (docs/development.md, "Adding an input")."""
    modules = {READERS[name][1].__name__ for name in READERS} | {
        "t2gen.inputs.textfile",  # the door itself, tested by every row
        "t2gen.inputs.yaml",  # a parser, reading no bytes of its own
        "t2gen.inputs.aliased",  # manifests' second parser
        "t2gen.inputs.locate",  # reads a file again only to place an error
        "t2gen.plan.quotaread",
    }
    package_modules = {
        f"t2gen.inputs.{p.stem if p.name != '__init__.py' else p.parent.name}"
        for p in Path(kubelist.__file__).parent.glob("*.py")
        if p.name != "__init__.py"
    } | {"t2gen.inputs.yaml"}
    assert package_modules <= modules


class _CountedReader(io.BufferedReader):
    """A file's reader that counts the bytes read from it (``os.fdopen``'s stand-in)."""

    served = 0

    def read(self, size: int | None = -1) -> bytes:
        data = super().read(size)
        _CountedReader.served += len(data)
        return data


@pytest.mark.parametrize(
    "name",
    sorted(n for n in READERS if n not in ("ResourceList", "job package")),
)
def test_a_sparse_file_over_the_bound_is_refused_before_a_byte_is_read(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``truncate -s 1G``: its stated length refuses it; reading it took 543 MB (issue 41)."""
    reader, module, constant, _ = READERS[name]
    monkeypatch.setattr(module, constant, BOUND)
    path = tmp_path / "sparse"
    with path.open("wb") as handle:
        handle.truncate(1024**3)  # 1 GiB of holes: no block on disk
    _CountedReader.served = 0
    monkeypatch.setattr(
        "os.fdopen", lambda fd, mode="rb": _CountedReader(io.FileIO(fd, mode))
    )
    with pytest.raises(T2genError) as raised:
        reader(str(path))
    assert "larger than 8 KiB" in _messages(raised.value)
    assert _CountedReader.served == 0


def test_a_file_that_states_no_length_is_measured_while_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ``/proc`` file says ``st_size`` 0 and holds more: at most one byte past the bound is read."""
    from t2gen.inputs import textfile

    path = tmp_path / "proc-like"
    path.write_bytes(b"#" * (BOUND * 4))
    real_fstat = os.fstat

    def no_length(fd: int) -> os.stat_result:
        info = list(real_fstat(fd))
        info[6] = 0  # st_size
        return os.stat_result(info)

    monkeypatch.setattr(textfile.os, "fstat", no_length)
    _CountedReader.served = 0
    monkeypatch.setattr(
        "os.fdopen", lambda fd, mode="rb": _CountedReader(io.FileIO(fd, mode))
    )
    with pytest.raises(T2genError, match="larger than 8 KiB"):
        textfile.read_source(str(path), limit=BOUND)
    assert _CountedReader.served == BOUND + 1


def test_a_stream_giving_short_reads_is_read_to_its_end() -> None:
    """A raw pipe returns what it has: the reads go on to the end, never past the bound."""
    from t2gen.inputs import textfile

    class Trickle(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self.left, self.served = data, 0

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            chunk, self.left = self.left[:7], self.left[7:]
            self.served += len(chunk)
            return chunk

    ok = Trickle(b"x" * 100)
    assert textfile.read_source("-", stdin=ok, limit=100) == b"x" * 100  # type: ignore[arg-type]
    over = Trickle(b"x" * 1000)
    with pytest.raises(T2genError, match="larger than"):
        textfile.read_source("-", stdin=over, limit=100)  # type: ignore[arg-type]
    assert over.served <= 101 + 7
