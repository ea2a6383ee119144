"""A retriever's answer to one question: its hits in rank order (``Hit``), the call's latency,
cost or error (``QueryResult``), the calls of a multi-call trajectory (``Call``: an agent that
searched several times, or a first stage and its reranker), and the one reader of a hit from a file
or from Python data. Plain Python, no numpy: ``ragauge run`` records thousands of answers a second
without it."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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


MAX_CALLS = 10_000
"""The most calls one trajectory may hold (a guard against a runaway agent's log)."""


@dataclass(frozen=True)
class Call:
    """One retrieval call of a multi-call trajectory: the query it sent (None when unknown), its hits
    in rank order, its latency and cost, the ``tool`` that made it and its ``stage`` (``"first"``,
    ``"rerank"``, ...: calls of several stages are the same retrieval seen at each step)."""

    query: str | None
    hits: tuple[Hit, ...] = ()
    latency_ms: float | None = None
    cost: float | None = None
    tool: str | None = None
    stage: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.query is None else {"query": self.query}
        out["hits"] = [h.to_dict() for h in self.hits]
        for key in ("latency_ms", "cost", "tool", "stage"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


@dataclass(frozen=True)
class QueryResult:
    """The retriever's answer to one question, hits in the retriever's order.

    A multi-call answer holds its ``calls`` and ``hits`` is their trajectory (``trajectory``): the
    hits of the calls in call order, so every metric scores the union of what the calls brought
    back at a total budget of k documents (documents folded in first-seen order). When the calls
    carry stages, ``hits`` is the trajectory of the last stage (the list the application uses); the
    other stages are scored beside it (``stage``)."""

    id: str
    hits: tuple[Hit, ...] = ()
    latency_ms: float | None = None
    cost: float | None = None
    error: str | None = None
    calls: tuple[Call, ...] = ()

    @classmethod
    def of_calls(cls, qid: str, calls: tuple[Call, ...], latency_ms: float | None = None,
                 cost: float | None = None, error: str | None = None) -> QueryResult:
        """The answer made of ``calls``: its hits are the last stage's trajectory; its latency and
        cost, when not given, the sums of the calls' (when every call has one)."""
        hits = tuple(h for c in scored_calls(calls) for h in c.hits)
        if latency_ms is None and calls and all(c.latency_ms is not None for c in calls):
            latency_ms = float(sum(c.latency_ms for c in calls if c.latency_ms is not None))
        if cost is None and calls and all(c.cost is not None for c in calls):
            cost = float(sum(c.cost for c in calls if c.cost is not None))
        return cls(qid, hits, latency_ms, cost, error, calls)

    def stage(self, name: str, order: Sequence[str] | None = None) -> QueryResult:
        """This answer as the stage ``name`` of ``order`` (a run's stages; default: this answer's) saw it:
        the trajectory of that stage's calls. Its list changes only at the stages its calls name: at a
        stage it has no call of, the list of its nearest stage before in ``order`` (of its first stage
        when none is before), those calls relabelled ``name``; without stages, its one list (``hits``) at
        every stage. Latency and cost are None (the whole answer's, not a stage's). ValueError for a
        staged answer and a ``name`` not in ``order``."""
        own = stage_names(self.calls)
        if not own:
            return QueryResult(self.id, self.hits, None, None, self.error, self.calls)
        held = name
        if name not in own:
            order = own if order is None else list(order)
            if name not in order:
                raise ValueError(f"no stage {name!r} among {order}")
            at = order.index(name)
            before = [s for s in order[:at] if s in own]
            held = before[-1] if before else next((s for s in order[at:] if s in own), own[0])
        calls = tuple(replace(c, stage=name) for c in self.calls if c.stage == held)
        return QueryResult(self.id, tuple(h for c in calls for h in c.hits), None, None, self.error, calls)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id}
        if self.calls:
            out["calls"] = [c.to_dict() for c in self.calls]
        else:
            out["hits"] = [h.to_dict() for h in self.hits]
        for key in ("latency_ms", "cost", "error"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], loc: str | None = None) -> QueryResult:
        """The inverse of ``to_dict``: one line of a run file, checked field by field (InputError
        naming ``loc``, the file and line, when given). A line holds ``hits`` or ``calls``; only a failed
        question's line (``error``) may hold neither."""
        qid = d.get("id")
        if not isinstance(qid, str) or not qid:
            raise InputError(f"missing or invalid 'id': {qid!r}", where=loc, hint='each line needs "id" and "hits"')
        latency, cost = (None if d.get(k) is None else check_number(d[k], f"'{k}'", NON_NEGATIVE, where=loc)
                         for k in ("latency_ms", "cost"))
        error = d.get("error")
        error = None if error is None else str(error)
        if "calls" in d:
            if "hits" in d:
                raise InputError(f"question {qid!r} has both 'hits' and 'calls'", where=loc,
                                 hint="a multi-call line gives each call's hits inside 'calls' and no 'hits'")
            return cls.of_calls(qid, parse_calls(d["calls"], loc or f"question {qid!r}"), latency, cost, error)
        if "hits" not in d and error is None:
            raise InputError(f"question {qid!r} has no 'hits'", where=loc, hint=_no_hits_hint(d))
        hits = d.get("hits", [])
        if not isinstance(hits, list):
            raise InputError(f"'hits' must be a list, got {type(hits).__name__}", where=loc)
        return cls(qid, tuple(parse_hit(h, loc or f"question {qid!r}") for h in hits), latency, cost, error)


