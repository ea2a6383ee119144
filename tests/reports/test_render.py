"""render(): one entry point for every format; the numbers the reports draw are the result's own."""

from __future__ import annotations

import json

import pytest

from ragauge.errors import InputError
from ragauge.evaluation.result import Evaluation
from ragauge.reports.render import FORMATS, render
from ragauge.reports.views import (
    rank_histogram,
    recall_curve,
    tag_rows,
    worst_questions,
)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_saved_result_renders_the_same(evaluation: Evaluation, fmt: str) -> None:
    again = Evaluation.from_dict(json.loads(render(evaluation, "json")))
    assert render(again, fmt) == render(evaluation, fmt)


def test_unknown_format_and_option() -> None:
    with pytest.raises(InputError, match="unknown report format 'pdf'"):
        render(None, "pdf")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="colour"):
        render(None, "text", colour=True)  # type: ignore[arg-type]


def test_curve_agrees_with_the_metrics(evaluation: Evaluation) -> None:
    curve = recall_curve(evaluation)
    assert curve.depth == 10 or curve.depth == max(len(q.top) for q in evaluation.queries)
    for k in (1, 3):
        assert curve.recall[k - 1] == pytest.approx(evaluation.summary[f"recall@{k}"])
        assert curve.hit[k - 1] == pytest.approx(evaluation.summary[f"hit@{k}"])
    assert all(a <= b + 1e-12 for a, b in zip(curve.recall, curve.recall[1:]))


def test_scifact_curve_agrees_at_every_cutoff() -> None:
    from pathlib import Path

    from ragauge.evaluation.evaluate import evaluate_run
    from ragauge.formats.golden import load_golden
    from ragauge.formats.runs import read_run

    root = Path(__file__).parents[2] / "examples" / "scifact"
    ev = evaluate_run(load_golden(root / "golden.jsonl"), read_run(root / "bm25.run.jsonl"),
                      metrics="recall@1,recall@4,recall@10,hit@7")
    curve = recall_curve(ev)
    assert curve.depth == 10
    for k in (1, 4, 10):
        assert curve.recall[k - 1] == pytest.approx(ev.summary[f"recall@{k}"])
    assert curve.hit[6] == pytest.approx(ev.summary["hit@7"])


def test_histogram_counts_every_answerable_question(evaluation: Evaluation) -> None:
    bins = dict(rank_histogram(evaluation))
    assert sum(bins.values()) == len(evaluation.queries)
    assert bins["not found"] == 3 and bins["1"] == 1 and bins["2"] == 2 and bins["4"] == 1
    assert list(bins)[:5] == ["1", "2", "3", "4", "5"]


def test_tag_rows_follow_the_result_and_carry_intervals(evaluation: Evaluation) -> None:
    rows = tag_rows(evaluation)
    assert [r.tag for r in rows] == list(evaluation.by_tag)
    net = next(r for r in rows if r.tag == "net")
    lo, hi = net.ci["hit@1"]
    assert lo <= net.means["hit@1"] <= hi and net.small and net.n == 3
    assert tag_rows(evaluation) == rows  # seeded


def test_worst_first(evaluation: Evaluation) -> None:
    order = [q.id for q in worst_questions(evaluation, 100)]
    assert order[:3] == ["q4", "q7", "q8"] and order[-1] == "q1"
    assert worst_questions(evaluation, 0) == []
