"""Span labels at evaluation: which retrieved chunks count as the document a span labels.

The contract (the labels themselves: ``ragauge.data.spans``):

1. **Resolving.** A quote is found in the document's text (``--corpus``) case-insensitively, any run
   of whitespace matching any other; every occurrence is a place the answer is. Offsets are taken
   as given; with a quote too, the quote must be there, and when the text moved the quote is looked
   for in the whole text (a *relocated* span). A span whose quote is nowhere in the text, or whose
   offsets run past its end, is **stale**: its label is dropped and reported, never scored as a miss;
   a question left with no relevant label is left out of every mean (``meta["spans"]``).
2. **Matching.** A hit of a span-labelled document counts as that document only when its characters
   ``[start, end)`` overlap a place of one of its relevant spans (grade >= 1; ``start < place_end and
   place_start < end``); a span graded 0 marks a passage that does not answer. The document keeps
   one grade, its highest span's, whichever of its relevant spans a hit overlaps.
   A hit without offsets and without a chunk id is the whole document and overlaps every span; a
   chunk hit without offsets cannot be matched and is an error. A hit that overlaps none counts as
   a judged, non-relevant document of its own (shown as ``DOC (outside the labelled span)``), so it
   takes its rank as any wrong document would and every metric, budgets included, reads on.
3. Documents without spans, and every question without spans, are scored exactly as before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ragauge.data.golden import GoldenSet
from ragauge.data.run import Run
from ragauge.data.spans import Span
from ragauge.errors import InputError, flag, where

OUTSIDE = " (outside the labelled span)"
"""Appended to a document id for its hits that overlap none of its spans."""

Places = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Resolved:
    """The golden set with every span resolved to places, and what happened on the way."""

    golden: GoldenSet
    places: Mapping[tuple[str, str], Places]
    report: dict[str, Any]
    lengths: Mapping[str, int] | None = None
    """The text length of each span-labelled document, when the corpus was given."""


@dataclass(frozen=True)
class Matched:
    """The run's document column after matching, the (question, id) pairs to judge not relevant,
    and how many hits of span-labelled documents were taken whole (no offsets, no chunk id)."""

    docs: Any
    outside: list[tuple[str, str]]
    whole: int = 0


def has_spans(golden: GoldenSet) -> bool:
    return any(q.spans for q in golden)


def quote_places(quote: str, text: str) -> Places:
    """Every place ``quote`` occurs in ``text``: case-insensitive, any whitespace run matching any."""
    pattern = r"\s+".join(re.escape(word) for word in quote.split())
    return tuple((m.start(), m.end()) for m in re.finditer(pattern, text, flags=re.IGNORECASE))


def place_span(span: Span, text: str | None, loc: str | None = None) -> tuple[Places, str | None, bool]:
    """Where ``span`` lies in ``text`` (None: unknown), why it is stale (None if not), and whether it
    was relocated. InputError (at ``loc``) for a quote that cannot be resolved without the text."""
    if text is None:
        if span.start is None:
            raise InputError(f"a span label quotes {span.describe()}, which can only be found in the corpus text",
                             where=loc, hint=f"pass the corpus ({flag('corpus', 'PATH')}) so quotes resolve, or label "
                                             "the span by start and end offsets")
        return ((span.start, int(span.end or 0)),), None, False
    if span.start is not None and span.end is not None:
        if span.end > len(text):
            if span.quote is None:
                return (), f"runs to character {span.end}, past the text's {len(text)}", False
        else:
            at = ((span.start, span.end),)
            if span.quote is None or quote_places(span.quote, text[span.start:span.end]) == ((0, at[0][1] - at[0][0]),):
                return at, None, False
    places = quote_places(str(span.quote), text)
    if not places:
        return (), "quote not found in the text", False
    return places, None, span.start is not None


def resolve_spans(golden: GoldenSet, texts: Mapping[str, str] | None) -> Resolved:
    """Each span label's places (contract 1): stale labels dropped, and the questions they leave
    without a relevant label dropped too; ``report`` says what was found."""
    from ragauge.data.relevance import is_relevant

    places: dict[tuple[str, str], Places] = {}
    stale: list[dict[str, Any]] = []
    relocated: list[dict[str, Any]] = []
    kept, unjudgeable, labels = [], [], 0
    for q in golden:
        if not q.spans:
            kept.append(q)
            continue
        relevant = dict(q.relevant)
        for doc, spans in q.spans.items():
            if doc not in relevant:  # dropped earlier (not in the index)
                continue
            text = None if texts is None else texts.get(doc)
            if texts is not None and text is None:
                stale += [{"id": q.id, "doc_id": doc, "span": s.describe(), "why": "document not in the corpus"}
                          for s in spans]
                labels += len(spans)
                del relevant[doc]
                continue
            found: list[tuple[int, int]] = []
            grade = None
            for span in spans:
                labels += 1
                at, why, moved = place_span(span, text, where(golden.source, q.line) if golden.source else None)
                if moved:
                    relocated.append({"id": q.id, "doc_id": doc, "span": span.describe()})
                if why is not None:
                    stale.append({"id": q.id, "doc_id": doc, "span": span.describe(), "why": why})
                    continue
                if is_relevant(span.grade):
                    found += at
                grade = span.grade if grade is None else max(grade, span.grade)
            if grade is None:
                del relevant[doc]
                continue
            relevant[doc] = grade
            if found:
                places[(q.id, doc)] = tuple(sorted(set(found)))
        if q.answerable and not any(is_relevant(g) for g in relevant.values()):
            unjudgeable.append(q.id)
            continue
        kept.append(replace(q, relevant=relevant))
    report = {"labels": labels, "checked": texts is not None, "relocated": relocated, "stale": stale,
              "unjudgeable": unjudgeable}
    lengths = None if texts is None else {doc: len(texts[doc]) for _q, doc in places if doc in texts}
    return Resolved(GoldenSet(tuple(kept), golden.source), places, report, lengths)


def span_warnings(report: Mapping[str, Any]) -> list[str]:
    """What the evaluation must say about its span labels: stale ones loudly, unchecked ones plainly."""
    from ragauge.core.notes import LOUD

    out = []
    stale, left_out = report["stale"], report["unjudgeable"]
    if stale:
        first = stale[0]
        out.append(f"{LOUD}{len(stale)} of {report['labels']} span label(s) are stale, the corpus text no longer holds "
                   f"them (first: question {first['id']!r}, {first['doc_id']!r} {first['span']}: {first['why']}): "
                   "dropped, not scored as misses" + (f"; {len(left_out)} question(s) left without a label are out "
                                                     f"of every mean: {', '.join(left_out[:10])}" if left_out else "")
                   + "; ragauge golden validate GOLDEN --corpus PATH lists them")
    if report["relocated"]:
        out.append(f"{len(report['relocated'])} span label(s) were found by their quote away from their offsets: the "
                   "text moved; ragauge golden validate GOLDEN --corpus PATH lists them")
    if report.get("whole_hits"):
        out.append(f"{LOUD}{report['whole_hits']} hit(s) of span-labelled documents carry no offsets and no chunk id, "
                   "so each was taken as its whole document, which holds every span: give hits \"start\" and "
                   "\"end\" to judge the passage they bring")
    if not report["checked"]:
        out.append(f"{report['labels']} span label(s) were taken at their offsets without checking them against the "
                   "corpus text (pass --corpus to check them)")
    return out


def holds_answer(places: Places, start: float | None, end: float | None, chunk: str | None,
                 question: str, rank: int, source: str | None = None, length: int | None = None) -> bool | None:
    """The matching rule (contract 2) for one hit of a span-labelled document: whether its offsets
    overlap one of ``places``; None for a hit without offsets and without a chunk id, which is the
    whole document (and so holds every span). InputError naming the question and rank for a chunk
    hit without offsets, or one that ends past the document's text (``length``, when known)."""
    if start is None or end is None or np.isnan(start) or np.isnan(end):
        if chunk is None:
            return None
        raise InputError(f"question {question!r}: hit {rank} ({chunk!r}) has no start/end, and its document is "
                         "labelled by spans", where=source,
                         hint="span labels need each chunk's character offsets in its document "
                              "(\"start\", \"end\"): the built-in retrievers record them")
    if length is not None and end > length:
        raise InputError(f"question {question!r}: hit {rank} ends at character {int(end)}, past its document's "
                         f"{length}", where=source, hint="the run was retrieved from another version of the corpus: "
                                                         "retrieve again, or pass the corpus it was made from")
    return any(start < b and a < end for a, b in places)


