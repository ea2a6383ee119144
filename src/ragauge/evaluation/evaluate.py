"""Score a run against a golden set: per-question values, means, per-tag means, warnings, metadata."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge._version import __version__
from ragauge.core.background import start
from ragauge.core.hashing import file_hash
from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenQuery, GoldenSet, refuse_unlabelled
from ragauge.data.relevance import is_relevant
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.diagnose import explain_zeros, lookalike_warnings, no_answer_only, refuse_unscorable
from ragauge.evaluation.docids import doc_id_rule
from ragauge.evaluation.failures import classify_misses, crowding, raw_documents
from ragauge.evaluation.grades import describe as describe_grades
from ragauge.evaluation.grades import map_grades, negative_grade_note, parse_grades
from ragauge.evaluation.hits import Hits, Knobs, ranked_hits, select, streamed_hits
from ragauge.evaluation.options import (
    DEDUP_RULE,
    LABELS_AS_GIVEN,
    MEAN_OVER,
    MEAN_OVER_MIXED,
    MEAN_OVER_REAL,
    Contract,
    EvalOptions,
    OnError,
)
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.evaluation.rows import QueryRows, Rows, score_rows
from ragauge.evaluation.sources import REAL, SYNTHETIC, by_source, note, source_means, split
from ragauge.evaluation.spans import has_spans, resolve_spans, span_warnings
from ragauge.evaluation.stages import stage_report
from ragauge.evaluation.tags import group_by_tag, mean_of
from ragauge.evaluation.trajectories import trajectory_report
from ragauge.evaluation.turns import turn_report
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import RunStream, scored_run
from ragauge.metrics.build import PARALLEL_ROWS, BuildInfo
from ragauge.metrics.engine import compute
from ragauge.metrics.judged import Unjudged, judged
from ragauge.metrics.spec import DEFAULT_K, MetricSpec, lower_is_better
from ragauge.models.tokens import WORDS, check_tokenizer_name, open_tokenizer
from ragauge.redact import redact_value

if TYPE_CHECKING:
    from ragauge.evaluation.text import Texts
    from ragauge.formats.corpus import CorpusTexts

__all__ = ["DEDUP_RULE", "EvalOptions", "evaluate_run", "score_run"]

TOP_SHOWN = 10
MAX_SHOWN = 20


def evaluate_run(
    golden: GoldenSet | str | Path | Iterable[GoldenQuery | Mapping[str, Any]],
    run: Run | RunStream | str | Path | Mapping[str, Any],
    *,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    k: int | Sequence[int] = DEFAULT_K,
    fetch: int | None = None,
    doc_id_sep: str | None = None,
    doc_id_pattern: str | None = None,
    on_error: OnError = "zero",
    known_documents: Set[str] | None = None,
    unjudged: Unjudged = "non-relevant",
    corpus: str | Path | Mapping[str, str] | CorpusTexts | None = None,
    mix_synthetic: bool = False,
    tokenizer: str | None = None,
    grades: str | Mapping[float, float] | None = None,
) -> Evaluation:
    """Score ``run`` against ``golden`` (the options are those of :class:`EvalOptions`).

    ``golden`` is a GoldenSet, a file or questions as dicts (see ``as_golden``); ``run`` a Run, a
    run file, ``{qid: [doc, ...]}`` or ``{qid: {doc: score}}`` (see ``as_run``). A large run file is
    read block by block (``formats.runs.run_source``), in bounded memory, with the same result.

    Means are over answerable questions only (a mean over none is NaN, with a warning);
    no-answer questions are reported apart. Questions missing from the run (no line for them)
    are scored as finding nothing (0 on every rank metric) and listed, as are questions answered
    with no document; run queries outside the golden set are ignored and counted. Questions whose
    retrieval failed are scored as finding nothing (``on_error="zero"``) or are left out of every
    mean and listed (``"skip"``). With ``known_documents`` (the ids an index holds), relevant ids absent from
    the index are stale labels, not misses: dropped from the judgements and reported. Documents the
    golden set does not label count as not relevant (``unjudged="non-relevant"``, as trec_eval) or
    are left out of each ranking before scoring (``"unknown"``); ``meta["judged"]`` holds the mean
    judged@k at the largest cutoff either way (how much of the top k carries a label).

    Every question that misses at k (the largest cutoff) gets its failure patterns
    (``QueryScore.failure``; the table is ``Evaluation.failure_table``). ``corpus`` (a corpus
    file or folder, or ``{doc_id: text}``) adds the text patterns and, unless ``known_documents``
    is given, stale-label checking against its ids.

    Questions an LLM wrote (``"source": "synthetic"``) are scored apart from the others: every mean,
    row and table covers the real questions, ``by_source`` holds the means of each group, and a loud
    warning says so; ``mix_synthetic=True`` scores them all together (``by_source`` still splits).

    Token budgets (``recall@2000t``) count the run's word lengths, or with ``tokenizer`` (``minilm``,
    ``hf:PATH``) the tokens of each hit's text in ``corpus`` (``ragauge.models.tokens``); span
    labels in the golden set are matched against the hits' offsets (``ragauge.evaluation.spans``).

    Refuses (InputError) a run that cannot be scored at all: no questions, no question id
    shared with the golden set, or every call failed.
    """
    run = scored_run(run)
    if isinstance(run, RunStream):
        run = run.begin()  # its first block read while the golden set loads
    return score_run(as_golden(golden), run,
                     EvalOptions(metrics, k, fetch, doc_id_sep, doc_id_pattern, on_error, known_documents, unjudged,
                                 corpus, mix_synthetic, tokenizer, grades))


def score_run(golden: GoldenSet, run: Run | RunStream, options: EvalOptions) -> Evaluation:
    """:func:`evaluate_run` with its options as one value. A golden set with unlabelled questions is
    refused (``data.golden.refuse_unlabelled``): only automatic labels can score those."""
    refuse_unlabelled(golden)
    synthetic = sum(q.synthetic for q in golden)
    if not synthetic:
        return _score(golden, run, options, golden, MEAN_OVER)
    real, apart = split(golden)
    if options.mix_synthetic or not len(real):
        ev = _score(golden, run, options, golden, MEAN_OVER_MIXED if len(real) else MEAN_OVER)
        return _with_sources(ev, by_source(ev), [note(len(real), synthetic, mixed=True)], apart,
                             mixed=True)
    options.specs()
    if not isinstance(run, RunStream):
        refuse_unscorable(golden, run)  # a stream is checked once read (each half reads it)
    if options.corpus is not None:
        from ragauge.formats.corpus import read_corpus_texts

        options = replace(options, corpus=read_corpus_texts(options.corpus))  # read once for both halves
    main = _score(real, run, options, golden, MEAN_OVER_REAL)
    side = _score(apart, run, options, golden, MEAN_OVER_REAL)
    sources = {REAL: source_means(main), SYNTHETIC: source_means(side)}
    theirs = [_of_synthetic(w) for w in side.warnings if w not in main.warnings]
    return _with_sources(main, sources, [note(len(real), synthetic, mixed=False), *theirs], apart, mixed=False)


def _with_sources(ev: Evaluation, sources: dict[str, dict[str, float]], warnings: list[str], synthetic: GoldenSet,
                  *, mixed: bool) -> Evaluation:
    """``ev`` with the means by source, the warnings (the first leads) and ``meta["synthetic"]``."""
    meta = {**ev.meta, "synthetic": {"questions": len(synthetic),
                                     "no_answer": sum(not q.answerable for q in synthetic), "mixed": mixed}}
    return replace(ev, by_source=sources, warnings=(warnings[0], *ev.warnings, *warnings[1:]), meta=meta)


def _of_synthetic(warning: str) -> str:
    """A warning about the synthetic questions' half, saying so (after the loud prefix, if any)."""
    loud = LOUD if warning.startswith(LOUD) else ""
    return f"{loud}synthetic questions: {warning[len(loud):]}"


