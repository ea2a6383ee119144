"""An evaluation's per-question rows held column-wise: a number array per metric and per count,
the shown documents as one Arrow array, the golden questions by reference.

A :class:`QueryScore` with its tuple of :class:`Returned` costs several kilobytes; an MS MARCO
run of 200,000 questions would hold gigabytes of them. :class:`QueryRows` holds a few hundred
bytes a question and makes each row when it is read (indexing, iteration), so a report that
writes the rows one after another (``reports.json``) holds only the rows it is writing.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ragauge.core.arrow import ragged_arange, take
from ragauge.core.collection import no_cycle_collection
from ragauge.evaluation.scores import QueryScore, Returned, returned_dicts, score_dict

if TYPE_CHECKING:
    import pyarrow as pa

    from ragauge.data.golden import GoldenQuery, GoldenSet
    from ragauge.data.run import Run
    from ragauge.evaluation.hits import Hits
    from ragauge.evaluation.patterns import Failure

STATUSES = ("ok", "missing", "error")
"""``QueryScore.status`` by its code in :attr:`QueryRows.status`."""

BATCH = 2048
"""Rows made at a time when iterating: the columns are read as Python values a batch at once."""

_returned = partial(tuple.__new__, Returned)  # Returned(*fields) without its Python-level __new__


class QueryRows(Sequence[QueryScore]):
    """The rows of an evaluation (answerable questions, golden order), each made on reading.

    Row ``i`` is question ``questions[i]``; ``values[metric][i]``, ``first[i]`` (0: nothing
    relevant retrieved), ``n_hits[i]``, ``n_unique[i]``, ``folded[i]`` and ``status[i]`` (a code
    of :data:`STATUSES`) its numbers; ``errors``, ``latency`` and ``cost`` map question ids as the
    run does. Its shown documents are ``docs[offsets[at[i]]:offsets[at[i] + 1]]`` with their scores
    in ``scores`` (NaN: none); their grades are the question's labels, and 0 for the ids of
    ``judged_out`` (chunks outside a labelled span). ``failures`` maps row numbers to the failure of
    a miss. Equal to any sequence of the same rows."""

    def __init__(self, questions: Sequence[GoldenQuery], values: Mapping[str, np.ndarray], first: np.ndarray,
                 n_hits: np.ndarray, n_unique: np.ndarray, folded: np.ndarray, status: np.ndarray, *,
                 errors: Mapping[str, str], latency: Mapping[str, float], cost: Mapping[str, float],
                 docs: pa.Array, scores: np.ndarray, offsets: np.ndarray, at: np.ndarray,
                 judged_out: Mapping[str, Sequence[str]], failures: Mapping[int, Failure] | None = None) -> None:
        self.questions = questions
        self.values = dict(values)
        self.first, self.n_hits, self.n_unique, self.folded, self.status = first, n_hits, n_unique, folded, status
        self.errors, self.latency, self.cost = errors, latency, cost
        self.docs, self.scores, self.offsets, self.at = docs, scores, offsets, at
        self.judged_out = judged_out
        self.failures: Mapping[int, Failure] = failures or {}

    def with_failures(self, failures: Mapping[int, Failure]) -> QueryRows:
        """These rows with ``failures`` (row number -> failure) instead of their own."""
        return QueryRows(self.questions, self.values, self.first, self.n_hits, self.n_unique, self.folded,
                         self.status, errors=self.errors, latency=self.latency, cost=self.cost, docs=self.docs,
                         scores=self.scores, offsets=self.offsets, at=self.at, judged_out=self.judged_out,
                         failures=failures)

    def __len__(self) -> int:
        return len(self.questions)

    @overload
    def __getitem__(self, index: int) -> QueryScore: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[QueryScore]: ...

    def __getitem__(self, index: int | slice) -> QueryScore | Sequence[QueryScore]:
        if isinstance(index, slice):
            return tuple(self.rows(np.arange(len(self))[index]))
        n = len(self)
        i = index + n if index < 0 else index
        if not 0 <= i < n:
            raise IndexError("row index out of range")
        return self.rows(np.array([i]))[0]

    def __iter__(self) -> Iterator[QueryScore]:
        for start in range(0, len(self), BATCH):
            yield from self.rows(np.arange(start, min(start + BATCH, len(self))))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other))

    __hash__ = None  # type: ignore[assignment]  # mutable-looking, as a list: never a dict key

    def __repr__(self) -> str:
        return f"QueryRows({len(self)} rows)"

    @cached_property
    def ids(self) -> list[str]:
        """Every row's question id, in order."""
        return [q.id for q in self.questions]

    def with_status(self, status: str) -> list[str]:
        """The ids of the rows whose status is ``status``, in order."""
        code = STATUSES.index(status)
        ids = self.ids
        return [ids[i] for i in np.flatnonzero(self.status == code).tolist()]

    def missed(self, k: int | None) -> np.ndarray:
        """Row numbers of the questions with no relevant document in the top ``k`` (anywhere in the
        fetched list when None): the rows ``QueryScore.found(k)`` is False for."""
        return np.flatnonzero((self.first == 0) if k is None else ((self.first == 0) | (self.first > k)))

    def kept(self) -> int:
        """The most documents any row shows."""
        lengths = np.diff(self.offsets)[self.at] if len(self.at) else np.zeros(0, dtype=np.int64)
        return int(lengths.max()) if len(lengths) else 0

    def rows(self, numbers: np.ndarray) -> list[QueryScore]:
        """The rows ``numbers`` (row numbers, any order), made from the columns (without the cycle
        collector: ``core.collection``)."""
        out = []
        with no_cycle_collection():
            for i, item, values, first, counts, status, shown, scores in self._batch(numbers):
                grades = self._grades(item)
                top = tuple(map(_returned, zip(shown, range(1, len(shown) + 1), map(grades.get, shown), scores)))
                qid = item.id
                out.append(QueryScore(
                    qid, item.query, item.tags, values, dict(item.relevant), first, top, *counts, status,
                    self.errors.get(qid), self.latency.get(qid), self.cost.get(qid), dict(item.extra),
                    self.failures.get(i)))
        return out

    def dicts(self) -> Iterator[dict[str, Any]]:
        """``QueryScore.to_dict()`` of every row, in order, made from the columns without the row
        objects: what a JSON report writes (twice as quick; a test holds the two equal)."""
        for start in range(0, len(self), BATCH):
            for i, item, values, first, counts, status, shown, scores in self._batch(
                    np.arange(start, min(start + BATCH, len(self)))):
                top = returned_dicts(shown, map(self._grades(item).get, shown), scores)
                qid = item.id
                yield score_dict(qid, item.query, item.tags, values, first, dict(item.relevant), top, *counts, status,
                                 self.errors.get(qid), self.latency.get(qid), self.cost.get(qid), item.extra,
                                 self.failures.get(i))

    def _grades(self, item: GoldenQuery) -> dict[str, float]:
        """A shown document's grade: the question's label, 0 for a chunk outside a labelled span."""
        return {doc: float(g) for doc, g in item.relevant.items()} | {o: 0.0 for o in self.judged_out.get(item.id, ())}

    def _batch(self, numbers: np.ndarray) -> Iterator[tuple[int, GoldenQuery, dict[str, float], int | None,
                                                            tuple[int, int, int], str, list[str], list[float | None]]]:
        """Rows ``numbers`` as Python values read from the columns a batch at once: row number,
        question, metric values, first relevant rank (None: none), (hits, unique, folded), status,
        and the shown documents with their scores (None: no score)."""
        numbers = np.asarray(numbers, dtype=np.int64)
        if not len(numbers):
            return
        at = self.at[numbers]
        starts, lengths = self.offsets[at], self.offsets[at + 1] - self.offsets[at]
        taken = ragged_arange(starts, lengths)  # every shown position, row after row
        docs = take(self.docs, taken).to_pylist()
        scores = [None if s != s else s for s in self.scores[taken].tolist()]  # NaN: no score
        bounds = [0, *np.cumsum(lengths).tolist()]
        columns = [(name, column[numbers].tolist()) for name, column in self.values.items()]
        first, n_hits, n_unique, folded, status = (c[numbers].tolist() for c in (
            self.first, self.n_hits, self.n_unique, self.folded, self.status))
        for j, i in enumerate(numbers.tolist()):
            a, b = bounds[j], bounds[j + 1]
            yield (i, self.questions[i], {n: v[j] for n, v in columns}, first[j] or None,
                   (n_hits[j], n_unique[j], folded[j]), STATUSES[status[j]], docs[a:b], scores[a:b])


