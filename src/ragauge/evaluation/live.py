"""Score a retriever called on the spot: each question asked once, then scored like a run."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from ragauge.data.golden import GoldenSet
from ragauge.data.run import QueryResult, Run
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.evaluation.result import Evaluation
from ragauge.metrics.spec import MetricSpec
from ragauge.retrieve.coerce import coerce_hits


def evaluate(
    golden: GoldenSet,
    retrieve: Callable[[str, int], Any],
    *,
    k: int | Sequence[int] = 5,
    fetch: int = 20,
    metrics: Sequence[str | MetricSpec] | str | None = None,
    **options: Any,
) -> Evaluation:
    """Call ``retrieve(query, fetch)`` for every question, then score the hits (see evaluate_run).

    A call that raises is recorded as an error for that question (it scores 0) and the rest go on.
    """
    run = collect_run(golden, retrieve, fetch)
    return evaluate_run(golden, run, metrics=metrics, k=k, fetch=fetch, **options)


def collect_run(golden: GoldenSet, retrieve: Callable[[str, int], Any], fetch: int) -> Run:
    """Call ``retrieve(query, fetch)`` once per question, timing each call, into a Run."""
    results = []
    for item in golden:
        start = time.perf_counter()
        try:
            hits = coerce_hits(retrieve(item.query, fetch))
            error = None
        except InputError:
            raise
        except Exception as exc:  # the retriever is user code: record its failure, keep going
            hits, error = (), f"{type(exc).__name__}: {exc}"
        results.append(QueryResult(item.id, hits, (time.perf_counter() - start) * 1000.0, None, error))
    return Run.from_results(results, meta={"retriever": getattr(retrieve, "__name__", repr(retrieve))})
