"""What every report shows, computed once from an Evaluation: the worst questions, the per-tag
table with 95% intervals, the first-relevant-rank histogram and the recall@k curve.

Renderers only lay these out; none of them computes a number of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ragauge.evaluation.options import contract_value
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.tags import group_by_tag
from ragauge.reports import WORST as WORST

SMALL_TAG = 5            # a tag with fewer answerable questions is flagged: too few to mean much
CONFIDENCE = 0.95
RELEVANT_GRADE = 1.0     # trec_eval's default relevance level, as Returned.relevant uses


def max_cutoff(evaluation: Evaluation) -> int | None:
    """The largest rank cutoff among the result's metrics (``ndcg@10`` -> 10), None if none has one."""
    ks = [int(m.rsplit("@", 1)[1]) for m in evaluation.metrics if "@" in m and m.rsplit("@", 1)[1].isdigit()]
    return max(ks, default=None)


def _family(metric: str) -> tuple[str, int]:
    """A metric's family and rank cutoff (0 without one; ("", 0) for a name this ragauge cannot read)."""
    from ragauge.errors import InputError
    from ragauge.metrics.spec import parse_metric

    try:
        spec = parse_metric(metric)
    except InputError:
        return "", 0
    return spec.name, spec.k or 0


def is_judged(metric: str) -> bool:
    """Whether ``metric`` is judged or judged@k: the share of the ranking the golden set labels."""
    return _family(metric)[0] == "judged"


def main_metric(metrics: Sequence[str]) -> str | None:
    """The metric a report leads with: nDCG at the largest rank cutoff among ``metrics`` (the sweep's
    default primary metric, ``experiments.grid``), else the first metric that is not judged@k (it
    describes the labels, not the ranking), else the first; None without metrics. The HTML report
    opens its by-tag chart on it and shows it in the question table."""
    from ragauge.metrics.spec import deepest_ndcg

    ndcg = deepest_ndcg(metrics)
    if ndcg is not None:
        return ndcg
    return next((m for m in metrics if not is_judged(m)), metrics[0] if metrics else None)


TABLE_METRICS = 3
"""A result with at most this many metrics shows them all in the HTML question table."""


def table_metrics(metrics: Sequence[str]) -> list[str]:
    """The metric columns the HTML question table shows before the reader picks others: all of
    them up to ``TABLE_METRICS``, else the main metric and hit at the largest cutoff, in the
    result's order."""
    if len(metrics) <= TABLE_METRICS:
        return list(metrics)
    hits = [m for m in metrics if _family(m)[0] == "hit" and _family(m)[1]]
    chosen = {main_metric(metrics), max(hits, key=lambda m: _family(m)[1]) if hits else None}
    return [m for m in metrics if m in chosen]


def is_count(metric: str) -> bool:
    """Whether ``metric`` is a count of calls where lower is better (False for a name this ragauge
    cannot read: a saved result may carry one)."""
    from ragauge.errors import InputError
    from ragauge.metrics.spec import lower_is_better

    try:
        return lower_is_better(metric)
    except InputError:
        return False


def lower_note(metrics: Sequence[str]) -> str | None:
    """The words every report puts where the counts among ``metrics`` are listed; None without one."""
    counts = [m for m in metrics if is_count(m)]
    if not counts:
        return None
    return f"{', '.join(counts)}: {'a count' if len(counts) == 1 else 'counts'} of calls per question, " \
           "lower is better (not a share in [0, 1])"


def relevant_ids(q: QueryScore) -> list[str]:
    """The documents a question expects (grade >= 1), highest grade first, then in golden order."""
    rel = [(doc, g) for doc, g in q.relevant.items() if g >= RELEVANT_GRADE]
    return [doc for doc, _ in sorted(rel, key=lambda dg: -dg[1])]


def worst_questions(evaluation: Evaluation, n: int = WORST) -> list[QueryScore]:
    """The n weakest answerable questions: lowest first metric, then relevant found latest (or never), then id."""
    if not evaluation.metrics or n <= 0:
        return []
    values = evaluation.column(evaluation.metrics[0]).tolist()  # NaN (no value for the metric): read as 0
    ranks = evaluation.first_ranks.tolist()
    ids = evaluation.row_ids  # row by row (a saved result may repeat an id)

    def key(i: int) -> tuple[float, int, str]:
        value = values[i]
        return (0.0 if value != value else value, -(ranks[i] or 10**9), ids[i])

    return evaluation.rows_at(sorted(range(len(ids)), key=key)[:n])


def found(q: QueryScore, k: int | None) -> bool:
    """Whether a relevant document is in the top k (the whole fetched list when k is None)."""
    return q.found(k)


