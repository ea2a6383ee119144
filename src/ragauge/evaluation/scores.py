"""One question's scores and what came back for it: the rows an Evaluation holds, and what every
report renders per question."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import count
from typing import Any, NamedTuple, Protocol

from ragauge.data.relevance import is_relevant
from ragauge.evaluation.patterns import Failure


class Asked(Protocol):
    """What a row says of its question: a :class:`QueryScore`, or the golden set's question of a
    row not made yet."""

    @property
    def id(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    @property
    def extra(self) -> Mapping[str, Any]: ...


class Returned(NamedTuple):
    """One document the retriever returned (after deduplication), and whether it is relevant.

    A named tuple, not a dataclass: an evaluation of thousands of questions makes one per
    shown document, and a tuple is several times cheaper to build."""

    doc_id: str
    rank: int
    grade: float | None = None
    score: float | None = None

    @property
    def relevant(self) -> bool:
        return is_relevant(self.grade)

    def to_dict(self) -> dict[str, Any]:
        return returned_dict(*self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Returned:
        return cls(d["doc_id"], d["rank"], d.get("grade"), d.get("score"))


def returned_dict(doc_id: str, rank: int, grade: float | None, score: float | None) -> dict[str, Any]:
    """A shown document as a result's JSON holds it (``Returned.to_dict``): grade and score only
    when known. Also made straight from an evaluation's columns (``QueryRows.dicts``)."""
    out: dict[str, Any] = {"doc_id": doc_id, "rank": rank, "relevant": is_relevant(grade)}
    if grade is not None:
        out["grade"] = grade
    if score is not None:
        out["score"] = score
    return out


def returned_dicts(docs: Iterable[str], grades: Iterable[float | None],
                   scores: Iterable[float | None]) -> list[dict[str, Any]]:
    """:func:`returned_dict` of each shown document, ranked 1, 2, ... in order: the same dicts, the
    common one (not judged, with a score) made in place, several times quicker than a call each
    for the rows of a large JSON report (``QueryRows.dicts``; a test holds the two equal)."""
    unjudged = is_relevant(None)
    return [{"doc_id": doc, "rank": rank, "relevant": unjudged, "score": score}
            if grade is None and score is not None else returned_dict(doc, rank, grade, score)
            for doc, grade, score, rank in zip(docs, grades, scores, count(1))]


def score_dict(qid: str, query: str, tags: Sequence[str], values: Mapping[str, float], first: int | None,
               relevant: dict[str, float], top: list[dict[str, Any]], n_hits: int, n_unique: int, folded: int,
               status: str, error: str | None, latency_ms: float | None, cost: float | None,
               extra: Mapping[str, Any], failure: Failure | None) -> dict[str, Any]:
    """A row as a result's JSON holds it (``QueryScore.to_dict``; ``top`` as ``returned_dict``
    makes each): error, latency, cost, extra and failure only when there. Also made straight from
    an evaluation's columns (``QueryRows.dicts``)."""
    out: dict[str, Any] = {"id": qid, "query": query, "tags": list(tags), **values, "first_relevant_rank": first,
                           "relevant": relevant, "top": top, "n_hits": n_hits, "n_unique": n_unique, "folded": folded,
                           "status": status}
    if error is not None:
        out["error"] = error
    if latency_ms is not None:
        out["latency_ms"] = latency_ms
    if cost is not None:
        out["cost"] = cost
    if extra:
        out["extra"] = dict(extra)
    if failure is not None:
        out["failure"] = failure.to_dict()
    return out


@dataclass(frozen=True)
class QueryScore:
    """One question's values and what came back for it.

    ``first_relevant_rank`` is the 1-based rank of the first relevant document in the fetched,
    deduplicated list (None: not retrieved). ``status`` is "ok", "missing" (not in the run) or
    "error" (the retriever failed). ``failure`` says why the question missed at the evaluation's
    k (None: it did not miss).
    """

    id: str
    query: str
    tags: tuple[str, ...]
    values: dict[str, float]
    relevant: dict[str, float]
    first_relevant_rank: int | None
    top: tuple[Returned, ...]
    n_hits: int = 0
    n_unique: int = 0
    folded: int = 0
    status: str = "ok"
    error: str | None = None
    latency_ms: float | None = None
    cost: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    failure: Failure | None = None

    def with_failure(self, failure: Failure | None) -> QueryScore:
        """This row with ``failure``: ``dataclasses.replace`` written out, several times cheaper for
        thousands of misses (a test checks it keeps every field)."""
        return QueryScore(self.id, self.query, self.tags, self.values, self.relevant, self.first_relevant_rank,
                          self.top, self.n_hits, self.n_unique, self.folded, self.status, self.error,
                          self.latency_ms, self.cost, self.extra, failure)

    def found(self, k: int | None) -> bool:
        """Whether a relevant document is in the top ``k`` (anywhere in the fetched list when k is
        None): the question's hit@k."""
        rank = self.first_relevant_rank
        return rank is not None and (k is None or rank <= k)

    def to_dict(self) -> dict[str, Any]:
        return score_dict(self.id, self.query, self.tags, self.values, self.first_relevant_rank, self.relevant,
                          list(map(Returned.to_dict, self.top)), self.n_hits, self.n_unique, self.folded, self.status,
                          self.error, self.latency_ms, self.cost, self.extra, self.failure)

    @classmethod
    def from_dict(cls, d: dict[str, Any], metrics: list[str]) -> QueryScore:
        return cls(
            d["id"], d.get("query", ""), tuple(d.get("tags", [])), {m: d[m] for m in metrics if m in d},
            dict(d.get("relevant", {})), d.get("first_relevant_rank"),
            tuple(Returned.from_dict(r) for r in d.get("top", [])), d.get("n_hits", 0), d.get("n_unique", 0),
            d.get("folded", 0), d.get("status", "ok"), d.get("error"), d.get("latency_ms"), d.get("cost"),
            dict(d.get("extra", {})), Failure.from_dict(d["failure"]) if d.get("failure") else None,
        )
