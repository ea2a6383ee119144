"""A retriever's answer to one question: its hits in rank order (``Hit``), the call's latency,
cost or error (``QueryResult``), and the one reader of a hit from a file or from Python data.
Plain Python, no numpy: ``ragauge run`` records thousands of answers a second without it."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragauge.core.numbers import NON_NEGATIVE, WHOLE, check_number
from ragauge.errors import InputError


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
