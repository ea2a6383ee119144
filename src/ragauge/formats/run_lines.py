"""One line of a JSONL run file: the one encoder (``run_line``) and the reader of a file's answers
in order (``jsonl_answers``). Plain Python, no numpy: ``ragauge run`` writes and resumes with it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import compact, read_jsonl
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
    for a mapping. The one encoder of run lines (``write_run_jsonl`` and ``ragauge run`` use it):
    ``core.jsonl.compact`` of ``item.to_dict()``, JSON without spaces, the text the standard library
    writes (orjson's when installed: ``ragauge run`` writes thousands of answers a second)."""
    if isinstance(item, Mapping):
        return compact({"_meta": dict(item)}) + "\n"
    return compact(item.to_dict()) + "\n"
