"""The error hierarchy of t2gen: every failure a user can cause is a T2genError."""

from __future__ import annotations

from collections.abc import Iterable

from t2gen.problems import Problem

__all__ = [
    "MAX_REPORTED",
    "ConfigError",
    "OutputError",
    "SchemaError",
    "T2genError",
    "TemplateError",
    "ValidationError",
]


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
        self.problems: list[Problem] = sorted(set(problems))
        super().__init__(message)

    def lines(self) -> list[str]:
        """Return what the user should see, one finding per line, at most :data:`MAX_REPORTED` of them."""
        if self.problems:
            return bounded([str(p) for p in self.problems])
        return [str(self)]


class ConfigError(T2genError):
    """A job file that cannot be read or parsed (I/O, encoding, YAML syntax)."""

    def __init__(self, *, path: str, message: str, line: int = 0, col: int = 0) -> None:
        """Create the error for ``path`` at 1-based ``line``/``col`` (0 if unknown)."""
        self.path = path
        problem = Problem(path, line, col, message)
        super().__init__(str(problem), problems=[problem])


class SchemaError(T2genError):
    """A job file that parses but breaks the job schema or a semantic rule."""

    def __init__(self, *, problems: Iterable[Problem]) -> None:
        """Create the error from located problems (at least one)."""
        items = sorted(set(problems))
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
        problems: the findings given as located :class:`~t2gen.problems.Problem`
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


class OutputError(T2genError):
    """Output that cannot be written (a file where a directory should be, I/O errors)."""
