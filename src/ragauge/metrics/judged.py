"""judged / judged@k: how much of the top k the golden set labels at all (ir_measures ``Judged@k``),
and the rule for documents it does not label.

Golden sets are incomplete: a document nobody labelled counts as not relevant, so a retriever that
finds a different, equally good document is scored as if it had missed. judged@k says how much of
a score rests on labels; ``Unjudged`` chooses whether an unlabelled document is not relevant or
unknown (left out of the ranking before scoring).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import numpy as np

from ragauge.metrics.rankings import Rankings, safe_divide

Unjudged = Literal["non-relevant", "unknown"]
UNJUDGED: tuple[Unjudged, ...] = ("non-relevant", "unknown")
"""How documents without a label count: ``"non-relevant"`` (trec_eval's rule and the default) or
``"unknown"``: left out of each ranking before any metric is computed (condensed lists, Sakai
2007; trec_eval ``-J``, ir_measures ``judged_only=True``). judged@k itself always describes the
ranking as retrieved."""


def judged(r: Rankings, k: int | None) -> np.ndarray:
    """|judged ∩ top k| / min(k, n), n = the length of the (fetched, deduplicated) list; the
    whole list for ``judged``. A document is judged when the question's ``relevant`` labels it
    with any grade, 0 and negative grades included (a grade-0 label is judged, not relevant).

    The divisor is what came back: 3 documents, 2 of them labelled, give judged@5 = 2/3 (as
    ir_measures' ``Judged@k``; trec_eval 10's ``unj_k`` divides by k instead and counts negative
    grades as unjudged). 0 when nothing was retrieved, as for every metric. Not a quality
    measure: a low value says the other scores are a lower bound until the rest is labelled.
    """
    shown = r.lengths if k is None else np.minimum(r.lengths, k)
    return safe_divide(r.count_judged_within(k), shown)


def judged_at(labelled: Iterable[bool], retrieved: int, k: int | None) -> float:
    """judged@k of one question from whether each of its first documents is labelled, in rank
    order (at least ``min(k, retrieved)`` of them), and how many documents it retrieved."""
    shown = retrieved if k is None else min(k, retrieved)
    flags = list(labelled)[:shown]
    if len(flags) < shown:
        raise ValueError(f"judged@{k} needs the first {shown} documents, got {len(flags)}")
    return sum(flags) / shown if shown else 0.0
