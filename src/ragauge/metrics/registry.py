"""The one list of metrics. Docs, parsing and the engine all read it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ragauge.metrics.ap import average_precision
from ragauge.metrics.budget import hit_within_budget, recall_within_budget
from ragauge.metrics.evidence import (
    complete,
    complete_within_budget,
    evidence_recall,
    evidence_recall_within_budget,
)
from ragauge.metrics.hit import hit
from ragauge.metrics.judged import judged
from ragauge.metrics.ndcg import ndcg
from ragauge.metrics.precision import precision
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.recall import recall
from ragauge.metrics.rprec import r_precision
from ragauge.metrics.rr import reciprocal_rank
from ragauge.metrics.trajectory import calls, calls_to_complete, calls_to_evidence, wasted_calls

Kernel = Callable[[Rankings, "int | None"], np.ndarray]
BudgetKernel = Callable[[Rankings, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class MetricFamily:
    """A metric family: its kernel, whether it takes a cutoff, its trec_eval name as documented
    (``trec_eval``), the trec_eval measures computed with its kernel (``trec_measures``) and whether
    it describes the ranking as retrieved even when unjudged documents are left out of the lists
    that the other metrics score (``as_retrieved``). ``budget_kernel``, when set, computes the
    token-budget form ``name@Nt`` from each question's budget cutoff (``metrics.budget``).

    ``lower_is_better`` marks a count (the trajectory metrics: calls made, ``metrics.trajectory``)
    whose values are whole numbers >= 0 rather than shares in [0, 1], where a rise is a regression;
    comparisons and gates read both (``scale``)."""

    name: str
    kernel: Kernel
    cutoff: Literal["required", "optional", "none"]
    summary: str
    formula: str
    trec_eval: str
    trec_measures: tuple[str, ...] = ()
    as_retrieved: bool = False
    budget_kernel: BudgetKernel | None = None
    lower_is_better: bool = False

    @property
    def doc(self) -> str:
        return (self.kernel.__doc__ or "").strip()


METRICS: dict[str, MetricFamily] = {
    f.name: f
    for f in (
        MetricFamily("hit", hit, "required", "any relevant document in the top k (0 or 1)",
                     "1 if \\|rel ∩ top k\\| > 0 else 0", "success_k", ("success",),
                     budget_kernel=hit_within_budget),
        MetricFamily("recall", recall, "required", "share of the relevant documents found in the top k",
                     "\\|rel ∩ top k\\| / \\|rel\\|", "recall_k", ("recall",),
                     budget_kernel=recall_within_budget),
        MetricFamily("precision", precision, "required", "share of the top k that is relevant",
                     "\\|rel ∩ top k\\| / k", "P_k", ("P",)),
        MetricFamily("mrr", reciprocal_rank, "optional", "reciprocal rank of the first relevant document",
                     "1 / rank of first relevant (0 if none, or none within k)", "recip_rank", ("recip_rank",)),
        MetricFamily("ndcg", ndcg, "optional", "graded gain discounted by rank, normalized by the ideal",
                     "Σ gain_i / log2(i+1) over i ≤ k, divided by the same for the ideal order", "ndcg / ndcg_cut_k",
                     ("ndcg", "ndcg_cut")),
        MetricFamily("map", average_precision, "optional", "mean precision at each relevant document",
                     "Σ precision@i over relevant i ≤ k, divided by \\|rel\\|", "map / map_cut_k",
                     ("map", "gm_map", "map_cut")),
        MetricFamily("rprec", r_precision, "none", "precision at rank R, R = number of relevant documents",
                     "\\|rel ∩ top R\\| / R", "Rprec", ("Rprec",)),
        MetricFamily("evidence_recall", evidence_recall, "required",
                     "share of the evidence groups a relevant document in the top k provides",
                     "\\|groups provided by rel ∩ top k\\| / \\|groups\\| (a plain question: each relevant document "
                     "is a group)", "none", budget_kernel=evidence_recall_within_budget),
        MetricFamily("complete", complete, "required", "every evidence group provided in the top k (0 or 1)",
                     "1 if every group is provided by rel ∩ top k else 0", "none",
                     budget_kernel=complete_within_budget),
        MetricFamily("calls", calls, "none", "calls of the question's trajectory (lower is better)",
                     "number of calls (1 for a one-call answer)", "none", lower_is_better=True),
        MetricFamily("calls_to_evidence", calls_to_evidence, "none",
                     "calls until the first relevant document came back (lower is better)",
                     "number of the first call returning a relevant document (calls + 1 if none did)", "none",
                     lower_is_better=True),
        MetricFamily("calls_to_complete", calls_to_complete, "none",
                     "calls until every evidence group had come back (lower is better)",
                     "number of the call after which every group is provided (calls + 1 if never)", "none",
                     lower_is_better=True),
        MetricFamily("wasted_calls", wasted_calls, "none",
                     "calls that brought back no new relevant document (lower is better)",
                     "\\|{calls adding no relevant document not seen before}\\|", "none", lower_is_better=True),
        MetricFamily("judged", judged, "optional", "share of the top k that the golden set labels (any grade)",
                     "\\|labelled ∩ top k\\| / min(k, retrieved)", "none (ir_measures Judged@k)", as_retrieved=True),
    )
}

ALIASES: dict[str, str] = {
    "success": "hit", "hits": "hit", "hit_rate": "hit",
    "r": "recall", "p": "precision", "prec": "precision",
    "rr": "mrr", "recip_rank": "mrr", "mrr_cut": "mrr",
    "ndcg_cut": "ndcg", "ap": "map", "map_cut": "map", "r-precision": "rprec", "r_precision": "rprec",
}
