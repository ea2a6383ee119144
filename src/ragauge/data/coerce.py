"""Read hits out of whatever a retriever returned (strings, pairs, dicts, framework objects)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragauge.data.hits import Hit, parse_extent
from ragauge.errors import InputError

_HINT = ("return doc-id strings, (doc_id, score) pairs, dicts with 'doc_id'/'chunk_id'/'score', or objects "
         "whose metadata holds the id (name the key with --doc-id-key)")


def _id(value: Any) -> str | None:
    return None if value is None else str(value)


def _score(value: Any) -> float | None:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def coerce_hit(item: Any, doc_id_key: str | None = None, score: Any = None) -> Hit:
    """One hit from a string, a mapping, a ``(hit, score)`` pair, or a framework object (LangChain
    ``Document`` with ``metadata``, LlamaIndex ``NodeWithScore`` with ``node.metadata``). A mapping's
    ``length``, ``start`` and ``end`` are kept, checked as a run file's are."""
    if isinstance(item, Hit):
        return item
    if isinstance(item, str):
        return Hit(item, score=_score(score))
    if isinstance(item, (tuple, list)) and len(item) == 2:
        return coerce_hit(item[0], doc_id_key, item[1])
    if isinstance(item, Mapping):
        doc = item.get(doc_id_key) if doc_id_key else item.get("doc_id", item.get("id"))
        if doc is None and doc_id_key and isinstance(item.get("metadata"), Mapping):
            doc = item["metadata"].get(doc_id_key)
        hit = Hit(_id(doc), _id(item.get("chunk_id")), _score(item.get("score", score)),
                  *parse_extent(item, "a hit the retriever returned"))
    else:
        node = getattr(item, "node", None)
        meta = getattr(item, "metadata", None) or getattr(node, "metadata", None) or {}
        doc = meta.get(doc_id_key) if doc_id_key else getattr(item, "doc_id", None) or meta.get("doc_id")
        chunk = getattr(item, "chunk_id", None) or getattr(node, "node_id", None)
        hit = Hit(_id(doc), _id(chunk), _score(getattr(item, "score", score)))
    if hit.doc_id is None and hit.chunk_id is None:
        raise InputError(f"cannot read a document id from a hit of type {type(item).__name__}", hint=_HINT)
    return hit


def coerce_hits(raw: Any, doc_id_key: str | None = None) -> tuple[Hit, ...]:
    """Hits from a retriever's return value (a list of anything ``coerce_hit`` reads, or a mapping
    with a ``hits`` list)."""
    if isinstance(raw, Mapping):
        if "hits" not in raw:  # iterating it would read its keys as document ids
            keys = ", ".join(repr(k) for k in list(raw)[:5])
            raise InputError(f"the retriever returned an object without a 'hits' list (keys: {keys})",
                             hint="return a list of hits or {\"hits\": [...]}; for an HTTP retriever name where the "
                                  "hits are with hits_path in [retriever.http]")
        raw = raw["hits"]
    if raw is None:
        return ()
    if isinstance(raw, (str, bytes)) or not hasattr(raw, "__iter__"):
        raise InputError(f"the retriever returned {type(raw).__name__}, not a list of hits", hint=_HINT)
    if doc_id_key is None:  # a list first: quicker than tuple() of a generator
        return tuple([_plain(item) if type(item) is dict else coerce_hit(item) for item in raw])
    return tuple(coerce_hit(item, doc_id_key) for item in raw)


_MISSING = object()


def _plain(item: dict[str, Any]) -> Hit:
    """``coerce_hit(item)`` for a decoded JSON object, in fewer steps (an HTTP retriever's answer
    holds thousands a second): a hit with an extent, or that coerce_hit refuses, goes through it."""
    if "length" in item or "start" in item or "end" in item:
        return coerce_hit(item)
    doc = item.get("doc_id", _MISSING)
    if doc is _MISSING:
        doc = item.get("id")
    chunk = item.get("chunk_id")
    if doc is None and chunk is None:
        return coerce_hit(item)
    score = item.get("score")
    return Hit(doc if doc is None or type(doc) is str else str(doc),
               chunk if chunk is None or type(chunk) is str else str(chunk),
               score if score is None or type(score) is float else _score(score))
