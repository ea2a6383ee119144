"""What scoring reads of a run's hits, from a whole run or joined block by block from a RunStream.

Every question's ranking, the documents shown in reports, token-budget cutoffs, the raw documents
of questions with folded hits (crowding) and the evidence ``explain_zeros`` weighs: a few numbers
and ids per question, so a run of any size is scored in bounded memory when read in blocks.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge.core.arrow import strings, take
from ragauge.data.golden import GoldenSet
from ragauge.data.ids import chunk_parent, section_parent
from ragauge.data.relevance import RELEVANCE_LEVEL, is_relevant
from ragauge.data.run import Run
from ragauge.errors import InputError, flag
from ragauge.evaluation.docids import chunk_column, docnos_are_chunks, resolve_doc_ids
from ragauge.evaluation.failures import raw_depth
from ragauge.evaluation.spans import OUTSIDE, Resolved, match_spans
from ragauge.metrics.budget import budget_cutoffs
from ragauge.metrics.build import BuildInfo, Judgements, build_rankings
from ragauge.metrics.join import Part, join_parts
from ragauge.metrics.judged import Unjudged
from ragauge.metrics.rankings import Rankings
from ragauge.metrics.spec import MetricSpec
from ragauge.models.tokens import Tokenizer, hit_tokens

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.formats.runs import RunStream


@dataclass(frozen=True)
class Knobs:
    """The options that decide what is read of the hits."""

    specs: Sequence[MetricSpec]
    fetch: int | None
    unjudged: Unjudged
    doc_id_sep: str | None
    doc_id_pattern: str | None
    shown: int
    max_k: int | None
    spans: Resolved | None = None
    """Span labels resolved against the corpus (``evaluation.spans``), or None."""
    texts: Mapping[str, str] | None = None
    tokenizer: Tokenizer | None = None
    """With ``texts``: count token budgets in this tokenizer's tokens (``evaluation.tokens``)."""


@dataclass(frozen=True)
class Hits:
    """The hits of questions ``ids`` (golden order), as scoring reads them: ``info.top_rows``
    index ``shown_docs`` / ``shown_scores``; ``raw(qid, n)`` gives a question's first n raw
    document ids (for a question with folded hits, as many as crowding asks); ``chunks`` the ids a
    ``--doc-id-sep`` applies to (None without one) and ``returned`` the documents returned, which
    ``explain_zeros`` weighs (read in blocks: only those its checks can use)."""

    ids: tuple[str, ...]
    rankings: Rankings
    info: BuildInfo
    shown_docs: pa.Array
    shown_scores: np.ndarray
    budgets: dict[MetricSpec, np.ndarray]
    raw: Callable[[str, int | None], Sequence[str]]
    chunks: pa.Array | None
    returned: pa.Array
    outside: tuple[tuple[str, str], ...] = ()
    """(question, id) of chunks outside a labelled span, judged not relevant (``evaluation.spans``)."""
    whole: int = 0
    """Hits of span-labelled documents taken whole (no offsets, no chunk id)."""


def _fingerprints(run: Run, docs: pa.Array) -> Callable[[], np.ndarray] | None:
    """The run's fingerprints of ``docs`` when it holds them (``docs`` is its own ``doc_id``)."""
    made = run.fingerprints
    return None if made is None or docs is not run.doc_id else lambda: made


def judgements_of(golden: GoldenSet, not_relevant: Sequence[tuple[str, str]] = ()) -> Judgements:
    """The golden set's labels, and ``not_relevant`` (question, document) pairs judged 0; with the
    groups each document provides when a question needs evidence groups (``Judgements.masks``)."""
    q, d, g, m = [], [], [], []
    grouped = any(item.groups for item in golden)
    for item in golden:
        provides: dict[str, int] = {}
        for bit, group in enumerate(item.groups):
            for doc in group:
                provides[doc] = provides.get(doc, 0) | (1 << bit)
        for doc, grade in item.relevant.items():
            q.append(item.id)
            d.append(doc)
            g.append(float(grade))
            m.append(provides.get(doc, 0))
    for qid, doc in not_relevant:
        q.append(qid)
        d.append(doc)
        g.append(0.0)
        m.append(0)
    masks = np.asarray(m, dtype=np.uint64) if grouped else None
    return Judgements(strings(q), strings(d), np.asarray(g, dtype=np.float64), masks)


