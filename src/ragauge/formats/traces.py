"""Traces that follow the OpenInference semantic conventions, as retrieval trajectories: one per
trace, its retriever and reranker spans as calls (the run line's ``calls``).

- A trace is every span with its ``traceId``, across all the files and lines read (the Collector
  writes a trace's spans in several batches). Its root is the span without a parent (else the
  earliest span whose parent is missing); the trajectory's ``latency_ms`` is the root's duration.
- A call is a span whose ``openinference.span.kind`` is ``RETRIEVER`` (its hits are
  ``retrieval.documents``, its query ``input.value``) or ``RERANKER`` (its hits are
  ``reranker.output_documents``, its query ``reranker.query``, else ``input.value``), in start-time
  order (every span has both times, or ``formats.otlp`` refuses it); its ``latency_ms`` is the span's
  duration and its ``tool`` the span's name. A retriever or reranker span inside another one of the
  same kind is part of that call, not a call of its own (LlamaIndex's ``retrieve`` wraps
  ``_retrieve``; an ensemble retriever wraps its members).
- A trace with a reranker span gives its retriever calls ``"stage": "first"`` and its reranker
  calls ``"stage": "rerank"``; a trace without one gives no stages. A trace with no retriever span is
  not a trajectory (``Traces.skipped``).
- A document's id is its ``document.id``; with ``doc_id_key`` it is that key of its
  ``document.metadata`` (a JSON object), and its ``document.id`` is kept as the chunk id (LangChain's
  documents have no id in a trace: their id is in the metadata, e.g. ``doc_id_key="source"``). With
  ``chunk_ids`` the ``document.id`` is a chunk id, folded into documents when the run is scored
  (``doc_id_sep``, ``doc_id_pattern``). ``document.score`` is the hit's score (finite, else refused).
- A span the SDK dropped attributes of (over its attribute count limit) is refused: the documents it
  dropped may be the top-ranked ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import loads as json_loads
from ragauge.core.numbers import check_number
from ragauge.errors import InputError, flag
from ragauge.formats.otlp import Span, read_spans

KIND = "openinference.span.kind"
INPUT = "input.value"
RETRIEVER, RERANKER = "RETRIEVER", "RERANKER"
DOCUMENTS = {RETRIEVER: "retrieval.documents", RERANKER: "reranker.output_documents"}
RERANK_QUERY = "reranker.query"
_DOCUMENT = re.compile(r"(retrieval\.documents|reranker\.output_documents)\.(\d+)\.document\.(id|score|metadata)")
LIMIT_HINT = ("raise the traced application's attribute limit, e.g. OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT=10000 "
              "(and OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT unset), and trace again")


@dataclass(frozen=True)
class Trajectory:
    """One trace as a retrieval trajectory: its id, where it was read (its root's ``file:line``),
    the root span's ``input.value`` (``query``), the first retriever's (``first_query``), the
    values of the id attribute found on its spans (``ids``), its calls as run-line dicts, and the
    root's duration."""

    trace_id: str
    loc: str
    query: str | None
    first_query: str | None
    ids: tuple[str, ...]
    calls: tuple[dict[str, Any], ...]
    latency_ms: float

    def line(self, qid: str) -> dict[str, Any]:
        """The run line answering question ``qid``."""
        return {"id": qid, "calls": [dict(c) for c in self.calls], "latency_ms": self.latency_ms}


@dataclass(frozen=True)
class TraceRef:
    """A trace as a message names it: its id, where it was read (its root's ``file:line``), its query."""

    trace_id: str
    loc: str
    query: str | None


@dataclass(frozen=True)
class Traces:
    """What files of traces hold: the trajectories and the traces skipped (no retriever span)."""

    trajectories: tuple[Trajectory, ...]
    skipped: tuple[TraceRef, ...]


def read_traces(paths: Iterable[str | Path], *, id_attribute: str | None = None, doc_id_key: str | None = None,
                chunk_ids: bool = False) -> Traces:
    """The trajectories in the OTLP JSON files ``paths`` (see the module docstring), in the order
    their traces first appear. ``id_attribute`` names the span attribute whose value says which
    question a trace answers (``Trajectory.ids``): an attribute's key, or ``KEY.FIELD`` for a field
    of the JSON object an attribute holds (``metadata.question_id``)."""
    if doc_id_key is not None and chunk_ids:
        raise InputError(f"{flag('doc_id_key')} and {flag('chunk_ids')} are two rules for the same id: give one",
                         hint="doc_id_key reads the document id from metadata; chunk_ids takes document.id as a "
                              "chunk id to fold")
    wanted = _wanted(id_attribute)
    by_trace: dict[str, list[Span]] = {}
    for path in paths:
        for span in read_spans(path, keep=lambda key: key in wanted or _DOCUMENT.fullmatch(key) is not None):
            by_trace.setdefault(span.trace_id, []).append(span)
    trajectories, skipped = [], []
    for trace_id, spans in by_trace.items():
        got = _trajectory(trace_id, spans, id_attribute, doc_id_key, chunk_ids)
        if isinstance(got, TraceRef):
            skipped.append(got)
        else:
            trajectories.append(got)
    return Traces(tuple(trajectories), tuple(skipped))


def _wanted(id_attribute: str | None) -> set[str]:
    keys = {KIND, INPUT, RERANK_QUERY}
    if id_attribute:
        keys |= {id_attribute} | {id_attribute[:i] for i, c in enumerate(id_attribute) if c == "."}
    return keys


def _trajectory(trace_id: str, spans: list[Span], id_attribute: str | None, doc_id_key: str | None,
                chunk_ids: bool) -> Trajectory | TraceRef:
    known = {s.span_id for s in spans}
    order = sorted(range(len(spans)), key=lambda i: (spans[i].start_ns, i))
    ordered = [spans[i] for i in order]
    roots = [s for s in ordered if s.parent_id is None] or [s for s in ordered if s.parent_id not in known]
    root = roots[0] if roots else ordered[0]
    query = _text(root.attributes.get(INPUT))
    parents = {s.span_id: s.parent_id for s in spans}
    kinds = {s.span_id: _kind(s) for s in spans}
    calls = [s for s in ordered if kinds[s.span_id] in DOCUMENTS and not _inside(s, kinds, parents)]
    retrievers = [s for s in calls if kinds[s.span_id] == RETRIEVER]
    if not retrievers:
        return TraceRef(trace_id, root.loc, query)
    staged = len(retrievers) < len(calls)
    made = tuple(_call(s, kinds[s.span_id] or RETRIEVER, staged, doc_id_key, chunk_ids) for s in calls)
    ids = _ids(ordered, id_attribute) if id_attribute else ()
    first_query = _text(retrievers[0].attributes.get(INPUT))
    return Trajectory(trace_id, root.loc, query, first_query, ids, made, root.duration_ms)


def _kind(span: Span) -> str | None:
    kind = span.attributes.get(KIND)
    return kind.upper() if isinstance(kind, str) else None


def _inside(span: Span, kinds: Mapping[str, str | None], parents: Mapping[str, str | None]) -> bool:
    """Whether an ancestor of ``span`` is a span of its kind (a loop in a broken file ends the walk)."""
    seen = {span.span_id}
    parent = span.parent_id
    while parent is not None and parent in parents and parent not in seen:
        if kinds[parent] == kinds[span.span_id]:
            return True
        seen.add(parent)
        parent = parents[parent]
    return False


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _call(span: Span, kind: str, staged: bool, doc_id_key: str | None, chunk_ids: bool) -> dict[str, Any]:
    if span.dropped:
        raise InputError(f"{span.describe()} lost {span.dropped} attribute(s) over the tracer's limit: its documents "
                         "may be incomplete", where=span.loc, hint=LIMIT_HINT)
    query = _text(span.attributes.get(RERANK_QUERY)) if kind == RERANKER else None
    query = query or _text(span.attributes.get(INPUT))
    out: dict[str, Any] = {} if query is None else {"query": query}
    out["hits"] = _hits(span, DOCUMENTS[kind], doc_id_key, chunk_ids)
    out["latency_ms"] = span.duration_ms
    out["tool"] = span.name or kind.lower()
    if staged:
        out["stage"] = "rerank" if kind == RERANKER else "first"
    return out


def _hits(span: Span, prefix: str, doc_id_key: str | None, chunk_ids: bool) -> list[dict[str, Any]]:
    documents: dict[int, dict[str, Any]] = {}
    for key, value in span.attributes.items():
        found = _DOCUMENT.fullmatch(key)
        if found and found.group(1) == prefix:
            documents.setdefault(int(found.group(2)), {})[found.group(3)] = value
    if sorted(documents) != list(range(len(documents))):
        absent = min(set(range(len(documents))) - set(documents))
        raise InputError(f"{span.describe()} has no {prefix}.{absent} among its {len(documents)} documents",
                         where=span.loc, hint=f"a tracer may have dropped it: {LIMIT_HINT}")
    return [_hit(documents[rank], rank, span, doc_id_key, chunk_ids) for rank in range(len(documents))]


def _hit(document: Mapping[str, Any], rank: int, span: Span, doc_id_key: str | None,
         chunk_ids: bool) -> dict[str, Any]:
    what = f"{span.describe()}, document {rank}"
    own = document.get("id")
    if own is not None and (isinstance(own, bool) or not isinstance(own, (str, int))):
        raise InputError(f"{what}: document.id must be a string, got {own!r}", where=span.loc)
    own = None if own is None else str(own)
    hit: dict[str, Any] = {}
    if doc_id_key is not None:
        doc = _metadata(document, what, span).get(doc_id_key)
        if doc is None or isinstance(doc, bool) or not isinstance(doc, (str, int)) or not str(doc):
            keys = ", ".join(sorted(_metadata(document, what, span))) or "none"
            raise InputError(f"{what}: no document id under metadata key {doc_id_key!r} (its metadata keys: {keys})",
                             where=span.loc, hint=f"name the metadata key that holds the document id with "
                                                  f"{flag('doc_id_key')}")
        hit["doc_id"] = str(doc)
        if own is not None:
            hit["chunk_id"] = own
    elif own is None or not own:
        keys = ", ".join(sorted(_metadata(document, what, span))) or "none"
        raise InputError(f"{what} has no document.id (its metadata keys: {keys})", where=span.loc,
                         hint=f"read the document id from its metadata with {flag('doc_id_key', 'KEY')}: LangChain "
                              "documents carry no id in a trace")
    else:
        hit["chunk_id" if chunk_ids else "doc_id"] = own
    score = document.get("score")
    if score is not None:
        hit["score"] = check_number(score, f"{what}: document.score", where=span.loc)
    return hit


def _metadata(document: Mapping[str, Any], what: str, span: Span) -> Mapping[str, Any]:
    """A document's ``document.metadata``: a JSON object (as OpenInference writes it) or a key-value list."""
    meta = document.get("metadata")
    if meta is None:
        return {}
    if isinstance(meta, str):
        try:
            meta = json_loads(meta)
        except ValueError as exc:
            raise InputError(f"{what}: document.metadata is not JSON ({exc})", where=span.loc,
                             hint=f"the tracer may have cut it short: {LIMIT_HINT}") from None
    if not isinstance(meta, Mapping):
        raise InputError(f"{what}: document.metadata must be a JSON object, got {type(meta).__name__}",
                         where=span.loc)
    return meta


def _ids(spans: list[Span], id_attribute: str) -> tuple[str, ...]:
    """The distinct values of ``id_attribute`` on ``spans``, in span order."""
    found: dict[str, None] = {}
    for span in spans:
        value = _attribute(span, id_attribute)
        if value is not None:
            found[value] = None
    return tuple(found)


def _attribute(span: Span, key: str) -> str | None:
    """``key`` of ``span``: the attribute itself, else a field of the JSON object an attribute holds
    (``metadata.question_id``: field ``question_id`` of attribute ``metadata``)."""
    value = span.attributes.get(key)
    if value is None:
        for i, c in enumerate(key):
            if c != "." or key[:i] not in span.attributes:
                continue
            holder = span.attributes[key[:i]]
            if isinstance(holder, str):
                try:
                    holder = json_loads(holder)
                except ValueError:
                    continue
            if isinstance(holder, Mapping) and key[i + 1:] in holder:
                value = holder[key[i + 1:]]
                break
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int)):
        return None
    return str(value) or None