def _score(golden: GoldenSet, run: Run | RunStream, options: EvalOptions, whole: GoldenSet,
           mean_over: str) -> Evaluation:
    """Score the questions of ``golden``, part of (or all of) ``whole``: ``meta["golden"]`` describes
    ``whole``, ``meta["counts"]`` the part."""
    specs = options.specs()
    fetch = options.checked_fetch()
    on_error = options.checked_on_error()
    unjudged = options.checked_unjudged()
    entire = golden is whole  # not a synthetic or real half
    if entire and not isinstance(run, RunStream):
        refuse_unscorable(golden, run)
    grades = parse_grades(options.grades)
    if grades is not None:
        golden = map_grades(golden, grades)
    graded = describe_grades(grades) if grades is not None else LABELS_AS_GIVEN
    negative = negative_grade_note(golden) if grades is None else None
    full_golden = golden  # the counts in meta always describe the questions asked, before any is dropped
    corpus: CorpusTexts | None = None
    texts: Texts | None = None
    if options.corpus is not None:  # the corpus modules are imported only when a corpus is given
        from ragauge.evaluation.text import Texts
        from ragauge.formats.corpus import read_corpus_texts

        corpus = read_corpus_texts(options.corpus)
        texts = Texts(dict(corpus.indexed))
    known = options.known_documents if options.known_documents is not None or texts is None else set(texts.ids())
    drift: dict[str, Any] | None = None
    if known is not None:
        from ragauge.evaluation.drift import drop_stale

        golden, drift = drop_stale(golden, known)
    if isinstance(options.tokenizer, str):
        check_tokenizer_name(options.tokenizer)  # a wrong name is an error even with nothing to count
    asked = options.tokenizer if any(s.budget is not None for s in specs) else None
    tokenizer = None if asked is None else open_tokenizer(asked)
    counted = tokenizer is not None and tokenizer.name != WORDS
    if tokenizer is not None and counted and options.corpus is None:
        raise InputError(f"token budgets counted by the tokenizer {tokenizer.name!r} need the hits' texts",
                         hint="pass the corpus the run was retrieved from (--corpus PATH), or count budgets in words")
    raw = corpus.plain if corpus is not None else None
    resolved = None
    if has_spans(golden):
        resolved = resolve_spans(golden, raw)
        golden = resolved.golden
        if not len(golden) and entire:  # an empty half alone is not an error
            raise InputError("every question's span labels are stale: the corpus text no longer holds them",
                             where=golden.source, hint="check them with ragauge golden validate GOLDEN --corpus PATH")
    changed = resolved is not None or bool(drift and drift.get("missing_from_index"))
    labels = f"effective {golden.content_hash}" if changed else LABELS_AS_GIVEN
    max_k = max((s.k for s in specs if s.k is not None), default=None)
    knobs = Knobs(specs, fetch, unjudged, options.doc_id_sep, options.doc_id_pattern,
                  min(max(TOP_SHOWN, max_k or 0), MAX_SHOWN), max_k, resolved, raw if counted else None,
                  tokenizer if counted else None)
    hits: Hits | None = None
    if isinstance(run, RunStream):  # read block by block: the hits of every question, then the rest
        path = run.path
        run_hash = start(lambda: file_hash(path), background=True)  # reads the file beside the blocks
        run, hits, error = streamed_hits(golden, run, knobs)
        refuse_unscorable(whole, run)  # before any error of the hits, as when the run is read whole
        if error is not None:
            raise error
    skipped = [q.id for q in golden if q.id in run.errors] if on_error == "skip" else []
    if skipped:
        golden = GoldenSet.from_queries([q for q in golden if q.id not in run.errors], golden.source)
    if hits is None:
        run_hash = start(lambda: run.content_hash, background=len(run.qid) >= PARALLEL_ROWS)  # hashes the file
        hits = ranked_hits(golden, run, knobs)
    elif skipped:
        hits = select(hits, golden)
    rankings, info = hits.rankings, hits.info
    spans = None if resolved is None else {**resolved.report, "whole_hits": hits.whole}
    values = compute(rankings, specs, unjudged=unjudged, budgets=hits.budgets)
    names = [str(s) for s in specs]
    rows = score_rows(golden, run, hits, {n: values[s] for n, s in zip(names, specs)}, drift, max_k)

    def crowd(q: QueryScore) -> dict[str, Any] | None:
        if not q.folded:  # without folded hits no document holds two of them
            return None
        return crowding(raw_documents(hits.raw, q, max_k, fetch), max_k, q.relevant)

    queries, failures = classify_misses(rows.scores, max_k, drift=drift, crowd=crowd, texts=texts)

    answerable = rankings.num_rel > 0
    summary = {n: mean_of(values[s][answerable]) for n, s in zip(names, specs)}
    loud = explain_zeros(golden, hits.chunks, hits.returned, any_relevant_retrieved=bool(rankings.is_rel.any()),
                         doc_id_sep=options.doc_id_sep, doc_id_pattern=options.doc_id_pattern)
    loud += lookalike_warnings(golden, hits.returned)
    empty = no_answer_only(list(golden), int(answerable.sum()))
    warnings = ([empty] if empty else loud) + _warnings(whole, run, rows, info, drift, skipped, max_k)
    if spans is not None:
        warnings += span_warnings(spans)
    if unjudged == "unknown":
        warnings.append(_condensed_note(golden))
    if negative is not None:
        warnings.append(LOUD + negative)
    contract = Contract(tuple(names), tuple(sorted({s.k for s in specs if s.k is not None})), fetch,
                        doc_id_rule(options.doc_id_sep, options.doc_id_pattern), mean_over=mean_over,
                        unjudged=unjudged, budget=WORDS if tokenizer is None else tokenizer.name, labels=labels,
                        grades=graded)
    errored = len(rows.scores.with_status("error"))
    meta: dict[str, Any] = {
        "ragauge_version": __version__,
        "golden": {"path": whole.source, "hash": whole.content_hash, "questions": len(whole)},
        "run": {"path": run.source or run.meta.get("retriever"), "hash": run_hash(), "format": run.format,
                **({"meta": redact_value(dict(run.meta))} if run.meta else {})},  # older run files may hold secrets
        "contract": contract.to_dict(),
        "judged": {"k": max_k, "mean": mean_of(judged(rankings, max_k)[answerable])},
        "counts": {"questions": len(full_golden), "skipped": len(skipped), "answerable": int(answerable.sum()),
                   "no_answer": len(rows.no_answer), "missing": len(rows.missing), "errors": errored,
                   "folded": int(info.folded.sum())},
    }
    if drift is not None:
        meta["drift"] = drift
    if spans is not None:
        meta["spans"] = spans
    latency = list(run.latency_ms.values())
    if latency:
        meta["latency_ms"] = {f"p{p}": float(np.percentile(latency, p)) for p in (50, 95, 99)}
    if run.cost:
        meta["cost"] = {"total": float(sum(run.cost.values())), "mean": float(np.mean(list(run.cost.values())))}
    trajectories = trajectory_report(hits.ids, rankings, run.calls, answerable)
    if trajectories is not None:
        meta["trajectories"] = trajectories
    if any(q.conversation is not None for q in golden):  # reads the rows: made only for conversations
        turns = turn_report(queries, golden.by_id, names)
        if turns is not None:
            meta["turns"] = turns
    if len(run.stages) > 1:
        meta["stages"] = _stages(golden, run, options, whole, mean_over, queries, summary, max_k or DEFAULT_K)
    return Evaluation(tuple(names), summary, tag_means(queries, names), queries,
                      {"n": len(rows.no_answer), "questions": rows.no_answer}, tuple(warnings), meta, failures)


