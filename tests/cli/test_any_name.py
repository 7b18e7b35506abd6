"""Any file name prints: undecodable bytes as ``\\xNN``, controls escaped, never a traceback (issue 41)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from t2gen.errors import inert, one_line, shell_word
from tests.conftest import ROOT
from tests.package.cases import jar_bytes

T2GEN = Path(sys.executable).parent / "t2gen"


def _run(argv: list[bytes], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [os.fsencode(T2GEN), *argv], cwd=cwd, capture_output=True, check=False
    )


def test_inert_and_one_line_write_an_undecodable_byte_as_its_escape() -> None:
    name = os.fsdecode(b"\xff\x1b[2J.yaml")  # "\udcff\x1b[2J.yaml"
    assert inert(name) == "\\xff\\x1b[2J.yaml"
    assert one_line(f"{name}:1:1: bad\nnext") == "\\xff\\x1b[2J.yaml:1:1: bad\\nnext"
    assert (
        inert("\ud800") == "\\ud800"
    )  # a surrogate no file name brings: still printable
    inert(name).encode("utf-8")  # never fails to encode


def test_a_non_utf8_job_file_name_is_printed_escaped(tmp_path: Path) -> None:
    good = tmp_path / os.fsdecode(b"\xff.yaml")
    shutil.copy(ROOT / "examples/wordcount.yaml", good)
    valid = _run([b"validate", b"\xff.yaml"], tmp_path)
    assert (valid.returncode, valid.stderr) == (0, b"")
    assert valid.stdout == b"\\xff.yaml: valid: job wordcount, 8 workers in 4 pods\n"
    (tmp_path / os.fsdecode(b"\xfe.yaml")).write_text("x: [\n", encoding="utf-8")
    bad = _run([b"render", b"\xfe.yaml", b"\xfd.yaml"], tmp_path)
    assert (bad.returncode, bad.stdout) == (1, b"")
    assert b"Traceback" not in bad.stderr
    assert b"\\xfe.yaml:2:1: expected" in bad.stderr
    assert b"\\xfd.yaml: no such file" in bad.stderr


def test_a_terminal_escape_in_a_name_is_shown_not_acted_on(tmp_path: Path) -> None:
    result = _run([b"validate", b"a\x1b]0;pwn\x07.yaml"], tmp_path)
    assert result.returncode == 1
    assert result.stderr == b"a\\x1b]0;pwn\\x07.yaml: no such file\n"


def test_package_prints_its_output_path_inert(tmp_path: Path) -> None:
    jar = tmp_path / "user.jar"
    jar.write_bytes(jar_bytes())
    shutil.copy(ROOT / "examples/wordcount.yaml", tmp_path / "job.yaml")
    result = _run(
        [
            b"package",
            b"job.yaml",
            b"--jar",
            b"user.jar",
            b"--output-file",
            b"a\x1b]0;pwn\x07.tgz",
        ],
        tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert b"\x1b" not in result.stderr and b"\x07" not in result.stderr
    assert b"wrote a\\x1b]0;pwn\\x07.tgz: " in result.stderr
    # The command it prints copies that very file: bash's $'...' holds its bytes,
    # where the inert name in plain quotes ('a\x1b...') would name another file.
    command = next(line for line in result.stderr.splitlines() if b"kubectl cp" in line)
    assert b" kubectl cp $'a\\x1b]0;pwn\\x07.tgz' default/" in command
    word = command.split(b"kubectl cp ", 1)[1].split(b" default/", 1)[0]
    printed = subprocess.run(
        ["bash", "-c", b"printf %s " + word],
        capture_output=True,
        check=True,
        env={"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8"},
    ).stdout
    assert printed == b"a\x1b]0;pwn\x07.tgz"
    assert (tmp_path / os.fsdecode(printed)).is_file()


@pytest.mark.parametrize(
    "name",
    [
        "plain.tgz",
        "a b.tgz",
        "a\x1b]0;x\x07.tgz",
        "c1\x85.tgz",
        "\u202ecod.exe",
        "\udcff'\\.tgz",
    ],
)
def test_a_shell_word_is_inert_and_names_the_same_file(name: str) -> None:
    word = shell_word(name)
    assert inert(word) == word
    printed = subprocess.run(
        ["bash", "-c", "printf %s " + word],
        capture_output=True,
        check=True,
        env={"PATH": os.environ["PATH"], "LC_ALL": "C.UTF-8"},
    ).stdout
    assert printed == os.fsencode(name)
