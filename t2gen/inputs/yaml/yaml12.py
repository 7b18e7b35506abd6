"""What a job file's YAML may hold, as both readers apply it.

:mod:`t2gen.inputs.yaml.loader` (ruamel.yaml, positions for every node) and
:mod:`t2gen.inputs.yaml.fastload` (PyYAML's C parser) must refuse the same things
with the same words. This module holds those rules and messages: anchors,
aliases and nesting depth; the ``%YAML`` directive; YAML 1.2's core-schema
integers and floats (https://yaml.org/spec/1.2.2/#1032-tag-resolution);
escapes beyond U+10FFFF and UTF-16 surrogates; and the wording of YAML syntax
errors. The limits themselves live in :mod:`t2gen.inputs.yaml.source`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from t2gen.errors import ConfigError
from t2gen.inputs.textfile import line_col
from t2gen.inputs.yaml.source import MAX_DEPTH, MAX_INT_DIGITS, int_message

__all__ = [
    "ALIAS_MESSAGE",
    "ANCHOR_MESSAGE",
    "JsonPath",
    "Refused",
    "bad_escape_position",
    "check_directives",
    "construct_bool",
    "construct_float",
    "construct_int",
    "depth_message",
    "directive_message",
    "directive_position",
    "error_at",
    "join_surrogates",
    "key_tag_message",
    "key_type_message",
    "kind_message",
    "second_document_line",
    "tag_mismatch_message",
    "yaml_error",
]

JsonPath = tuple[str | int, ...]

ALIAS_MESSAGE = (
    "YAML aliases (*name) are not allowed in a job file; write the value out"
)
ANCHOR_MESSAGE = "YAML anchors (&name) are not allowed in a job file; remove the anchor"


def depth_message() -> str:
    """The message for nesting deeper than :data:`~t2gen.inputs.yaml.source.MAX_DEPTH` levels."""
    return f"nesting deeper than {MAX_DEPTH} levels; a job file needs far fewer"


def directive_message(version: str) -> str:
    """The message for a ``%YAML`` directive naming ``version`` (empty: none named)."""
    shown = f"%YAML {version}" if version else "%YAML"
    return f"{shown}: job files are YAML 1.2; remove the directive (or write %YAML 1.2)"


def key_tag_message(tag: str) -> str:
    """The message for a tag (``!!str``, ``!custom``, as written in short form) on a mapping key."""
    return f"YAML tag {tag} is not allowed on a mapping key; remove it"


def key_type_message(key: object) -> str:
    """The message for a mapping key that is no string: named by its YAML type, never by a Python repr.

    ``name: {{ x }}``, a template placeholder left in a job file, is YAML's flow
    mapping ``{{x: null}: null}``: its key is a mapping, which the message names.
    """
    if isinstance(key, Mapping):
        return (
            "mapping key is itself a mapping ({...}); a {{ placeholder }} of a template "
            "is one in YAML: fill it in, or quote the value"
        )
    if isinstance(key, Sequence) and not isinstance(key, str):
        return "mapping key is a list ([...]); keys are strings: quote it"
    if key is None:
        shown = "null"
    elif isinstance(key, bool):
        shown = "true" if key else "false"
    else:
        shown = str(key)
    return f"mapping key {shown} is not a string; quote it"


def kind_message(kind: str) -> str:
    """The message for a value of a YAML type a job file cannot hold (``!!binary``, ``!!set``)."""
    return (
        f"YAML {kind} values are not allowed in a job file; "
        "use a mapping, list, string, number or boolean"
    )


class Refused(Exception):
    """Raised inside ruamel.yaml's composer for input that parses but is not accepted.

    Attributes:
        mark: ruamel.yaml's mark (0-based ``line`` and ``column``) of the refused node.
        directive: the refusal is of a ``%YAML`` directive (located by the text instead).
    """

    def __init__(self, mark: Any, message: str, *, directive: bool = False) -> None:
        self.mark = mark
        self.directive = directive
        super().__init__(message)


def construct_int(loader: Any, node: Any) -> Any:
    """An integer as YAML 1.2's core schema reads it: ``1_2`` is the string it looks like.

    ruamel.yaml reads ``1_000`` as 1000 (YAML 1.1's spelling); YAML 1.2's core
    schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution) has no
    underscores in numbers. An integer of more than
    :data:`~t2gen.inputs.yaml.source.MAX_INT_DIGITS` digits is refused at its place.

    Raises:
        Refused: an integer of more than ``MAX_INT_DIGITS`` digits.
    """
    text = str(node.value)
    if "_" in text and node.style is None:
        return text
    digits = len(text.lstrip("+-"))
    if digits > MAX_INT_DIGITS:
        raise Refused(node.start_mark, int_message(digits))
    try:
        return type(loader).construct_yaml_int(loader, node)
    except (ValueError, IndexError):
        # Only a tagged scalar (!!int x, !!int ""): a plain one was resolved as an integer.
        raise Refused(
            node.start_mark, tag_mismatch_message("!!int", text, "an integer")
        ) from None


def construct_float(loader: Any, node: Any) -> Any:
    """A float as YAML 1.2's core schema reads it: ``1_0.5`` is a string.

    Raises:
        Refused: a tagged scalar that is no number (``!!float x``).
    """
    text = str(node.value)
    if "_" in text and node.style is None:
        return text
    try:
        return type(loader).construct_yaml_float(loader, node)
    except (ValueError, IndexError):
        raise Refused(
            node.start_mark, tag_mismatch_message("!!float", text, "a number")
        ) from None


def construct_bool(loader: Any, node: Any) -> Any:
    """A boolean as YAML 1.2 reads it, refusing a tagged scalar that is none (``!!bool x``, ``!!bool yes``).

    ruamel.yaml's ``construct_yaml_sbool`` also takes YAML 1.1's ``yes``,
    ``no``, ``on`` and ``off``; a plain ``yes`` is a string in a job file, so a
    tagged one is refused too (one rule for both spellings).

    Raises:
        Refused: ``!!bool`` on a scalar that is no boolean.
    """
    try:
        if str(node.value).lower() not in ("true", "false"):
            raise KeyError(
                node.value
            )  # YAML 1.2: yes, on, y are no booleans, tagged or not
        return type(loader).construct_yaml_sbool(loader, node)
    except KeyError:
        raise Refused(
            node.start_mark,
            tag_mismatch_message("!!bool", str(node.value), "true or false"),
        ) from None


def tag_mismatch_message(tag: str, text: str, expected: str) -> str:
    """The message for a core-schema tag on a scalar it cannot read (``!!int x``)."""
    return f"YAML tag {tag} on {text!r}, which is not {expected}; remove the tag or write {expected}"


_YAML_DIRECTIVE = r"(?m)^%YAML(?:[ \t]+([^ \t\r\n#]*))?"


def check_directives(text: str, path: str) -> None:
    """Refuse a ``%YAML`` directive for any version but 1.2 (before ruamel.yaml sees it).

    ``%YAML 1.1`` would switch ruamel.yaml to YAML 1.1, where ``010`` is 8 and
    ``yes`` is true; ``%YAML 1.3`` makes it fail an assertion. A ``%`` at the
    start of a line can only begin a directive (or be a syntax error).

    Raises:
        ConfigError: at the first such directive.
    """
    if "%YAML" not in text:  # nearly every job file: no need of the pattern
        return
    for match in re.finditer(_YAML_DIRECTIVE, text):
        if match[1] != "1.2":
            line, col = line_col(text, match.start())
            raise ConfigError(
                path=path, line=line, col=col, message=directive_message(match[1] or "")
            )


def directive_position(text: str) -> tuple[int, int]:
    """The 1-based position of the first ``%YAML`` directive, or (1, 1)."""
    match = re.search(r"^%YAML", text, re.M)
    return line_col(text, match.start()) if match else (1, 1)


def bad_escape_position(text: str) -> tuple[int, int]:
    """The 1-based position of the first backslash-U escape beyond U+10FFFF, or (1, 1)."""
    for match in re.finditer(r"\\U([0-9A-Fa-f]{8})", text):
        if int(match[1], 16) > 0x10FFFF:
            return line_col(text, match.start())
    return 1, 1


def second_document_line(text: str) -> int:
    """Return the 1-based line of the second document's ``---`` (best effort)."""
    seen_content = False
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("---") and seen_content:
            return number
        if (
            line.strip()
            and not line.lstrip().startswith("#")
            and not line.startswith("%")
        ):
            seen_content = seen_content or not line.startswith("---")
    return 1