def _stages(golden: GoldenSet, run: Run, options: EvalOptions, whole: GoldenSet, mean_over: str,
            scored: Sequence[QueryScore], summary: dict[str, float], k: int) -> dict[str, Any]:
    """Every stage of ``run`` scored as the last one was (``evaluation.stages``)."""
    order = run.stages
    rows: dict[str, Sequence[QueryScore]] = {order[-1]: scored}
    summaries: dict[str, Mapping[str, float]] = {order[-1]: summary}
    for name in order[:-1]:
        ev = _score(golden, run.stage(name), options, whole, mean_over)
        rows[name], summaries[name] = tuple(ev.queries), ev.summary
    return stage_report(order, rows, summaries, k)


def _condensed_note(golden: GoldenSet) -> str:
    """What scoring condensed lists means for this golden set: loud when it labels no document as
    not relevant, since every list then holds relevant documents only."""
    note = ("unjudged documents were left out of each ranking before scoring (condensed lists, --unjudged "
            "unknown): numbers not comparable with the default rule, under which they count as not relevant")
    if any(not is_relevant(g) for q in golden for g in q.relevant.values()):
        return note
    return (f"{LOUD}{note}; the golden set labels no document as not relevant, so each list holds only relevant "
            f"documents and every metric reads as if each relevant document retrieved ranked first")


