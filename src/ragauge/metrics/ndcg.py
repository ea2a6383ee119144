"""ndcg / ndcg@k: normalized discounted cumulative gain (trec_eval ``ndcg`` / ``ndcg_cut_k``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings, safe_divide


def ndcg(r: Rankings, k: int | None) -> np.ndarray:
    """DCG@k / IDCG@k with linear gain and log2 discount:

    DCG@k = sum over ranks i <= k of gain_i / log2(i + 1), gain = judged grade if > 0 else 0
    (unjudged and negative grades gain nothing). IDCG@k is the DCG of all positive judged
    grades sorted descending, cut at k. 0 when the query has no positively graded document.
    Binary labels make every gain 1.
    """
    return safe_divide(r.sum_by_query(r.gains * r.discount, k), r.ideal_dcg(k))
