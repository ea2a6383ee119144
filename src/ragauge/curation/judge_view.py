"""What the judging page shows of a question: its candidates' titles and texts with the query's terms
marked, long texts folded, and where each system ranked each candidate. Pure: the page's template
(``reports/templates/judge.html.j2``, autoescaped) turns these values into HTML.

**Highlighting.** The query's words (runs of letters and digits, case-folded), less common English
function words and one-letter words without a digit, are the terms. A word of a text is marked
when it equals a term after both lose one common suffix (``-ing``, ``-ed``, ``-es``, ``-s``,
``-ly``, leaving at least three characters) and then a final ``e``: "certificates", "expired" and
"updating" are marked for "certificate", "expire" and "update"; "connection" is not marked for
"connecting" (a light rule, not a stemmer).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ragauge.data.pool import PooledQuestion

FOLD_CHARS = 900
"""Texts longer than this are shown folded (the first lines, and a toggle for the rest)."""
MAX_CHARS = 50_000
"""Texts are cut at this many characters on the page (the rest is counted, not shown)."""

_WORD = re.compile(r"\w+")
_SUFFIXES = ("ing", "ed", "es", "s", "ly")
STOPWORDS = frozenset("""a an and are as at be been but by can could did do does for from had has have how i if in
into is it its me my no not of on or our should so than that the their them then there these they this to up us
was we were what when where which who why will with would you your""".split())


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[:-len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) >= 4 else word


def query_terms(query: str) -> frozenset[str]:
    """The stems the page marks for ``query`` (see the module docstring)."""
    words = (w.casefold() for w in _WORD.findall(query))
    return frozenset(_stem(w) for w in words
                     if w not in STOPWORDS and (len(w) > 1 or any(c.isdigit() for c in w)))


def highlight(text: str, terms: frozenset[str]) -> list[tuple[str, bool]]:
    """``text`` cut into ``(piece, marked)`` segments, the marked ones being words whose stem is in
    ``terms``; joined, the pieces give ``text`` back exactly."""
    if not terms:
        return [(text, False)] if text else []
    out: list[tuple[str, bool]] = []
    at = 0
    for match in _WORD.finditer(text):
        if _stem(match.group().casefold()) not in terms:
            continue
        if match.start() > at:
            out.append((text[at:match.start()], False))
        if out and out[-1][1] and not text[at:match.start()]:
            out[-1] = (out[-1][0] + match.group(), True)
        else:
            out.append((match.group(), True))
        at = match.end()
    if at < len(text):
        out.append((text[at:], False))
    return out


def candidate_view(index: int, doc_id: str, ranks: Mapping[str, int], document: tuple[str, str] | None,
                   terms: frozenset[str], state: dict[str, Any]) -> dict[str, Any]:
    """One candidate for the template: ``title`` and ``text`` as highlighted segments, ``long``
    (folded), ``cut`` (characters not shown), ``missing`` (not in the corpus), ``ranks`` as
    ``[(short name, system, rank)]`` best first (the short name is the last part of a path), and
    the annotator's ``state`` (``grade``, ``skipped``, and ``others``: the other annotators' grades
    shown to an adjudicator)."""
    title, text = document if document is not None else ("", "")
    shown = text[:MAX_CHARS]
    return {"index": index, "doc_id": doc_id, "missing": document is None,
            "title": highlight(title, terms), "text": highlight(shown, terms), "long": len(shown) > FOLD_CHARS,
            "cut": len(text) - len(shown), **state,
            "ranks": [(name.rstrip("/").rsplit("/", 1)[-1], name, rank)
                      for name, rank in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0]))]}


def question_view(question: PooledQuestion, documents: Mapping[str, tuple[str, str]],
                  states: list[dict[str, Any] | None]) -> dict[str, Any]:
    """The page's question: its id, query, tags and systems, its candidates (``states[i]`` is the
    annotator's state of candidate i, None for a candidate not offered, which is left out) and the
    documents judged before pooling, with their grades."""
    terms = query_terms(question.query)
    return {
        "id": question.id, "query": question.query, "tags": list(question.tags), "systems": list(question.systems),
        "candidates": [candidate_view(i, c.doc_id, c.ranks, documents.get(c.doc_id), terms, state)
                       for i, (c, state) in enumerate(zip(question.candidates, states)) if state is not None],
        "judged": [{"doc_id": j.doc_id, "grade": j.grade, "title": documents.get(j.doc_id, ("", ""))[0]}
                   for j in question.judged],
    }
