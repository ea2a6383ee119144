"""Run files: ragauge's JSONL runs and TREC runs, sniffed, read and written; runs from Python data."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.files import atomic_writer
from ragauge.core.numbers import check_number
from ragauge.data.hits import Hit, QueryResult, parse_hit
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.formats.run_lines import jsonl_answers, run_line

if TYPE_CHECKING:
    from ragauge.core.grouping import Grouping
    from ragauge.formats.trec import TrecRun

BLOCK_HITS = 200_000
"""Hits per block when a JSONL run is read block by block."""


def read_run_jsonl(path: str | Path) -> Run:
    """Read ragauge's JSONL run format (docs/reference/inputs.md); a line ``{"_meta": {...}}`` holds metadata."""
    meta: dict[str, Any] = {}
    results = list(jsonl_answers(path, meta))
    return Run.from_results(results, meta=meta, source=str(path), format="jsonl")


def write_run_jsonl(run: Run | Iterable[QueryResult], path: str | Path, *,
                    meta: Mapping[str, Any] | None = None) -> None:
    """Write a run as JSONL, one query a line, replacing ``path`` atomically; the ``_meta`` line
    holds ``meta``, or a Run's own."""
    results = run.results() if isinstance(run, Run) else run
    header = run.meta if meta is None and isinstance(run, Run) else meta
    with atomic_writer(path, what="run") as fh:
        if header:
            fh.write(run_line(header))
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
    """The format of a run file: by its first line that is not blank or a comment (``{``: JSON lines;
    otherwise TREC), except that a JSON-named file (.jsonl, .json, .ndjson) is read as JSON lines
    unless that line is a TREC line (``qid Q0 docno rank score tag``): its JSON errors then say what
    is wrong with the JSON, and a TREC run saved under a JSON name is still read as one."""
    named_json = path.suffix.lower() in (".jsonl", ".json", ".ndjson")
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
            if line.lstrip().startswith(b"{"):
                return "jsonl"
            return "trec" if not named_json or _trec_line(line) else "jsonl"
    return "jsonl"


def _trec_line(line: bytes) -> bool:
    """Whether ``line`` reads as a TREC run line: six fields, an integer rank and a number score."""
    fields = line.split()
    if len(fields) != 6 or not fields[3].lstrip(b"-").isdigit():
        return False
    try:
        float(fields[4])
    except ValueError:
        return False
    return True


def _from_trec(path: Path) -> Run:
    """A TREC run ranked as trec_eval ranks it (score descending, ties by docno descending)."""
    from ragauge.formats.trec import read_trec_run

    return _trec_as_run(read_trec_run(path))


def _trec_as_run(trec: TrecRun, fingerprint: bool = False) -> Run:
    """``trec`` as a :class:`Run`, ranked; with ``fingerprint``, its documents' fingerprints made
    here too (``Run.fingerprints``: a block read ahead makes them in the reading thread)."""
    import pyarrow as pa

    from ragauge.core.arrow import hash64, take
    from ragauge.formats.trec import trec_ranking

    grouping = trec_ranking(trec)
    qid, doc, score = trec.qid, trec.docno, trec.score
    fingerprints = hash64(doc) if fingerprint else None
    ranking: Grouping | None = grouping
    if not grouping.in_blocks:  # rows regrouped: reorder them (ties alone are left to the ranking)
        rows = grouping.rows(grouping.starts, grouping.lengths)
        qid, doc, score = take(qid, rows), take(doc, rows), score[rows]
        fingerprints = None if fingerprints is None else fingerprints[rows]
        ranking = None
    return Run(qid, doc, pa.nulls(len(qid), pa.string()), score, tuple(grouping.ids), meta={"runid": trec.runid},
               source=trec.source, format="trec", ranking=ranking, fingerprints=fingerprints)


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
    begun: list[Iterator[Run]] = field(default_factory=list, compare=False, repr=False)
    """The reading :meth:`begin` began, until the first :meth:`blocks` goes on with it."""

    def begin(self) -> RunStream:
        """This stream with its reading begun now, in threads of its own: the first block read while
        the caller goes on (loads the golden set). Its first :meth:`blocks` goes on with that reading;
        any other reads the file again. Errors come where they would have come."""
        from ragauge.core.background import begun

        return replace(self, begun=[begun(self._read())])

    def blocks(self) -> Iterator[Run]:
        if self.begun:
            yield from self.begun.pop()
            return
        yield from self._read()

    def _read(self) -> Iterator[Run]:
        fmt = _sniff(self.path) if self.format == "auto" else self.format
        if fmt == "trec":
            from ragauge.core.background import prefetch
            from ragauge.formats.blocks import trec_run_blocks

            # rank and fingerprint the next block (and check, group, parse it) while the caller scores this one
            trecs = trec_run_blocks(self.path, self.block_bytes)
            yield from prefetch(_trec_as_run(trec, fingerprint=True) for trec in trecs)
        elif fmt == "jsonl":
            meta: dict[str, Any] = {}
            batch: list[QueryResult] = []
            hits = 0
            for result in jsonl_answers(self.path, meta):
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


def scored_run(value: Run | RunStream | str | Path | Mapping[str, Any]) -> Run | RunStream:
    """What scoring reads of a run given any way :func:`as_run` takes, or a RunStream: a run file by
    :func:`run_source` (a large one in blocks), the rest as :func:`as_run` makes it."""
    if isinstance(value, (str, Path)):
        return run_source(value)
    return value if isinstance(value, RunStream) else as_run(value)


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
