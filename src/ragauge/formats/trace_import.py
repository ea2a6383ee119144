"""Traces as a run: the trajectories of OTLP JSON files (``formats.traces``) matched to the questions
of a golden set, one multi-call run line per trace.

Which question a trace answers:

- with ``id_attribute``: the value of that span attribute on any span of the trace (``session.id``,
  ``ragauge.question_id``, or ``metadata.question_id`` for a field of the JSON object an attribute
  holds), which must be a question id of the golden set; a trace whose spans give two different
  values is refused. A trace without the attribute matches no question: it is never matched by its
  text instead (a rewritten or repeated query would find the wrong question, or take the question
  of a trace that carries its id);
- without ``id_attribute``, its query: the root span's ``input.value``, else its first retriever's,
  equal to a question's ``query`` once whitespace is collapsed and case folded.

A trace that matches no question is refused, listing the first few (``skip_unmatched`` drops them
and counts them instead); so is a second trace for the same question. A trace with no retriever span
is skipped and counted (``TraceImport.skipped``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge._version import __version__
from ragauge.core.files import check_not_an_input
from ragauge.data.hits import QueryResult
from ragauge.errors import InputError, flag
from ragauge.formats.golden import as_golden
from ragauge.formats.traces import TraceRef, Trajectory, read_traces

if TYPE_CHECKING:
    from ragauge.data.golden import GoldenSet
    from ragauge.data.run import Run

SHOWN = 5
"""How many unmatched traces an error or a note lists."""


@dataclass(frozen=True)
class TraceImport:
    """Traces read as a run: ``results`` (one multi-call answer per matched trace, in golden-set
    order), the traces dropped because they matched no question (``unmatched``: only with
    ``skip_unmatched``), the traces skipped because they hold no retriever span (``skipped``), the
    golden questions no trace answers (``unanswered``) and the run's ``meta`` (its ``_meta`` line)."""

    results: tuple[QueryResult, ...]
    unmatched: tuple[TraceRef, ...] = ()
    skipped: tuple[TraceRef, ...] = ()
    unanswered: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def run(self) -> Run:
        """The results as a :class:`Run`, what ``evaluate_run`` scores."""
        from ragauge.data.run import Run

        files = self.meta.get("settings", {}).get("files") or ["traces"]
        return Run.from_results(self.results, meta=self.meta, source=", ".join(files), format="jsonl")

    def notes(self) -> list[str]:
        """What a user should know about the import, one sentence each: traces dropped or skipped,
        questions left without a trace."""
        out = []
        if self.unmatched:
            out.append(f"warning: {len(self.unmatched)} trace(s) matched no question and were dropped "
                       f"({flag('skip_unmatched')}): " + _listed(self.unmatched))
        if self.skipped:
            out.append(f"warning: {len(self.skipped)} trace(s) hold no retriever span and were skipped: "
                       + _listed(self.skipped))
        if self.unanswered:
            shown = ", ".join(repr(q) for q in self.unanswered[:SHOWN])
            more = f" and {len(self.unanswered) - SHOWN} more" if len(self.unanswered) > SHOWN else ""
            out.append(f"note: {len(self.unanswered)} question(s) have no trace and will score 0: {shown}{more}")
        return out


def import_traces(files: str | Path | Sequence[str | Path], golden: Any, *, id_attribute: str | None = None,
                  doc_id_key: str | None = None, chunk_ids: bool = False, skip_unmatched: bool = False,
                  output: str | Path | None = None) -> TraceImport:
    """Read OpenTelemetry traces that follow the OpenInference conventions (OTLP JSON files, as the
    Collector's file exporter writes them; a folder stands for the files in it) as a run of
    ``golden`` (a GoldenSet, a path or questions): one multi-call answer per trace, its retriever
    calls and reranker outputs in start-time order (see ``ragauge.formats.traces`` for how spans
    become calls and hits, and this module for how a trace finds its question). Writes the run to
    ``output`` (JSONL, atomically) when given.

    ``doc_id_key`` reads each document's id from that key of its metadata (``document.id`` is kept
    as the chunk id); ``chunk_ids`` takes ``document.id`` as a chunk id to fold when scoring.
    InputError (naming the file and line) for a file that is not OTLP JSON, a number that is not
    finite, a document without an id, a trace that matches no question (unless ``skip_unmatched``)
    and two traces for one question."""
    paths = _files(files)
    check_not_an_input(output, [*paths, golden if isinstance(golden, (str, Path)) else None], "run")
    questions = as_golden(golden)
    found = read_traces(paths, id_attribute=id_attribute, doc_id_key=doc_id_key, chunk_ids=chunk_ids)
    if not found.trajectories:
        where = str(paths[0]) if len(paths) == 1 else None
        if found.skipped:
            raise InputError(f"none of the {len(found.skipped)} trace(s) holds a retriever span "
                             f"(openinference.span.kind RETRIEVER)", where=where,
                             hint="trace the application with an OpenInference instrumentor (e.g. "
                                  "openinference-instrumentation-langchain or -llama-index), which records "
                                  "retriever spans")
        raise InputError("no span in the trace file(s)", where=where,
                         hint="give the files the OpenTelemetry Collector's file exporter wrote (OTLP JSON)")
    matched, unmatched = _match(found.trajectories, questions, id_attribute)
    if unmatched and not skip_unmatched:
        raise InputError(f"{len(unmatched)} of {len(found.trajectories)} trace(s) match no question of the golden set"
                         f":\n  " + "\n  ".join(_shown(t, id_attribute) for t in unmatched[:SHOWN])
                         + (f"\n  ... and {len(unmatched) - SHOWN} more" if len(unmatched) > SHOWN else ""),
                         where=unmatched[0].loc, hint=_unmatched_hint(id_attribute, unmatched))
    if not matched:
        raise InputError(f"none of the {len(found.trajectories)} trace(s) matches a question of the golden set",
                         where=unmatched[0].loc if unmatched else None, hint=_unmatched_hint(id_attribute, unmatched))
    results = tuple(QueryResult.from_dict(matched[q.id].line(q.id), matched[q.id].loc)
                    for q in questions if q.id in matched)
    meta = {"retriever": "traces", "settings": {
        "files": [str(p) for p in paths], "match": f"attribute {id_attribute}" if id_attribute else "query text",
        "doc_id_key": doc_id_key or "document.id", "chunk_ids": chunk_ids},
        "golden_hash": questions.content_hash, "ragauge_version": __version__,
        "traces": {"read": len(found.trajectories) + len(found.skipped), "matched": len(matched),
                   "unmatched": len(unmatched), "skipped": len(found.skipped)}}
    done = TraceImport(results, tuple(_ref(t) for t in unmatched), found.skipped,
                       tuple(q.id for q in questions if q.id not in matched), meta)
    if output is not None:
        from ragauge.formats.runs import write_run_jsonl

        write_run_jsonl(done.results, output, meta=meta)
    return done