def _warnings(golden: GoldenSet, run: Run, rows: Rows, info: BuildInfo, drift: dict[str, Any] | None,
              skipped: list[str], max_k: int | None) -> list[str]:
    warnings: list[str] = []
    golden_ids = {q.id for q in golden}
    extra_queries = [q for q in run.queries if q not in golden_ids]
    if rows.missing:
        warnings.append(f"{len(rows.missing)} question(s) missing from the run, scored as finding nothing: "
                        f"{_ids(rows.missing)}")
        shard = run.meta.get("shard")
        if isinstance(shard, dict):
            warnings.append(f"{LOUD}this run is shard {shard.get('index')}/{shard.get('count')} of a sharded run: the "
                            "other shards' questions score 0 here; join the shards first with ragauge run merge")
    sample = run.meta.get("sample")
    if isinstance(sample, dict):
        warnings.append(f"{LOUD}this run answered a sample of {sample.get('questions')} of the "
                        f"{sample.get('golden_questions')} questions (a sweep's successive halving dropped it in round "
                        f"{sample.get('round')}): " + ("the others score 0 here" if rows.missing else
                                                       "its numbers are over the sample only"))
    if extra_queries:
        warnings.append(f"{len(extra_queries)} run quer(y/ies) not in the golden set were ignored")
    errored = rows.scores.with_status("error")
    if errored:
        warnings.append(f"{len(errored)} question(s) failed in the retriever, scored as finding nothing: "
                        f"{_ids(errored)}")
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
    if rows.empty:
        warnings.append(f"{len(rows.empty)} question(s) answered with no document (the retriever found nothing): "
                        f"{_ids(rows.empty)}")
    if rows.short:
        warnings.append(f"{len(rows.short)} question(s) have fewer than {max_k} unique documents; fetch deeper: "
                        f"{_ids(rows.short)}")
    return warnings


def _ids(ids: list[str], limit: int = 10) -> str:
    more = f" (+{len(ids) - limit} more)" if len(ids) > limit else ""
    return ", ".join(ids[:limit]) + more


def tag_means(rows: Sequence[QueryScore], names: Sequence[str]) -> dict[str, dict[str, float]]:
    """``tag -> {"n": members, metric: mean}``, weakest first by the first metric (highest first for a
    count of calls, where lower is better), then by tag."""
    if isinstance(rows, QueryRows):  # from the columns, without making the rows
        members = group_by_tag(range(len(rows)), lambda i: rows.questions[i].tags)
        out = {tag: {"n": len(at), **{n: mean_of(rows.values[n][at]) for n in names}} for tag, at in members.items()}
    else:
        out = {tag: {"n": len(qs), **{n: mean_of([q.values[n] for q in qs]) for n in names}}
               for tag, qs in group_by_tag(rows).items()}
    sign = -1.0 if names and lower_is_better(names[0]) else 1.0
    return dict(sorted(out.items(), key=lambda kv: (sign * kv[1][names[0]], kv[0])))
