"""evidence_recall@k and complete@k: how much of the evidence a question needs came back in the top k.

A multi-hop question lists evidence groups (``"evidence"`` in the golden set): it needs every group,
and any relevant document of a group provides it. A plain question's every relevant document is a
group of its own, so there evidence_recall@k is recall@k and complete@k says every relevant document
was found.
"""

from __future__ import annotations

import numpy as np

from ragauge.metrics.rankings import Rankings, popcount


def groups_found(r: Rankings, k: np.ndarray | int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per query: the evidence groups provided by a relevant document within the first ``k`` (k per
    query allowed; None: the whole list), and the groups the query needs."""
    found = r.count_rel_within(k)
    needed = r.num_rel.astype(np.float64)
    if r.masks is None or r.num_groups is None:
        return found, needed
    within = r.is_rel if k is None else r.is_rel & (r.pos < (k[r.qidx] if isinstance(k, np.ndarray) else k))
    provided = np.zeros(r.n, dtype=np.uint64)
    np.bitwise_or.at(provided, r.qidx[within], r.masks[within])
    grouped = r.num_groups > 0
    found = np.where(grouped, popcount(provided).astype(np.float64), found)
    needed = np.where(grouped, r.num_groups.astype(np.float64), needed)
    return found, needed


def evidence_recall(r: Rankings, k: int | None) -> np.ndarray:
    """Share of the question's evidence groups that a relevant document in the top k provides.

    A group counts once however many of its documents are found; a document in two groups provides
    both. 0 for a question with no relevant document or an empty ranking.
    """
    found, needed = groups_found(r, k)
    out: np.ndarray = np.divide(found, needed, out=np.zeros(len(needed)), where=needed > 0)
    return out


def complete(r: Rankings, k: int | None) -> np.ndarray:
    """1 if the top k provides every evidence group the question needs, else 0.

    0 for a question with no relevant document. With one group per question it is hit@k; with one
    document per group, recall@k == 1.
    """
    found, needed = groups_found(r, k)
    return ((needed > 0) & (found >= needed)).astype(np.float64)


def evidence_recall_within_budget(r: Rankings, cutoffs: np.ndarray) -> np.ndarray:
    """evidence_recall@Nt: the share of the evidence groups provided within each question's token budget."""
    found, needed = groups_found(r, cutoffs)
    out: np.ndarray = np.divide(found, needed, out=np.zeros(len(needed)), where=needed > 0)
    return out


def complete_within_budget(r: Rankings, cutoffs: np.ndarray) -> np.ndarray:
    """complete@Nt: 1 if the documents within the token budget provide every evidence group."""
    found, needed = groups_found(r, cutoffs)
    return ((needed > 0) & (found >= needed)).astype(np.float64)