@dataclass(frozen=True)
class TagRow:
    """One tag: its answerable questions, the result's per-tag means and a 95% interval per metric
    asked for (absent for the others, and for a tag of fewer than 2 questions)."""

    tag: str
    n: int
    means: dict[str, float]
    ci: dict[str, tuple[float, float]]

    @property
    def small(self) -> bool:
        return self.n < SMALL_TAG


def tag_rows(evaluation: Evaluation, ci_metrics: tuple[str, ...] | None = None) -> list[TagRow]:
    """The per-tag table in the result's order (weakest first), with a 95% interval of the mean
    (``stats.mean``: the betting interval, valid for any values) for each metric in ``ci_metrics``
    (default: the first metric only). A count of calls (lower is better) is bounded by its largest
    value over every question (``stats.paired.count_scale``, as compare and the gate bound it), a
    share by 1."""

    from ragauge.stats.mean import mean_interval
    from ragauge.stats.paired import count_scale

    wanted = evaluation.metrics[:1] if ci_metrics is None else ci_metrics
    tags = evaluation.row_tags
    members = group_by_tag(range(len(tags)), tags.__getitem__)  # row numbers: no row is made
    high = {m: count_scale(_known(evaluation.column(m))) if is_count(m) else 1.0 for m in wanted}
    rows = []
    for tag, vals in evaluation.by_tag.items():
        at = members.get(tag, [])
        ci = {}
        for m in wanted:
            values = evaluation.column(m)[at]
            if len(values) > 1:
                ci[m] = mean_interval(values, CONFIDENCE, high[m])
        rows.append(TagRow(tag, int(vals.get("n", len(at))),
                           {m: float(vals.get(m, 0.0)) for m in evaluation.metrics}, ci))
    return rows


def _known(values: np.ndarray) -> np.ndarray:
    """``values`` without NaN (a question without the value)."""
    known: np.ndarray = values[~np.isnan(values)]
    return known


@dataclass(frozen=True)
class SourceRow:
    """The means of one source of questions: ``"real"``, or ``"synthetic"`` (an LLM wrote them)."""

    source: str
    label: str
    n: int
    means: dict[str, float]


SOURCE_LABELS = {"real": "real", "synthetic": "synthetic (LLM-written)"}


def source_rows(evaluation: Evaluation) -> list[SourceRow]:
    """The means by source, real first; [] when the golden set holds no synthetic question."""
    order = sorted(evaluation.by_source, key=lambda s: (s != "real", s))
    return [SourceRow(s, SOURCE_LABELS.get(s, s), int(evaluation.by_source[s].get("n", 0)),
                      {m: float(evaluation.by_source[s].get(m, float("nan"))) for m in evaluation.metrics})
            for s in order]


def source_caption(evaluation: Evaluation) -> str:
    """What the means by source stand beside: apart from the summary, or mixed into it on request
    ("" without synthetic questions)."""
    synthetic = evaluation.meta.get("synthetic") or {}
    if not evaluation.by_source:
        return ""
    if "real" not in evaluation.by_source:
        return "every question is synthetic (written by an LLM): not how the retriever serves users"
    if synthetic.get("mixed"):
        return "the summary mixes both, as --mix-synthetic asked"
    return "synthetic questions are scored apart: the summary and every table cover the real ones"


NAN = float("nan")


def mean_text(value: float, digits: int = 4) -> str:
    """A mean with ``digits`` decimals, ``n/a`` for an empty mean (NaN)."""
    return "n/a" if value != value else f"{value:.{digits}f}"


TAG_INTERVAL_NOTE = "interval of the tag's mean {metric} (betting: valid for any values at every n)"


def interval_text(ci: tuple[float, float] | None, sep: str = ", ") -> str:
    """``[lo, hi]`` with 3 decimals, or ``n/a`` (no interval: fewer than 2 questions)."""
    if ci is None or ci[0] != ci[0]:
        return "n/a"
    return f"[{ci[0]:.3f}{sep}{ci[1]:.3f}]"


RANK_BINS: tuple[tuple[str, int, int], ...] = (
    ("1", 1, 1), ("2", 2, 2), ("3", 3, 3), ("4", 4, 4), ("5", 5, 5), ("6-10", 6, 10), ("11-20", 11, 20),
    ("21-50", 21, 50), ("51-100", 51, 100), ("101+", 101, 10**12),
)
NOT_FOUND = "not found"