@dataclass(frozen=True)
class Rows:
    """The per-question part of an evaluation, and what the warnings need to know about it."""

    scores: QueryRows
    no_answer: list[dict[str, Any]]
    missing: list[str]
    empty: list[str]
    short: list[str]


def score_rows(golden: GoldenSet, run: Run, hits: Hits, values: dict[str, np.ndarray], drift: dict[str, Any] | None,
               max_k: int | None) -> Rows:
    """The rows of the answerable questions (golden order), the no-answer section, and the ids of
    the answerable questions missing from the run (status ``missing``: no line for them, which is not
    a line with no hits), answered with no document (``empty``) or with fewer than ``max_k``
    (``short``; failed questions are neither); chunks outside a labelled span (``hits.outside``) are
    shown judged 0."""
    rankings, info = hits.rankings, hits.info
    questions = golden.queries
    answerable = rankings.num_rel > 0
    failed = (np.fromiter((q.id in run.errors for q in questions), dtype=bool, count=len(questions))
              if run.errors else np.zeros(len(questions), dtype=bool))
    in_run = set(run.queries)
    absent = np.fromiter((q.id not in in_run for q in questions), dtype=bool, count=len(questions))
    status = np.where(failed, STATUSES.index("error"), np.where(absent, STATUSES.index("missing"), 0))
    judged_out: dict[str, list[str]] = {}
    for qid, doc in hits.outside:
        judged_out.setdefault(qid, []).append(doc)
    ids = [q.id for q in questions]

    def rows_of(at: np.ndarray) -> QueryRows:
        return QueryRows([questions[i] for i in at.tolist()], {n: v[at] for n, v in values.items()},
                         rankings.first_rel_rank[at], info.raw_lengths[at], rankings.lengths[at], info.folded[at],
                         status[at].astype(np.int8), errors=run.errors, latency=run.latency_ms, cost=run.cost,
                         docs=shown_docs, scores=shown_scores, offsets=info.top_offsets, at=at, judged_out=judged_out)

    shown_docs = take(hits.shown_docs, info.top_rows)
    shown_scores = hits.shown_scores[info.top_rows]
    unjudgeable = set(drift["unjudgeable"]) if drift else set()  # every relevant id stale: reported under drift
    no_answer = [{"id": q.id, "query": q.query, "tags": list(q.tags), "top": [t.to_dict() for t in q.top[:3]],
                  "status": q.status}
                 for q in rows_of(np.flatnonzero(~answerable)) if q.id not in unjudgeable]
    answered = status == 0
    empty = answered & (info.raw_lengths == 0)
    short = answered & ~empty & (rankings.lengths < max_k) if max_k is not None else np.zeros(len(ids), dtype=bool)

    def listed(mask: np.ndarray) -> list[str]:
        return [ids[i] for i in np.flatnonzero(answerable & mask).tolist()]

    return Rows(rows_of(np.flatnonzero(answerable)), no_answer, listed(status == STATUSES.index("missing")),
                listed(empty), listed(short))
