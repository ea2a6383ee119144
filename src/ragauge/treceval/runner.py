"""Evaluate a TREC run against qrels exactly as trec_eval does, and format its output."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from ragauge.core.arrow import hash64, strings, take
from ragauge.core.background import start
from ragauge.core.grouping import group_rows
from ragauge.data.relevance import RELEVANCE_LEVEL
from ragauge.errors import DuplicateDocument, InputError, flag
from ragauge.formats.blocks import streams, trec_run_blocks
from ragauge.formats.trec import Qrels, TrecRun, read_qrels, read_trec_run, trec_ranking
from ragauge.metrics.build import PARALLEL_ROWS, Judgements, build_rankings
from ragauge.metrics.join import Part, join_parts
from ragauge.treceval.measures import TrecMeasure, select

MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's flags: ``-q`` per_query, ``-c`` complete, ``-M`` max_docs, ``-l`` rel_level
    (default ``RELEVANCE_LEVEL``, trec_eval's and ragauge's: grade >= 1 is relevant), ``-m`` measures."""

    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    max_docs: int | None = None
    rel_level: int = RELEVANCE_LEVEL


@dataclass(frozen=True)
class TrecEvalResult:
    """trec_eval's output lines, the measures asked for that ragauge does not compute, and notes on
    numbers that trec_eval prints without comment but that would mislead (an empty file, no query
    in common)."""

    lines: list[str]
    unsupported: list[str]
    notes: list[str] = field(default_factory=list)


def _fmt(name: str, qid: str, value: float | int | str, kind: str) -> str:
    if kind in ("count", "num_q"):
        return f"{name:<22}\t{qid}\t{int(value)}\n"
    if kind == "runid":
        return f"{name:<22}\t{qid}\t{value}\n"
    return f"{name:<22}\t{qid}\t{value:.4f}\n"


def evaluate_trec(qrels: Qrels, run: TrecRun | Iterable[TrecRun], options: TrecEvalOptions) -> TrecEvalResult:
    """trec_eval's output lines for ``run`` judged by ``qrels`` under ``options``. ``run`` is the
    whole run, or its blocks (``formats.blocks.trec_run_blocks``: each holds every row of its
    queries; a query in two blocks is answered by the later one): the output is the same."""
    measures, unsupported = select(options.measures)
    grades = qrels.rel.astype(np.float64)
    judgements = Judgements(qrels.qid, qrels.docno, grades)
    by_query = group_rows(qrels.qid)  # each query's judgements, found once: a block reads only its own
    where = {q: i for i, q in enumerate(by_query.ids)}
    judged_ids = set(where)

    def judgements_of(ids: list[str]) -> Judgements:
        at = np.fromiter((where[q] for q in ids), dtype=np.int64, count=len(ids))
        rows = by_query.rows(by_query.starts[at], by_query.lengths[at])
        return Judgements(take(qrels.qid, rows), take(qrels.docno, rows), grades[rows])

    parts: list[Part] = []
    run_ids: dict[str, None] = {}
    pending: dict[str, DuplicateDocument] = {}  # the first duplicate of each block, by query
    rows, runid, source = 0, "", None
    for block in [run] if isinstance(run, TrecRun) else run:
        # fingerprints for duplicate detection need no ranking: on a large block, hash while ranking
        fingerprints = start(partial(hash64, block.docno), background=len(block.docno) >= PARALLEL_ROWS)
        grouping = trec_ranking(block)
        rows, runid, source = rows + len(block.qid), block.runid, block.source
        run_ids.update(dict.fromkeys(grouping.ids))
        for q in pending.keys() & set(grouping.ids):
            del pending[q]  # this block holds all of the query's rows: it decides
        ids = sorted(judged_ids.intersection(grouping.ids), key=_utf8)
        try:
            rankings, info = build_rankings(ids, grouping, block.docno, judgements_of(ids), rel_level=options.rel_level,
                                            depth=options.max_docs, duplicates="error", source=block.source,
                                            fingerprints=fingerprints)
        except DuplicateDocument as exc:
            pending[exc.query] = exc
            continue
        parts.append(Part(ids, rankings, info))
    if pending:
        raise pending[min(pending, key=_utf8)]
    query_ids = sorted(judged_ids if options.complete else judged_ids & run_ids.keys(), key=_utf8)
    base = build_rankings(query_ids, strings([]), strings([]), judgements, rel_level=options.rel_level)
    rankings, _ = join_parts(query_ids, base, parts, tuple(run_ids))
    columns: list[tuple[str, TrecMeasure, np.ndarray]] = []
    for m in measures:
        if m.compute is None:
            continue
        for k in m.cutoffs or (None,):
            label = m.name if k is None else f"{m.name}_{k}"
            columns.append((label, m, m.compute(rankings, k)))

    lines: list[str] = []
    if options.per_query:
        for i, q in enumerate(query_ids):
            lines += [_fmt(label, q, values[i], m.kind) for label, m, values in columns if m.kind in ("count", "mean")]
    nq = len(query_ids)
    for m in measures:
        if m.kind == "runid":
            lines.append(_fmt("runid", "all", runid, "runid"))
        elif m.kind == "num_q":
            lines.append(_fmt("num_q", "all", nq, "num_q"))
        for label, mm, values in columns:
            if mm is not m:
                continue
            if m.kind == "count":
                lines.append(_fmt(label, "all", int(values.sum()), "count"))
            elif m.kind == "gm":
                value = float(np.exp(np.cumsum(np.log(np.maximum(values, MIN_GEO_MEAN)))[-1] / nq)) if nq else 0.0
                lines.append(_fmt(label, "all", value, "mean"))
            else:
                lines.append(_fmt(label, "all", float(np.cumsum(values)[-1] / nq) if nq else 0.0, "mean"))
    notes = []
    if not len(qrels.qid):
        notes.append(f"{qrels.source}: the qrels hold no judgements, so every measure is 0")
    if not rows:
        notes.append(f"{source}: the run holds no lines, so every measure is 0")
    elif len(qrels.qid) and not judged_ids & run_ids.keys():
        notes.append("no query of the run is judged in the qrels, so every measure is 0 (are they from the same "
                     "collection?)")
    return TrecEvalResult(lines, unsupported, notes)


def trec_eval(qrels_path: str | Path, run_path: str | Path, options: TrecEvalOptions | None = None) -> TrecEvalResult:
    """Read both files and evaluate; see :func:`evaluate_trec`. A large run file (or a pipe) is
    read block by block (``formats.blocks.streams``), in bounded memory, with the same output."""
    options = options or TrecEvalOptions()
    if options.max_docs is not None and options.max_docs < 1:
        raise InputError(f"{flag('max_docs', cli='-M')} must be a positive number of documents")
    qrels = read_qrels(qrels_path)
    run = trec_run_blocks(run_path) if streams(run_path) else read_trec_run(run_path)
    return evaluate_trec(qrels, run, options)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8")
