"""Warn when the new run's top k holds markedly more unjudged documents than the base's.

Golden sets are incomplete: a new retriever that finds a different, equally good document gets no
credit for it, so a drop in its scores may be a drop in labels, not in quality. The check runs on
every comparison, whether or not judged@k was among the metrics asked for.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragauge.core.notes import LOUD
from ragauge.data.relevance import is_relevant
from ragauge.evaluation.options import contract_value
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.metrics.judged import judged_at
from ragauge.metrics.spec import parse_metric

JUDGED_DROP = 0.10
"""A drop in mean judged@k (base - new, absolute) from which the comparison warns: on average at
least one more unlabelled document in every ten of the top k, per question."""

LABEL_HINT = ("pool them for labelling with ragauge golden pool GOLDEN --run BASE --run NEW, judge them (grade 0 for "
              "not relevant) and compare again")


def judged_notes(base: Evaluation, new: Evaluation, pairs: Sequence[tuple[QueryScore, QueryScore]],
                 metrics: Sequence[str], k: int | Sequence[int]) -> list[str]:
    """A loud note when, at some cutoff, mean judged@k of the new run is ``JUDGED_DROP`` or more
    below the base's (the cutoff with the largest drop is named); [] otherwise.

    The cutoffs are those of the compared ``metrics`` (``k``, the comparison's cutoffs, when none
    has one). judged@k is taken from the results when both hold it, else counted from the
    documents each result keeps per question; a cutoff deeper than those documents is not checked
    (a plain note says so when no cutoff could be). Only questions for which both runs retrieved
    something count: with nothing retrieved there is no share of unjudged documents. When those
    questions label only relevant documents, judged@k moves with precision@k and the note says so.
    """
    cutoffs = sorted({c for c in (parse_metric(m).k for m in metrics) if c is not None})
    if not cutoffs:
        cutoffs = [k] if isinstance(k, int) else sorted(set(k))
    answered = [(b, n) for b, n in pairs if b.n_unique and n.n_unique]
    if not answered:
        return []
    found: list[tuple[float, int, float, float]] = []
    for cutoff in cutoffs:
        name = f"judged@{cutoff}"
        if name in base.metrics and name in new.metrics:
            b_values = [b.values[name] for b, _ in answered]
            n_values = [n.values[name] for _, n in answered]
        elif all(_kept(b, cutoff) and _kept(n, cutoff) for b, n in answered):
            b_values = [_judged(b, cutoff) for b, _ in answered]
            n_values = [_judged(n, cutoff) for _, n in answered]
        else:
            continue
        b_mean, n_mean = sum(b_values) / len(answered), sum(n_values) / len(answered)
        found.append((b_mean - n_mean, cutoff, b_mean, n_mean))
    if not found:
        return [f"unjudged documents not checked: the results keep fewer than {cutoffs[0]} documents per "
                f"question; evaluate both with judged@k among --metrics to check them"]
    drop, cutoff, b_mean, n_mean = max(found, key=lambda f: (f[0], -f[1]))
    if drop < JUDGED_DROP - 1e-12:
        return []
    if contract_value(new.meta.get("contract", {}), "unjudged") == "unknown":
        effect = "they were left out before scoring, so the new run is scored on fewer documents than the base"
    else:
        effect = "they count as not relevant, so the new run's scores are a lower bound"
    if not any(not is_relevant(g) for b, _ in answered for g in b.relevant.values()):
        effect += (" (these questions label no document as not relevant, so judged@k falls with precision@k: "
                   "a real drop looks the same)")
    return [f"{LOUD}the new run retrieves {1 - n_mean:.0%} unjudged documents in its top {cutoff} against "
            f"{1 - b_mean:.0%} for the base (mean judged@{cutoff} {n_mean:.3f} vs {b_mean:.3f}, over "
            f"{len(answered)} question(s) both runs answered): {effect}; {LABEL_HINT}"]


def _kept(q: QueryScore, k: int) -> bool:
    return len(q.top) >= min(k, q.n_unique)


def _judged(q: QueryScore, k: int) -> float:
    return judged_at((r.grade is not None for r in q.top), q.n_unique, k)
