"""A run: what a retriever returned for each question, stored columnar (one row per hit)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ragauge.core.hashing import content_hash
from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_jsonl
from ragauge.core.numbers import NON_NEGATIVE, check_number
from ragauge.errors import InputError, where

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.core.grouping import Grouping

FORMAT_VERSION = 1


@dataclass(frozen=True)
class Hit:
    """One retrieved item: a document id, or a chunk id that maps to one, and an optional score."""

    doc_id: str | None
    chunk_id: str | None = None
    score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.doc_id is not None:
            out["doc_id"] = self.doc_id
        if self.chunk_id is not None:
            out["chunk_id"] = self.chunk_id
        if self.score is not None:
            out["score"] = self.score
        return out


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


@dataclass(frozen=True, eq=False)
class Run:
    """Hits of many queries, columnar: rows of one query are contiguous, in rank order, or,
    when ``ranking`` is set, contiguous in an order that ``ranking`` puts into rank order (a
    TREC run whose tied scores are written out of trec_eval's order).

    ``doc_id`` may hold nulls where only a chunk id is known (see ``resolve_doc_ids``).
    ``queries`` lists every query id of the run, including those with no hits.
    """

    qid: "pa.Array"
    doc_id: "pa.Array"
    chunk_id: "pa.Array"
    score: np.ndarray
    queries: tuple[str, ...]
    latency_ms: Mapping[str, float] = field(default_factory=dict)
    cost: Mapping[str, float] = field(default_factory=dict)
    errors: Mapping[str, str] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    format: str = "jsonl"
    ranking: "Grouping | None" = None

    @property
    def ranked(self) -> "pa.Array | Grouping":
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
            if r.latency_ms is not None:
                latency[r.id] = float(r.latency_ms)
            if r.cost is not None:
                cost[r.id] = float(r.cost)
            if r.error is not None:
                errors[r.id] = r.error
        return cls(strings(qids), strings(docs), strings(chunks),
                   np.asarray(scores, dtype=np.float64), tuple(queries), latency, cost, errors,
                   dict(meta or {}), source, format)

    @cached_property
    def content_hash(self) -> str:
        """Hash of the file's bytes when loaded from a file, else of the canonical content."""
        if self.source and Path(self.source).is_file():
            import hashlib

            h = hashlib.sha256()
            with open(self.source, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 22), b""):
                    h.update(block)
            return "sha256:" + h.hexdigest()
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

    def result(self, qid: str) -> QueryResult:
        """The hits of one query as objects (for reports; not for bulk work)."""
        from ragauge.core.arrow import take

        a, b = self._slices.get(qid, (0, 0))
        rows = np.arange(a, b) if self.ranking is None else self.ranking.rows_at(np.arange(a, b))
        docs = take(self.doc_id, rows).to_pylist()
        chunks = take(self.chunk_id, rows).to_pylist()
        scores = [None if math.isnan(s) else s for s in self.score[rows].tolist()]
        hits = tuple(Hit(d, c, s) for d, c, s in zip(docs, chunks, scores))
        return QueryResult(qid, hits, self.latency_ms.get(qid), self.cost.get(qid), self.errors.get(qid))

    def results(self) -> list[QueryResult]:
        return [self.result(q) for q in self.queries]


def _parse_hit(item: Any, loc: str) -> Hit:
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
        if score is not None:
            score = check_number(score, "hit 'score'", where=loc)
        return Hit(doc, chunk, score)
    raise InputError(f"a hit must be a string or an object, got {type(item).__name__}", where=loc)


def _number(obj: Mapping[str, Any], key: str, loc: str) -> float | None:
    value = obj.get(key)
    return None if value is None else check_number(value, f"'{key}'", NON_NEGATIVE, where=loc)


def read_run_jsonl(path: str | Path) -> Run:
    """Read ragauge's JSONL run format (see the README); a line ``{"_meta": {...}}`` holds metadata."""
    results: list[QueryResult] = []
    meta: dict[str, Any] = {}
    first: dict[str, int] = {}
    for number, obj in read_jsonl(path, what="run"):
        loc = where(path, number)
        if "_meta" in obj and "id" not in obj:
            meta.update(obj["_meta"] if isinstance(obj["_meta"], dict) else {})
            continue
        qid = obj.get("id")
        if not isinstance(qid, str) or not qid:
            raise InputError(f"missing or invalid 'id': {qid!r}", where=loc, hint='each line needs "id" and "hits"')
        if qid in first:
            raise InputError(f"query {qid!r} appears twice (first on line {first[qid]})", where=loc,
                             hint="write one line per query")
        first[qid] = number
        hits = obj.get("hits", [])
        if not isinstance(hits, list):
            raise InputError(f"'hits' must be a list, got {type(hits).__name__}", where=loc)
        error = obj.get("error")
        results.append(QueryResult(
            qid, tuple(_parse_hit(h, loc) for h in hits), _number(obj, "latency_ms", loc),
            _number(obj, "cost", loc), None if error is None else str(error),
        ))
    return Run.from_results(results, meta=meta, source=str(path), format="jsonl")


