"""hit@k: was any relevant document retrieved in the top k (trec_eval ``success_k``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings


def hit(r: Rankings, k: int | None) -> np.ndarray:
    """1 if at least one document with grade >= rel_level is among the first k, else 0.

    Not to be confused with recall@k, which is a fraction. 0 for a query with no relevant
    document or an empty ranking.
    """
    return (r.count_rel_within(k) > 0).astype(np.float64)
