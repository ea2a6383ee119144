"""rprec: precision at rank R, R = the number of relevant documents (trec_eval ``Rprec``)."""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings, safe_divide


def r_precision(r: Rankings, k: int | None) -> np.ndarray:
    """|relevant in top R| / R with R = |relevant|; 0 when R = 0. Takes no cutoff."""
    return safe_divide(r.count_rel_within(r.num_rel), r.num_rel)
