"""Compare two evaluations of the same golden set question by question."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.comparison.patterns import pattern_changes
from ragauge.comparison.result import Comparison, MetricDelta
from ragauge.core.numbers import COUNT, PROBABILITY, WHOLE, check_number
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.load import result_or_evaluate
from ragauge.evaluation.options import EvalOptions, contract_differences
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.tags import group_by_tag
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import as_run
from ragauge.metrics.spec import parse_metrics
from ragauge.stats.bootstrap import DEFAULT_RESAMPLES, bootstrap_ci
from ragauge.stats.randomization import holm, sign_flip_p_value


def _check_comparable(base: Evaluation, new: Evaluation, allow_different_golden: bool) -> list[str]:
    notes: list[str] = []
    bh, nh = base.meta["golden"]["hash"], new.meta["golden"]["hash"]
    if bh != nh:
        if not allow_different_golden:
            raise InputError(
                f"the two results come from different golden sets ({bh[:19]}... vs {nh[:19]}...)",
                hint="evaluate both runs on the same golden set, or pass --allow-different-golden to compare "
                     "only the questions they share",
            )
        notes.append("different golden sets: only the questions present and answerable in both are compared")
    changed = contract_differences(base.meta["contract"], new.meta["contract"])
    if changed:
        if not allow_different_golden:
            raise InputError(
                f"the two results were measured under different contracts ({', '.join(changed)} differ)",
                hint="evaluate both with the same --fetch and doc-id rule, or pass --allow-different-golden",
            )
        notes.append(f"contracts differ in {', '.join(changed)}")
    return notes


def _verdict(d: MetricDelta, alpha: float) -> str:
    lo, hi = d.ci95
    if d.n == 0:
        return "no questions to compare"
    if lo <= 0.0 <= hi:
        return "no evidence of a change"
    direction = "better" if d.diff > 0 else "worse"
    if d.p_adjusted < alpha:
        return f"{direction} (significant)"
    return f"probably {direction}, not significant after correction"


def _delta(b: np.ndarray, n: np.ndarray, resamples: int, seed: int) -> MetricDelta:
    d = n - b
    if len(d) == 0:
        nan = float("nan")
        return MetricDelta(0, nan, nan, nan, (nan, nan), 1.0, 1.0, 0, 0, 0, "")
    eps = 1e-12
    return MetricDelta(
        len(d), float(b.mean()), float(n.mean()), float(d.mean()), bootstrap_ci(d, 0.95, resamples, seed),
        sign_flip_p_value(d, resamples, seed), 1.0, int((d > eps).sum()), int((d < -eps).sum()),
        int((np.abs(d) <= eps).sum()), "",
    )


def compare(
    base: Evaluation | str | Path | Run | Mapping[str, Any],
    new: Evaluation | str | Path | Run | Mapping[str, Any],
    *,
    golden: Any = None,
    metrics: Sequence[str] | str | None = None,
    k: int | Sequence[int] = 5,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    allow_different_golden: bool = False,
    alpha: float = 0.05,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
) -> Comparison:
    """Pair questions by id and compare each metric (new - base).

    ``base`` and ``new`` are evaluations, saved results (``ragauge eval --format json``), or runs
    (files, Run objects or ``{qid: [doc]}`` data) scored here against ``golden`` with the
    evaluation options (``metrics``, ``k``, ``fetch``, doc-id rule). Only questions answerable in
    both are paired. For each metric, overall and per tag: means, difference, paired bootstrap 95%
    interval, sign-flip p-value, Holm-adjusted p-value over all metric x tag tests,
    better/worse/tied counts and a verdict in words. Refuses results from different golden sets or
    contracts unless ``allow_different_golden``.
    """
    alpha = check_number(alpha, "alpha", PROBABILITY)
    resamples = int(check_number(resamples, "resamples", COUNT))
    seed = int(check_number(seed, "seed", WHOLE))
    names_given = [str(s) for s in parse_metrics(metrics)] if metrics is not None else None
    options = EvalOptions(names_given, k, fetch, doc_id_sep, doc_id_pattern)
    base, new = _as_evaluation(base, golden, options), _as_evaluation(new, golden, options)
    notes = _check_comparable(base, new, allow_different_golden)
    names = names_given or [m for m in base.metrics if m in new.metrics]
    missing = [m for m in names if m not in base.metrics or m not in new.metrics]
    if missing or not names:
        raise InputError(f"metric(s) not in both results: {', '.join(missing) or '(none shared)'}",
                         hint="evaluate both with the same --metrics")
    bq = {q.id: q for q in base.queries}
    nq = {q.id: q for q in new.queries}
    ids = [i for i in bq if i in nq]
    if len(ids) < len(bq) or len(ids) < len(nq):
        notes.append(f"{len(ids)} questions paired ({len(bq)} in base, {len(nq)} in new)")
    pairs = [(bq[i], nq[i]) for i in ids]

    def arrays(subset: list[tuple[QueryScore, QueryScore]], m: str) -> tuple[np.ndarray, np.ndarray]:
        ids = [b.id for b, _ in subset]
        return base.column(m, ids), new.column(m, ids)

    overall = {m: _delta(*arrays(pairs, m), resamples, seed) for m in names}
    groups = group_by_tag(pairs, lambda pair: pair[0].tags)
    tags = sorted(groups)
    by_tag = {tag: {m: _delta(*arrays(groups[tag], m), resamples, seed) for m in names} for tag in tags}

    tested = [(None, m) for m in names] + [(t, m) for t in tags for m in names]
    adjusted = holm([(overall[m] if t is None else by_tag[t][m]).p_value for t, m in tested])
    for (t, m), p in zip(tested, adjusted):
        table = overall if t is None else by_tag[t]
        d = replace(table[m], p_adjusted=p)
        table[m] = replace(d, verdict=_verdict(d, alpha))

    meta = {
        "base": {"run": base.meta["run"], "golden": base.meta["golden"]},
        "new": {"run": new.meta["run"], "golden": new.meta["golden"]},
        "contract": base.meta["contract"], "metrics": names, "alpha": alpha, "resamples": resamples,
        "seed": seed, "paired_questions": len(pairs), "correction": "holm over metrics x (overall + tags)",
    }
    return Comparison(overall, by_tag, _worse_queries(pairs, names), _side_by_side(base, new, "latency_ms"),
                      _side_by_side(base, new, "cost"), notes, meta, pattern_changes(base, new, ids))


def _worse_queries(pairs: list[tuple[QueryScore, QueryScore]], names: list[str]) -> list[dict[str, Any]]:
    """Questions where any metric dropped, worst first (by the first metric, then the mean drop),
    with the first relevant rank before and after and the documents that displaced it."""
    rows: list[dict[str, Any]] = []
    for b, n in pairs:
        diffs = {m: n.values[m] - b.values[m] for m in names}
        if min(diffs.values()) >= -1e-12:
            continue
        limit = n.first_relevant_rank or (len(n.top) + 1)
        before = {r.doc_id for r in b.top if b.first_relevant_rank and r.rank < b.first_relevant_rank}
        displaced = [r.doc_id for r in n.top if r.rank < limit and not r.relevant and r.doc_id not in before]
        rows.append({
            "id": b.id, "query": b.query, "tags": list(b.tags), "diff": diffs,
            "base": {m: b.values[m] for m in names}, "new": {m: n.values[m] for m in names},
            "base_rank": b.first_relevant_rank, "new_rank": n.first_relevant_rank,
            "displaced_by": displaced[:5], "expected": list(b.relevant),
        })
    rows.sort(key=lambda r: (r["diff"][names[0]], sum(r["diff"].values()), r["id"]))
    return rows


def _side_by_side(base: Evaluation, new: Evaluation, key: str) -> dict[str, Any]:
    def stats(e: Evaluation) -> dict[str, float] | None:
        values = [getattr(q, key) for q in e.queries if getattr(q, key) is not None]
        if not values:
            return None
        arr = np.asarray(values, dtype=np.float64)
        if key == "cost":
            return {"total": float(arr.sum()), "mean": float(arr.mean())}
        return {"p50": float(np.percentile(arr, 50)), "p95": float(np.percentile(arr, 95))}
    return {"base": stats(base), "new": stats(new)}


def _as_evaluation(value: Any, golden: Any, options: EvalOptions) -> Evaluation:
    if isinstance(value, Evaluation):
        return value
    if isinstance(value, (str, Path)):
        return result_or_evaluate(value, golden, options)
    if golden is None:
        raise InputError("a run needs the golden set it answers to be compared", hint="pass golden=...")
    return score_run(as_golden(golden), as_run(value), options)
