"""The data of an import: positions, merged settings, findings and the result."""

from __future__ import annotations

from typing import Any

from t2gen.errors import Problem
from t2gen.importer.keys import Key
from t2gen.inputs.yaml import SourceDoc
from t2gen.record import Record

__all__ = [
    "CommentedKey",
    "ImportResult",
    "ImportWarning",
    "Origin",
    "Setting",
    "Twister2Config",
]


class Origin(Record, order=True):
    """Where a Twister2 key (or value) is written: a file and a 1-based line and column."""

    path: str
    line: int
    col: int

    def __str__(self) -> str:
        """``path:line`` as the job file's comments cite it."""
        return f"{self.path}:{self.line}"


class CommentedKey(Record):
    """A key the configuration shows only in a comment (``# key: value``), as Twister2 ships some.

    Twister2's ``conf/kubernetes/resource.yaml`` ships the compute resources and
    the job name commented out; a missing key is reported here, where the user
    would uncomment it.

    Attributes:
        origin: the position of the key's name in the comment.
        end: the last line of the commented-out value (lines commented the same
            way and indented deeper), ``origin.line`` for a one-line value.
    """

    origin: Origin
    end: int

    def lines(self) -> str:
        """``line 41`` or ``lines 52-58``."""
        if self.end == self.origin.line:
            return f"line {self.origin.line}"
        return f"lines {self.origin.line}-{self.end}"


class Setting(Record):
    """One top-level key of a Twister2 configuration file, after merging.

    Attributes:
        name: the key as written (a 0.8 name, a legacy alias or another key).
        key: what it stands for in the key table; None for keys that do not
            concern Kubernetes.
        value: its value, plain data.
        origin: the position of the key.
        doc: the parsed file, for the positions of nested values.
    """

    name: str
    key: Key | None
    value: Any
    origin: Origin
    doc: SourceDoc

    def value_at(self) -> Origin:
        """The position of this setting's value."""
        line, col = self.doc.position((self.name,))
        return Origin(self.origin.path, line, col)

    def at(self, *inner: str | int) -> Origin:
        """The position of a value inside this setting (``at(0, "cpu")``), or of the key."""
        if not inner:
            return self.origin
        line, col = self.doc.position((self.name, *inner))
        return Origin(self.origin.path, line, col)


class ImportWarning(Record, order=True):
    """A finding that does not stop the import, at the Twister2 key it concerns.

    Attributes:
        origin: where the key is written; None for findings about a missing key.
        key: the Twister2 key (or a job-file field for findings with no key).
        message: what differs, and what to do about it.
    """

    origin: Origin | None
    key: str
    message: str

    def sort_key(self) -> tuple[str, int, int, str]:
        """Order by position (findings without one first), then by key."""
        origin = self.origin
        if origin is None:
            return ("", 0, 0, self.key)
        return (origin.path, origin.line, origin.col, self.key)

    def __str__(self) -> str:
        """``path:line:col: key: message`` (``key: message`` without a position)."""
        if self.origin is None:
            return f"{self.key}: {self.message}"
        where = f"{self.origin.path}:{self.origin.line}:{self.origin.col}"
        return f"{where}: {self.key}: {self.message}"


class Twister2Config(Record):
    """A merged Twister2 configuration.

    Attributes:
        files: the files read, in load order, as the user would name them.
        settings: the merged top-level keys by name as written, in load order.
        problems: errors found while reading (unreadable files, not YAML).
        commented: keys shown only commented out, by name, in the last file
            (in load order) that shows them.
    """

    files: tuple[str, ...]
    settings: dict[str, Setting]
    problems: tuple[Problem, ...] = ()
    commented: dict[str, CommentedKey] = {}  # noqa: RUF012 - a record is immutable; never mutated


class ImportResult(Record):
    """The job file imported from a Twister2 configuration.

    Attributes:
        job: the job document (plain data, schema defaults not applied).
        text: the job file: YAML with a comment per field naming its Twister2 key,
            and the warning blocks as trailing comments.
        warnings: semantic differences, each at the key concerned.
        unmapped: keys with no t2gen equivalent (they stay in the job package).
        agree: keys the runtime also reads from the job package, with what must agree.
        files: the files read, in load order.
    """

    job: dict[str, Any]
    text: str
    warnings: tuple[ImportWarning, ...]
    unmapped: tuple[ImportWarning, ...]
    agree: tuple[ImportWarning, ...]
    files: tuple[str, ...]
