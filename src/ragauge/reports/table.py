"""Plain-text tables and cells shared by the reports."""

from __future__ import annotations

from ragauge.core.table import text_table as text_table


def mde_text(mde: float | None) -> str:
    """A minimum detectable effect as every report shows it: ``±0.0850``, or ``none`` when the
    questions are too few to detect anything."""
    return "none" if mde is None else f"±{mde:.4f}"
