"""The reranker's ceiling: the run's own hits in the order a perfect reranker would choose."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.evaluation.evaluate import evaluate_run
from ragauge.experiments.ceiling import oracle_order
from ragauge.formats.golden import as_golden
from ragauge.formats.runs import as_run


def test_hits_are_ordered_by_grade_keeping_the_run_order_among_equals() -> None:
    golden = as_golden([{"id": "q", "query": "x", "relevant": {"a": 1, "b": 2}}])
    run = as_run({"q": [{"doc_id": "x", "length": 3}, "a", "y", {"doc_id": "b", "chunk_id": "b#1"}, "z"]})
    hits = oracle_order(golden, run).result("q").hits
    assert [h.doc_id for h in hits] == ["b", "a", "x", "y", "z"]
    assert hits[0].chunk_id == "b#1" and hits[2].length == 3


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 9), max_size=12), st.dictionaries(st.integers(0, 9), st.integers(1, 3), min_size=1))
def test_no_order_of_the_same_hits_beats_the_ceiling(docs: list[int], grades: dict[int, int]) -> None:
    golden = [{"id": "q", "query": "x", "relevant": {f"d{d}": g for d, g in grades.items()}}]
    run = {"q": [f"d{d}" for d in docs]}
    metrics = ["ndcg@3", "mrr", "recall@3", "hit@1", "map"]
    plain = evaluate_run(golden, run, metrics=metrics).summary
    best = evaluate_run(golden, oracle_order(as_golden(golden), as_run(run)), metrics=metrics).summary
    assert all(best[m] >= plain[m] - 1e-12 for m in metrics)
    assert evaluate_run(golden, run, metrics=["recall@100"]).summary == evaluate_run(
        golden, oracle_order(as_golden(golden), as_run(run)), metrics=["recall@100"]).summary  # same candidates


def test_with_span_labels_the_perfect_order_puts_the_chunk_that_holds_the_answer_first(tmp_path: Path) -> None:
    from ragauge.data.golden import GoldenSet, parse_golden_line
    from ragauge.data.hits import Hit, QueryResult
    from ragauge.data.run import Run

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"_id": "kb", "text": "first part here. the answer is here. last part"}\n'
                      '{"_id": "x", "text": "other"}\n')
    golden = GoldenSet.from_queries([parse_golden_line(
        {"id": "q", "query": "a", "relevant": [{"doc": "kb", "quote": "the answer is here"}]}, "here")])
    hits = (Hit("x", "x#0", None, None, 0, 5), Hit("kb", "kb#0", None, None, 0, 16),
            Hit("kb", "kb#1", None, None, 17, 36))
    run = Run.from_results([QueryResult("q", hits)])
    ordered = oracle_order(golden, run, corpus)
    assert [h.chunk_id for h in ordered.result("q").hits] == ["kb#1", "x#0", "kb#0"]
    assert evaluate_run(golden, ordered, metrics=["hit@1"], corpus=corpus).summary == {"hit@1": 1.0}
    assert evaluate_run(golden, run, metrics=["mrr"], corpus=corpus).summary == {"mrr": 1 / 3}
