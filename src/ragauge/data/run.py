"""A run: what a retriever returned for each question, stored columnar (one row per hit)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge.core.hashing import content_hash, file_hash
from ragauge.data.hits import Call, Hit, QueryResult, scored_calls, stage_names

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.core.grouping import Grouping

FORMAT_VERSION = 1


@dataclass(frozen=True, eq=False)
class Run:
    """Hits of many queries, columnar: rows of one query are contiguous, in rank order, or,
    when ``ranking`` is set, contiguous in an order that ``ranking`` puts into rank order (a
    TREC run whose tied scores are written out of trec_eval's order).

    ``doc_id`` may hold nulls where only a chunk id is known (see ``resolve_doc_ids``).
    ``queries`` lists every query id of the run, including those with no hits. ``length`` holds
    each hit's length in words (NaN where unknown), or is None when no hit has one.

    A multi-call run (``data.hits.Call``) keeps each such question's ``calls`` and, per hit row,
    ``call``: the 0-based number of the call of the scored trajectory that returned it (None when
    no question has calls: every question is one call).
    """

    qid: pa.Array
    doc_id: pa.Array
    chunk_id: pa.Array
    score: np.ndarray
    queries: tuple[str, ...]
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    cost: Mapping[str, float] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    format: str = "jsonl"
    ranking: Grouping | None = None
    length: np.ndarray | None = None
    start: np.ndarray | None = None
    end: np.ndarray | None = None
    call: np.ndarray | None = None
    calls: Mapping[str, tuple[Call, ...]] = field(default_factory=dict)
    fingerprints: np.ndarray | None = None
    """``core.arrow.hash64(doc_id)`` when already made (a block of a large TREC run, fingerprinted in
    the thread that reads ahead), which scoring then reads instead of making it again."""

    @property
    def ranked(self) -> pa.Array | Grouping:
        """What ``build_rankings`` takes: the ranking when known, else the rows' query ids."""
        return self.qid if self.ranking is None else self.ranking

    @classmethod
    def from_results(cls, results: Iterable[QueryResult], *, meta: Mapping[str, Any] | None = None,
                     source: str | None = None, format: str = "jsonl") -> Run:
        from ragauge.core.arrow import strings

        qids: list[str] = []
        docs: list[str | None] = []
        chunks: list[str | None] = []
        scores: list[float] = []
        lengths: list[float] = []
        starts: list[float] = []
        ends: list[float] = []
        queries: list[str] = []
        latency: dict[str, float] = {}
        cost: dict[str, float] = {}
        errors: dict[str, str] = {}
        calls: dict[str, tuple[Call, ...]] = {}
        call_of: list[int] = []
        for r in results:
            queries.append(r.id)
            if r.calls:
                calls[r.id] = r.calls
                call_of.extend(_call_numbers(r))
            else:
                call_of.extend([0] * len(r.hits))
            for h in r.hits:
                qids.append(r.id)
                docs.append(h.doc_id)
                chunks.append(h.chunk_id)
                scores.append(math.nan if h.score is None else float(h.score))
                lengths.append(math.nan if h.length is None else float(h.length))
                starts.append(math.nan if h.start is None else float(h.start))
                ends.append(math.nan if h.end is None else float(h.end))
            if r.latency_ms is not None and r.error is None:  # a failed call's time is no latency
                latency[r.id] = float(r.latency_ms)
            if r.cost is not None:
                cost[r.id] = float(r.cost)
            if r.error is not None:
                errors[r.id] = r.error
        length, start, end = (np.asarray(v, dtype=np.float64) for v in (lengths, starts, ends))
        return cls(strings(qids), strings(docs), strings(chunks),
                   np.asarray(scores, dtype=np.float64), tuple(queries), latency, cost, errors,
                   dict(meta or {}), source, format, length=None if np.isnan(length).all() else length,
                   start=None if np.isnan(start).all() else start, end=None if np.isnan(end).all() else end,
                   call=np.asarray(call_of, dtype=np.int64) if calls else None, calls=calls)

    @property
    def stages(self) -> list[str]:
        """The stages the run's calls name, in the order they first appear (none: no stages)."""
        return list(dict.fromkeys(s for calls in self.calls.values() for s in stage_names(calls)))

    def stage(self, name: str) -> Run:
        """The run as stage ``name`` (one of ``stages``) saw it: each question's list there, by the rule of
        ``QueryResult.stage`` (a list changes only at the stages its calls name; without stages, the same at
        every stage). ValueError for a name not in ``stages``."""
        order = self.stages
        if name not in order:
            raise ValueError(f"no stage {name!r} in this run (stages: {order})")
        return Run.from_results([r.stage(name, order) for r in self.results()], meta=self.meta, source=self.source,
                                format=self.format)

    def num_calls(self, query_ids: Iterable[str]) -> np.ndarray:
        """Per question: the calls of its scored trajectory; 1 for a question answered in one call,
        and for one the run does not answer or whose call failed (scored as one call that found
        nothing, as in a plain run: a dropped question never looks cheaper)."""
        return np.array([_scored_calls(self.calls[q]) if q in self.calls else 1 for q in query_ids], dtype=np.int64)

    @cached_property
    def content_hash(self) -> str:
        """Hash of the file's bytes when loaded from a file, else of the canonical content."""
        if self.source and Path(self.source).is_file():
            return file_hash(self.source)
        return content_hash({"run": FORMAT_VERSION, "results": [r.to_dict() for r in self.results()]})

    @cached_property
    def _slices(self) -> dict[str, tuple[int, int]]:
        from ragauge.core.arrow import group_starts, take

        if self.ranking is not None:
            starts, ids = self.ranking.starts, self.ranking.ids
            ends = starts + self.ranking.lengths
        else:
            starts = group_starts(self.qid)
            ends = np.append(starts[1:], len(self.qid))
            ids = take(self.qid, starts).to_pylist() if len(starts) else []
        return {q: (int(a), int(b)) for q, a, b in zip(ids, starts, ends)}

    def rows_of(self, qid: str, n: int | None = None) -> np.ndarray:
        """The rows of one query's first ``n`` hits (all when None), in rank order; none for a
        query the run does not hold."""
        a, b = self._slices.get(qid, (0, 0))
        positions = np.arange(a, b if n is None else min(b, a + n))
        return positions if self.ranking is None else self.ranking.rows_at(positions)

    def result(self, qid: str) -> QueryResult:
        """The hits of one query as objects (for reports; not for bulk work)."""
        from ragauge.core.arrow import take

        rows = self.rows_of(qid)
        docs = take(self.doc_id, rows).to_pylist()
        chunks = take(self.chunk_id, rows).to_pylist()
        scores = [None if math.isnan(s) else s for s in self.score[rows].tolist()]
        lengths = ([None] * len(rows) if self.length is None else
                   [None if math.isnan(n) else int(n) for n in self.length[rows].tolist()])
        starts, ends = ([None] * len(rows) if col is None else [None if math.isnan(x) else int(x) for x in col[rows]]
                        for col in (self.start, self.end))
        hits = tuple(Hit(d, c, s, n, a, b) for d, c, s, n, a, b in zip(docs, chunks, scores, lengths, starts, ends))
        if qid in self.calls:
            return QueryResult.of_calls(qid, self.calls[qid], self.latency_ms.get(qid), self.cost.get(qid),
                                        self.errors.get(qid))
        return QueryResult(qid, hits, self.latency_ms.get(qid), self.cost.get(qid), self.errors.get(qid))

    def results(self) -> list[QueryResult]:
        return [self.result(q) for q in self.queries]


def _scored_calls(calls: tuple[Call, ...]) -> int:
    return len(scored_calls(calls))


def _call_numbers(result: QueryResult) -> list[int]:
    """The 0-based number of the scored call each of ``result.hits`` came from."""
    return [i for i, c in enumerate(scored_calls(result.calls)) for _ in c.hits]
