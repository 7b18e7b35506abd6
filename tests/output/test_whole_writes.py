"""Every write is whole or the command fails (issue 32, item 1).

* standard output: a short ``write(2)`` is followed by another until every byte is
  written, and a failure after part of it is reported and taken back
  (:func:`t2gen.output.write_text`), with an injected short write that always runs
  and a real 4 KiB tmpfs where the suite may mount one;
* files: what a path t2gen writes may be (:mod:`t2gen.output.files`): devices,
  FIFOs, sockets and dangling links refused, links to t2gen's own files written
  through, a file t2gen did not write kept unless ``--force``.

Nothing here writes outside a temporary directory: a "device" is a FIFO made
in one, or a ``mknod`` there of the null device when the suite runs as root.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from t2gen.errors import OutputError
from t2gen.output import write_text
from t2gen.output.files import write_file
from tests.conftest import ROOT
from tests.helpers import Completed, run_cli
from tests.package.cases import jar_bytes

JOB = "examples/wordcount.yaml"
CONF = str(ROOT / "examples/twister2-conf")
MARKER = "# Imported by `t2gen import`"


def _text_stream(path: Path, mode: str = "w") -> io.TextIOWrapper:
    return path.open(mode, encoding="utf-8", newline="\n")


# --- standard output -----------------------------------------------------------------


def test_short_writes_are_retried_until_every_byte_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    calls: list[int] = []

    def short(descriptor: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        return real_write(descriptor, bytes(data[:1000]))  # at most 1,000 bytes a call

    monkeypatch.setattr(os, "write", short)
    text = "".join(f"line {i}: {'é' * 40}\n" for i in range(500))
    path = tmp_path / "out.yaml"
    with _text_stream(path) as stream:
        write_text(stream, text)
    assert path.read_text(encoding="utf-8") == text
    assert len(calls) > 10  # it did take many writes


def test_a_failure_after_a_short_write_is_raised_and_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    calls = []

    def full_after_4k(descriptor: int, data: bytes | memoryview) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(descriptor, bytes(data[:4096]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    path = tmp_path / "out.yaml"
    path.write_text("kept: 1\n", encoding="utf-8")
    with _text_stream(path, "a") as stream:
        monkeypatch.setattr(os, "write", full_after_4k)
        with pytest.raises(OSError) as raised:
            write_text(stream, "x" * 10_000)
        monkeypatch.undo()
    assert raised.value.errno == errno.ENOSPC
    assert path.read_text(encoding="utf-8") == "kept: 1\n"  # the 4,096 bytes are gone


def test_a_write_that_writes_nothing_is_an_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "write", lambda descriptor, data: 0)
    with (
        _text_stream(tmp_path / "out.yaml") as stream,
        pytest.raises(OSError) as raised,
    ):
        write_text(stream, "a: 1\n")
    assert raised.value.errno == errno.EIO


def test_a_stream_without_a_descriptor_gets_every_byte() -> None:
    class Short(io.RawIOBase):
        def __init__(self) -> None:
            self.data = bytearray()

        def writable(self) -> bool:
            return True

        def write(self, data: bytes | memoryview) -> int:  # type: ignore[override]
            self.data += bytes(data[:7])
            return min(len(data), 7)

    raw = Short()
    stream = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)  # type: ignore[arg-type]
    write_text(stream, "apiVersion: v1\n" * 20)
    assert bytes(raw.data) == b"apiVersion: v1\n" * 20


# A process whose writes to standard output behave as on a 4 KiB file system:
# 4,096 bytes in all, the write that passes them short, every later one ENOSPC.
_FOUR_KIB = """
import errno, os, sys
real_write, room = os.write, [4096]
def write(descriptor, data):
    if descriptor != 1:
        return real_write(descriptor, data)
    if room[0] == 0:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    written = real_write(descriptor, bytes(data[: room[0]]))
    room[0] -= written
    return written
os.write = write
sys.argv = ["t2gen", *sys.argv[1:]]
from t2gen.cli.launch import main
main()
"""

_FULL = "t2gen: cannot write to standard output: No space left on device\n"


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("typer_path", ["1", ""], ids=["typer", "fast-start"])
@pytest.mark.parametrize(
    "argv",
    [
        ["render", JOB],
        ["render", JOB, "-o", "json"],
        ["import", CONF, "--jar", "a.jar"],
    ],
    ids=" ".join,
)
def test_render_into_a_full_file_system_exits_1_and_leaves_nothing(
    tmp_path: Path, argv: list[str], unbuffered: str, typer_path: str
) -> None:
    out = tmp_path / "out.yaml"
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONUNBUFFERED", "T2GEN_NO_FAST_START")
    }
    env.update({"PYTHONUNBUFFERED": unbuffered, "T2GEN_NO_FAST_START": typer_path})
    with out.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-c", _FOUR_KIB, *argv],
            cwd=ROOT,
            stdout=stdout,
            stderr=subprocess.PIPE,
            env={k: v for k, v in env.items() if v},
            text=True,
            encoding="utf-8",
            check=False,
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (1, _FULL)
    assert out.read_bytes() == b""  # no half stream for kubectl apply


@pytest.fixture
def full_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 4 KiB tmpfs mounted in ``tmp_path`` (skipped where the suite may not mount)."""
    mount = shutil.which("mount")
    if mount is None or not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root and mount(8)")
    point = tmp_path / "tiny"
    point.mkdir()
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", "size=4k", "t2gen-test", str(point)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


