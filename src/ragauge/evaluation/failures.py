"""Why each question missed: one primary failure pattern and the secondary ones, from what the
evaluation knows (ranks, fetch depth, the raw hits, judgements, the index's documents) and, when a
corpus is given, the texts. The patterns, their contracts and their order are in
:mod:`ragauge.evaluation.patterns`; the text rules in :mod:`ragauge.evaluation.text`.

Only misses are classified, so a large evaluation pays for its misses alone (and nothing for the
text patterns without a corpus).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from ragauge.data.ids import SECTION_SEP, section_parent
from ragauge.data.relevance import is_relevant
from ragauge.evaluation.patterns import CROWD_MIN, CROWD_SHARE, OVERLAP_GAP, PATTERNS, Assessment, Failure
from ragauge.evaluation.spans import OUTSIDE

if TYPE_CHECKING:
    import numpy as np

    from ragauge.evaluation.result import Evaluation, QueryScore
    from ragauge.evaluation.rows import QueryRows
    from ragauge.evaluation.text import Texts

NO_TEXTS = "no corpus texts (give --corpus PATH)"
NO_INDEX = "the index's documents are unknown (give --corpus PATH, or a retriever that lists them)"
NO_NEGATIVES = "no miss has a judged-not-relevant document (grade < 1)"
OLD_RESULT = "saved by a ragauge that did not classify failures"


def _document(doc_id: str) -> str:
    return section_parent(doc_id) or doc_id


def crowding(raw_docs: Sequence[str], k: int | None, relevant: Mapping[str, float]) -> dict[str, Any] | None:
    """The crowded-out evidence of one question, from its raw hits' document ids in rank order
    (after the fetch cut, before folding): the window is the hits up to the k-th distinct
    document (all of them when fewer, or when k is None); a non-relevant document holding at
    least ``CROWD_SHARE`` of the window and at least ``CROWD_MIN`` hits crowds it. None otherwise."""
    seen: set[str] = set()
    window = 0
    for doc in raw_docs:
        if k is not None and len(seen) == k:
            break
        seen.add(doc)
        window += 1
    counts = Counter(d for d in raw_docs[:window] if not is_relevant(relevant.get(d)))
    if not counts:
        return None
    # the most hits, the first seen of equals: a Counter keeps first-seen order, max the first of equals
    doc, hits = max(counts.items(), key=itemgetter(1))
    if hits >= CROWD_MIN and hits >= CROWD_SHARE * window:
        return {"doc_id": doc, "hits": hits, "window": window}
    return None


def classify(q: QueryScore, k: int | None, *, stale: Collection[str] = (), crowd: Mapping[str, Any] | None = None,
             texts: Texts | None = None) -> Failure:
    """The failure of a question that missed at ``k``: every pattern whose contract holds, the
    first in precedence order primary. ``stale`` are its relevant ids missing from the index,
    ``crowd`` its crowding evidence (see :func:`crowding`), ``texts`` the corpus (None: the text
    patterns are not assessed)."""
    found: dict[str, dict[str, Any]] = {}
    if q.status == "error":
        found["retriever-error"] = {}
    elif q.status == "missing":
        found["missing-from-run"] = {}
    if stale:
        found["stale-label"] = {"ids": sorted(stale)}
    if q.status == "ok":
        top = q.top if k is None else q.top[:k]
        answers = [d for d, g in q.relevant.items() if is_relevant(g)]
        if any(SECTION_SEP in d for d in answers) or any(SECTION_SEP in r.doc_id for r in top):
            documents = {_document(d) for d in answers}  # without a section id, no two ids share a document
            siblings = [r.doc_id for r in top if not r.relevant and _document(r.doc_id) in documents]
            if siblings:
                found["wrong-section"] = {"ids": siblings}
        passages = [r.doc_id for r in top if r.doc_id.endswith(OUTSIDE) and r.doc_id[:-len(OUTSIDE)] in answers]
        if passages:
            found["wrong-passage"] = {"ids": passages}
        if crowd:
            found["crowded-out"] = dict(crowd)
        if texts is not None:
            found.update(_text_patterns(q.query, answers, [r.doc_id for r in top], texts))
        if any(not is_relevant(g) for g in q.relevant.values()):
            unjudged = [r.doc_id for r in top if r.grade is None]
            if unjudged:
                found["unjudged-above"] = {"ids": unjudged}
        found[_rank_pattern(q.first_relevant_rank is not None)] = {}  # the row says where
    order = [p for p in PATTERNS if p in found]
    return Failure(order[0], tuple(order[1:]), {p: found[p] for p in order if found[p]})


def _rank_pattern(retrieved: bool) -> str:
    """The pattern of an answerable question that missed on its rank: a relevant document was
    ``retrieved`` below k, or none within the fetch depth."""
    return "ranked-too-low" if retrieved else "not-retrieved"


def _text_patterns(query: str, answers: list[str], top: list[str], texts: Texts) -> dict[str, dict[str, Any]]:
    """exact-term and vocabulary-gap for one question; neither when no relevant text is in the
    corpus (:func:`assess` says which misses those are)."""
    from ragauge.evaluation.text import identifiers, occurs  # only with texts: a corpus was given

    relevant = [(d, folded) for d in answers if (folded := texts.folded(d)) is not None]
    if not relevant:
        return {}
    out: dict[str, dict[str, Any]] = {}
    shown = [folded for d in top if (folded := texts.folded(d)) is not None]
    terms = [t for t in identifiers(query)
             if any(occurs(t, text) for _, text in relevant) and not any(occurs(t, text) for text in shown)]
    if terms:
        out["exact-term"] = {"terms": terms}
    analyzer = texts.analyzer
    words = analyzer.content_words(query)
    if words:
        best = max(analyzer.overlap(words, analyzer.stems(d, texts.text(d) or "")) for d, _ in relevant)
        if best < OVERLAP_GAP:
            out["vocabulary-gap"] = {"overlap": round(best, 3), "words": len(words)}
    return out


def assess(k: int | None, kept: int, misses: Iterable[QueryScore], *, index_known: bool, texts: Texts | None,
           unjudgeable: int = 0) -> Assessment:
    """What the classification of ``misses`` could and could not look at: ``kept`` documents per
    question are in each result row (the top k checks see no further), ``index_known`` whether
    stale labels were checked, ``unjudgeable`` questions left unscored because every relevant id
    is stale. ``misses`` is read once, one row at a time."""
    not_assessed: dict[str, str] = {}
    notes: list[str] = []
    lacking: list[str] = []
    negatives = False
    for q in misses:
        negatives = negatives or any(not is_relevant(g) for g in q.relevant.values())
        if texts is not None and q.status == "ok" and not any(
                texts.text(d) is not None for d, g in q.relevant.items() if is_relevant(g)):
            lacking.append(q.id)
    if not index_known:
        not_assessed["stale-label"] = NO_INDEX
    if texts is None:
        not_assessed["exact-term"] = not_assessed["vocabulary-gap"] = NO_TEXTS
    elif lacking:
        notes.append(f"text patterns not assessed for {len(lacking)} miss(es) whose relevant documents are not "
                     f"in the corpus ({', '.join(lacking[:5])}{', ...' if len(lacking) > 5 else ''})")
    if not negatives:
        not_assessed["unjudged-above"] = NO_NEGATIVES
    if k is not None and k > kept:
        notes.append(f"the top-k checks (wrong section, exact term, unjudged) saw each question's first {kept} "
                     f"documents, not all {k}")
    if unjudgeable:
        notes.append(f"{unjudgeable} answerable question(s) are not scored, and not counted here: every relevant id "
                     f"is a stale label")
    return Assessment(k, not_assessed, tuple(notes))


def classify_misses(queries: Sequence[QueryScore], k: int | None, *, drift: Mapping[str, Any] | None,
                    crowd: Callable[[QueryScore], Mapping[str, Any] | None] | None, texts: Texts | None,
                    ) -> tuple[Sequence[QueryScore], Assessment]:
    """``queries`` with each miss at ``k`` classified (and every other question's failure cleared),
    and the assessment. ``drift`` is the stale-label report (None: the index is unknown), ``crowd``
    gives a miss's crowding evidence (None: crowding is not assessed; it may go unasked for a miss
    without folded hits, which none can have). Rows held column-wise
    (:class:`~ragauge.evaluation.rows.QueryRows`) stay so: only the misses that :func:`_by_rank`
    cannot tell from the columns are made."""
    from ragauge.evaluation.rows import BATCH, QueryRows

    stale: dict[str, list[str]] = {}
    for item in (drift or {}).get("stale", []):
        stale.setdefault(item["id"], []).append(item["doc_id"])

    def failure(q: QueryScore) -> Failure:
        return classify(q, k, stale=stale.get(q.id, ()), crowd=crowd(q) if crowd else None, texts=texts)

    out: Sequence[QueryScore]
    misses: Iterable[QueryScore]
    if isinstance(queries, QueryRows):
        at = queries.missed(k)
        plain = _by_rank(queries, at, stale, texts)
        made = at[~plain]
        found: dict[int, Failure] = {}

        def classified() -> Iterator[QueryScore]:  # a batch of rows at a time: assess reads them once
            for start in range(0, len(made), BATCH):
                numbers = made[start:start + BATCH]
                for i, q in zip(numbers.tolist(), queries.rows(numbers)):
                    found[i] = failure(q)
                    yield q

        misses, kept = classified(), queries.kept()  # a miss by rank alone adds nothing to the assessment
    else:
        rows = list(queries)
        misses = []
        for i, q in enumerate(rows):
            if q.found(k):
                if q.failure is not None:
                    rows[i] = q.with_failure(None)
                continue
            rows[i] = q = q.with_failure(failure(q))
            misses.append(q)
        out, kept = tuple(rows), max((len(q.top) for q in rows), default=0)
    assessment = assess(k, kept, misses, index_known=drift is not None, texts=texts,
                        unjudgeable=len((drift or {}).get("unjudgeable", [])))
    if isinstance(queries, QueryRows):
        first = queries.first
        out = queries.with_failures({i: found[i] if i in found else Failure(_rank_pattern(bool(first[i])))
                                     for i in at.tolist()})
    if crowd is None:
        assessment = replace(assessment, not_assessed={"crowded-out": OLD_RESULT, **assessment.not_assessed})
    return out, assessment


def _by_rank(rows: QueryRows, at: np.ndarray, stale: Collection[str], texts: Texts | None) -> np.ndarray:
    """Which of the misses ``at`` (row numbers of ``rows``) :func:`classify` finds only ranked-too-low
    or not-retrieved in, and which :func:`assess` learns nothing from, told from the columns without
    making their rows: status ok, no stale label (an id of ``stale``), no folded hits (no document
    holds two hits, so none crowds it out), no texts to look at, no judged-not-relevant document
    (unjudged-above), no section id ('#') among its relevant ids or shown documents (wrong-section),
    no shown document outside a labelled span (wrong-passage). The others are classified row by row."""
    import numpy as np

    from ragauge.core import compute as pc
    from ragauge.core.arrow import to_numpy

    if texts is not None or not len(at):
        return np.zeros(len(at), dtype=bool)
    plain: np.ndarray = (rows.status[at] == 0) & (rows.folded[at] == 0)
    docs = rows.docs
    marked = (to_numpy(pc.match_substring(docs, SECTION_SEP), null=True)  # a missing id: made as before
              | to_numpy(pc.match_substring(docs, OUTSIDE), null=True))
    if marked.any():  # shown lists holding a marked id
        before = np.concatenate([[0], np.cumsum(marked)])
        offsets = rows.offsets
        plain &= (before[offsets[1:]] - before[offsets[:-1]])[rows.at[at]] == 0
    questions = rows.questions
    for j in np.flatnonzero(plain).tolist():
        q = questions[int(at[j])]
        if q.id in stale or any(SECTION_SEP in d or not is_relevant(g) for d, g in q.relevant.items()):
            plain[j] = False
    return plain


def classify_result(evaluation: Evaluation, texts: Texts | Mapping[str, str] | None = None) -> Evaluation:
    """``evaluation`` with its misses classified again, with ``texts`` when given (so a saved
    result gains the text patterns). The raw hits are not in a result: crowding comes from each
    question's stored evidence, and a result saved before ragauge classified failures says that
    crowding was not assessed."""
    if texts is not None:
        from ragauge.evaluation.text import Texts

        if not isinstance(texts, Texts):
            texts = Texts(texts)
    old = evaluation.failures is None
    k = max_cutoff(evaluation.meta) if old else evaluation.failures.k  # type: ignore[union-attr]

    def stored(q: QueryScore) -> Mapping[str, Any] | None:
        return q.failure.evidence.get("crowded-out") if q.failure is not None else None

    queries, assessment = classify_misses(evaluation.queries, k, drift=evaluation.meta.get("drift"),
                                          crowd=None if old else stored, texts=texts)
    return replace(evaluation, queries=queries, failures=assessment)


def max_cutoff(meta: Mapping[str, Any]) -> int | None:
    """The cutoff misses are counted at: the largest k of a result's contract (None: none)."""
    ks = [int(k) for k in meta.get("contract", {}).get("k", [])]
    return max(ks, default=None)


def raw_documents(rows: Callable[[str, int | None], Sequence[str]], q: QueryScore, k: int | None,
                  fetch: int | None) -> Sequence[str]:
    """The document ids of the raw hits that can make up a question's top ``k``: at most k plus
    the hits folded away, within the fetch depth (``rows(qid, n)`` reads the first n)."""
    return rows(q.id, raw_depth(q.folded, k, fetch))


def raw_depth(folded: int, k: int | None, fetch: int | None) -> int | None:
    """How many raw hits :func:`raw_documents` reads of a question with ``folded`` hits folded
    away (None: all)."""
    n = None if k is None else k + folded
    if fetch is not None:
        n = fetch if n is None else min(n, fetch)
    return n
