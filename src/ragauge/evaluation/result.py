"""The result of an evaluation: one value model that every report renders."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

from ragauge.evaluation.patterns import Assessment, FailureTable, failure_table
from ragauge.evaluation.scores import Asked as Asked
from ragauge.evaluation.scores import QueryScore as QueryScore
from ragauge.evaluation.scores import Returned as Returned
from ragauge.evaluation.scores import returned_dict as returned_dict
from ragauge.evaluation.scores import score_dict as score_dict

if TYPE_CHECKING:
    import numpy as np

RESULT_VERSION = 1


@dataclass(frozen=True)
class Evaluation:
    """Summary (means over answerable questions), per-tag means, one row per answerable
    question, the no-answer section, warnings, the metadata that identifies what was compared, and
    how the misses were classified (``failures``; None only while a result is being built).
    ``queries`` is a tuple, or for a fresh evaluation the rows held column-wise
    (:class:`~ragauge.evaluation.rows.QueryRows`), each made when read.

    ``by_source`` (empty unless the golden set holds questions an LLM wrote, ``"source":
    "synthetic"``) maps ``"real"`` and ``"synthetic"`` to ``{"n": answerable questions, metric:
    mean}``. Unless they were mixed on request (``meta["synthetic"]["mixed"]``), everything else
    covers the real questions only (see ``ragauge.evaluation.sources``)."""

    metrics: tuple[str, ...]
    summary: dict[str, float]
    by_tag: dict[str, dict[str, float]]
    queries: Sequence[QueryScore]
    no_answer: dict[str, Any]
    warnings: tuple[str, ...]
    meta: dict[str, Any]
    failures: Assessment | None = None
    by_source: dict[str, dict[str, float]] = field(default_factory=dict)

    @cached_property
    def failure_table(self) -> FailureTable | None:
        """Why the misses failed: a row per pattern, the perfect-reranker ceiling (None when the
        misses were not classified)."""
        if self.failures is None:
            return None
        from ragauge.evaluation.rows import QueryRows

        rows = self.queries
        if isinstance(rows, QueryRows):  # without making the rows
            failed = [(rows.ids[i], f) for i, f in sorted(rows.failures.items())]
        else:
            failed = [(q.id, q.failure) for q in rows if q.failure is not None]
        return failure_table(self.failures, failed, len(rows))

    @cached_property
    def _columns(self) -> dict[str, np.ndarray]:
        import numpy as np  # not at import time: the CLI tunes numpy's memory settings first

        from ragauge.evaluation.rows import QueryRows

        if isinstance(self.queries, QueryRows):
            return {m: self.queries.values[m] for m in self.metrics}
        return {m: np.fromiter((q.values.get(m, np.nan) for q in self.queries), dtype=np.float64,
                               count=len(self.queries)) for m in self.metrics}

    @cached_property
    def row_ids(self) -> list[str]:
        """Each row's question id, in order, without making the rows (a saved result may hold an id
        twice: both rows are here, where ``positions`` keeps one)."""
        from ragauge.evaluation.rows import QueryRows

        return self.queries.ids if isinstance(self.queries, QueryRows) else [q.id for q in self.queries]

    @cached_property
    def positions(self) -> dict[str, int]:
        """Question id -> its row in ``queries`` (answerable questions, golden order)."""
        return {qid: i for i, qid in enumerate(self.row_ids)}

    def column(self, metric: str, ids: Sequence[str] | None = None) -> np.ndarray:
        """The per-question values of ``metric`` as a float64 array: every answerable question in
        order, or the questions ``ids`` (KeyError for an id that is not one)."""
        import numpy as np

        values = self._columns[metric]
        if ids is None:
            return values
        return values[np.fromiter((self.positions[i] for i in ids), dtype=np.int64, count=len(ids))]

    @cached_property
    def first_ranks(self) -> np.ndarray:
        """Each row's first relevant rank as an int64 array, 0 where none was found; in order."""
        import numpy as np

        from ragauge.evaluation.rows import QueryRows

        if isinstance(self.queries, QueryRows):
            return self.queries.first.astype(np.int64, copy=False)
        return np.fromiter((q.first_relevant_rank or 0 for q in self.queries), dtype=np.int64,
                           count=len(self.queries))

    @property
    def asked(self) -> Sequence[Asked]:
        """Each row's question (id, tags, extra), in order, without making the rows."""
        from ragauge.evaluation.rows import QueryRows

        return self.queries.questions if isinstance(self.queries, QueryRows) else self.queries

    @cached_property
    def row_tags(self) -> list[tuple[str, ...]]:
        """Each row's tags, in order (read from the questions, without making the rows)."""
        return [q.tags for q in self.asked]

    def with_rows_made(self) -> Evaluation:
        """This evaluation with every row made once, as a tuple (itself if they are): for code
        that reads each row several times, where rows held column-wise would be made each time."""
        return self if isinstance(self.queries, tuple) else replace(self, queries=tuple(self.queries))

    def rows_at(self, numbers: Sequence[int]) -> list[QueryScore]:
        """The rows ``numbers`` of ``queries`` (any order); rows held column-wise are made from
        the columns at once, and only those."""
        from ragauge.evaluation.rows import QueryRows

        if isinstance(self.queries, QueryRows):
            import numpy as np

            return self.queries.rows(np.asarray(numbers, dtype=np.int64))
        return [self.queries[i] for i in numbers]

    def query_dicts(self) -> Iterator[dict[str, Any]]:
        """``to_dict()`` of each row of ``queries``, in order (for rows held column-wise, made from
        the columns: ``QueryRows.dicts``)."""
        from ragauge.evaluation.rows import QueryRows

        if isinstance(self.queries, QueryRows):
            return self.queries.dicts()
        return map(QueryScore.to_dict, self.queries)

    def to_dict(self, *, rows: bool = True) -> dict[str, Any]:
        """The versioned dict; with ``rows=False`` its ``"queries"`` is None (a writer that streams
        the rows one at a time, as ``reports.json`` does, fills it in)."""
        return {
            "ragauge_result": RESULT_VERSION,
            "metrics": list(self.metrics),
            "summary": self.summary,
            "by_tag": self.by_tag,
            "queries": list(self.query_dicts()) if rows else None,
            "no_answer": self.no_answer,
            "warnings": list(self.warnings),
            "meta": self.meta,
            **({"failures": self.failure_table.to_dict()} if self.failure_table is not None else {}),
            **({"by_source": self.by_source} if self.by_source else {}),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Evaluation:
        from ragauge.errors import InputError

        version = d.get("ragauge_result")
        if version != RESULT_VERSION:
            raise InputError(f"not a ragauge result (version {version!r})",
                             hint="pass a file written by 'ragauge eval --format json'")
        metrics = list(d["metrics"])
        if not all(isinstance(m, str) for m in metrics):
            raise InputError("'metrics' must list metric names", hint="pass a file written by 'ragauge eval'")
        summary = {m: _value(v, f"summary.{m}", empty=True) for m, v in dict(d["summary"]).items()}
        for q in d["queries"]:
            for m in metrics:
                if m in q:
                    _value(q[m], f"queries[{q.get('id')!r}].{m}")
        by_source = {source: {m: _source_value(v, f"by_source.{source}.{m}", m) for m, v in dict(means).items()}
                     for source, means in dict(d.get("by_source") or {}).items()}  # absent before ragauge split them
        if not set(by_source) <= {"real", "synthetic"}:
            raise InputError(f"'by_source' holds 'real' and 'synthetic' only, got {sorted(map(str, by_source))}",
                             hint="pass a file written by 'ragauge eval --format json'")
        result = cls(tuple(metrics), summary, dict(d["by_tag"]),
                     tuple(QueryScore.from_dict(q, metrics) for q in d["queries"]), dict(d["no_answer"]),
                     tuple(d.get("warnings", [])), dict(d["meta"]),
                     Assessment.from_dict(d["failures"]) if d.get("failures") else None, by_source)
        if result.failures is None:  # saved before ragauge classified failures: classify what the rows allow
            from ragauge.evaluation.failures import classify_result

            result = classify_result(result)
        return result


def _source_value(value: Any, what: str, key: str) -> float:
    """A ``by_source`` entry read back: ``n`` a whole count of questions (an int, as written), any
    other key a metric mean (:func:`_value`)."""
    if key == "n":
        from ragauge.core.numbers import WHOLE, check_number

        return check_number(value, what, WHOLE)
    return _value(value, what, empty=True)


def _value(value: Any, what: str, empty: bool = False) -> float:
    """A metric value read back from a file: a finite number (or null, for an empty mean)."""
    import math

    from ragauge.core.numbers import check_number

    if value is None and empty:
        return math.nan
    return check_number(value, what)
