from __future__ import annotations

import io
from pathlib import Path

import pytest

from t2gen.errors import ConfigError
from t2gen.inputs.jobfile import MAX_JOB_FILE_BYTES as MAX_FILE_BYTES
from t2gen.inputs.jobfile import read_job
from t2gen.inputs.yaml.loader import parse_config
from tests.conftest import build_file_tree


def error_of(text: str) -> tuple[tuple[int, int], str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text, path="job.yaml")
    (problem,) = info.value.problems
    assert problem.path == "job.yaml"
    return (problem.line, problem.col), problem.message


def test_positions_of_values_and_keys() -> None:
    doc = parse_config("a:\n  b: 1\n  c:\n    - x\n    - {d: 2}\n", path="j")
    assert doc.data == {"a": {"b": 1, "c": ["x", {"d": 2}]}}
    assert doc.positions[("a", "b")] == (2, 6)
    assert doc.key_positions[("a", "b")] == (2, 3)
    assert doc.positions[("a", "c", 1)] == (5, 7)
    assert doc.position(("a", "c", 1, "d")) == (5, 11)
    assert doc.position(("a", "missing", "deeper")) == (
        2,
        3,
    )  # nearest ancestor: the mapping under a


def test_yaml_1_2_scalars() -> None:
    doc = parse_config(
        "b: yes\nn: n\no: 0400\nt: 2024-01-01\nf: 0.1\ni: 8\nnull_: null\n", path="j"
    )
    assert doc.data == {
        "b": "yes",
        "n": "n",
        "o": 400,
        "t": "2024-01-01",
        "f": 0.1,
        "i": 8,
        "null_": None,
    }


def test_json_is_accepted() -> None:
    doc = parse_config('{\n\t"a": [1, "x"],\n\t"b": {"c": true}\n}\n', path="j.json")
    assert doc.data == {"a": [1, "x"], "b": {"c": True}}


def test_bom_is_dropped(tmp_path: Path) -> None:
    build_file_tree(tmp_path, {"j.yaml": "\ufeffa: 1\n".encode()})
    assert read_job(str(tmp_path / "j.yaml")).data == {"a": 1}


@pytest.mark.parametrize(
    ("text", "position", "fragment"),
    [
        ("a: 1\na: 2\n", (2, 1), "duplicate key 'a'"),
        ("a: &x [1]\nb: *x\n", (1, 4), "anchors"),
        ("a: [1]\nb: *x\n", (2, 4), "aliases"),
        ("a:\n\tb: 1\n", (2, 1), "tabs"),
        ("a: 1\n---\nb: 2\n", (2, 1), "more than one YAML document"),
        ("", (1, 1), "empty job file"),
        ("# only a comment\n", (1, 1), "empty job file"),
        ("hello\n", (1, 1), "a single value, not a mapping"),
        ("- a\n", (1, 1), "a list, not a mapping"),
        ("a: !custom x\n", (1, 4), "tag !custom"),
        ("a: !!set {x}\n", (1, 4), "!!set values are not allowed"),
        ('a: "abc\n', (2, 1), "quoted scalar started at 1:4"),
        ("a: [1, 2\nb: 3\n", (2, 2), "flow sequence started at 1:4"),
        ("a: \x00\n", (1, 4), "U+0000"),
        ("1: a\n", (1, 1), "not a string"),
        ("[" * 40 + "]" * 40, (1, 33), "nesting deeper than 32"),
    ],
)
def test_syntax_errors_are_located(
    text: str, position: tuple[int, int], fragment: str
) -> None:
    where, message = error_of(text)
    assert where == position
    assert fragment in message


def test_billion_laughs_is_refused_quickly() -> None:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, 10):
        prev, this = chr(ord("a") + index - 1), chr(ord("a") + index)
        lines.append(f"{this}: &{this} [" + ",".join([f"*{prev}"] * 9) + "]")
    where, message = error_of("\n".join(lines))
    assert where == (1, 4) and "anchors" in message


@pytest.mark.parametrize("bom", [b"", b"\xef\xbb\xbf"])
def test_invalid_utf8_is_located(tmp_path: Path, bom: bytes) -> None:
    # After a byte-order mark too: the byte named is the bad one, where it is.
    build_file_tree(tmp_path, {"j.yaml": bom + b"a: 1\nb: caf\xe9\n"})
    with pytest.raises(ConfigError) as info:
        read_job(str(tmp_path / "j.yaml"))
    (problem,) = info.value.problems
    assert (problem.line, problem.col) == (2, 7)
    assert "not UTF-8 (byte 0xe9)" in problem.message
    build_file_tree(tmp_path, {"k.yaml": bom + b"# caf\xe9\n"})
    with pytest.raises(ConfigError) as info:
        read_job(str(tmp_path / "k.yaml"))
    (problem,) = info.value.problems
    assert (problem.line, problem.col) == (1, 6)  # a BOM takes no column


def test_file_errors(tmp_path: Path) -> None:
    for path, fragment in [
        (tmp_path / "missing.yaml", "no such file"),
        (tmp_path, "is a directory"),
    ]:
        with pytest.raises(ConfigError, match=fragment):
            read_job(str(path))
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: " + b"x" * MAX_FILE_BYTES)
    with pytest.raises(ConfigError, match="larger than 1024 KiB"):
        read_job(str(big))


def test_stdin() -> None:
    doc = read_job("-", stdin=io.BytesIO(b"a: 1\n"))
    assert doc.path == "-" and doc.data == {"a": 1}


def test_line_col_counts_from_one_in_text_and_bytes() -> None:
    from t2gen.inputs.textfile import line_col

    assert line_col("ab\ncd", 0) == (1, 1)
    assert line_col("ab\ncd", 4) == (2, 2)
    assert line_col("é\nx", 2) == (2, 1)  # characters in text
    assert line_col("é\nx".encode(), 3) == (2, 1)  # bytes in bytes
    assert line_col(b"ab", 2) == (1, 3)


def test_both_readers_share_one_depth_limit() -> None:
    from t2gen.inputs.yaml import fastload, loader, source

    assert loader.MAX_DEPTH is source.MAX_DEPTH
    assert fastload.MAX_DEPTH is source.MAX_DEPTH
    deep = "a: " + "[" * source.MAX_DEPTH + "]" * source.MAX_DEPTH + "\n"
    assert fastload.fast_load(deep) is None
    with pytest.raises(ConfigError, match=f"deeper than {source.MAX_DEPTH}"):
        parse_config(deep)
