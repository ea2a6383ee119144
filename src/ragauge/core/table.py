"""Plain-text tables, as every terminal report and listing prints them."""

from __future__ import annotations


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-align the first column, right-align the others; two spaces between columns."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 or i == len(cells) - 1 and not c[:1].isdigit() and c[:1] not in "+-."
                         else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]
