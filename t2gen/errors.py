"""What goes wrong: located problem records, and the one error hierarchy that carries them.

A :class:`Problem` (or :class:`Warning_`) is one finding about an input file at
a ``line:col``, or about an output object (``Kind/name``); every failure a user
can cause is a :class:`T2genError` holding its problems or lines, which the
command line prints (:mod:`t2gen.cli.commands`) and maps to an exit code.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from t2gen.record import Record

__all__ = [
    "MAX_REPORTED",
    "ConfigError",
    "InputError",
    "OutputError",
    "Problem",
    "SchemaError",
    "T2genError",
    "TemplateError",
    "UsageError",
    "ValidationError",
    "Warning_",
    "format_json_path",
    "in_order",
    "inert",
    "inert_json",
    "one_line",
    "shell_word",
]

_UNSAFE = (
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
    "\u2066-\u2069\ud800-\udfff]"
)
"""What a terminal or an editor acts on rather than shows, or no encoder can
write: C0 and C1 controls (``ESC``, carriage return, backspace, tab) but the
line feed, the line separators and bidirectional controls of Unicode, and lone
surrogates (a file name's undecodable byte ``0xff`` arrives as ``\udcff``,
Python's ``surrogateescape``, PEP 383)."""

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    r"""One unsafe character as an escape: a file name's undecodable byte as ``\xNN``."""
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # surrogateescape: the byte code - 0xDC00
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def inert(text: str) -> str:
    r"""``text`` with every character of :data:`_UNSAFE` written as an escape (``\x1b``, ``\u202e``, ``\xff``).

    The one way t2gen prints a string it was given (a file name, a value read
    from a cluster): it can neither move the cursor, erase a line, reorder
    what follows it, nor fail to encode (a non-UTF-8 file name's byte
    ``0xff`` is written ``\xff``). Line feeds are kept (see :func:`one_line`).

    Args:
        text: any string, surrogates included.

    Returns:
        The same text, every unsafe character escaped; valid UTF-8 when encoded.
    """
    if text.isascii() and text.isprintable():
        return text
    return re.sub(_UNSAFE, lambda match: _escape(match[0]), text)


def inert_json(text: str) -> str:
    r"""JSON ``text`` with every character of :data:`_UNSAFE` written as a JSON escape (``\u009b``).

    :func:`inert`'s ``\x9b`` is no JSON escape (RFC 8259, section 7: only
    ``\uXXXX`` and the two-character ones), so ``status -o json`` of a name
    holding U+009B was no JSON (issue 40). Every such character of
    :func:`json.dumps` output lies inside a string, where ``\uXXXX`` means the
    same character: the text stays the same JSON value, and inert.
    """
    # one scan in C (a Python test per character took 3 s for a 16 MB name)
    if re.search(_UNSAFE, text) is None:
        return text
    return re.sub(_UNSAFE, lambda m: f"\\u{ord(m[0]):04x}", text)


def one_line(text: str) -> str:
    r"""Return text on one line: :func:`inert`, and line breaks written as escapes.

    A finding is printed as one line; a value quoted in it (a key, a file name)
    could hold a newline and text that looks like another finding
    (``otherfile:1:1: ...``). ``\n``, ``\r`` and ``\t`` are written so;
    other controls as ``\xNN`` or ``\uNNNN``, an undecodable file name byte
    as ``\xNN``. Other text is unchanged.

    Args:
        text: one finding as formatted.

    Returns:
        The same finding on one line, without terminal control characters.
    """
    if text.isascii() and text.isprintable():
        return text
    return inert(re.sub("[\n\r\t]", lambda match: _NAMED[match[0]], text))


def shell_word(text: str) -> str:
    r"""``text`` as one word of a shell command t2gen prints: right when pasted, inert when printed.

    :func:`shlex.quote` when every character is printable; else bash's ANSI-C
    quoting (``$'a]0;x.tgz'``; GNU bash manual, "ANSI-C Quoting"),
    whose escapes are the file's own bytes (a non-UTF-8 name's ``0xff`` is
    ``ÿ``), so the command names the file itself, where the :func:`inert`
    name (``'a...'`` in plain quotes) would name another and the raw
    name would act on the terminal.

    Args:
        text: a path or value, surrogates included.

    Returns:
        One shell word, printable ASCII and spaces when ``text`` is not.
    """
    import shlex

    if text.isprintable():
        return shlex.quote(text)
    escaped = re.sub(r"[\\']", lambda match: "\\" + match[0], text)
    return "$'" + re.sub(_UNSAFE, lambda match: _shell_escape(match[0]), escaped) + "'"


def _shell_escape(char: str) -> str:
    r"""One unsafe character in ``$'...'``: a byte as ``\xNN``, any other character as ``\uNNNN``.

    In bash ``\xNN`` is that byte, so a C1 control (U+0085) is ``\u0085``, its
    UTF-8 bytes, and only an undecodable file name byte (a surrogate) is ``\xNN``.
    """
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}"


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


MAX_REPORTED = 100
"""Most problems printed for one command; the rest are counted (``... and N more problems``)."""


