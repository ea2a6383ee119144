"""The metric reference: every metric ragauge computes, then the failure patterns (``ragauge metrics``)."""

from __future__ import annotations

from ragauge.metrics.spec import DEFAULT_K as DEFAULT_K
from ragauge.metrics.spec import MAX_CUTOFF as MAX_CUTOFF

__all__ = ["metric_reference"]


def metric_reference() -> str:
    """Each metric with its formula and edge cases (and its token-budget form where it has one), the
    token budgets, then each failure pattern with its exact rule and its fix, as plain text."""
    from ragauge.evaluation.patterns import text_docs
    from ragauge.metrics import budget
    from ragauge.metrics.registry import METRICS

    out: list[str] = []
    for f in METRICS.values():
        form = {"required": f"{f.name}@k", "optional": f"{f.name}  |  {f.name}@k", "none": f.name}[f.cutoff]
        out.append(f"{form}    (trec_eval: {f.trec_eval})")
        out += [f"    {line.strip()}" for line in f.doc.splitlines()]
        out.append("")
        if f.budget_kernel is not None:
            out.append(f"{f.name}@Nt    (a token budget of N words, see below; no trec_eval equivalent)")
            out += [f"    {line.strip()}" for line in (f.budget_kernel.__doc__ or "").strip().splitlines()]
            out.append("")
    out += (budget.__doc__ or "").strip().splitlines()
    out.append("")
    out += text_docs()
    return "\n".join(out) + "\n"
