"""Token budgets: ``hit@2000t`` and ``recall@2000t`` score only the hits that fit in the context an
application really has, so a configuration does not win just by sending more text ("5 chunks of
1,000 words" against "5 chunks of 200 words").

The contract, per question:

1. Hits are taken in the retriever's order, raw and after the fetch depth cut: every chunk counts,
   a second chunk of a document already taken too (it costs context as well).
2. A hit's length is its ``length`` in the run: the number of words of its text, split on whitespace
   (the built-in retrievers record it; the title is not counted), so a budget is in words; or, with
   a named tokenizer (``eval --tokenizer``, ``ragauge.models.tokens``), the number of that
   tokenizer's tokens in the text the hit covers in the corpus. A hit whose length is needed but
   unknown is an error, never a guess.
3. Whole hits only: hits are taken while the total length of those taken stays within the budget;
   the first hit that would exceed it ends the list (a first hit longer than the budget leaves
   nothing, and scores 0).
4. The hits taken are folded into documents as for every other metric (first occurrence kept), and
   the metric is computed over those documents: ``hit@Nt`` is 1 when a relevant document is among
   them, ``recall@Nt`` is |relevant among them| / |relevant|.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ragauge.errors import InputError
from ragauge.metrics.rankings import Rankings, safe_divide


def fitting(lengths: np.ndarray, budget: int) -> int:
    """How many leading hits fit: the largest m with sum(lengths[:m]) <= budget (lengths >= 0)."""
    return int(np.searchsorted(np.cumsum(lengths), budget, side="right"))


def budget_cutoffs(query_ids: Sequence[str], rows_of: Callable[[str], np.ndarray], docs: Any,
                   lengths: np.ndarray | None, budget: int) -> np.ndarray:
    """Per question: how many documents the hits within ``budget`` words hold (see the contract).

    ``rows_of(qid)`` gives a question's run rows in rank order (after the depth cut), ``docs`` the
    document id of every row (a pyarrow string array), ``lengths`` every row's length in words
    (NaN: unknown). InputError naming the question when a length that decides the cut is unknown."""
    from ragauge.core.arrow import take

    out = np.zeros(len(query_ids), dtype=np.int64)
    for i, qid in enumerate(query_ids):
        rows = rows_of(qid)
        if not len(rows):
            continue
        known = np.full(len(rows), np.nan) if lengths is None else lengths[rows]
        unknown = np.flatnonzero(np.isnan(known))
        stop = int(unknown[0]) if len(unknown) else len(rows)
        m = fitting(known[:stop], budget)
        if m == stop < len(rows):
            raise InputError(f"a token-budget metric ({budget} words) needs each hit's length, and hit {stop + 1} of "
                             f"question {qid!r} has none",
                             hint="the built-in retrievers record it; give each hit \"length\": its number of words")
        out[i] = len(dict.fromkeys(take(docs, rows[:m]).to_pylist()))
    return out


def hit_within_budget(r: Rankings, cutoffs: np.ndarray) -> np.ndarray:
    """hit@Nt: 1 if a relevant document is among the documents of the hits that fit the budget
    (``cutoffs``: their number per question, from :func:`budget_cutoffs`), else 0."""
    return (r.count_rel_within(cutoffs) > 0).astype(np.float64)


def recall_within_budget(r: Rankings, cutoffs: np.ndarray) -> np.ndarray:
    """recall@Nt: |relevant among the documents of the hits that fit the budget| / |relevant|
    (0 for a question without a relevant document)."""
    return safe_divide(r.count_rel_within(cutoffs), r.num_rel)
