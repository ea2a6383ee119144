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


def _fresh_evaluation() -> Evaluation:
    """300 tagged questions scored here: rows held column-wise, made when read."""
    import numpy as np

    from ragauge.evaluation.evaluate import evaluate_run

    rng = np.random.default_rng(7)
    golden = [{"id": f"q{i:03d}", "query": "x", "relevant": [f"d{i % 7}", f"d{i % 5 + 10}"],
               "tags": [f"t{i % 3}", *(["odd"] if i % 2 else [])]} for i in range(300)]
    run = {g["id"]: [f"d{j}" for j in rng.permutation(20)[:rng.integers(0, 9)]] for g in golden}
    return evaluate_run(golden, run, metrics="hit@3,mrr")


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_report_makes_each_row_at_most_once(rows_made: list[int], fmt: str) -> None:
    """The HTML report read every row of a fresh evaluation six times over (charts, cards, tables),
    each time made again: 6,980 questions took 5.1 s to report, 3.5 s made once."""
    fresh = _fresh_evaluation()
    rows_made.clear()  # from here
    render(fresh, fmt)
    assert sum(rows_made) <= len(fresh.queries)


def test_worst_questions_and_tags_are_read_from_the_columns(rows_made: list[int]) -> None:
    """A fresh evaluation's rows are made from its columns when read: picking the worst 15 of
    6,980 made every row (0.4 s of the text report at MS MARCO scale), and so did the tag table;
    now only those 15 are made, in the order (and as the rows) the saved result gives, and the
    tag table is the saved result's. Ties on the value are broken by the first relevant rank
    (never found: worst), then by id."""
    from ragauge.evaluation.rows import QueryRows

    fresh = _fresh_evaluation()
    saved = Evaluation.from_dict(json.loads(render(fresh, "json")))
    assert isinstance(fresh.queries, QueryRows) and not isinstance(saved.queries, QueryRows)
    made = rows_made
    made.clear()  # from here
    worst = worst_questions(fresh, 15)
    tags = tag_rows(fresh, ci_metrics=("hit@3", "mrr"))
    assert sum(made) == 15  # the tag table made none
    assert tags == tag_rows(saved, ci_metrics=("hit@3", "mrr")) and {r.tag for r in tags} == {"t0", "t1", "t2", "odd"}
    assert [q.to_dict() for q in worst] == [q.to_dict() for q in worst_questions(saved, 15)]
    every = worst_questions(saved, 300)
    key = [(q.values["hit@3"], -(q.first_relevant_rank or 10**9), q.id) for q in every]
    assert key == sorted(key) and len({k[:2] for k in key}) < len(key)  # sorted, with ties on value and rank


def test_worst_questions_keep_every_row_of_a_saved_result_that_repeats_an_id(evaluation: Evaluation) -> None:
    """A saved result may hold an id twice (its reader does not refuse it): every row is ranked, as
    the rows themselves rank (the columns' ids are read row by row, not through a dict)."""
    d = json.loads(render(evaluation, "json"))
    d["queries"] = [d["queries"][0], {**d["queries"][1], "id": d["queries"][0]["id"]}, *d["queries"][2:]]
    saved = Evaluation.from_dict(d)
    first = saved.metrics[0]
    order = worst_questions(saved, len(saved.queries))
    assert len(order) == len(saved.queries) == len(d["queries"])
    assert order == sorted(saved.queries, key=lambda q: (q.values[first], -(q.first_relevant_rank or 10**9), q.id))


@pytest.mark.parametrize(("metrics", "main", "table"), [
    (("hit@1", "recall@1", "hit@3", "recall@3", "mrr", "ndcg@1", "ndcg@3"), "ndcg@3", ["hit@3", "ndcg@3"]),
    (("ndcg@10", "ndcg@5", "hit@5", "hit@10", "mrr"), "ndcg@10", ["ndcg@10", "hit@10"]),
    (("recall@10", "mrr"), "recall@10", ["recall@10", "mrr"]),  # a few metrics: every one in the table
    (("judged@10", "mrr", "recall@5", "hit@5"), "mrr", ["mrr", "hit@5"]),  # judged@k describes the labels
    (("recall@200t", "precision@5", "mrr", "map"), "recall@200t", ["recall@200t"]),
    ((), None, []),
])
def test_the_main_metric_and_the_table_s_columns(metrics: tuple[str, ...], main: str | None,
                                                 table: list[str]) -> None:
    """The HTML report opens its by-tag chart on the main metric (nDCG at the largest k, else the
    first) and its question table shows it with hit at the largest k (issue 28)."""
    from ragauge.reports.views import main_metric, table_metrics

    assert main_metric(metrics) == main
    assert table_metrics(metrics) == table