def match_spans(resolved: Resolved, run: Run, docs: Any, chunks: Any) -> Matched:
    """The run's document column with every hit of a span-labelled document that overlaps none of
    its places renamed ``DOC (outside the labelled span)`` (contract 2), and those new (question,
    id) pairs, to be judged not relevant; ``chunks`` is the chunk id in effect per row. InputError
    for a chunk hit without offsets or past its document's end."""
    import pyarrow as pa

    if not resolved.places:
        return Matched(docs, [])
    names = docs.to_pylist()
    renamed: dict[int, str] = {}
    pairs: set[tuple[str, str]] = set()
    whole = 0
    lengths = resolved.lengths or {}
    for (qid, doc), places in resolved.places.items():
        for rank, row in enumerate(run.rows_of(qid).tolist(), start=1):
            if names[row] != doc:
                continue
            start = None if run.start is None else float(run.start[row])
            end = None if run.end is None else float(run.end[row])
            holds = holds_answer(places, start, end, chunks[row].as_py(), qid, rank, run.source, lengths.get(doc))
            whole += holds is None
            if holds is False:
                renamed[row] = doc + OUTSIDE
                pairs.add((qid, doc + OUTSIDE))
    for row, name in renamed.items():
        names[row] = name
    return Matched(pa.array(names, pa.string()) if renamed else docs, sorted(pairs), whole)