def rank_histogram(evaluation: Evaluation) -> list[tuple[str, int]]:
    """How many answerable questions have their first relevant document at each rank bin, then
    "not found" (none in the fetched list). Bins past the deepest rank seen are dropped."""
    counts = [0] * len(RANK_BINS)
    missing = 0
    for q in evaluation.queries:
        rank = q.first_relevant_rank
        if rank is None:
            missing += 1
            continue
        for i, (_, lo, hi) in enumerate(RANK_BINS):
            if lo <= rank <= hi:
                counts[i] += 1
                break
    deepest = max((i for i, c in enumerate(counts) if c), default=-1)
    last = max(deepest, 4)  # always show ranks 1-5
    return [(label, counts[i]) for i, (label, _, _) in enumerate(RANK_BINS[:last + 1])] + [(NOT_FOUND, missing)]


@dataclass(frozen=True)
class Curve:
    """Mean recall@k and hit@k over answerable questions for k = 1..depth, from the documents each
    question's row keeps (``top``: its first few documents, as many for every question, all if fewer)."""

    depth: int
    recall: tuple[float, ...]
    hit: tuple[float, ...]


def recall_curve(evaluation: Evaluation) -> Curve:
    """recall@k = |relevant in top k| / |relevant|, hit@k = any relevant in top k, averaged, k = 1..depth.

    ``depth`` is the longest ``top`` kept. A question whose ``top`` is shorter returned no more
    documents (rows keep the same number for every question), so its values stay flat past it.
    """
    qs = evaluation.queries
    depth = max((len(q.top) for q in qs), default=0)
    if not qs or depth == 0:
        return Curve(depth, (), ())
    recall = [0.0] * depth
    hit = [0.0] * depth
    for q in qs:
        n_rel = sum(1 for g in q.relevant.values() if g >= RELEVANT_GRADE)
        if n_rel == 0:
            continue
        got = 0
        for k in range(depth):
            if k < len(q.top) and q.top[k].relevant:
                got += 1
            recall[k] += got / n_rel
            hit[k] += 1.0 if got else 0.0
    n = len(qs)
    return Curve(depth, tuple(r / n for r in recall), tuple(h / n for h in hit))


def fetch_label(evaluation: Evaluation) -> str:
    """The fetch depth as the contract states it ("all hits" when the run was not cut)."""
    fetch = evaluation.meta.get("contract", {}).get("fetch")
    return "all hits" if fetch is None else str(fetch)


def latency_cost_line(evaluation: Evaluation) -> str | None:
    """``latency p50 .. p95 .. p99 .. ms; cost total .. mean ..`` when the run recorded them."""
    meta = evaluation.meta
    parts = []
    lat = meta.get("latency_ms")
    if lat:
        parts.append("latency " + "  ".join(f"{k}={v:.1f}" for k, v in lat.items()) + " ms")
    cost = meta.get("cost")
    if cost:
        parts.append(f"cost total={cost['total']:.6g} mean={cost['mean']:.6g}")
    return "; ".join(parts) or None


def unjudged_rule(evaluation: Evaluation) -> str:
    """How unlabelled documents counted, in words (results written before the rule existed: as
    not relevant)."""
    if contract_value(evaluation.meta.get("contract", {}), "unjudged") == "unknown":
        return "unknown (left out of each ranking before scoring)"
    return "non-relevant"


def budget_rule(evaluation: Evaluation) -> str | None:
    """What the token-budget metrics counted, in words; None without such a metric."""
    return budget_text(evaluation.metrics, evaluation.meta.get("contract", {}))


def budget_text(metrics: Sequence[str], contract: Mapping[str, Any]) -> str | None:
    """What the token-budget metrics among ``metrics`` counted under ``contract``, in words; None
    without such a metric. The one wording every report uses."""
    from ragauge.metrics.spec import parse_metric

    if not any(parse_metric(m).budget is not None for m in metrics):
        return None
    budget = contract_value(dict(contract), "budget")
    if budget == "words":
        return "token budgets count words (each hit's length in the run)"
    return f"token budgets count {budget} tokens of each hit's text in the corpus"


def judged_line(evaluation: Evaluation) -> str | None:
    """The mean judged@k the evaluation records as context (``meta["judged"]``), in words; None when
    it holds none (older results, or no answerable question)."""
    judged = evaluation.meta.get("judged") or {}
    mean, k = judged.get("mean"), judged.get("k")
    if mean is None or mean != mean:
        return None
    top = "ranking" if k is None else f"top {k}"
    name = "judged" if k is None else f"judged@{k}"
    split = ""
    if judged.get("human") is not None:  # with automatic labels (predicted.evaluate)
        split = (f" (by a human {judged['human']:.4f}; by the assessor only {judged.get('automatic') or 0.0:.4f}"
                 + (", its labels filling them" if (evaluation.meta.get("ppi") or {}).get("coverage", {}).get("filled")
                    else "") + ")")
    return f"{name}={mean:.4f}: mean share of the {top} that the golden set labels{split}"