def test_render_onto_a_real_full_tmpfs(full_tmpfs: Path) -> None:
    out = full_tmpfs / "out.yaml"
    with out.open("wb") as stdout:
        done = subprocess.run(
            [sys.executable, "-m", "t2gen", "render", JOB],
            cwd=ROOT,
            stdout=stdout,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            check=False,
            timeout=120,
        )
    assert (done.returncode, done.stderr) == (1, _FULL)
    assert out.stat().st_size == 0


def test_output_dir_and_output_file_on_a_full_tmpfs(full_tmpfs: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "t2gen",
            "render",
            JOB,
            "--output-dir",
            str(full_tmpfs / "base"),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )
    assert done.returncode == 1
    assert done.stderr.endswith(": cannot write: No space left on device\n")
    assert list(full_tmpfs.iterdir()) == []  # no staging directory is left
    done = subprocess.run(
        [sys.executable, "-m", "t2gen", "import", CONF, "--jar", "a.jar", "--output-file", str(full_tmpfs / "job.yaml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert done.stderr.endswith(": cannot write: No space left on device\n")
    assert list(full_tmpfs.iterdir()) == []


# --- files: the one rule of t2gen.output.files ----------------------------------------


def _refused(path: Path, text: str = f"{MARKER}\nnew\n", force: bool = False) -> str:
    with pytest.raises(OutputError) as raised:
        write_file(path, text, marker=MARKER, force=force)
    return str(raised.value)


def test_a_missing_file_is_created_with_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    write_file(path, f"{MARKER}\na: 1\n", marker=MARKER)
    assert path.read_text(encoding="utf-8") == f"{MARKER}\na: 1\n"
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["job.yaml"]


def test_t2gens_own_file_is_replaced_keeping_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(f"{MARKER} earlier\n", encoding="utf-8")
    path.chmod(0o640)
    write_file(path, f"{MARKER}\nnew\n", marker=MARKER)
    assert path.read_text(encoding="utf-8") == f"{MARKER}\nnew\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640


def test_an_empty_file_holds_nothing_to_lose(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.touch()
    write_file(path, f"{MARKER}\n", marker=MARKER)
    assert path.read_text(encoding="utf-8") == f"{MARKER}\n"


def test_a_file_t2gen_did_not_write_is_kept_unless_forced(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text("mine: true\n", encoding="utf-8")
    assert "t2gen did not write it" in _refused(path)
    assert path.read_text(encoding="utf-8") == "mine: true\n"
    write_file(path, f"{MARKER}\n", marker=MARKER, force=True)
    assert path.read_text(encoding="utf-8") == f"{MARKER}\n"


def test_a_symlink_to_t2gens_file_is_written_through(tmp_path: Path) -> None:
    real = tmp_path / "real.yaml"
    real.write_text(f"{MARKER}\nold\n", encoding="utf-8")
    link = tmp_path / "link.yaml"
    link.symlink_to(real)
    write_file(link, f"{MARKER}\nnew\n", marker=MARKER)
    assert link.is_symlink() and real.read_text(encoding="utf-8") == f"{MARKER}\nnew\n"


def test_a_dangling_symlink_or_a_loop_is_refused(tmp_path: Path) -> None:
    link = tmp_path / "link.yaml"
    link.symlink_to(tmp_path / "nowhere" / "job.yaml")
    assert "which does not exist" in _refused(link, force=True)
    assert not (tmp_path / "nowhere").exists()
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    assert "leads back to itself" in _refused(loop, force=True)


def _fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return fifo


def test_a_fifo_or_a_link_to_one_is_refused_even_forced(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    assert _refused(fifo, force=True) == (
        f"{fifo}: is a FIFO (named pipe); t2gen replaces only a regular file it wrote: "
        "give another path"
    )
    link = tmp_path / "link"
    link.symlink_to(fifo)
    assert "(a symbolic link to" in _refused(link, force=True)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_a_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s"
    if len(os.fsencode(path)) > 100 or not hasattr(socket, "AF_UNIX"):
        pytest.skip("no Unix socket at this path")
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        assert "is a socket" in _refused(path, force=True)


def test_a_character_device_is_refused(tmp_path: Path) -> None:
    node = tmp_path / "null"
    try:  # the null device (1, 3), made inside the temporary directory
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (OSError, AttributeError):
        pytest.skip("mknod is not permitted here")
    assert "is a character device" in _refused(node, force=True)
    assert stat.S_ISCHR(node.lstat().st_mode)


def test_a_directory_is_no_file(tmp_path: Path) -> None:
    assert "is a directory; give a file name" in _refused(tmp_path, force=True)


# --- the commands that write to a path --------------------------------------------------


def _in_process(*argv: str, cwd: Path) -> Completed:
    """``t2gen ARGV`` from ``cwd``, run in this process (:func:`tests.helpers.run_cli`)."""
    return run_cli(list(argv), cwd=cwd)


def _run(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -m t2gen ARGV`` as a process: for a FIFO target, which a regression would
    open and wait on for ever, so that it ends at the timeout instead of hanging the run."""
    return subprocess.run(
        [sys.executable, "-m", "t2gen", *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
        timeout=120,
    )


def test_import_output_file_follows_the_rule(tmp_path: Path) -> None:
    fifo = _fifo(tmp_path)
    done = _run(
        "import", CONF, "--jar", "a.jar", "--output-file", str(fifo), cwd=tmp_path
    )
    assert done.returncode == 1 and "is a FIFO" in done.stderr
    (tmp_path / "mine.yaml").write_text("hand: written\n", encoding="utf-8")
    done = _in_process(
        "import", CONF, "--jar", "a.jar", "--output-file", "mine.yaml", cwd=tmp_path
    )
    assert done.returncode == 1 and "pass --force to replace it" in done.stderr
    done = _in_process("import", CONF, "--jar", "a.jar", "--output-file", "mine.yaml", "--force", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "mine.yaml").read_text(encoding="utf-8").startswith(MARKER)
    done = _in_process("import", CONF, "--force", cwd=tmp_path)
    assert done.returncode == 2 and "standard output replaces nothing" in done.stderr


def test_output_dir_follows_the_rule(tmp_path: Path) -> None:
    job = str(ROOT / JOB)
    fifo = _fifo(tmp_path)
    done = _run("render", job, "--output-dir", str(fifo), "--force", cwd=tmp_path)
    assert done.returncode == 1 and "is a FIFO" in done.stderr
    dangling = tmp_path / "base"
    dangling.symlink_to(tmp_path / "elsewhere")
    done = _in_process("render", job, "--output-dir", "base", cwd=tmp_path)
    assert done.returncode == 1 and "which does not exist" in done.stderr
    assert not (tmp_path / "elsewhere").exists()
    # A directory holding a FIFO, or a link to one, is the user's: judged without
    # reading either (a read would wait for ever), and refused.
    out = tmp_path / "out"
    assert (
        _in_process("render", job, "--output-dir", "out", cwd=tmp_path).returncode == 0
    )
    (out / "pipe.yaml").symlink_to(fifo)
    done = _run("render", job, "--output-dir", "out", cwd=tmp_path)
    assert (
        done.returncode == 1
        and "holds files t2gen did not write (pipe.yaml)" in done.stderr
    )
    (out / "pipe.yaml").unlink()
    os.mkfifo(out / "fifo.yaml")
    done = _run("render", job, "--output-dir", "out", cwd=tmp_path)
    assert done.returncode == 1 and "(fifo.yaml)" in done.stderr


def test_package_output_follows_the_rule(tmp_path: Path) -> None:
    job = str(ROOT / "examples/wordcount.yaml")
    jar = tmp_path / "user.jar"
    jar.write_bytes(jar_bytes())
    package = ("package", job, "--jar", str(jar))
    assert _in_process(*package, cwd=tmp_path).returncode == 0
    written = (tmp_path / "wordcount.tar.gz").read_bytes()
    assert _in_process(*package, cwd=tmp_path).returncode == 0  # its own file: replaced
    link = tmp_path / "link.tar.gz"
    link.symlink_to(tmp_path / "wordcount.tar.gz")
    done = _in_process(*package, "--output-file", "link.tar.gz", cwd=tmp_path)
    assert done.returncode == 0, done.stderr  # written through to t2gen's file
    assert link.is_symlink() and (tmp_path / "wordcount.tar.gz").read_bytes() == written
    (tmp_path / "other.tar.gz").write_bytes(b"\x1f\x8b\x08\x08 made by tar -czf")
    done = _in_process(*package, "--output-file", "other.tar.gz", cwd=tmp_path)
    assert done.returncode == 1 and "pass --force to replace it" in done.stderr
    done = _in_process(
        *package, "--output-file", "other.tar.gz", "--force", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    dangling = tmp_path / "dangling.tar.gz"
    dangling.symlink_to(tmp_path / "elsewhere" / "x.tar.gz")
    done = _in_process(
        *package, "--output-file", "dangling.tar.gz", "--force", cwd=tmp_path
    )
    assert done.returncode == 1 and "which does not exist" in done.stderr
    fifo = _fifo(tmp_path)
    done = _run(*package, "--output-file", str(fifo), "--force", cwd=tmp_path)
    assert done.returncode == 1 and "is a FIFO" in done.stderr
