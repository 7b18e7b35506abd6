"""Problem records: one finding about an input or an output object, with its place."""

from __future__ import annotations

from t2gen.record import Record

__all__ = ["Problem", "Warning_", "format_json_path"]


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
            return f"{where}: {self.json_path}: {self.message}"
        return f"{where}: {self.message}"


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
        return f"{where}: warning: {what}"
