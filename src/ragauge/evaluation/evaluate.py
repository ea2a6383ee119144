"""Score a run (or a live retriever) against a golden set."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ragauge._version import __version__
from ragauge.background import start
from ragauge.data.arrow import strings, take
from ragauge.data.golden import RELEVANCE_LEVEL, GoldenSet
from ragauge.data.ids import in_index
from ragauge.data.run import QueryResult, Run
from ragauge.errors import InputError
from ragauge.evaluation.diagnose import explain_zeros, no_answer_only, refuse_unscorable
from ragauge.evaluation.docids import doc_id_rule, resolve_doc_ids
from ragauge.evaluation.result import Evaluation, QueryScore, Returned
from ragauge.metrics.build import PARALLEL_ROWS, Judgements, build_rankings
from ragauge.metrics.engine import compute
from ragauge.metrics.spec import MetricSpec, default_metrics, parse_metrics
from ragauge.retrieve.coerce import coerce_hits

TOP_SHOWN = 10
MAX_SHOWN = 20
DEDUP_RULE = "chunk hits folded into their document, first occurrence kept, in retriever order"


def _specs(metrics: Sequence[str | MetricSpec] | str | None, k: int | Sequence[int]) -> tuple[MetricSpec, ...]:
    if metrics:
        if isinstance(metrics, str):
            return parse_metrics(metrics)
        return tuple(dict.fromkeys(m if isinstance(m, MetricSpec) else parse_metrics(m)[0] for m in metrics))
    ks = [k] if isinstance(k, int) else list(k)
    if not ks or any(not isinstance(x, int) or x < 1 for x in ks):
        raise InputError(f"cutoffs must be positive integers, got {k!r}", hint="e.g. -k 5 or -k 1,5,10")
    return default_metrics(ks)


def _judgements(golden: GoldenSet) -> Judgements:
    q, d, g = [], [], []
    for item in golden:
        for doc, grade in item.relevant.items():
            q.append(item.id)
            d.append(doc)
            g.append(float(grade))
    return Judgements(strings(q), strings(d), np.asarray(g, dtype=np.float64))


def evaluate_run(
    golden: GoldenSet,
    run: Run,
    *,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    k: int | Sequence[int] = 5,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    on_error: str = "zero",
    known_documents: set[str] | None = None,
) -> Evaluation:
    """Score ``run`` against ``golden``.

    ``metrics`` (specs such as ``"ndcg@10"``) default to hit@k, recall@k, mrr, ndcg@k for each
    cutoff in ``k``. ``fetch`` keeps each query's first N raw hits before deduplication. Means
    are over answerable questions only; no-answer questions are reported apart. Questions
    missing from the run score 0 and are listed; run queries outside the golden set are ignored
    and counted. Questions whose retrieval failed score 0 (``on_error="zero"``) or are left out
    of every mean and listed (``"skip"``).

    ``known_documents`` (the ids an index holds) turns on drift checking: relevant ids absent
    from the index are stale labels, not retrieval misses, so they are dropped from the
    judgements and reported (a section id ``doc#section`` counts as present when ``doc`` is).
    """
    specs = _specs(metrics, k)
    refuse_unscorable(golden, run)
    full_golden = golden  # the hash and counts in meta always describe the whole golden set
    drift: dict[str, Any] | None = None
    if known_documents is not None:
        golden, drift = _drop_stale(golden, known_documents)
    skipped = [q.id for q in golden if q.id in run.errors] if on_error == "skip" else []
    if skipped:
        golden = GoldenSet.from_queries([q for q in golden if q.id not in run.errors], golden.source)
    if fetch is not None and fetch < 1:
        raise InputError("--fetch must be a positive number of hits")
    run_hash = start(lambda: run.content_hash, background=len(run.qid) >= PARALLEL_ROWS)  # hashes the file
    docs = resolve_doc_ids(run, doc_id_sep, doc_id_pattern)
    ids = [q.id for q in golden]
    max_k = max((s.k for s in specs if s.k is not None), default=None)
    shown = min(max(TOP_SHOWN, max_k or 0), MAX_SHOWN)
    rankings, info = build_rankings(ids, run.ranked, docs, _judgements(golden), rel_level=RELEVANCE_LEVEL,
                                    depth=fetch, duplicates="first", source=run.source, keep_top=shown)
    values = compute(rankings, specs)
    names = [str(s) for s in specs]

    answerable = rankings.num_rel > 0
    lengths = rankings.lengths
    rows: list[QueryScore] = []
    no_answer: list[dict[str, Any]] = []
    warnings: list[str] = []
    short: list[str] = []
    missing: list[str] = []
    golden_ids = set(ids)
    shown_docs = take(docs, info.top_rows).to_pylist()
    shown_scores = [None if sc != sc else sc for sc in run.score[info.top_rows].tolist()]  # NaN: no score
    top_offsets = info.top_offsets.tolist()
    for i, item in enumerate(golden):
        a, b = top_offsets[i], top_offsets[i + 1]
        grades = {doc: float(g) for doc, g in item.relevant.items()}
        top = tuple(map(Returned, shown_docs[a:b], range(1, b - a + 1), map(grades.get, shown_docs[a:b]),
                        shown_scores[a:b]))
        status = "ok" if info.present[i] else "missing"
        error = run.errors.get(item.id)
        if error is not None:
            status = "error"
        if not answerable[i]:
            if drift and item.id in drift["unjudgeable"]:
                continue  # every relevant id is stale: not a no-answer question, reported under drift
            no_answer.append({"id": item.id, "query": item.query, "tags": list(item.tags),
                              "top": [t.to_dict() for t in top[:3]], "status": status})
            continue
        if status == "missing":
            missing.append(item.id)
        elif max_k is not None and lengths[i] < max_k:
            short.append(item.id)
        first = int(rankings.first_rel_rank[i])
        rows.append(QueryScore(
            item.id, item.query, item.tags, {n: float(values[s][i]) for n, s in zip(names, specs)},
            dict(item.relevant), first or None, top, int(info.raw_lengths[i]), int(lengths[i]),
            int(info.folded[i]), status, error, run.latency_ms.get(item.id), run.cost.get(item.id), dict(item.extra),
        ))

    mask = answerable
    summary = {n: float(values[s][mask].mean()) if mask.any() else float("nan") for n, s in zip(names, specs)}
    by_tag = _by_tag(rows, names)
    loud = explain_zeros(golden, run, docs, any_relevant_retrieved=bool(rankings.is_rel.any()),
                         doc_id_sep=doc_id_sep, doc_id_pattern=doc_id_pattern)
    empty = no_answer_only(list(golden), int(mask.sum()))
    warnings += [empty] if empty else loud

    extra_queries = [q for q in run.queries if q not in golden_ids]
    if missing:
        warnings.append(f"{len(missing)} question(s) missing from the run scored 0: {_ids(missing)}")
    if extra_queries:
        warnings.append(f"{len(extra_queries)} run quer(y/ies) not in the golden set were ignored")
    errored = [q.id for q in rows if q.status == "error"]
    if errored:
        warnings.append(f"{len(errored)} question(s) failed in the retriever and scored 0: {_ids(errored)}")
    if drift and drift["missing_from_index"]:
        warnings.append(f"{drift['missing_from_index']} of {drift['relevant_ids']} relevant id(s) "
                        f"({drift['share']:.1%}) are not in the index: stale labels, kept out of the misses "
                        f"({len(drift['questions'])} question(s): {_ids(drift['questions'])})")
    if skipped:
        warnings.append(f"{len(skipped)} question(s) skipped after retriever errors (not in any mean): {_ids(skipped)}")
    total_folded = int(info.folded.sum())
    if total_folded:
        warnings.append(f"{total_folded} duplicate hit(s) folded into their documents "
                        f"({int((info.folded > 0).sum())} question(s))")
    if short:
        warnings.append(f"{len(short)} question(s) have fewer than {max_k} unique documents; fetch deeper: {_ids(short)}")

    n_answerable = int(mask.sum())
    meta = {
        "ragauge_version": __version__,
        "golden": {"path": full_golden.source, "hash": full_golden.content_hash, "questions": len(full_golden)},
        "run": {"path": run.source or run.meta.get("retriever"), "hash": run_hash(), "format": run.format, **({"meta": dict(run.meta)} if run.meta else {})},
        "contract": {
            "metrics": names,
            "k": sorted({s.k for s in specs if s.k is not None}),
            "fetch": fetch,
            "dedup": DEDUP_RULE,
            "doc_id": doc_id_rule(doc_id_sep, doc_id_pattern),
            "relevance": f"grade >= {RELEVANCE_LEVEL}",
            "mean_over": "answerable questions",
        },
        "counts": {"questions": len(full_golden), "skipped": len(skipped), "answerable": n_answerable, "no_answer": len(no_answer),
                   "missing": len(missing), "errors": len(errored), "folded": total_folded},
    }
    if drift is not None:
        meta["drift"] = drift
    latency = [v for q, v in run.latency_ms.items() if q not in run.errors]  # a failed call's time is no latency
    if latency:
        meta["latency_ms"] = {f"p{p}": float(np.percentile(latency, p)) for p in (50, 95, 99)}
    if run.cost:
        meta["cost"] = {"total": float(sum(run.cost.values())), "mean": float(np.mean(list(run.cost.values())))}
    return Evaluation(tuple(names), summary, by_tag, tuple(rows),
                      {"n": len(no_answer), "questions": no_answer}, tuple(warnings), meta)


def _drop_stale(golden: GoldenSet, known: set[str]) -> tuple[GoldenSet, dict[str, Any]]:
    """The golden set without relevant ids the index does not hold, and what was dropped."""
    def present(doc: str) -> bool:
        return in_index(doc, known)

    kept, stale, questions, unjudgeable, total = [], [], [], [], 0
    for q in golden:
        missing = [d for d in q.relevant if not present(d)]
        total += sum(1 for g in q.relevant.values() if g >= RELEVANCE_LEVEL)
        if missing:
            questions.append(q.id)
            stale += [{"id": q.id, "doc_id": d} for d in missing]
            if q.answerable and not any(g >= RELEVANCE_LEVEL for d, g in q.relevant.items() if present(d)):
                unjudgeable.append(q.id)
            q = replace(q, relevant={d: g for d, g in q.relevant.items() if present(d)})
        kept.append(q)
    n_missing = len(stale)
    report = {"relevant_ids": total, "missing_from_index": n_missing, "share": n_missing / total if total else 0.0,
              "questions": questions, "unjudgeable": unjudgeable, "stale": stale}
    return GoldenSet(tuple(kept), golden.source), report


def _ids(ids: list[str], limit: int = 10) -> str:
    more = f" (+{len(ids) - limit} more)" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more


def _by_tag(rows: Iterable[QueryScore], names: list[str]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[QueryScore]] = {}
    for q in rows:
        for tag in q.tags:
            groups.setdefault(tag, []).append(q)
    out: dict[str, dict[str, float]] = {}
    for tag, qs in groups.items():
        out[tag] = {"n": len(qs), **{n: float(np.mean([q.values[n] for q in qs])) for n in names}}
    return dict(sorted(out.items(), key=lambda kv: (kv[1][names[0]], kv[0])))


def evaluate(
    golden: GoldenSet,
    retrieve: Callable[[str, int], Any],
    *,
    k: int | Sequence[int] = 5,
    fetch: int = 20,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    **options: Any,
) -> Evaluation:
    """Call ``retrieve(query, fetch)`` for every question, then score the hits (see evaluate_run).

    A call that raises is recorded as an error for that question (it scores 0) and the rest go on.
    """
    run = collect_run(golden, retrieve, fetch)
    return evaluate_run(golden, run, metrics=metrics, k=k, fetch=fetch, **options)


def collect_run(golden: GoldenSet, retrieve: Callable[[str, int], Any], fetch: int) -> Run:
    """Call ``retrieve(query, fetch)`` once per question, timing each call, into a Run."""
    results = []
    for item in golden:
        start = time.perf_counter()
        try:
            hits = coerce_hits(retrieve(item.query, fetch))
            error = None
        except InputError:
            raise
        except Exception as exc:  # the retriever is user code: record its failure, keep going
            hits, error = (), f"{type(exc).__name__}: {exc}"
        results.append(QueryResult(item.id, hits, (time.perf_counter() - start) * 1000.0, None, error))
    return Run.from_results(results, meta={"retriever": getattr(retrieve, "__name__", repr(retrieve))})
