"""Compute many metrics over many queries in one pass over shared arrays."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from ragauge.metrics.judged import Unjudged
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.registry import METRICS
from ragauge.metrics.spec import MetricSpec


def compute(rankings: Rankings, specs: Iterable[MetricSpec], *, unjudged: Unjudged = "non-relevant",
            budgets: Mapping[MetricSpec, np.ndarray] | None = None) -> dict[MetricSpec, np.ndarray]:
    """Per-query values (float64, one per query, in ``rankings`` order) for each spec.

    ``unjudged="unknown"`` scores condensed lists (unjudged documents left out, see
    ``metrics.judged.UNJUDGED``); families marked ``as_retrieved`` (judged@k) always see the
    ranking as retrieved. A token-budget spec (``recall@2000t``) needs its per-query document
    cutoffs in ``budgets`` (``metrics.budget.budget_cutoffs``) and lists as retrieved (ValueError
    otherwise: the caller refuses condensed lists with budgets)."""
    specs = list(specs)
    condensed = rankings.condensed() if unjudged == "unknown" else rankings
    out: dict[MetricSpec, np.ndarray] = {}
    for spec in specs:
        family = METRICS[spec.name]
        if spec.budget is not None:
            if budgets is None or spec not in budgets or family.budget_kernel is None or unjudged == "unknown":
                raise ValueError(f"{spec} needs its budget cutoffs, on lists as retrieved")
            out[spec] = family.budget_kernel(rankings, budgets[spec])
        else:
            out[spec] = family.kernel(rankings if family.as_retrieved else condensed, spec.k)
    return out
