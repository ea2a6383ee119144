"""Compare two evaluations of the same golden set question by question."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.comparison.judged import judged_notes
from ragauge.comparison.patterns import pattern_changes
from ragauge.comparison.result import Comparison, MetricDelta
from ragauge.core.notes import LOUD
from ragauge.core.numbers import PROBABILITY, check_number
from ragauge.data.run import Run
from ragauge.errors import ContractMismatch, InputError, NotComparable, flag
from ragauge.evaluation.evaluate import score_run
from ragauge.evaluation.load import is_result_file, result_or_evaluate
from ragauge.evaluation.options import EvalOptions, contract_differences
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.stages import list_change
from ragauge.evaluation.tags import group_by_tag
from ragauge.formats.autolabels import AutoLabels
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import as_run
from ragauge.metrics.judged import Unjudged
from ragauge.metrics.spec import DEFAULT_K, lower_is_better, parse_metrics
from ragauge.predicted.difference import check_same_labels, ppi_differences
from ragauge.predicted.difference import notes as ppi_notes
from ragauge.stats import DEFAULT_ALPHA
from ragauge.stats.holm import holm
from ragauge.stats.paired import EPS, METHOD, count_scale, paired_test
from ragauge.stats.power import DEFAULT_POWER, Differences, min_questions, minimum_detectable_effect


def _check_comparable(base: Evaluation, new: Evaluation, allow_different_golden: bool) -> list[str]:
    notes: list[str] = []
    bh, nh = base.meta["golden"]["hash"], new.meta["golden"]["hash"]
    if bh != nh:
        if not allow_different_golden:
            raise NotComparable(
                f"the two results come from different golden sets ({bh[:19]}... vs {nh[:19]}...)",
                hint=f"evaluate both runs on the same golden set, or pass {flag('allow_different_golden')} to "
                     "compare only the questions they share",
            )
        notes.append("different golden sets: only the questions present and answerable in both are compared")
    changed = contract_differences(base.meta["contract"], new.meta["contract"])
    if changed:
        if not allow_different_golden:
            raise ContractMismatch(
                f"the two results were measured under different contracts ({', '.join(changed)} differ)",
                hint=f"evaluate both with the same {flag('fetch')}, doc-id rule, {flag('unjudged')} and "
                     f"{flag('corpus')} (labels: the corpus dropped stale labels or resolved span labels in one of "
                     f"them), or pass {flag('allow_different_golden')}",
            )
        notes.append(f"contracts differ in {', '.join(changed)}")
    return notes


def _verdict(d: MetricDelta, alpha: float, tests: int) -> str:
    """The verdict in words. A change is claimed only when the test is significant after Holm's
    correction over its family; the words say how many questions moved."""
    if d.n == 0:
        return "no questions to compare"
    changed = d.better + d.worse
    if changed == 0:
        return "no question changed"
    if d.p_value >= alpha:
        return "no evidence of a change"
    direction = "better" if (d.diff > 0) != d.lower_is_better else "worse"
    if d.p_adjusted < alpha:
        return f"{direction} (significant)"
    return f"{direction} only before correction for {tests} tests: not significant"


def paired_delta(b: np.ndarray, n: np.ndarray, alpha: float, metric: str | None = None) -> MetricDelta:
    """The paired test of one metric (new - base) on one set of questions, as :func:`compare`
    reports it before any correction (``p_adjusted`` is the raw p-value, no verdict yet: see
    :func:`holm_family`), with the minimum detectable effect of that very test, simulated from the
    observed differences (the base run's values when no question changed: ``Differences.best``).
    ``metric`` names it: a count where lower is better (``metrics.spec.lower_is_better``) is
    tested on its differences scaled by its largest value (``stats.paired.count_scale``)."""
    lower = metric is not None and lower_is_better(metric)
    scale = count_scale(b, n) if lower else 1.0
    test = paired_test(b, n, confidence=1.0 - alpha, scale=scale)
    mde = None
    if test.n > 1:
        mde = minimum_detectable_effect(Differences.best(test.n, test.differences / scale, b / scale), test.n, alpha)
        mde = None if mde is None else mde * scale
    better, worse = (test.worse, test.better) if lower else (test.better, test.worse)
    return MetricDelta(test.n, test.base, test.new, test.diff, test.ci, test.p_value, test.p_value, better,
                       worse, test.tied, "", test.method, mde, lower)


def compare(
    base: Evaluation | str | Path | Run | Mapping[str, Any],
    new: Evaluation | str | Path | Run | Mapping[str, Any],
    *,
    golden: Any = None,
    metrics: Sequence[str] | str | None = None,
    k: int | Sequence[int] = DEFAULT_K,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    allow_different_golden: bool = False,
    alpha: float = DEFAULT_ALPHA,
    unjudged: Unjudged = "non-relevant",
    corpus: str | Path | None = None,
    tokenizer: str | None = None,
    grades: str | Mapping[float, float] | None = None,
    auto_labels: str | Path | AutoLabels | None = None,
) -> Comparison:
    """Pair questions by id and compare each metric (new - base).

    ``base`` and ``new`` are evaluations, saved results (``ragauge eval --format json``), or runs
    (files, Run objects or ``{qid: [doc]}`` data) scored here against ``golden`` with the
    evaluation options (``metrics``, ``k``, ``fetch``, doc-id rule, ``unjudged``, ``corpus`` and
    ``tokenizer`` for span labels and tokenizer-counted budgets). Only questions
    answerable in both are paired. For each metric, overall and per tag: means, difference, the paired test chosen
    for its values (``stats.paired``: paired t, or McNemar with Tango's interval for 0/1 values)
    with its 95% interval and p-value, the Holm-adjusted p-value over all metric x tag tests,
    better/worse/tied counts, the minimum detectable effect at 80% power and a verdict in words.
    ``meta["overlap"]`` says how much the lists changed, label-free (``evaluation.stages.list_change``:
    relevant documents promoted into and demoted out of the top k, the largest cutoff compared, and
    the mean rank-biased overlap of the shown lists).
    Refuses (InputError) results from different golden sets or contracts unless
    ``allow_different_golden``, and fewer paired questions than any test at ``alpha`` needs. Warns
    (a loud note) when the new run's top k holds markedly more unjudged documents than the base's
    (see ``comparison.judged``).

    With ``auto_labels`` (a ``golden assess`` output; runs are then scored as
    ``predicted.evaluate`` scores them), or given two results evaluated with the same automatic
    labels, ``meta["ppi"]`` holds each metric's prediction-powered paired difference beside the
    human-only one (``predicted.difference``); the human-only tests above stay those of the labelled
    questions, and without any labelled question they have nothing to test (no refusal: the assessor
    says, loudly, and there is no verdict).
    """
    alpha = check_number(alpha, "alpha", PROBABILITY)
    names_given = [str(s) for s in parse_metrics(metrics)] if metrics is not None else None
    options = EvalOptions(names_given, k, fetch, doc_id_sep, doc_id_pattern, unjudged=unjudged, corpus=corpus,
                          tokenizer=tokenizer, grades=grades)
    labels = auto_labels
    if isinstance(labels, (str, Path)):
        from ragauge.formats.autolabels import read_auto_labels

        labels = read_auto_labels(labels)
    # every row is read several times below (pairs, tags, patterns, latency): made once each
    base, new = (_as_evaluation(v, golden, options, labels).with_rows_made() for v in (base, new))
    notes = _check_comparable(base, new, allow_different_golden)
    predicted = check_same_labels(base, new)
    if labels is not None:
        _check_labels_of(base, labels, predicted)
    names = names_given or [m for m in base.metrics if m in new.metrics]
    missing = [m for m in names if m not in base.metrics or m not in new.metrics]
    if missing or not names:
        raise InputError(f"metric(s) not in both results: {', '.join(missing) or '(none shared)'}",
                         hint="evaluate both with the same " + flag("metrics"))
    one_side = {side: [m for m in mine.metrics if m not in other.metrics]
                for side, mine, other in (("base", base, new), ("new", new, base))}
    if names_given is None and any(one_side.values()):  # not compared: said, never dropped in silence
        notes.append(f"{LOUD}compared on the {len(names)} metric(s) both results hold ({', '.join(names)}); "
                     + "; ".join(f"only in {side}: {', '.join(ms)}" for side, ms in one_side.items() if ms)
                     + f": evaluate both with the same {flag('metrics')} and -k to compare them all")
    bpos, npos = base.positions, new.positions
    ids = [i for i in bpos if i in npos]
    if len(ids) < len(bpos) or len(ids) < len(npos):
        notes.append(f"{len(ids)} questions paired ({len(bpos)} in base, {len(npos)} in new)")
    if len(ids) < min_questions(alpha) and not predicted:
        raise InputError(
            f"only {len(ids)} question(s) are answerable in both results: no test at alpha {alpha} can tell "
            f"a change from noise with fewer than {min_questions(alpha)}",
            hint="compare on a golden set with more answerable questions (or results of the same golden set)")
    rows_b = np.fromiter((bpos[i] for i in ids), dtype=np.int64, count=len(ids))
    rows_n = np.fromiter((npos[i] for i in ids), dtype=np.int64, count=len(ids))
    columns = {m: (base.column(m)[rows_b], new.column(m)[rows_n]) for m in names}
    paired_rows = [(base.queries[i], new.queries[j]) for i, j in zip(rows_b.tolist(), rows_n.tolist())]
    notes += judged_notes(base, new, paired_rows, names, k)
    overlap = list_change([b for b, _ in paired_rows], [n for _, n in paired_rows], _deepest(names))

    overall = {m: paired_delta(*columns[m], alpha, m) for m in names}
    groups = group_by_tag(range(len(ids)), lambda j: base.queries[rows_b[j]].tags)
    tags = sorted(groups)
    members = {tag: np.asarray(groups[tag], dtype=np.int64) for tag in tags}
    by_tag = {tag: {m: paired_delta(columns[m][0][members[tag]], columns[m][1][members[tag]], alpha, m)
                    for m in names}
              for tag in tags}
    dropped = np.zeros(len(ids), dtype=bool)
    for m, (b, n) in columns.items():
        dropped |= (b - n if lower_is_better(m) else n - b) < -EPS
    pairs = [(base.queries[rows_b[j]], new.queries[rows_n[j]]) for j in np.flatnonzero(dropped)]

    # two families: the overall metrics (the headline), then every tag x metric, each Holm-corrected
    # on its own so that many tags never weaken the headline verdict
    overall = dict(zip(names, holm_family([overall[m] for m in names], alpha)))
    tested = [(t, m) for t in tags for m in names]
    for (t, m), d in zip(tested, holm_family([by_tag[t][m] for t, m in tested], alpha)):
        by_tag[t][m] = d

    meta = {
        "base": {"run": base.meta["run"], "golden": base.meta["golden"]},
        "new": {"run": new.meta["run"], "golden": new.meta["golden"]},
        "contract": base.meta["contract"], "metrics": names, "alpha": alpha, "confidence": 1.0 - alpha,
        "power": DEFAULT_POWER, "paired_questions": len(ids),
        "correction": "holm over the metrics; holm over tags x metrics apart",
        "method": METHOD,
        "overlap": overlap,
    }
    if predicted:
        meta["ppi"] = ppi_differences(base, new, names, alpha)
        notes += ppi_notes(meta["ppi"])
    return Comparison(overall, by_tag, _worse_queries(pairs, names), _side_by_side(base, new, "latency_ms"),
                      _side_by_side(base, new, "cost"), notes, meta, pattern_changes(base, new, ids))


def _deepest(names: Sequence[str]) -> int:
    """The cutoff the list change is counted at: the largest of the compared metrics (DEFAULT_K if none)."""
    return max((s.k for s in parse_metrics(list(names)) if s.k is not None), default=DEFAULT_K)


def _worse_queries(pairs: list[tuple[QueryScore, QueryScore]], names: list[str]) -> list[dict[str, Any]]:
    """The ``pairs`` where some metric dropped, worst first (by the first metric, then the mean
    drop), with the first relevant rank before and after and the documents that displaced it."""
    rows: list[dict[str, Any]] = []
    for b, n in pairs:
        diffs = {m: n.values[m] - b.values[m] for m in names}
        if min(-d if lower_is_better(m) else d for m, d in diffs.items()) >= -EPS:
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


def _as_evaluation(value: Any, golden: Any, options: EvalOptions, labels: AutoLabels | None) -> Evaluation:
    """An evaluation as given, a saved result, or a run scored against ``golden`` (beside ``labels``:
    a prediction-powered evaluation, ``predicted.evaluate``)."""
    if isinstance(value, Evaluation):
        return value
    if isinstance(value, (str, Path)) and (labels is None or is_result_file(value)):
        return result_or_evaluate(value, golden, options)
    if golden is None:
        raise InputError("a run needs the golden set it answers to be compared", hint="pass golden=...")
    if labels is None:
        return score_run(as_golden(golden), as_run(value), options)
    from ragauge.formats.runs import scored_run
    from ragauge.predicted.evaluate import score_predicted

    return score_predicted(as_golden(golden, unlabelled=True), scored_run(value), options, labels)


def _check_labels_of(ev: Evaluation, labels: AutoLabels, predicted: bool) -> None:
    """InputError when ``labels`` were given but the results were evaluated without them, or with
    another assessor's or calibration's."""
    ppi = ev.meta.get("ppi") if predicted else None
    if ppi is None:
        raise InputError("automatic labels were given, but both results were evaluated without them",
                         hint=f"compare the runs (with {flag('golden', 'golden.jsonl')}) to score them beside the "
                              f"labels, or results of 'ragauge eval --auto-labels'")
    if ppi["auto_labels"]["identity"] != labels.identity:
        raise InputError(f"the results were evaluated with other automatic labels ({ppi['auto_labels']['assessor']}, "
                         f"or another calibration) than {labels.source}",
                         where=labels.source, hint="compare the runs themselves, or leave the labels out")


def holm_family(deltas: Sequence[MetricDelta], alpha: float) -> list[MetricDelta]:
    """``deltas`` (one family of tests) with Holm-adjusted p-values over the family and the verdict
    :func:`compare` would give each, in the same order."""
    adjusted = holm([d.p_value for d in deltas])
    out = []
    for d, p in zip(deltas, adjusted):
        d = replace(d, p_adjusted=p)
        out.append(replace(d, verdict=_verdict(d, alpha, len(deltas))))
    return out
