"""The sweep's statistics on evaluations built here: Holm over configurations x metrics, the winner only
when it beats every other configuration, the Pareto frontier, the holdout check."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ragauge.comparison.compare import paired_delta
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.experiments.analysis import Measured, holdout_check, pareto, select, shared_questions, table
from ragauge.experiments.grid import Configuration, SweepPlan
from ragauge.experiments.holdout import Split
from ragauge.experiments.result import ConfigRow
from ragauge.stats.holm import holm

N = 40
GOLDEN = [{"id": f"q{i}", "query": f"question {i}", "relevant": [f"d{i}"]} for i in range(N)]


def ranked(misses: set[int], depth: int = 2) -> dict[str, list[str]]:
    """Each question's relevant document at rank 1, or at rank ``depth`` for the ``misses``."""
    return {f"q{i}": ([f"x{j}" for j in range(depth - 1)] + [f"d{i}"]) if i in misses else [f"d{i}", "x"]
            for i in range(N)}


def measured(name: str, run: dict[str, list[str]]) -> Measured:
    evaluation = evaluate_run(GOLDEN, run, metrics=["mrr", "hit@1"])
    return Measured(Configuration(name, "bm25"), f"bm25:x?name={name}", f"runs/{name}.jsonl", evaluation, ())


def plan_of(*names: str, reference: str | None = None) -> SweepPlan:
    return SweepPlan(tuple(Configuration(n, "bm25") for n in names), ("mrr", "hit@1"), "mrr", reference or names[0])


def test_rows_hold_means_and_holm_corrected_tests_against_the_reference() -> None:
    ms = [measured("ref", ranked(set(range(0, 40, 2)))), measured("better", ranked(set())),
          measured("same", ranked(set(range(0, 40, 2))))]
    p = plan_of("ref", "better", "same")
    ids = shared_questions(ms)
    rows = table(p, ms, ids)
    assert rows[0].deltas == {} and rows[0].means == {"mrr": 0.75, "hit@1": 0.5}
    raw = [paired_delta(ms[0].evaluation.column(m, ids), ms[i].evaluation.column(m, ids), 0.05).p_value
           for i in (1, 2) for m in ("mrr", "hit@1")]
    got = [rows[i].deltas[m].p_adjusted for i in (1, 2) for m in ("mrr", "hit@1")]
    assert got == pytest.approx(holm(raw))  # one family: configurations x metrics
    assert rows[1].deltas["mrr"].diff == pytest.approx(0.25) and rows[1].deltas["mrr"].verdict == "better (significant)"
    assert rows[2].deltas["hit@1"].verdict == "no question changed"


def test_a_winner_is_named_only_when_it_beats_every_other_configuration() -> None:
    best, weak = measured("best", ranked(set())), measured("weak", ranked(set(range(20))))
    near = measured("near", ranked({3, 7}))  # two questions apart: no test can tell
    pair = plan_of("weak", "best")
    ids = shared_questions([weak, best])
    alone = select(pair, [weak, best], table(pair, [weak, best], ids), ids)
    assert alone.winner == "best" and alone.tied == ("best",) and alone.statement.startswith("winner: best")
    assert "runner-up, weak: +0.2500" in alone.statement
    trio = [weak, best, near]
    ids = shared_questions(trio)
    s = select(plan_of("weak", "best", "near"), trio, table(plan_of("weak", "best", "near"), trio, ids), ids)
    assert s.best == "best" and s.winner is None and s.tied == ("best", "near")
    assert s.statement.startswith("no winner: no configuration is distinguishable from the top 2 on mrr")
    assert s.tests["near"].diff == pytest.approx(0.025) and s.tests["weak"].p_adjusted < 0.05
    one = select(plan_of("best"), [best], table(plan_of("best"), [best], ids), ids)
    assert one.winner is None and "only one configuration" in one.statement


def test_ties_on_the_primary_mean_go_to_the_earlier_configuration() -> None:
    a, b = measured("a", ranked({1})), measured("b", ranked({2}))
    ids = shared_questions([a, b])
    assert select(plan_of("a", "b"), [a, b], table(plan_of("a", "b"), [a, b], ids), ids).best == "a"


def row(name: str, quality: float, latency: float | None, size: int) -> ConfigRow:
    return ConfigRow(name, "bm25", {}, "", "", {"mrr": quality}, {},
                     None if latency is None else {"p50": latency, "p95": latency}, 1.0, size)


@pytest.mark.parametrize("rows, frontier", [
    ([row("a", 0.5, 1.0, 10), row("b", 0.6, 2.0, 10), row("c", 0.4, 3.0, 20)], {"a", "b"}),
    ([row("a", 0.5, 1.0, 10), row("twin", 0.5, 1.0, 10)], {"a", "twin"}),  # equal points dominate neither
    ([row("a", 0.5, None, 10), row("b", 0.5, 1.0, 10)], {"b"}),           # no latency: the slowest
    ([row("small", 0.5, 2.0, 1), row("fast", 0.5, 1.0, 50), row("good", 0.7, 9.0, 90)], {"small", "fast", "good"}),
])
def test_the_frontier_is_the_set_no_other_configuration_dominates(rows: list[ConfigRow], frontier: set[str]) -> None:
    assert {r.name for r in pareto(rows, "mrr") if r.pareto} == frontier


def test_the_holdout_measures_the_chosen_configuration_on_the_held_out_questions() -> None:
    ref, chosen = measured("ref", ranked(set(range(0, 40, 2)))), measured("chosen", ranked({0, 1}))
    held = frozenset(f"q{i}" for i in range(30, 40))
    ids = shared_questions([ref, chosen])
    tune = [i for i in ids if i not in held]
    report, notes = holdout_check(plan_of("ref", "chosen"), [ref, chosen], "chosen", Split(held, "by hand"), tune,
                                  [i for i in ids if i in held])
    assert (report.tune, report.held_out, report.chosen) == (30, 10, "chosen") and notes == []
    assert report.means == {"mrr": 1.0, "hit@1": 1.0} and report.reference_means == {"mrr": 0.75, "hit@1": 0.5}
    assert report.tuned["mrr"] == pytest.approx(np.mean([0.5, 0.5] + [1.0] * 28))
    assert set(report.deltas) == {"mrr", "hit@1"} and report.deltas["hit@1"].better == 5
    same: Any = holdout_check(plan_of("ref", "chosen"), [ref, chosen], "ref", Split(held, "by hand"), tune,
                              ["q30", "q31"])
    assert same[0].deltas == {} and "only 2 answerable held-out question(s)" in same[1][0]
