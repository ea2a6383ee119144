"""Span labels: the passage of a document that holds a question's answer, so a label survives
re-chunking and says whether the chunk that reached the model held the answer.

A golden line's ``relevant`` list may hold, beside plain ids, objects::

    {"doc": "kb-1042", "start": 120, "end": 340}          # characters [120, 340) of the text
    {"doc": "kb-1042", "quote": "rotate the certificate"} # wherever the quote is in the text
    {"doc": "kb-1042", "quote": "...", "start": 120, "end": 340, "grade": 2}
    {"doc": "kb-7", "grade": 2}                           # the whole document, graded

Offsets count characters (Unicode code points) of the document's ``text`` as the corpus holds it,
title excluded, end exclusive. The document's grade is the highest grade of its spans (default 1),
and the unit of every metric stays the document: spans decide which of its chunks count as it
(see ``ragauge.evaluation.spans``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragauge.core.numbers import GRADE, WHOLE, check_number
from ragauge.errors import InputError

SPAN_HINT = ('a span is {"doc": "kb-1", "start": 120, "end": 340} (characters of the document text, end '
             'exclusive) or {"doc": "kb-1", "quote": "words from the text"}')


@dataclass(frozen=True)
class Span:
    """Where in a document the answer is: characters ``[start, end)`` of its text, a ``quote`` found
    in it, or both (the quote is then expected at the offsets); ``grade`` as for a document."""

    start: int | None = None
    end: int | None = None
    quote: str | None = None
    grade: float = 1

    def to_dict(self, doc: str) -> dict[str, Any]:
        out: dict[str, Any] = {"doc": doc}
        if self.start is not None:
            out["start"], out["end"] = self.start, self.end
        if self.quote is not None:
            out["quote"] = self.quote
        if self.grade != 1:
            out["grade"] = self.grade
        return out

    def describe(self) -> str:
        """A short human form: ``chars 120-340`` and/or ``"rotate the certificate"``."""
        parts = [] if self.start is None else [f"chars {self.start}-{self.end}"]
        if self.quote is not None:
            quote = self.quote if len(self.quote) <= 60 else self.quote[:57] + "..."
            parts.append(repr(quote))
        return " ".join(parts)


def parse_label(item: Mapping[str, Any], loc: str) -> tuple[str, Span | None, float]:
    """One object of a ``relevant`` list: its document, its span (None for a whole document) and
    its grade; InputError naming ``loc`` for a bad one."""
    unknown = sorted(set(item) - {"doc", "start", "end", "quote", "grade"})
    if unknown:
        raise InputError(f"unknown field(s) {', '.join(map(repr, unknown))} in a 'relevant' object", where=loc,
                         hint=SPAN_HINT)
    doc = item.get("doc")
    if not isinstance(doc, str) or not doc:
        raise InputError(f"a 'relevant' object needs \"doc\": a non-empty document id, got {doc!r}", where=loc,
                         hint=SPAN_HINT)
    grade = check_number(item.get("grade", 1), f"grade of {doc!r}", GRADE, where=loc)
    grade = int(grade) if grade.is_integer() else grade
    quote = item.get("quote")
    if quote is not None and (not isinstance(quote, str) or not quote.strip()):
        raise InputError(f"the quote of {doc!r} must be non-empty text, got {quote!r}", where=loc, hint=SPAN_HINT)
    has_start, has_end = "start" in item, "end" in item
    if has_start != has_end:
        raise InputError(f"the span of {doc!r} has {'start' if has_start else 'end'} without "
                         f"{'end' if has_start else 'start'}", where=loc, hint=SPAN_HINT)
    start = end = None
    if has_start:
        start = int(check_number(item["start"], f"span start of {doc!r}", WHOLE, where=loc))
        end = int(check_number(item["end"], f"span end of {doc!r}", WHOLE, where=loc))
        if end <= start:
            raise InputError(f"the span of {doc!r} ends at {end}, not after its start {start}", where=loc,
                             hint="end is exclusive: characters [start, end) of the document text")
    if start is None and quote is None:
        return doc, None, grade
    return doc, Span(start, end, quote, grade), grade
