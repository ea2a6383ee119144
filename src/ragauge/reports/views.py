"""What every report shows, computed once from an Evaluation: the worst questions, the per-tag
table with bootstrap intervals, the first-relevant-rank histogram and the recall@k curve.

Renderers only lay these out; none of them computes a number of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from ragauge.evaluation.failures import missed
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.tags import group_by_tag

WORST = 15
SMALL_TAG = 5            # a tag with fewer answerable questions is flagged: too few to mean much
CONFIDENCE = 0.95
TAG_RESAMPLES = 2_000    # bootstrap resamples per tag interval (seeded: the same result renders the same)
RELEVANT_GRADE = 1.0     # trec_eval's default relevance level, as Returned.relevant uses


def max_cutoff(evaluation: Evaluation) -> int | None:
    """The largest rank cutoff among the result's metrics (``ndcg@10`` -> 10), None if none has one."""
    ks = [int(m.rsplit("@", 1)[1]) for m in evaluation.metrics if "@" in m and m.rsplit("@", 1)[1].isdigit()]
    return max(ks, default=None)


def relevant_ids(q: QueryScore) -> list[str]:
    """The documents a question expects (grade >= 1), highest grade first, then in golden order."""
    rel = [(doc, g) for doc, g in q.relevant.items() if g >= RELEVANT_GRADE]
    return [doc for doc, _ in sorted(rel, key=lambda dg: -dg[1])]


def worst_questions(evaluation: Evaluation, n: int = WORST) -> list[QueryScore]:
    """The n weakest answerable questions: lowest first metric, then relevant found latest (or never), then id."""
    if not evaluation.metrics:
        return []
    primary = evaluation.metrics[0]

    def key(q: QueryScore) -> tuple[float, int, str]:
        rank = q.first_relevant_rank
        return (q.values.get(primary, 0.0), -(rank if rank else 10**9), q.id)

    return sorted(evaluation.queries, key=key)[:max(n, 0)]


def found(q: QueryScore, k: int | None) -> bool:
    """Whether a relevant document is in the top k (the whole fetched list when k is None)."""
    return not missed(q, k)


@dataclass(frozen=True)
class TagRow:
    """One tag: its answerable questions, the result's per-tag means and a bootstrap interval per metric
    asked for (absent for the others)."""

    tag: str
    n: int
    means: dict[str, float]
    ci: dict[str, tuple[float, float]]

    @property
    def small(self) -> bool:
        return self.n < SMALL_TAG


def tag_rows(evaluation: Evaluation, ci_metrics: tuple[str, ...] | None = None) -> list[TagRow]:
    """The per-tag table in the result's order (weakest first), with a seeded percentile bootstrap
    interval (95%) of the mean for each metric in ``ci_metrics`` (default: the first metric only)."""

    from ragauge.stats.bootstrap import bootstrap_ci

    wanted = evaluation.metrics[:1] if ci_metrics is None else ci_metrics
    members = group_by_tag(evaluation.queries)
    rows = []
    for tag, vals in evaluation.by_tag.items():
        qs = members.get(tag, [])
        ci = {}
        for m in wanted:
            values = evaluation.column(m, [q.id for q in qs])
            if len(values):
                ci[m] = bootstrap_ci(values, confidence=CONFIDENCE, resamples=TAG_RESAMPLES, seed=0)
        rows.append(TagRow(tag, int(vals.get("n", len(qs))),
                           {m: float(vals.get(m, 0.0)) for m in evaluation.metrics}, ci))
    return rows


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
