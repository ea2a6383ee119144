"""Compare two retrievers sequentially: ask the questions in a seeded random order, both retrievers
each time, and stop as soon as the verdict is certain at alpha (``stats.sequential``: an anytime-valid
confidence sequence, so looking after every question does not inflate the error rate)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.numbers import PROBABILITY, check_number
from ragauge.data.golden import GoldenSet
from ragauge.errors import InputError
from ragauge.formats.golden import as_golden
from ragauge.stats import DEFAULT_ALPHA, DEFAULT_SEED, SEQUENTIAL_METRIC
from ragauge.stats.sequential import SequentialTest, sequential_test

SEQUENTIAL_VERSION = 1
METHOD = ("anytime-valid confidence sequence by betting (Waudby-Smith & Ramdas): valid for any per-question "
          "differences, checked after every question")


@dataclass(frozen=True)
class SequentialComparison:
    """Two retrievers compared on ``metric`` question by question until the confidence sequence
    decided (``test.decided``) or the ``available`` answerable questions ran out: ``test.asked``
    questions were needed, ``calls`` retriever calls made (both retrievers, questions fetched in
    batches past the stop included)."""

    metric: str
    test: SequentialTest
    available: int
    calls: int
    seed: int
    base: dict[str, Any]
    new: dict[str, Any]
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        t = self.test
        if t.decided is not None:
            return (f"{t.decided} (certain at alpha {t.alpha:g}) after {t.asked} of {self.available} questions")
        return (f"no difference shown after all {self.available} questions (the confidence sequence still "
                f"holds 0)")

    def to_dict(self) -> dict[str, Any]:
        t = self.test
        return {"ragauge_sequential": SEQUENTIAL_VERSION, "metric": self.metric, "method": METHOD,
                "alpha": t.alpha, "seed": self.seed, "available": self.available, "asked": t.asked,
                "calls": self.calls, "diff": None if math.isnan(t.diff) else t.diff, "ci": list(t.ci),
                "decided": t.decided, "stopped_at": t.stopped_at, "verdict": self.verdict,
                "base": self.base, "new": self.new, "notes": self.notes}


def ask(part: GoldenSet, adapter: Any, executor: Any, scoring: Any) -> Any:
    """One batch of a sequential comparison or gate: ``adapter`` asked the questions of ``part``
    (``ExecutorOptions`` ``executor``), the answers scored under ``scoring`` (``EvalOptions``)."""
    from ragauge.evaluation.evaluate import score_run
    from ragauge.runner.executor import answer_all

    return score_run(part, answer_all(part, adapter, None, executor).run, scoring)


def compare_sequential(golden: Any, base: Any, new: Any, *, metric: str = SEQUENTIAL_METRIC,
                       alpha: float = DEFAULT_ALPHA, seed: int = DEFAULT_SEED, fetch: int | None = None,
                       concurrency: int | None = None, timeout: float | None = None, retries: int | None = None,
                       batch: int | None = None, doc_id_key: str | None = None,
                       config: Mapping[str, Any] | None = None, corpus: str | Path | None = None
                       ) -> SequentialComparison:
    """Ask ``base`` and ``new`` (retriever specs, functions ``fn(query, n)`` or framework objects, as
    ``ragauge.evaluate`` takes them) the answerable questions of ``golden`` in an order drawn from
    ``seed``, ``batch`` questions at a time (default: ``concurrency``), score each on ``metric``, and
    stop at the first question after which the confidence sequence of the mean difference (new -
    base) excludes 0. A call that fails scores 0, as in ``evaluate``. InputError for fewer than 2
    answerable questions or a bad alpha. ``fetch``, ``concurrency``, ``retries`` and ``timeout`` left
    None take ``ExecutorOptions``' and ``RetrieverOptions``' defaults."""
    from ragauge.evaluation.options import EvalOptions
    from ragauge.metrics.spec import parse_metric, refuse_counts
    from ragauge.runner.live import call_options, executor_options, open_any

    alpha = check_number(alpha, "alpha", PROBABILITY)
    name = str(parse_metric(metric))
    refuse_counts([name], "a sequential comparison")
    gold = as_golden(golden)
    questions = [q for q in gold if q.answerable]
    if len(questions) < 2:
        raise InputError(f"only {len(questions)} answerable question(s): nothing to compare",
                         hint="use a golden set with answerable questions")
    order = np.random.default_rng(seed).permutation(len(questions))
    executor = executor_options(fetch, concurrency, retries)
    size = batch or executor.concurrency
    options = call_options(doc_id_key, timeout, config)
    scoring = EvalOptions(metrics=[name], fetch=executor.fetch, corpus=corpus)
    opened = [open_any(r, options) for r in (base, new)]
    differences: list[float] = []
    calls = 0
    try:
        for start in range(0, len(order), size):
            part = GoldenSet.from_queries([questions[i] for i in order[start:start + size]])
            values = []
            for adapter, _ in opened:
                scored = ask(part, adapter, executor, scoring)
                by_id = dict(zip(scored.row_ids, scored.column(name).tolist()))
                values.append([by_id[q.id] for q in part])
            calls += 2 * len(part)
            differences += [n - b for b, n in zip(*values)]
            if sequential_test(np.array(differences), alpha).decided is not None:
                break
        described = [{"spec": r if isinstance(r, str) else type(r).__name__, "settings": adapter.describe()}
                     for r, (adapter, _) in zip((base, new), opened)]
    finally:
        for adapter, mine in opened:
            if mine:
                adapter.close()
    test = sequential_test(np.array(differences), alpha)
    return SequentialComparison(name, test, len(questions), calls, seed, described[0], described[1])