def ranked_hits(golden: GoldenSet, run: Run, knobs: Knobs) -> Hits:
    """The hits of ``golden``'s questions in a whole run (or in a block holding all of theirs)."""
    named = docs = resolve_doc_ids(run, knobs.doc_id_sep, knobs.doc_id_pattern)
    ids = tuple(q.id for q in golden)
    chunk_ids = chunk_column(run, knobs.doc_id_sep, knobs.doc_id_pattern)
    matched = None
    if knobs.spans is not None:
        mine = set(ids)  # a block's questions only
        places = {key: at for key, at in knobs.spans.places.items() if key[0] in mine}
        matched = match_spans(replace(knobs.spans, places=places), run, named, chunk_ids)
        docs = matched.docs
    outside = tuple(matched.outside) if matched is not None else ()
    rankings, info = build_rankings(ids, run.ranked, docs, judgements_of(golden, outside), rel_level=RELEVANCE_LEVEL,
                                    depth=knobs.fetch, duplicates="first", source=run.source, keep_top=knobs.shown,
                                    run_call=run.call, num_calls=None if run.call is None else run.num_calls(ids),
                                    fingerprints=_fingerprints(run, docs))
    lengths = run.length
    if knobs.tokenizer is not None and knobs.texts is not None and any(s.budget is not None for s in knobs.specs):
        kept = [run.rows_of(q, knobs.fetch) for q in ids]
        lengths = hit_tokens(run, np.concatenate(kept) if kept else np.zeros(0, np.int64), named, chunk_ids,
                             knobs.texts, knobs.tokenizer)
    budgets = _budget_cutoffs(golden, run, docs, lengths, knobs)
    return Hits(ids, rankings, info, docs, run.score, budgets,
                lambda qid, n: take(docs, run.rows_of(qid, n)).to_pylist(), _chunks(run, knobs.doc_id_sep), docs,
                outside, 0 if matched is None else matched.whole)


def _chunks(run: Run, sep: str | None) -> pa.Array | None:
    """The chunk ids ``--doc-id-sep`` applies to (``explain_zeros`` checks it occurs in them)."""
    if not sep:
        return None
    chunks = chunk_column(run, sep)
    from ragauge.core import compute as pc

    return chunks if docnos_are_chunks(run, sep) else pc.filter(chunks, pc.is_null(run.doc_id))


def _budget_cutoffs(golden: GoldenSet, run: Run, docs: pa.Array, lengths: np.ndarray | None,
                    knobs: Knobs) -> dict[MetricSpec, np.ndarray]:
    """Each token-budget spec's per-question document cutoff (``metrics.budget``); InputError when
    budgets meet condensed lists, whose ranks no longer say which hits were sent."""
    wanted = [s for s in knobs.specs if s.budget is not None]
    if wanted and knobs.unjudged == "unknown":
        raise InputError(f"token-budget metrics ({', '.join(map(str, wanted))}) count the hits as retrieved, so they "
                         f"cannot be scored on condensed lists ({flag('unjudged', 'unknown')})",
                         hint=f"evaluate them with {flag('unjudged', 'non-relevant')}, or drop them")
    ids = [q.id for q in golden]
    return {s: budget_cutoffs(ids, lambda qid: run.rows_of(qid, knobs.fetch), docs, lengths, int(s.budget))
            for s in wanted if s.budget is not None}


def select(hits: Hits, golden: GoldenSet) -> Hits:
    """``hits`` of the questions of ``golden`` (a subset of those of ``hits``), in its order."""
    ids = tuple(q.id for q in golden)
    chosen = set(ids)
    where = {q: i for i, q in enumerate(hits.ids)}
    at = np.array([where[q] for q in ids], dtype=np.int64)
    base = build_rankings(ids, strings([]), strings([]), judgements_of(golden), rel_level=RELEVANCE_LEVEL)
    rankings, info = join_parts(ids, base, [Part(hits.ids, hits.rankings, hits.info)], hits.info.run_queries)
    return Hits(ids, rankings, info, take(hits.shown_docs, hits.info.top_rows), hits.shown_scores[hits.info.top_rows],
                {s: v[at] for s, v in hits.budgets.items()}, hits.raw, hits.chunks, hits.returned,
                tuple(o for o in hits.outside if o[0] in chosen), hits.whole)


