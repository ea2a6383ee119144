"""The local history of evaluations: ``record`` one, ``history_report`` the trend. Light to import
(``ragauge --help`` reads ``DEFAULT_HISTORY`` and ``FORMATS`` from here)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragauge.history import DEFAULT_HISTORY as DEFAULT_HISTORY
from ragauge.reports import DEFAULT_FORMAT
from ragauge.reports.registry import formats

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation

__all__ = ["history_report", "record"]


def record(history: str | Path, evaluation: Evaluation, *, label: str | None = None) -> int:
    """Append ``evaluation`` to the SQLite history file ``history`` (created when missing) with an
    optional ``label``; returns the new entry's number."""
    from ragauge.history.store import record_evaluation

    entry: int = record_evaluation(Path(history), evaluation, label=label)
    return entry


def history_report(history: str | Path = DEFAULT_HISTORY, fmt: str = DEFAULT_FORMAT, *, metrics: Sequence[str] = (),
                   tags: Sequence[str] = (), last: int | None = None, flips: tuple[str, str] | None = None,
                   flip_metric: str | None = None) -> str:
    """The trend of the recorded evaluations as ``fmt`` (text, json or html): ``metrics`` (default: each
    entry's headline metrics; comma-separated names allowed), ``tags`` beside the overall line, the
    ``last`` N entries only, markers for labelled entries and golden-set changes, and with ``flips``
    (two entries: numbers, ``prev``, ``last``) the questions that went from a hit to a miss and back
    between them, on ``flip_metric`` (default: the largest hit@k in both)."""
    from ragauge.history.history import History
    from ragauge.history.report import HistoryView, build_series, markers
    from ragauge.reports.registry import render, renderer

    renderer("history", fmt)  # an unknown format is refused before the history is read
    found = History(Path(history))
    entries = found.entries()
    flip = found.flips(*flips, metric=flip_metric) if flips else None
    start = max(len(entries) - last, 0) if last else 0
    shown, marks = entries[start:], markers(entries)[start:]
    names = [m.strip() for text in metrics for m in text.split(",") if m.strip()]
    series = build_series(shown, names or None, list(tags) or None)
    return render("history", HistoryView(shown, marks, series, flip, str(history)), fmt)


FORMATS = formats("history")
"""The formats of :func:`history_report`: those the report registry has for a history."""
