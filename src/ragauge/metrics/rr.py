"""mrr / mrr@k: reciprocal rank of the first relevant document (trec_eval ``recip_rank``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings


def reciprocal_rank(r: Rankings, k: int | None) -> np.ndarray:
    """1 / rank of the first relevant document over the whole (fetched, deduplicated) list, or
    only within the first k for ``mrr@k``; 0 when none is found. The mean over questions is MRR.
    """
    first = r.first_rel_rank
    ok = first > 0 if k is None else (first > 0) & (first <= k)
    out = np.zeros(r.n, dtype=np.float64)
    out[ok] = 1.0 / first[ok]
    return out