def streamed_hits(golden: GoldenSet, stream: RunStream, knobs: Knobs) -> tuple[Run, Hits, InputError | None]:
    """The hits of ``golden``'s questions read block by block: a run without hits that carries
    the rest (question ids, errors, latency, cost, meta), the hits, and the first error the hits
    raised (the caller raises it after checking that the run can be scored at all)."""
    import pyarrow as pa

    header = _Header()
    parts: list[Part] = []
    shown_docs: list[pa.Array] = []
    shown_scores: list[np.ndarray] = []
    budgets = {s: np.zeros(len(golden), dtype=np.int64) for s in knobs.specs if s.budget is not None}
    raw: dict[str, list[str]] = {}
    evidence = _Evidence(knobs.doc_id_sep, golden)
    outside: list[tuple[str, str]] = []
    whole = 0
    error: InputError | None = None
    position = {q.id: i for i, q in enumerate(golden)}
    for block in stream.blocks():
        header.add(block)
        if error is not None:
            continue
        mine = [q for q in block.queries if q in position]
        questions = GoldenSet.from_queries([golden.by_id[q] for q in sorted(mine, key=position.__getitem__)],
                                           golden.source)
        try:
            hits = ranked_hits(questions, block, knobs)
        except InputError as exc:
            error = exc
            continue
        parts.append(Part(hits.ids, hits.rankings, hits.info))
        outside += hits.outside
        whole += hits.whole
        shown_docs.append(take(hits.shown_docs, hits.info.top_rows))
        shown_scores.append(hits.shown_scores[hits.info.top_rows])
        at = np.array([position[q] for q in hits.ids], dtype=np.int64)
        for spec, values in hits.budgets.items():
            budgets[spec][at] = values
        for i in np.flatnonzero(hits.info.folded).tolist():
            raw[hits.ids[i]] = list(hits.raw(hits.ids[i], raw_depth(int(hits.info.folded[i]), knobs.max_k,
                                                                       knobs.fetch)))
        evidence.add(hits, bool(hits.rankings.is_rel.any()))
    ids = tuple(q.id for q in golden)
    base = build_rankings(ids, strings([]), strings([]), judgements_of(golden), rel_level=RELEVANCE_LEVEL,
                          keep_top=knobs.shown)
    run = header.run(stream)
    rankings, info = join_parts(ids, base, parts, run.queries)
    if evidence.any_relevant and error is None and not rankings.is_rel.any():
        # a block held part of a scattered query, relevant only until gathered: read the evidence again
        evidence = _Evidence(knobs.doc_id_sep, golden)
        for block in stream.blocks():
            evidence.add(ranked_hits(GoldenSet.from_queries([], golden.source), block, knobs), False)
    docs = pa.concat_arrays(shown_docs) if shown_docs else strings([])
    scores = np.concatenate(shown_scores) if shown_scores else np.zeros(0)
    hits = Hits(ids, rankings, info, docs, scores, budgets, lambda qid, n: raw.get(qid, [])[:n],
                evidence.chunks(), evidence.returned(), tuple(outside), whole)
    return run, hits, error


class _Header:
    """What a run holds besides its hits, gathered block by block."""

    def __init__(self) -> None:
        self.queries: dict[str, None] = {}
        self.regrouped = False
        self.latency: dict[str, float] = {}
        self.cost: dict[str, float] = {}
        self.errors: dict[str, str] = {}
        self.calls: dict[str, Any] = {}
        self.meta: dict[str, Any] = {}
        self.format = "jsonl"

    def add(self, block: Run) -> None:
        again = not self.queries.keys().isdisjoint(block.queries)
        # a TREC run read whole lists its queries sorted once any had to be regrouped
        self.regrouped |= again or (block.format == "trec" and block.ranking is None and len(block.qid) > 1)
        self.queries.update(dict.fromkeys(block.queries))
        self.latency.update(block.latency_ms)
        self.cost.update(block.cost)
        self.errors.update(block.errors)
        self.calls.update(block.calls)
        self.meta = dict(block.meta)
        self.format = block.format

    def run(self, stream: RunStream) -> Run:
        queries = sorted(self.queries, key=lambda q: q.encode("utf-8")) if self.regrouped else list(self.queries)
        empty = strings([])
        return Run(empty, empty, empty, np.zeros(0), tuple(queries), self.latency, self.cost, self.errors, self.meta,
                   str(stream.path), self.format, calls=self.calls)


class _Evidence:
    """What ``explain_zeros`` weighs, kept small: an id that holds the separator (else the first
    three distinct ids it applies to) and, while nothing relevant has come back, of the documents
    returned only those its checks can use: a document a judged id is a section of, one whose
    parent (section or chunk) is judged, and the three first in sorted order (its examples)."""

    def __init__(self, sep: str | None, golden: GoldenSet) -> None:
        self.sep = sep
        self.holding: str | None = None
        self.first: dict[str, None] = {}
        self.any_relevant = False
        self.judged = {d for q in golden for d, g in q.relevant.items() if is_relevant(g)}
        self.sections_of = {section_parent(d) for d in self.judged} - {None}
        self.kept: set[str] = set()
        self.smallest: list[str] = []

    def add(self, hits: Hits, relevant: bool) -> None:
        from ragauge.core import compute as pc

        chunks = hits.chunks
        if self.sep and chunks is not None and self.holding is None and len(chunks) > chunks.null_count:
            found = pc.match_substring(chunks, self.sep)
            if pc.any(found).as_py():
                self.holding = pc.drop_null(pc.filter(chunks, found))[0].as_py()
            elif len(self.first) < 3:
                self.first.update(dict.fromkeys(pc.drop_null(pc.unique(chunks))[:3].to_pylist()))
        self.any_relevant |= relevant
        if self.any_relevant:
            self.kept.clear()
            self.smallest.clear()
            return
        returned = pc.drop_null(pc.unique(hits.returned)).to_pylist()
        self.smallest = heapq.nsmallest(3, set(self.smallest).union(returned))
        self.kept.update(d for d in returned
                         if d in self.sections_of or (section_parent(d) or chunk_parent(d)) in self.judged
                         or (d.endswith(OUTSIDE) and d[:-len(OUTSIDE)] in self.judged))

    def chunks(self) -> pa.Array | None:
        if not self.sep:
            return None
        return strings([self.holding] if self.holding is not None else list(self.first)[:3])

    def returned(self) -> pa.Array:
        return strings(sorted(self.kept.union(self.smallest)))
