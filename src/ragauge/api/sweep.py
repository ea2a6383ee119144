"""``sweep`` a grid of retriever settings with an honest winner, and ``read_sweep`` a saved one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ragauge.experiments.sweep import read_sweep as read_sweep
from ragauge.experiments.sweep import sweep as sweep

if TYPE_CHECKING:
    from ragauge.experiments.result import SweepResult

__all__ = ["read_sweep", "sweep", "sweep_page"]


def sweep_page(result: SweepResult, golden: str | Path, folder: str | Path, at: str | Path | None = None) -> str:
    """The sweep's HTML page, writing each configuration's eval report into ``folder/reports/`` and
    linking them relative to ``at`` (the folder the page will sit in; None: the current folder)."""
    from ragauge.reports.sweep_html import sweep_page as page

    text: str = page(result, golden, folder, at)
    return text
