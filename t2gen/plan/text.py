"""Plain-text tables for the plan's output."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

__all__ = ["aligned", "inert", "inert_json"]

_UNSAFE = "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
"""What a terminal or an editor acts on rather than shows: C0 and C1 controls
(``ESC``, carriage return, backspace), but the line feed, and the line
separators and bidirectional controls of Unicode."""


def inert(text: str) -> str:
    r"""``text`` with every character of :data:`_UNSAFE` written as an escape (``\x1b``, ``\u202e``).

    ``plan`` prints names and values from the node and pod lists it is given;
    they are checked when read (:func:`t2gen.plan.nodes.node_field_problems`),
    and this is the last line before the terminal: a table row can neither
    move the cursor, erase a line nor reorder what follows it.
    """
    if text.isascii() and text.isprintable():
        return text
    return re.sub(
        _UNSAFE,
        lambda m: f"\\x{ord(m[0]):02x}" if ord(m[0]) < 0x100 else f"\\u{ord(m[0]):04x}",
        text,
    )


def inert_json(text: str) -> str:
    r"""JSON ``text`` with every character of :data:`_UNSAFE` written as a JSON escape (``\u009b``).

    :func:`inert`'s ``\x9b`` is no JSON escape (RFC 8259, section 7: only
    ``\uXXXX`` and the two-character ones), so ``status -o json`` of a name
    holding U+009B was no JSON (issue 40). Every such character of
    :func:`json.dumps` output lies inside a string, where ``\uXXXX`` means the
    same character: the text stays the same JSON value, and inert.
    """
    if text.isascii() and all(c == "\n" or c.isprintable() for c in text):
        return text
    return re.sub(_UNSAFE, lambda m: f"\\u{ord(m[0]):04x}", text)


def aligned(rows: Sequence[tuple[str, ...]]) -> Iterator[str]:
    """Yield rows as left-aligned columns two spaces apart, without trailing blanks.

    Args:
        rows: the header and the rows; every row has the same number of cells.

    Yields:
        One line per row, without a newline.
    """
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        yield "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
