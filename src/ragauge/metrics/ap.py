"""map / map@k: average precision (trec_eval ``map`` / ``map_cut_k``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings, safe_divide


def average_precision(r: Rankings, k: int | None) -> np.ndarray:
    """(sum over relevant documents ranked at i <= k of precision@i) / |relevant|.

    The divisor is all judged relevant documents, retrieved or not, also with a cutoff (as
    trec_eval's map_cut). 0 when the query has no relevant document.
    """
    pos = r.pos[r.rel_pos]
    prec = r.cum_rel / (pos + 1.0)
    if k is not None:
        prec = np.where(pos < k, prec, 0.0)
    sums = np.bincount(r.qidx[r.rel_pos], weights=prec, minlength=r.n)
    return safe_divide(sums, r.num_rel)
