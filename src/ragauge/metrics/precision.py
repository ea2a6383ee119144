"""precision@k: the fraction of the top k that is relevant (trec_eval ``P_k``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings


def precision(r: Rankings, k: int | None) -> np.ndarray:
    """|relevant in top k| / k. The divisor is always k, even when fewer than k documents were
    retrieved (as trec_eval). Unjudged documents count as not relevant.
    """
    if k is None:
        raise ValueError("precision needs a cutoff")
    return r.count_rel_within(k) / float(k)
