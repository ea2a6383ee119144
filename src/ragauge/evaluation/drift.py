"""Stale labels: relevant ids the index no longer holds are not retrieval misses."""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace
from typing import Any

from ragauge.data.golden import GoldenSet
from ragauge.data.ids import in_index
from ragauge.data.relevance import is_relevant


def drop_stale(golden: GoldenSet, known: Set[str]) -> tuple[GoldenSet, dict[str, Any]]:
    """The golden set without the relevant ids the index does not hold (a section id counts as
    held when its document is), and a report of what was dropped: ``relevant_ids`` (relevant
    judgements in all), ``missing_from_index`` and its ``share``, the ``questions`` touched, the
    ``unjudgeable`` ones (every relevant id stale) and each ``stale`` (question, document) pair."""
    kept, stale, questions, unjudgeable, total = [], [], [], [], 0
    for q in golden:
        missing = [d for d in q.relevant if not in_index(d, known)]
        total += sum(1 for g in q.relevant.values() if is_relevant(g))
        if missing:
            questions.append(q.id)
            stale += [{"id": q.id, "doc_id": d} for d in missing]
            if q.answerable and not any(is_relevant(g) for d, g in q.relevant.items() if in_index(d, known)):
                unjudgeable.append(q.id)
            q = replace(q, relevant={d: g for d, g in q.relevant.items() if in_index(d, known)})
        kept.append(q)
    n_missing = len(stale)
    report = {"relevant_ids": total, "missing_from_index": n_missing, "share": n_missing / total if total else 0.0,
              "questions": questions, "unjudgeable": unjudgeable, "stale": stale}
    return GoldenSet(tuple(kept), golden.source), report
