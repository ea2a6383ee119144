"""One line of a JSONL run file: the one encoder (``run_line``) and the reader of a file's answers
in order (``jsonl_answers``). Plain Python, no numpy: ``ragauge run`` writes and resumes with it."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from json.encoder import encode_basestring as _string
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import dumps, read_jsonl, safe
from ragauge.data.hits import QueryResult
from ragauge.errors import InputError, where


def jsonl_answers(path: str | Path, meta: dict[str, Any]) -> Iterator[QueryResult]:
    """Each question's answer in a JSONL run, in file order; the ``_meta`` line fills ``meta``."""
    first: dict[str, int] = {}
    for number, obj in read_jsonl(path, what="run"):
        loc = where(path, number)
        if "_meta" in obj and "id" not in obj:
            if first or meta:
                raise InputError("a '_meta' line after the first line", where=loc,
                                 hint="a run file has one '_meta' line, first: is this two run files joined?")
            if not isinstance(obj["_meta"], dict):
                raise InputError("'_meta' must be an object", where=loc)
            meta.update(obj["_meta"])
            continue
        result = QueryResult.from_dict(obj, loc)
        if result.id in first:
            raise InputError(f"query {result.id!r} appears twice (first on line {first[result.id]})", where=loc,
                             hint="write one line per query")
        first[result.id] = number
        yield result


def run_line(item: QueryResult | Mapping[str, Any]) -> str:
    """One line of a JSONL run file, newline included: a question's answer, or the ``_meta`` header
    for a mapping. The one encoder of run lines (``write_run_jsonl`` and ``ragauge run`` use it).

    The text is ``dumps(item.to_dict())``'s; an answer of plain values (str ids, finite float or
    int numbers) is written without building the dicts (``ragauge run`` writes thousands a second)."""
    if isinstance(item, Mapping):
        return dumps({"_meta": dict(item)}) + "\n"
    text = _result_json(item)
    return (dumps(item.to_dict()) if text is None else safe(text)) + "\n"


def _result_json(r: QueryResult) -> str | None:
    """``json.dumps(r.to_dict(), ensure_ascii=False)`` (before ``safe``), or None for what it does
    not write the same way (a non-finite number, a subclass of str or float, ...)."""
    hits = []
    for h in r.hits:
        doc, score = h.doc_id, h.score
        if (type(doc) is str and type(score) is float and h.chunk_id is None and h.length is None
                and h.start is None and score - score == 0.0):  # the usual hit; finite (inf - inf is nan)
            hits.append('{"doc_id": ' + _string(doc) + ', "score": ' + float.__repr__(score) + "}")
        elif (text := _object(h.to_dict())) is not None:
            hits.append(text)
        else:
            return None
    fields = [f'"hits": [{", ".join(hits)}]']
    for key, value in (("latency_ms", r.latency_ms), ("cost", r.cost), ("error", r.error)):
        if value is not None:
            if (text := _value(value)) is None:
                return None
            fields.append(f'"{key}": {text}')
    qid = _value(r.id)
    return None if qid is None else f'{{"id": {qid}, {", ".join(fields)}}}'


def _object(d: Mapping[str, Any]) -> str | None:
    parts = []
    for key, value in d.items():
        if (text := _value(value)) is None:
            return None
        parts.append(f"{_string(key)}: {text}")
    return "{" + ", ".join(parts) + "}"


def _value(value: Any) -> str | None:
    """A str, finite float, int or None as json.dumps writes it; None for anything else."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is float:
        return float.__repr__(value) if math.isfinite(value) else None
    if kind is int:
        return int.__repr__(value)
    return "null" if value is None else None
