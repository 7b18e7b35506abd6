"""A job file's limits and the checks both readers share; reading the bytes is :mod:`t2gen.inputs.textfile`'s."""

from __future__ import annotations

import re

from t2gen.errors import ConfigError
from t2gen.inputs.textfile import line_col

__all__ = [
    "MAX_DEPTH",
    "MAX_ENTRIES",
    "MAX_INT_DIGITS",
    "MAX_NODES",
    "YAML11_LINE_BREAKS",
    "check_conflict_markers",
    "check_line_breaks",
    "entries_message",
    "int_message",
    "nodes_message",
]

MAX_DEPTH = 32
"""Deepest nesting of mappings and lists accepted (both readers); the job schema needs 6."""

MAX_ENTRIES = 1000
"""Most entries in one list or mapping (both readers stop reading there).

The job schema's longest list (``spec.env``, ``maxItems``) holds 1,000; a test
checks that no ``maxItems`` or ``maxProperties`` of the schema is larger. A
limit while reading keeps a flood (100,000 list items or keys in a 1 MiB
file) from costing seconds in the YAML reader and the schema check.
"""

MAX_NODES = 20_000
"""Most values (scalars, lists and mappings) in a job file (both readers stop reading there).

A real job has tens; one with 1,000 environment variables about 5,000. The
schema's list limits multiplied out allow about 45,000 (64 required and 64
preferred node-affinity expressions of 256 values each make 34,000 alone): t2gen
reads at most 20,000, so that a flood that only the slow full reader
(ruamel.yaml) can read costs it about a second.
"""

MAX_INT_DIGITS = 100
"""Longest integer read, in digits; no job field takes more than 19 (a 64-bit integer)."""


def entries_message(kind: str) -> str:
    """The message for a list or mapping over :data:`MAX_ENTRIES` (the same from both readers)."""
    return (
        f"this {kind} has more than {MAX_ENTRIES:,} entries, and no list or mapping in a job file "
        f"may hold more than {MAX_ENTRIES:,} (t2gen stopped reading here)"
    )


def nodes_message() -> str:
    """The message for a file over :data:`MAX_NODES` values (the same from both readers)."""
    return (
        f"the job file holds more than {MAX_NODES:,} values; a job file holds far fewer "
        "(t2gen stopped reading here)"
    )


def int_message(digits: int) -> str:
    """The message for an integer of more than :data:`MAX_INT_DIGITS` digits."""
    return (
        f"this integer is too large ({digits:,} digits); t2gen reads integers of at most "
        f"{MAX_INT_DIGITS} digits, and no job field takes more than 19"
    )


YAML11_LINE_BREAKS = {
    "\x85": "next line",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
}
"""The characters YAML 1.1 reads as line breaks and YAML 1.2 as text, with their Unicode names."""

_YAML11_LINE_BREAK = "[\x85\u2028\u2029]"


def check_line_breaks(text: str, path: str) -> None:
    r"""Refuse a raw U+0085, U+2028 or U+2029 anywhere in a job file (both readers call it).

    YAML 1.1 readers (libyaml and PyYAML; kubectl's go-yaml, a port of libyaml)
    start a new line at each of these characters; YAML 1.2 (ruamel.yaml,
    t2gen's full reader) reads them as text, and folds U+0085 into a space in
    some places but not in others. One file would mean different things to
    t2gen and to the tools around it, so it is refused wherever one stands (a
    value, a key, a comment). Their escapes in a double-quoted string
    (``"\u2028"``, ``"\x85"``, ``"\N"``, ``"\L"``, ``"\P"``) are plain text to
    every reader and keep their value.

    Args:
        text: the decoded job file.
        path: the file as the user named it, for the error.

    Raises:
        ConfigError: at the first such character; lines end at line feeds
            only, as everywhere in t2gen (see :func:`line_col`), not at these.
    """
    # `in` rejects a character wider than any in the text without a scan (ASCII text).
    if "\x85" not in text and "\u2028" not in text and "\u2029" not in text:
        return
    match = re.search(_YAML11_LINE_BREAK, text)
    assert match is not None
    line, col = line_col(text, match.start())
    code = ord(match[0])
    raise ConfigError(
        path=path,
        line=line,
        col=col,
        message=f"character U+{code:04X} ({YAML11_LINE_BREAKS[match[0]]}) is read as a line "
        "break by YAML 1.1 readers such as kubectl and as text by YAML 1.2; write it as "
        f'the escape "\\u{code:04x}" in a double-quoted string, or remove it',
    )


