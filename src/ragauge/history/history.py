"""``History``: the local history file as one object, for scripts and notebooks."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from ragauge.evaluation.result import Evaluation
from ragauge.history import DEFAULT_HISTORY
from ragauge.history.model import Entry
from ragauge.history.report import Flips, Marker, Series, build_series, find_flips, markers, resolve_entry
from ragauge.history.store import open_history, record_evaluation


class History:
    """Recorded evaluations in the SQLite file at ``path`` (default ``.ragauge/history.sqlite``).

    ``record`` appends an evaluation (the file is made on first use); ``entries``, ``series``,
    ``markers`` and ``flips`` read it. Each call opens and closes the file, so several processes
    may record into one history."""

    def __init__(self, path: str | Path = DEFAULT_HISTORY) -> None:
        self.path = Path(path)

    def record(self, evaluation: Evaluation, *, label: str | None = None, now: datetime | None = None,
               git_commit: str | None = None) -> int:
        """Append ``evaluation`` (with an optional ``label``, e.g. "re-index 2026-12"); the entry id."""
        return record_evaluation(self.path, evaluation, label=label, now=now, git_commit=git_commit)

    def entries(self, *, questions: bool = False) -> list[Entry]:
        """Every recorded evaluation, oldest first (with per-question rows if asked)."""
        with open_history(self.path) as store:
            return store.entries(questions=questions)

    def series(self, metrics: Sequence[str] | None = None, tags: Sequence[str] | None = None,
               last: int | None = None) -> list[Series]:
        """Each metric over time (the ``last`` N entries), overall and per tag."""
        entries = self.entries()
        return build_series(entries[-last:] if last else entries, metrics, tags)

    def markers(self) -> list[Marker]:
        """Labelled entries and golden-set changes, one per entry."""
        return markers(self.entries())

    def flips(self, a: str = "prev", b: str = "last", metric: str | None = None) -> Flips:
        """The questions that went from a hit to a miss (and back) between entries ``a`` and ``b``
        (ids, or ``first``, ``prev``, ``last``)."""
        with open_history(self.path) as store:
            entries = store.entries()
            first, second = (store.with_questions(resolve_entry(entries, ref)) for ref in (a, b))
        return find_flips(first, second, metric)
