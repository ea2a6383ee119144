"""recall@k: the fraction of the relevant documents found in the top k (trec_eval ``recall_k``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings, safe_divide


def recall(r: Rankings, k: int | None) -> np.ndarray:
    """|relevant in top k| / |relevant|, where |relevant| counts all judged relevant documents
    (retrieved or not). 0 when the query has no relevant document.
    """
    return safe_divide(r.count_rel_within(k), r.num_rel)