def _files(files: str | Path | Sequence[str | Path]) -> list[Path]:
    """The files named, a folder standing for the files in it (sorted by name, hidden ones left out)."""
    named = [Path(files)] if isinstance(files, (str, Path)) else [Path(f) for f in files]
    if not named:
        raise InputError("no trace file given", hint="name the OTLP JSON file(s) the Collector's file exporter wrote")
    out: list[Path] = []
    for path in named:
        if path.is_dir():
            inside = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            if not inside:
                raise InputError("the folder holds no file", where=str(path), hint="name the trace files")
            out += inside
        else:
            out.append(path)
    return out


def normalised(text: str) -> str:
    """Text as a query is matched: whitespace collapsed, case folded."""
    return " ".join(text.split()).casefold()


def _match(trajectories: Iterable[Trajectory], golden: GoldenSet,
           id_attribute: str | None) -> tuple[dict[str, Trajectory], list[Trajectory]]:
    by_text: dict[str, list[str]] = {}
    for q in golden:
        by_text.setdefault(normalised(q.query), []).append(q.id)
    matched: dict[str, Trajectory] = {}
    unmatched = []
    for t in trajectories:
        qid = _question(t, golden, by_text, id_attribute)
        if qid is None:
            unmatched.append(t)
            continue
        if qid in matched:
            first = matched[qid]
            raise InputError(f"question {qid!r} is answered by two traces: {first.trace_id} ({first.loc}) and "
                             f"{t.trace_id}", where=t.loc,
                             hint="one trace per question: give the traces of one evaluation pass only, or tell "
                                  f"them apart with {flag('id_attribute', 'KEY')} (a span attribute holding the "
                                  "question id)")
        matched[qid] = t
    return matched, unmatched


def _question(t: Trajectory, golden: GoldenSet, by_text: dict[str, list[str]],
              id_attribute: str | None) -> str | None:
    if id_attribute:
        if len(t.ids) > 1:
            raise InputError(f"trace {t.trace_id} gives two question ids under {id_attribute!r}: "
                             f"{t.ids[0]!r} and {t.ids[1]!r}", where=t.loc,
                             hint="one trace answers one question: set the attribute once per trace")
        return t.ids[0] if t.ids and t.ids[0] in golden.by_id else None
    for text in (t.query, t.first_query):
        ids = by_text.get(normalised(text)) if text else None
        if ids and len(ids) > 1:
            raise InputError(f"trace {t.trace_id}'s query {text!r} is the text of {len(ids)} questions: "
                             f"{', '.join(map(repr, ids[:SHOWN]))}", where=t.loc,
                             hint=f"match by id instead: {flag('id_attribute', 'KEY')} names a span attribute "
                                  "holding the question id")
        if ids:
            return ids[0]
    return None


def _shown(t: Trajectory, id_attribute: str | None) -> str:
    if id_attribute:
        said = f"{id_attribute} {t.ids[0]!r} is not a question id" if t.ids else f"no span carries {id_attribute!r}"
    else:
        said = f"query {_short(t.query or t.first_query)}"
    return f"trace {t.trace_id} ({t.loc}): {said}"


def _short(text: str | None) -> str:
    if text is None:
        return "(none)"
    text = " ".join(text.split())
    return repr(text if len(text) <= 80 else text[:77] + "...")


def _unmatched_hint(id_attribute: str | None, unmatched: Sequence[Trajectory]) -> str:
    """How to fix ``unmatched``; with ``id_attribute``, a trace without the attribute is told how to
    fall back to its query text, since it is never matched by it silently."""
    drop = f"or pass {flag('skip_unmatched')} to drop them"
    if id_attribute and any(not t.ids for t in unmatched):
        return (f"with {flag('id_attribute')} a trace is matched by {id_attribute!r} only, never by its query text: "
                f"set {id_attribute!r} on every trace, leave out {flag('id_attribute')} to match every trace by its "
                f"query text, {drop}")
    if id_attribute:
        return f"check that {id_attribute!r} holds the golden set's question ids on these traces, {drop}"
    return (f"a trace's query (its root span's input.value, else its first retriever's) must equal a question's "
            f"text; match by id with {flag('id_attribute', 'KEY')} (a span attribute holding the question id), {drop}")


def _ref(t: Trajectory) -> TraceRef:
    return TraceRef(t.trace_id, t.loc, t.query or t.first_query)


def _listed(traces: Sequence[TraceRef]) -> str:
    shown = ", ".join(f"{t.trace_id} ({t.loc})" for t in traces[:SHOWN])
    return shown + (f" and {len(traces) - SHOWN} more" if len(traces) > SHOWN else "")