def write_run_jsonl(run: Run | Iterable[QueryResult], path: str | Path) -> None:
    """Write a run as JSONL, one query a line, replacing ``path`` atomically."""
    results = run.results() if isinstance(run, Run) else run
    with atomic_writer(path, what="run") as fh:
        if isinstance(run, Run) and run.meta:
            fh.write(dumps({"_meta": dict(run.meta)}) + "\n")
        for r in results:
            fh.write(dumps(r.to_dict()) + "\n")


def read_run(path: str | Path, format: str = "auto") -> Run:
    """Load a run file: ``jsonl`` (ragauge's format), ``trec``, or ``auto`` (sniffed)."""
    path = Path(path)
    if format == "auto":
        format = _sniff(path)
    if format == "jsonl":
        return read_run_jsonl(path)
    if format == "trec":
        return _from_trec(path)
    raise InputError(f"unknown run format {format!r}", hint="use jsonl, trec or auto")


def _sniff(path: Path) -> str:
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        return "jsonl"
    try:
        with open(path, "rb") as fh:
            head = fh.read(4096)
    except FileNotFoundError:
        raise InputError("run file not found", where=str(path), hint="check the path") from None
    except IsADirectoryError:
        raise InputError("expected a run file, found a folder", where=str(path), hint="name the file itself") from None
    except OSError as exc:
        raise InputError(f"cannot read run file: {exc.strerror}", where=str(path)) from None
    for line in head.lstrip(b"\xef\xbb\xbf").splitlines():
        if line.strip() and not line.lstrip().startswith(b"#"):
            return "jsonl" if line.lstrip().startswith(b"{") else "trec"
    return "jsonl"


def _from_trec(path: Path) -> Run:
    """A TREC run ranked as trec_eval ranks it (score descending, ties by docno descending)."""
    import pyarrow as pa

    from ragauge.core.arrow import take
    from ragauge.formats.trec import read_trec_run, trec_ranking

    trec = read_trec_run(path)
    grouping = trec_ranking(trec)
    qid, doc, score = trec.qid, trec.docno, trec.score
    ranking = grouping
    if not grouping.in_blocks:  # rows regrouped: reorder them (ties alone are left to the ranking)
        rows = grouping.rows(grouping.starts, grouping.lengths)
        qid, doc, score = take(qid, rows), take(doc, rows), score[rows]
        ranking = None
    return Run(qid, doc, pa.nulls(len(qid), pa.string()), score, tuple(grouping.ids), meta={"runid": trec.runid},
               source=str(path), format="trec", ranking=ranking)


def as_run(value: "Run | str | Path | Mapping[str, Any]") -> Run:
    """A Run from what a user has at hand: a Run, a run file's path, or plain Python data —
    ``{qid: [doc_id, ...]}`` (ranked lists) or ``{qid: {doc_id: score}}`` (the dicts pytrec_eval
    and ranx take, ranked by score descending, ties by doc id descending as trec_eval does).
    Scores must be finite; InputError names the question otherwise."""
    if isinstance(value, Run):
        return value
    if isinstance(value, (str, Path)):
        return read_run(value)
    if not isinstance(value, Mapping):
        raise InputError(f"a run must be a Run, a path or a mapping of question ids, got {type(value).__name__}")
    results = []
    for qid, hits in value.items():
        if not isinstance(qid, str) or not qid:
            raise InputError(f"run question ids must be non-empty strings, got {qid!r}")
        if isinstance(hits, Mapping):
            scored = [(str(doc), check_number(score, f"score of {doc!r} for question {qid!r}"))
                      for doc, score in hits.items()]
            scored.sort(key=lambda pair: (-pair[1], _descending(pair[0])))
            results.append(QueryResult(qid, tuple(Hit(doc, None, score) for doc, score in scored)))
        elif isinstance(hits, (list, tuple)):
            results.append(QueryResult(qid, tuple(_parse_hit(h, f"question {qid!r}") for h in hits)))
        else:
            raise InputError(f"hits of question {qid!r} must be a list of ids or a {{doc_id: score}} mapping, "
                             f"got {type(hits).__name__}")
    return Run.from_results(results, meta={"retriever": "python data"})


def _descending(text: str) -> tuple[int, ...]:
    """A sort key that orders strings descending (trec_eval breaks score ties by docno, descending)."""
    return tuple(-b for b in text.encode("utf-8")) + (1,)