# Git's conflict markers, each alone at the start of its line (git-merge(1), "HOW
# CONFLICTS ARE PRESENTED"): seven '<' and the first side's name, seven '=', seven '>'
# and the second side's name (a diff3 conflict adds seven '|' and the base's, between).
_CONFLICT_MARKER = r"(?:<<<<<<<|>>>>>>>)(?:[ \t].*)?\r?|=======\r?"
_CONFLICT_ORDER = "<=>"


def check_conflict_markers(text: str, path: str) -> None:
    """Refuse a file that still holds an unresolved Git merge (both readers call it first).

    ``git merge`` leaves each conflicting hunk between ``<<<<<<< ours``,
    ``=======`` and ``>>>>>>> theirs`` lines (git-merge(1), "HOW CONFLICTS ARE
    PRESENTED"). YAML reads the first marker as the start of a key and fails
    on the next line ("could not find expected ':'"), which does not say what
    is wrong. Only the three markers in that order, each alone at the start of
    its line, are taken for a merge: text that merely holds them elsewhere (an
    indented block scalar, a quoted value) is YAML's to read. One pass over the
    lines, whatever the file holds.

    Args:
        text: the decoded file.
        path: the file as the user named it, for the error.

    Raises:
        ConfigError: at the first ``<<<<<<<`` line of a conflict.
    """
    if "<<<<<<<" not in text or "\n=======" not in text:  # no conflict: no scan
        return
    found: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line[:1] == _CONFLICT_ORDER[len(found)] and re.fullmatch(
            _CONFLICT_MARKER, line
        ):
            found.append(number)
            if len(found) == len(_CONFLICT_ORDER):
                break
    else:
        return
    first, middle, last = found
    raise ConfigError(
        path=path,
        line=first,
        col=1,
        message="this file holds an unresolved merge: Git's conflict markers are still in it "
        f"(<<<<<<< here, ======= at line {middle}, >>>>>>> at line {last}); keep the side "
        "you want of each conflict, delete the three marker lines, and run t2gen again",
    )


_JsonPath = tuple[str | int, ...]  # as t2gen.inputs.yaml.yaml12.JsonPath

# The end of an implicit key on its line (YAML 1.2, 7.4.2: an implicit key is on
# one line): a quoted key and its closing quote, or a plain key up to the first `:`
# followed by a space, a flow indicator or the line's end; then the `:`.
_KEY_THEN_COLON = (
    r"""(?:"(?:[^"\\]|\\.)*"[ \t]*:|'(?:[^']|'')*'[ \t]*:"""
    r"""|(?:[^:]|:(?![ \t\r,\]}]|$))*?[ \t]*:(?=[ \t\r,\]}]|$))"""
)
# An explicit null where the reader marks the value (YAML 1.2 core schema).
_EXPLICIT_NULL = r"(?:~|null|Null|NULL)(?![^ \t\r,\]}#])"


def locate_empty_values(
    data: object,
    positions: dict[_JsonPath, tuple[int, int]],
    key_positions: dict[_JsonPath, tuple[int, int]],
    text: str,
) -> None:
    """Locate each empty mapping value (``count:`` and nothing more) just after its ``:``.

    Both readers call this, so that they locate alike, and an error about the
    value is on its key's line. Left to themselves they differ: ruamel.yaml marks
    an empty value in a block mapping at the end of the next token (its
    ``parse_block_mapping_value`` peeks past the ``:`` for a comment), often the
    next line's key, and in a flow mapping at the end of the ``:``; PyYAML at the
    end of the ``:`` in a block mapping and at the next token in a flow one.
    An explicit ``null`` or ``~`` keeps its own position. ``positions`` is
    changed in place (1-based line, column).
    """
    lines: list[str] = []  # split only once an empty value is found
    stack: list[tuple[_JsonPath, object]] = [((), data)]
    while stack:
        where, node = stack.pop()
        if isinstance(node, list):
            stack.extend(
                ((*where, index), item)
                for index, item in enumerate(node)
                if isinstance(item, (dict, list))
            )
            continue
        if not isinstance(node, dict):
            continue
        for key, value in node.items():
            child = (*where, key)
            if isinstance(value, (dict, list)):
                stack.append((child, value))
                continue
            if value is not None:
                continue
            key_at, value_at = key_positions.get(child), positions.get(child)
            lines = lines or text.split("\n")
            if key_at is None or value_at is None or value_at[0] > len(lines):
                continue
            if re.match(_EXPLICIT_NULL, lines[value_at[0] - 1][value_at[1] - 1 :]):
                continue
            found = re.match(_KEY_THEN_COLON, lines[key_at[0] - 1][key_at[1] - 1 :])
            if found:
                positions[child] = (key_at[0], key_at[1] + found.end())
