"""Plain-text tables for the plan's output."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from t2gen.errors import inert, inert_json

__all__ = [
    "aligned",
    "inert",
    "inert_json",
]  # both live in t2gen.errors, low in the layers


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