def bounded(lines: list[str]) -> list[str]:
    """The first :data:`MAX_REPORTED` lines, then ``... and N more problems`` if there are more."""
    if len(lines) <= MAX_REPORTED:
        return lines
    return [
        *lines[:MAX_REPORTED],
        f"... and {len(lines) - MAX_REPORTED:,} more problems",
    ]


def _order(problem: Problem) -> tuple[str, int, int, str, str]:
    return (problem.path, problem.line, problem.col, problem.message, problem.json_path)


def in_order(problems: Iterable[Problem]) -> list[Problem]:
    """``problems`` sorted as :class:`Problem` orders them (file, line, column, message, JSON path).

    By a key of plain tuples, made once per problem: the records' own comparison
    builds two tuples per comparison, and 100,000 problems (a package's
    100,000 JobConfig entries, issue 41) took 80 s of comparisons under a
    profiler. A :class:`Warning_` sorts by the same fields.
    """
    return sorted(problems, key=_order)


class T2genError(Exception):
    """Base class of every error caused by input, templates or the file system."""

    def __init__(self, message: str, *, problems: Iterable[Problem] = ()) -> None:
        """Create the error.

        Args:
            message: one line for the user.
            problems: located findings; printed instead of ``message`` when present,
                sorted and each once (a finding reached by two paths, such as
                one file named twice, is still one line).
        """
        self.problems: list[Problem] = in_order(set(problems))
        super().__init__(message)

    def lines(self) -> list[str]:
        """Return what the user should see, one finding per line, at most :data:`MAX_REPORTED` of them."""
        if self.problems:
            return bounded([str(p) for p in self.problems])
        return [str(self)]


class InputError(T2genError):
    """An input file that cannot be used: every problem found in it, located.

    The one error of :mod:`t2gen.inputs`: each reader there (job files,
    Twister2 configuration, kubectl lists, manifests, packages, ...) refuses
    its input with located problems (``file:line:col`` where the reader knows
    the place; a JSON path beside it where it has one).
    """

    def __init__(self, *, problems: Iterable[Problem]) -> None:
        """Create the error from located problems (at least one)."""
        items = in_order(problems)
        source = items[0].path if items else "input"
        super().__init__(f"{len(items)} problem(s) in {source}", problems=items)


class ConfigError(InputError):
    """One problem that stops an input from being read or parsed (I/O, size, encoding, syntax)."""

    def __init__(self, *, path: str, message: str, line: int = 0, col: int = 0) -> None:
        """Create the error for ``path`` at 1-based ``line``/``col`` (0 if unknown)."""
        self.path = path
        problem = Problem(path, line, col, message)
        T2genError.__init__(self, str(problem), problems=[problem])


class SchemaError(T2genError):
    """A job file that parses but breaks the job schema or a semantic rule."""

    def __init__(self, *, problems: Iterable[Problem]) -> None:
        """Create the error from located problems (at least one)."""
        items = in_order(set(problems))
        super().__init__(f"{len(items)} problem(s) in the job file", problems=items)


class TemplateError(T2genError):
    """A template that fails to render or renders YAML that does not parse."""

    def __init__(self, *, template: str, line: int | None, message: str) -> None:
        """Create the error for ``template`` (its name in the set) at ``line``."""
        self.template = template
        self.line = line
        where = f"{template}:{line}" if line else template
        super().__init__(f"{where}: {message}")


class ValidationError(T2genError):
    """Manifests that break a Kubernetes schema or a semantic output rule.

    Attributes:
        findings: the printed lines, one per finding, in the order given.
        problems: the findings given as located :class:`~t2gen.errors.Problem`
            records (an output object's ``Kind/name`` as ``path``, line 0), in
            the order given; lines given as text are not among them.
        warnings: objects that could not be checked, shown after the findings.
    """

    def __init__(
        self, *, findings: Iterable[str | Problem], warnings: Iterable[str] = ()
    ) -> None:
        """Create the error from the findings, in the order they are to be shown.

        Args:
            findings: lines ``Kind/name: field: message``, or problems that print
                as such (``t2gen.checks.object_problems``); not sorted.
            warnings: lines naming objects that could not be checked.
        """
        items = list(findings)
        self.findings = [str(item) for item in items]
        self.warnings = list(warnings)
        super().__init__("\n".join(self.findings))
        self.problems = [item for item in items if isinstance(item, Problem)]

    def lines(self) -> list[str]:
        """Return one finding per line (at most :data:`MAX_REPORTED`), then the warnings."""
        return bounded(self.findings) + [
            f"warning: {warning}" for warning in self.warnings
        ]


class UsageError(T2genError):
    """Options that cannot go together, found after the command line was parsed: exit code 2.

    The command line prints it as a usage error naming ``param_hint`` (the
    option, as ``'--quota'``), as it prints one it finds itself.
    """

    def __init__(self, message: str, *, param_hint: str) -> None:
        """Create the error: what is wrong with the option ``param_hint``."""
        self.param_hint = param_hint
        super().__init__(message)


class OutputError(T2genError):
    """Output that cannot be written (a file where a directory should be, I/O errors)."""
