"""Append what a benchmark script prints to ``bench/results.md``, so one ``make bench`` writes one report.

``bench/bench.py`` writes the report's first part; ``bench/plan_bench.py`` and
``bench/floods.py`` run with ``--append bench/results.md`` and add their
printed figures as one section each, verbatim in a code block.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from pathlib import Path


class _Tee(io.TextIOBase):
    """A text stream writing to standard output and keeping a copy."""

    def __init__(self) -> None:
        self.copy = io.StringIO()

    def write(self, text: str) -> int:
        if sys.__stdout__ is not None:
            sys.__stdout__.write(text)
        return self.copy.write(text)

    def flush(self) -> None:
        if sys.__stdout__:
            sys.__stdout__.flush()


@contextlib.contextmanager
def appended_to(path: str | None, title: str) -> Iterator[None]:
    """Print as usual; when ``path`` is given, append the printed text to it under ``## title``.

    Args:
        path: the markdown report (``bench/results.md``), or None to only print.
        title: the section's heading.
    """
    if path is None:
        yield
        return
    tee = _Tee()
    with contextlib.redirect_stdout(tee):
        yield
    with Path(path).open("a", encoding="utf-8") as report:
        report.write(f"\n## {title}\n\n```\n{tee.copy.getvalue().rstrip()}\n```\n")
