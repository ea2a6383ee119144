"""Run files: ragauge's JSONL runs and TREC runs, sniffed, read and written; runs from Python data."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from json.encoder import encode_basestring as _string
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_jsonl, safe
from ragauge.core.numbers import check_number
from ragauge.data.run import Hit, QueryResult, Run, parse_hit
from ragauge.errors import InputError, where

if TYPE_CHECKING:
    from ragauge.core.grouping import Grouping
    from ragauge.formats.trec import TrecRun

BLOCK_HITS = 200_000
"""Hits per block when a JSONL run is read block by block."""


def read_run_jsonl(path: str | Path) -> Run:
    """Read ragauge's JSONL run format (see the README); a line ``{"_meta": {...}}`` holds metadata."""
    meta: dict[str, Any] = {}
    results = list(_jsonl_results(path, meta))
    return Run.from_results(results, meta=meta, source=str(path), format="jsonl")


def _jsonl_results(path: str | Path, meta: dict[str, Any]) -> Iterator[QueryResult]:
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


def write_run_jsonl(run: Run | Iterable[QueryResult], path: str | Path) -> None:
    """Write a run as JSONL, one query a line, replacing ``path`` atomically."""
    results = run.results() if isinstance(run, Run) else run
    with atomic_writer(path, what="run") as fh:
        if isinstance(run, Run) and run.meta:
            fh.write(run_line(run.meta))
        for r in results:
            fh.write(run_line(r))


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
    from ragauge.formats.trec import read_trec_run

    return _trec_as_run(read_trec_run(path))


def _trec_as_run(trec: TrecRun) -> Run:
    import pyarrow as pa

    from ragauge.core.arrow import take
    from ragauge.formats.trec import trec_ranking

    grouping = trec_ranking(trec)
    qid, doc, score = trec.qid, trec.docno, trec.score
    ranking: Grouping | None = grouping
    if not grouping.in_blocks:  # rows regrouped: reorder them (ties alone are left to the ranking)
        rows = grouping.rows(grouping.starts, grouping.lengths)
        qid, doc, score = take(qid, rows), take(doc, rows), score[rows]
        ranking = None
    return Run(qid, doc, pa.nulls(len(qid), pa.string()), score, tuple(grouping.ids), meta={"runid": trec.runid},
               source=trec.source, format="trec", ranking=ranking)


@dataclass(frozen=True)
class RunStream:
    """A run file read block by block (see ``formats.blocks``): for runs too large to hold at once.

    Each block is a :class:`Run` holding every hit of its questions; a question in two blocks is
    answered by the later one (a TREC query whose lines are scattered in the file). ``format`` is
    ``jsonl``, ``trec`` or ``auto`` (sniffed). Reading errors are those of :func:`read_run`.
    A block holds about ``block_bytes`` of a TREC file (default ``formats.blocks.BLOCK_BYTES``) or
    ``block_hits`` hits of a JSONL file.
    """

    path: Path
    format: str = "auto"
    block_bytes: int | None = None
    block_hits: int = BLOCK_HITS

    def blocks(self) -> Iterator[Run]:
        fmt = _sniff(self.path) if self.format == "auto" else self.format
        if fmt == "trec":
            from ragauge.formats.blocks import trec_run_blocks

            for trec in trec_run_blocks(self.path, self.block_bytes):
                yield _trec_as_run(trec)
        elif fmt == "jsonl":
            meta: dict[str, Any] = {}
            batch: list[QueryResult] = []
            hits = 0
            for result in _jsonl_results(self.path, meta):
                batch.append(result)
                hits += len(result.hits)
                if hits >= self.block_hits:
                    yield Run.from_results(batch, meta=meta, source=str(self.path), format="jsonl")
                    batch, hits = [], 0
            yield Run.from_results(batch, meta=meta, source=str(self.path), format="jsonl")
        else:
            raise InputError(f"unknown run format {fmt!r}", hint="use jsonl, trec or auto")


def run_source(path: str | Path, format: str = "auto") -> Run | RunStream:
    """What evaluating the run file at ``path`` reads: the whole :class:`Run`, or, for a large
    file (``formats.blocks.streams``), a :class:`RunStream` of its blocks, so that memory stays
    bounded. ``evaluate_run`` takes either."""
    from ragauge.formats.blocks import streams

    path = Path(path)
    return RunStream(path, format) if streams(path) and path.is_file() else read_run(path, format)


def as_run(value: Run | str | Path | Mapping[str, Any]) -> Run:
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
            results.append(QueryResult(qid, tuple(parse_hit(h, f"question {qid!r}") for h in hits)))
        else:
            raise InputError(f"hits of question {qid!r} must be a list of ids or a {{doc_id: score}} mapping, "
                             f"got {type(hits).__name__}")
    return Run.from_results(results, meta={"retriever": "python data"})


def _descending(text: str) -> tuple[int, ...]:
    """A sort key that orders strings descending (trec_eval breaks score ties by docno, descending)."""
    return tuple(-b for b in text.encode("utf-8")) + (1,)
