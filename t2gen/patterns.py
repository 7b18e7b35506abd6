r"""Regular expressions compiled on first use, so that start-up only pays for the ones a run needs.

Compiling a pattern runs Python's regular-expression compiler (``re._compiler``,
pure Python): 0.05-0.6 ms a pattern on a 2-CPU machine, the most for character
classes over wide Unicode ranges (``[\x7f-\x9f\u2028\u2029\ufeff...]``). A
render of ``examples/wordcount.yaml`` never touches most of t2gen's patterns:
they judge rare input (tags, control characters, unusual numbers) or serve
other commands. A :class:`LazyPattern` at module level costs nothing until a
method is called; then it compiles once and behaves as the compiled pattern.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator

__all__ = ["LazyPattern"]


class LazyPattern:
    """A ``re.Pattern[str]`` compiled by :func:`re.compile` on its first use.

    Offers the methods t2gen calls (``match``, ``fullmatch``, ``search``,
    ``finditer``, ``sub``) with ``re.Pattern``'s signatures and results;
    :attr:`compiled` gives the pattern itself for anything else (an API that
    wants a real ``re.Pattern``).

    Args:
        pattern: the regular expression, as for :func:`re.compile`.
        flags: ``re`` flags, as for :func:`re.compile`.

    Raises:
        re.error: on first use, if ``pattern`` is not a valid expression (a
            test compiles every one a module holds by name, so none ships broken).
    """

    __slots__ = ("_compiled", "flags", "pattern")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    @property
    def compiled(self) -> re.Pattern[str]:
        """The compiled pattern (compiled now if this is the first use)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        return compiled

    def match(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As :meth:`re.Pattern.match`."""
        return self.compiled.match(string, pos, endpos)

    def fullmatch(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As :meth:`re.Pattern.fullmatch`."""
        return self.compiled.fullmatch(string, pos, endpos)

    def search(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> re.Match[str] | None:
        """As :meth:`re.Pattern.search`."""
        return self.compiled.search(string, pos, endpos)

    def finditer(
        self, string: str, pos: int = 0, endpos: int = sys.maxsize
    ) -> Iterator[re.Match[str]]:
        """As :meth:`re.Pattern.finditer`."""
        return self.compiled.finditer(string, pos, endpos)

    def sub(
        self,
        repl: str | Callable[[re.Match[str]], str],
        string: str,
        count: int = 0,
    ) -> str:
        """As :meth:`re.Pattern.sub`."""
        return self.compiled.sub(repl, string, count)

    def __repr__(self) -> str:
        return f"LazyPattern({self.pattern!r}, {self.flags!r})"
