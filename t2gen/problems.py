"""Problem records: one finding about an input or an output object, with its place."""

from __future__ import annotations

import re

from t2gen.record import Record

__all__ = ["Problem", "Warning_", "format_json_path", "one_line"]

# Characters that end a line or drive a terminal: C0 and C1 controls, DEL and
# the Unicode line and paragraph separators.
_CONTROLS = "[\x00-\x1f\x7f-\x9f\u2028\u2029]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    char = match[0]
    return _NAMED.get(char) or (
        f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}"
    )


def one_line(text: str) -> str:
    r"""Return text with every control character and line break written as an escape.

    A finding is printed as one line; a value quoted in it (a key, a file name)
    could hold a newline and text that looks like another finding
    (``otherfile:1:1: ...``). ``\n``, ``\r`` and ``\t`` are written so;
    other controls as ``\xNN`` or ``\uNNNN``. Other text is unchanged.

    Args:
        text: one finding as formatted.

    Returns:
        The same finding on one line, without terminal control characters.
    """
    if re.search(_CONTROLS, text) is None:
        return text
    return re.sub(_CONTROLS, _escape, text)


def format_json_path(path: tuple[str | int, ...]) -> str:
    """Return a JSON path as a reader writes it: ``spec.workers[0].count``.

    Args:
        path: keys (``str``) and list indices (``int``) from the document root.

    Returns:
        The dotted path; keys that are not plain identifiers are quoted
        (``metadata.labels["app.kubernetes.io/name"]``). The root is ``""``.
    """
    out: list[str] = []
    for part in path:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif part.replace("_", "a").replace("-", "a").isalnum() and part[:1].isalpha():
            out.append(f".{part}" if out else part)
        else:
            escaped = part.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'["{escaped}"]')
    return "".join(out)


class Problem(Record, order=True):
    """One thing wrong with an input file, at a 1-based line and column.

    Problems sort by file, then position, then message, and print in yamllint's
    parsable form ``path:line:col: json.path: message``.

    Attributes:
        path: the file as the user named it (``-`` for standard input).
        line: 1-based line of the offending node; 0 when the problem concerns the
            whole file (missing, unreadable, too large).
        col: 1-based column of the offending node.
        message: what is wrong and what would be right.
        json_path: where in the document, e.g. ``spec.workers[0].count``; may be empty.
    """

    path: str
    line: int
    col: int
    message: str
    json_path: str = ""

    def __str__(self) -> str:
        """Format as ``path:line:col: json_path: message`` (``path: message`` without a position)."""
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        if self.json_path:
            return one_line(f"{where}: {self.json_path}: {self.message}")
        return one_line(f"{where}: {self.message}")


class Warning_(Problem):  # the trailing _ keeps Python's built-in Warning usable
    """A finding that does not stop t2gen: printed on stderr, exit status 0.

    It has a problem's fields and place (an input's ``line:col``, or an output
    object's ``Kind/name`` as ``path`` with line 0) and prints as
    ``path:line:col: warning: json.path: message``.
    """

    def __str__(self) -> str:
        """Format as a problem, with ``warning:`` before the JSON path."""
        where = f"{self.path}:{self.line}:{self.col}" if self.line else self.path
        what = f"{self.json_path}: {self.message}" if self.json_path else self.message
        return one_line(f"{where}: warning: {what}")
