"""Evaluate a TREC run against qrels exactly as trec_eval does, and format its output."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ragauge.core.arrow import hash64
from ragauge.core.background import start
from ragauge.errors import InputError
from ragauge.formats.trec import Qrels, TrecRun, read_qrels, read_trec_run, trec_ranking
from ragauge.metrics.build import PARALLEL_ROWS, Judgements, build_rankings
from ragauge.treceval.measures import TrecMeasure, select

MIN_GEO_MEAN = 0.00001


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's flags: ``-q`` per_query, ``-c`` complete, ``-M`` max_docs, ``-l`` rel_level,
    ``-m`` measures."""

    measures: list[str] = field(default_factory=list)
    per_query: bool = False
    complete: bool = False
    max_docs: int | None = None
    rel_level: int = 1


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


def evaluate_trec(qrels: Qrels, run: TrecRun, options: TrecEvalOptions) -> TrecEvalResult:
    """trec_eval's output lines for ``run`` judged by ``qrels`` under ``options``."""
    measures, unsupported = select(options.measures)
    # fingerprints for duplicate detection need no ranking: on a large run, hash while ranking
    fingerprints = start(lambda: hash64(run.docno), background=len(run.docno) >= PARALLEL_ROWS)
    grouping = trec_ranking(run)
    judged_ids = set(qrels.qid.unique().to_pylist())
    run_ids = set(grouping.ids)
    ids = judged_ids if options.complete else judged_ids & run_ids
    query_ids = sorted(ids, key=lambda s: s.encode("utf-8"))
    judgements = Judgements(qrels.qid, qrels.docno, qrels.rel.astype(np.float64))
    rankings, _ = build_rankings(query_ids, grouping, run.docno, judgements, rel_level=options.rel_level,
                                 depth=options.max_docs, duplicates="error", source=run.source,
                                 fingerprints=fingerprints)
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
            lines.append(_fmt("runid", "all", run.runid, "runid"))
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
    if not len(run.qid):
        notes.append(f"{run.source}: the run holds no lines, so every measure is 0")
    elif len(qrels.qid) and not judged_ids & run_ids:
        notes.append("no query of the run is judged in the qrels, so every measure is 0 (are they from the same "
                     "collection?)")
    return TrecEvalResult(lines, unsupported, notes)


def trec_eval(qrels_path: str | Path, run_path: str | Path, options: TrecEvalOptions | None = None) -> TrecEvalResult:
    """Read both files and evaluate; see :func:`evaluate_trec`."""
    options = options or TrecEvalOptions()
    if options.max_docs is not None and options.max_docs < 1:
        raise InputError("-M must be a positive number of documents")
    return evaluate_trec(read_qrels(qrels_path), read_trec_run(run_path), options)