MAX_KEY_CHARS = 1024
"""YAML's limit on an implicit mapping key (https://yaml.org/spec/1.2.2/#rule-ns-s-implicit-yaml-key)."""


def _long_key(text: str, index: int) -> tuple[int, int] | None:
    """The start and length of an over-long key that ends just before ``index`` (a ``:``), or None.

    Both readers stop looking for a key's ``:`` after 1024 characters and then
    fail with an error about the ``:`` (``expected ',' or '}'``, ``mapping
    values are not allowed here``) that does not say why.
    """
    if not 0 <= index < len(text) or text[index] != ":":
        return None
    end = index
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end and text[end - 1] in "\"'":
        quote = text[end - 1]
        start = end - 2
        while start >= 0 and not (
            text[start] == quote and (quote == "'" or text[start - 1 : start] != "\\")
        ):
            start -= 1
    else:
        start = end - 1
        while start >= 0 and text[start] not in "\n{[, \t":
            start -= 1
        start += 1
    if start < 0 or index - start <= MAX_KEY_CHARS:
        return None
    return start, end - start


def yaml_error(path: str, err: Any, text: str | None = None) -> ConfigError:
    """Turn a YAML syntax error (ruamel.yaml's or PyYAML's) into a ConfigError at its mark.

    Args:
        path: the file as the user named it.
        err: a ``MarkedYAMLError`` with 0-based ``problem_mark``/``context_mark``.
        text: the text parsed; with it, an error at the ``:`` after a key of
            more than 1024 characters (YAML's limit) is reported at the key, saying so.

    Returns:
        The error, its message with a hint for the usual indentation and tab mistakes.
    """
    mark = err.problem_mark or err.context_mark
    if text is not None and err.problem_mark is not None:
        long_key = _long_key(text, err.problem_mark.index)
        if long_key is not None:
            line, col = line_col(text, long_key[0])
            return ConfigError(
                path=path,
                line=line,
                col=col,
                message=f"a mapping key of {long_key[1]:,} characters; YAML reads a key "
                f"of at most {MAX_KEY_CHARS} characters: shorten it",
            )
    problem = err.problem or err.context or "not valid YAML"
    if "found character '\\t'" in problem or "found a tab character" in problem:
        problem += " (indent with spaces, not tabs)"
    elif problem.startswith("mapping values are not allowed"):
        problem += " (check this line's indentation; if a value holds ': ', quote it)"
    elif problem.startswith("expected <block end>"):
        problem += " (check the indentation of this line against the lines above)"
    if "duplicate key" in problem or type(err).__name__ == "DuplicateKeyError":
        key = problem.split('"')[1] if '"' in problem else ""
        problem = (
            f"duplicate key {key!r}; each key may appear once in a mapping"
            if key
            else problem
        )
    context_mark = err.context_mark
    if err.context and context_mark is not None and context_mark is not mark:
        problem = f"{problem} ({err.context} started at {context_mark.line + 1}:{context_mark.column + 1})"
    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return ConfigError(path=path, line=line, col=col, message=problem)