def _no_hits_hint(line: Mapping[str, Any]) -> str:
    """How to mend a run line without ``hits``: a misspelt key named, a golden-set line recognised."""
    import difflib

    if "relevant" in line or ("query" in line and len(line) <= 4):
        return "this looks like a golden-set line: give the golden set first and the run after --run"
    near = difflib.get_close_matches("hits", [k for k in line if isinstance(k, str)], n=1, cutoff=0.5)
    spelt = f"'{near[0]}' is not a field of a run line; " if near else ""
    return (f'{spelt}write "hits": [...] (an empty list when the retriever found nothing), "calls" for a '
            'multi-call answer, or "error" for a question that failed')


def scored_calls(calls: tuple[Call, ...]) -> list[Call]:
    """The calls whose hits make the scored trajectory: the last stage's, or all when none has a stage."""
    stages = stage_names(calls)
    return [c for c in calls if c.stage == stages[-1]] if stages else list(calls)


def stage_names(calls: tuple[Call, ...]) -> list[str]:
    """The stages of a trajectory in the order they first appear (none when no call has one)."""
    return list(dict.fromkeys(c.stage for c in calls if c.stage is not None))


def parse_calls(items: Any, loc: str) -> tuple[Call, ...]:
    """The ``calls`` of a run line, each checked (InputError naming ``loc`` and the call)."""
    if not isinstance(items, list) or not items:
        raise InputError("'calls' must be a non-empty list of calls", where=loc,
                         hint='write "calls": [{"query": "...", "hits": [...]}, ...], or "hits" for one call')
    if len(items) > MAX_CALLS:
        raise InputError(f"{len(items)} calls in one trajectory (at most {MAX_CALLS:,})", where=loc,
                         hint="split the trajectory, or check the log that wrote it")
    calls = []
    for i, item in enumerate(items, 1):
        what = f"call {i}"
        if not isinstance(item, Mapping):
            raise InputError(f"{what} must be an object, got {type(item).__name__}", where=loc,
                             hint='write each call as {"query": "...", "hits": [...]}')
        if "hits" not in item:
            raise InputError(f"{what} has no 'hits'", where=loc,
                             hint='give every call its hits, "hits": [] when it returned nothing')
        hits = item["hits"]
        if not isinstance(hits, list):
            raise InputError(f"{what}: 'hits' must be a list, got {type(hits).__name__}", where=loc)
        query, tool, stage = item.get("query"), item.get("tool"), item.get("stage")
        for name, value in (("query", query), ("tool", tool), ("stage", stage)):
            if value is not None and (not isinstance(value, str) or (name != "query" and not value)):
                raise InputError(f"{what}: '{name}' must be a non-empty string, got {value!r}", where=loc)
        latency, cost = (None if item.get(k) is None else
                         check_number(item[k], f"{what} '{k}'", NON_NEGATIVE, where=loc)
                         for k in ("latency_ms", "cost"))
        calls.append(Call(query, tuple(parse_hit(h, f"{loc}, {what}") for h in hits), latency, cost, tool, stage))
    staged = [c.stage is not None for c in calls]
    if any(staged) and not all(staged):
        missing = staged.index(False) + 1
        raise InputError(f"call {missing} has no 'stage' while other calls of the trajectory have one", where=loc,
                         hint='give every call a stage ("first", "rerank", ...) or none')
    return tuple(calls)



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
