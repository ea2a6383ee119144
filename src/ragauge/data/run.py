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
from ragauge.core.numbers import NON_NEGATIVE, WHOLE, check_number
from ragauge.errors import InputError

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.core.grouping import Grouping

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Hit:
    """One retrieved item: a document id, or a chunk id that maps to one, an optional score, and
    optionally ``length``: how many words of text the hit brings (its text split on whitespace), which
    the token-budget metrics (``recall@2000t``) count, and ``start``/``end``: where the chunk lies in
    its document's text (characters ``[start, end)``, title excluded), which span labels need. The
    built-in retrievers set all three."""

    doc_id: str | None
    chunk_id: str | None = None
    score: float | None = None
    length: int | None = None
    start: int | None = None
    end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.doc_id is not None:
            out["doc_id"] = self.doc_id
        if self.chunk_id is not None:
            out["chunk_id"] = self.chunk_id
        if self.score is not None:
            out["score"] = self.score
        if self.length is not None:
            out["length"] = self.length
        if self.start is not None:
            out["start"], out["end"] = self.start, self.end
        return out

    @classmethod
    def from_dict(cls, d: Any) -> Hit:
        """The inverse of ``to_dict`` (a doc-id string is read too); InputError for a bad hit."""
        return parse_hit(d, "a hit")


@dataclass(frozen=True)
class QueryResult:
    """The retriever's answer to one question, hits in the retriever's order."""

    id: str
    hits: tuple[Hit, ...] = ()
    latency_ms: float | None = None
    cost: float | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "hits": [h.to_dict() for h in self.hits]}
        for key in ("latency_ms", "cost", "error"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], loc: str | None = None) -> QueryResult:
        """The inverse of ``to_dict``: one line of a run file, checked field by field (InputError
        naming ``loc``, the file and line, when given)."""
        qid = d.get("id")
        if not isinstance(qid, str) or not qid:
            raise InputError(f"missing or invalid 'id': {qid!r}", where=loc, hint='each line needs "id" and "hits"')
        hits = d.get("hits", [])
        if not isinstance(hits, list):
            raise InputError(f"'hits' must be a list, got {type(hits).__name__}", where=loc)
        latency, cost = (None if d.get(k) is None else check_number(d[k], f"'{k}'", NON_NEGATIVE, where=loc)
                         for k in ("latency_ms", "cost"))
        error = d.get("error")
        return cls(qid, tuple(parse_hit(h, loc or f"question {qid!r}") for h in hits), latency, cost,
                   None if error is None else str(error))


@dataclass(frozen=True, eq=False)
class Run:
    """Hits of many queries, columnar: rows of one query are contiguous, in rank order, or,
    when ``ranking`` is set, contiguous in an order that ``ranking`` puts into rank order (a
    TREC run whose tied scores are written out of trec_eval's order).

    ``doc_id`` may hold nulls where only a chunk id is known (see ``resolve_doc_ids``).
    ``queries`` lists every query id of the run, including those with no hits. ``length`` holds
    each hit's length in words (NaN where unknown), or is None when no hit has one.
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
        for r in results:
            queries.append(r.id)
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
                   start=None if np.isnan(start).all() else start, end=None if np.isnan(end).all() else end)

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
        return QueryResult(qid, hits, self.latency_ms.get(qid), self.cost.get(qid), self.errors.get(qid))

    def results(self) -> list[QueryResult]:
        return [self.result(q) for q in self.queries]


def parse_hit(item: Any, loc: str) -> Hit:
    """One hit of a run file or of Python data: a doc-id string, or an object with ``doc_id``,
    ``chunk_id`` and a finite ``score``; ``loc`` names where it came from in errors."""
    if isinstance(item, str):
        return Hit(item)
    if isinstance(item, Mapping):
        doc, chunk, score = item.get("doc_id"), item.get("chunk_id"), item.get("score")
        if doc is None and chunk is None:
            raise InputError("a hit has neither 'doc_id' nor 'chunk_id'", where=loc,
                             hint='write hits as "doc-id" or {"doc_id": ..., "chunk_id": ..., "score": ...}')
        for name, value in (("doc_id", doc), ("chunk_id", chunk)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"hit '{name}' must be a string, got {value!r}", where=loc)
        if score is not None and not (type(score) is float and math.isfinite(score)):  # a finite float is kept
            score = check_number(score, "hit 'score'", where=loc)
        if "length" not in item and "start" not in item and "end" not in item:  # most hits: no extent
            return Hit(doc, chunk, score)
        return Hit(doc, chunk, score, *parse_extent(item, loc))
    raise InputError(f"a hit must be a string or an object, got {type(item).__name__}", where=loc)


def parse_extent(item: Mapping[str, Any], loc: str) -> tuple[int | None, int | None, int | None]:
    """A hit object's ``length`` (words), ``start`` and ``end`` (its characters in the document),
    each checked (InputError naming ``loc``); None for what it does not give."""
    length, start, end = item.get("length"), item.get("start"), item.get("end")
    if length is not None:
        length = int(check_number(length, "hit 'length' (words)", WHOLE, where=loc))
    if (start is None) != (end is None):
        raise InputError(f"a hit has '{'start' if end is None else 'end'}' without "
                         f"'{'end' if end is None else 'start'}'", where=loc,
                         hint="give both: the chunk's characters [start, end) in its document's text")
    if start is not None:
        start = int(check_number(start, "hit 'start'", WHOLE, where=loc))
        end = int(check_number(end, "hit 'end'", WHOLE, where=loc))
        if end < start:
            raise InputError(f"a hit ends at {end}, before its start {start}", where=loc,
                             hint="end is exclusive: characters [start, end) of the document text")
    return length, start, end