def error_at(
    path: str, positions: dict[JsonPath, tuple[int, int]], where: JsonPath, message: str
) -> ConfigError:
    """A ConfigError at the node ``where`` (1:1 if its position is unknown)."""
    line, col = positions.get(where, (1, 1))
    return ConfigError(path=path, line=line, col=col, message=message)


_SURROGATE = "[\ud800-\udfff]"


def join_surrogates(
    text: str, path: str, positions: dict[JsonPath, tuple[int, int]], where: JsonPath
) -> str:
    r"""A string with escaped UTF-16 surrogate pairs joined into the characters they name.

    ``"\ud83d\ude00"`` (how ``json.dumps`` writes an emoji) is one character
    (U+1F600) in YAML as in JSON; ruamel.yaml leaves it as two surrogates,
    which are not characters and cannot be written as UTF-8.

    Args:
        text: the string as read.
        path: the file as the user named it.
        positions: 1-based (line, col) by JSON path.
        where: the JSON path of the string (or of the key it is).

    Raises:
        ConfigError: a surrogate without its partner, located at the string.
    """
    if not re.search(_SURROGATE, text):
        return text
    try:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")
    except UnicodeDecodeError:
        lone = re.search(
            _SURROGATE,
            text.encode("utf-16-le", "surrogatepass").decode(
                "utf-16-le", "surrogatepass"
            ),
        )
        code = f"\\u{ord(lone[0]):04x}" if lone else "a surrogate"
        raise error_at(
            path,
            positions,
            where,
            f"the escape {code} is half of a UTF-16 surrogate pair and names no character; "
            "write the character itself, its \\U escape (\\U0001F600), or the whole pair",
        ) from None
