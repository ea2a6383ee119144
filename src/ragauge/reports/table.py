"""Plain-text tables and cells shared by the reports."""

from __future__ import annotations


def text_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """Left-align the first column, right-align the others; two spaces between columns."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows)]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 or i == len(cells) - 1 and not c[:1].isdigit() and c[:1] not in "+-."
                         else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    return [fmt(header), "  ".join("-" * w for w in widths), *(fmt(r) for r in rows)]


def mde_text(mde: float | None) -> str:
    """A minimum detectable effect as every report shows it: ``±0.0850``, or ``none`` when the
    questions are too few to detect anything."""
    return "none" if mde is None else f"±{mde:.4f}"
