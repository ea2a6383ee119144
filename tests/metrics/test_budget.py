"""Token-budget metrics (hit@Nt, recall@Nt): the contract of ``ragauge.metrics.budget`` checked against
a plain re-statement of it on random runs, its edge cases, the spec syntax, and the lengths the
built-in retrievers record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core.arrow import strings
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.formats.runs import read_run, write_run_jsonl
from ragauge.metrics.budget import budget_cutoffs, fitting
from ragauge.metrics.spec import MetricSpec, parse_metric

HITS = st.lists(st.tuples(st.integers(0, 6), st.integers(0, 40)), max_size=12)
"""A ranked list: (document number, length in words) per hit; documents repeat (chunks of one document)."""


def contract(hits: list[tuple[int, int]], budget: int) -> tuple[list[int], list[int]]:
    """The contract in plain words: whole hits in order while the total stays within the budget, then
    their documents, first occurrence kept."""
    taken, total = [], 0
    for doc, length in hits:
        if total + length > budget:
            break
        total += length
        taken.append(doc)
    return taken, list(dict.fromkeys(taken))


@settings(max_examples=200, deadline=None)
@given(HITS, st.integers(1, 120))
def test_cutoffs_follow_the_contract(hits: list[tuple[int, int]], budget: int) -> None:
    rows = np.arange(len(hits))
    docs = strings([f"d{d}" for d, _ in hits])
    lengths = np.asarray([n for _, n in hits], dtype=np.float64)
    assert fitting(lengths, budget) == len(contract(hits, budget)[0])
    got = budget_cutoffs(["q"], lambda _: rows, docs, lengths, budget)
    assert got.tolist() == [len(contract(hits, budget)[1])]


@settings(max_examples=150, deadline=None)
@given(HITS, st.integers(1, 60), st.integers(0, 60), st.sets(st.integers(0, 6), min_size=1, max_size=3))
def test_recall_within_a_budget_is_the_contract_and_grows_with_the_budget(
        hits: list[tuple[int, int]], budget: int, more: int, relevant: set[int]) -> None:
    golden = [{"id": "q", "query": "x", "relevant": [f"d{d}" for d in sorted(relevant)]}]
    run = {"q": [{"doc_id": f"d{d}", "length": n} for d, n in hits]}
    small, large = f"recall@{budget}t", f"recall@{budget + more}t"
    e = evaluate_run(golden, run, metrics=[small, large, f"hit@{budget}t", "recall@1000"])
    docs = contract(hits, budget)[1]
    assert e.summary[small] == pytest.approx(len(relevant & set(docs)) / len(relevant))
    assert e.summary[f"hit@{budget}t"] == float(bool(relevant & set(docs)))
    assert e.summary[small] <= e.summary[large] <= e.summary["recall@1000"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 30), unique=True, max_size=10), st.integers(1, 10))
def test_one_word_hits_of_distinct_documents_make_the_budget_a_rank_cutoff(docs: list[int], k: int) -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["d3", "d7"]}]
    run = {"q": [{"doc_id": f"d{d}", "length": 1} for d in docs]}
    e = evaluate_run(golden, run, metrics=[f"recall@{k}t", f"recall@{k}", f"hit@{k}t", f"hit@{k}"])
    assert e.summary[f"recall@{k}t"] == e.summary[f"recall@{k}"] and e.summary[f"hit@{k}t"] == e.summary[f"hit@{k}"]


def test_long_chunks_do_not_win_by_sending_more_text() -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["a", "b"]}]
    big = {"q": [{"doc_id": "x", "chunk_id": "x#0", "length": 1000}, {"doc_id": "a", "chunk_id": "a#0", "length": 1000},
                 {"doc_id": "b", "chunk_id": "b#0", "length": 1000}]}
    small = {"q": [{"doc_id": d, "chunk_id": c, "length": 200} for d, c in (("x", "x#0"), ("a", "a#0"), ("x", "x#1"),
                                                                           ("b", "b#3"))]}
    metrics = ["recall@3", "recall@1000t", "recall@2000t"]
    assert evaluate_run(golden, big, metrics=metrics).summary == {"recall@3": 1.0, "recall@1000t": 0.0,
                                                                   "recall@2000t": 0.5}
    assert evaluate_run(golden, small, metrics=metrics).summary == {"recall@3": 1.0, "recall@1000t": 1.0,
                                                                     "recall@2000t": 1.0}


def test_a_first_hit_longer_than_the_budget_leaves_nothing_and_an_empty_run_scores_zero() -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["a"]}, {"id": "r", "query": "y", "relevant": ["b"]}]
    run = {"q": [{"doc_id": "a", "length": 501}], "r": []}
    e = evaluate_run(golden, run, metrics=["hit@500t", "hit@501t"])
    assert [q.values for q in e.queries] == [{"hit@500t": 0.0, "hit@501t": 1.0}, {"hit@500t": 0.0, "hit@501t": 0.0}]


def test_an_unknown_length_is_an_error_only_where_it_decides_the_cut() -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["a"]}]
    after_the_cut = {"q": [{"doc_id": "a", "length": 90}, {"doc_id": "b", "length": 20}, {"doc_id": "c"}]}
    assert evaluate_run(golden, after_the_cut, metrics=["recall@100t"]).summary["recall@100t"] == 1.0
    deciding = {"q": [{"doc_id": "b", "length": 20}, {"doc_id": "a"}]}
    with pytest.raises(InputError, match="hit 2 of question 'q' has none"):
        evaluate_run(golden, deciding, metrics=["recall@100t"])
    with pytest.raises(InputError, match="hit 1 of question 'q' has none"):
        evaluate_run(golden, {"q": ["a"]}, metrics=["recall@100t"])


def test_the_fetch_depth_cuts_before_the_budget() -> None:
    golden = [{"id": "q", "query": "x", "relevant": ["a"]}]
    run = {"q": [{"doc_id": "b", "length": 1}, {"doc_id": "a", "length": 1}]}
    assert evaluate_run(golden, run, metrics=["recall@10t"], fetch=1).summary["recall@10t"] == 0.0


def test_condensed_lists_refuse_budgets() -> None:
    with pytest.raises(InputError, match="cannot be scored on condensed lists"):
        evaluate_run([{"id": "q", "query": "x", "relevant": ["a"]}], {"q": [{"doc_id": "a", "length": 3}]},
                     metrics=["recall@10t"], unjudged="unknown")


@pytest.mark.parametrize("text, spec", [("recall@2000t", MetricSpec("recall", None, 2000)),
                                        ("HIT @ 50T", MetricSpec("hit", None, 50)),
                                        ("r@7t", MetricSpec("recall", None, 7))])
def test_budget_specs_parse_and_print_back(text: str, spec: MetricSpec) -> None:
    assert parse_metric(text) == spec and parse_metric(str(spec)) == spec and spec != MetricSpec("recall", 2000)


@pytest.mark.parametrize("text, message", [("ndcg@100t", "no token-budget form"), ("mrr@5t", "no token-budget form"),
                                           ("recall@0t", "token budget in 'recall@0t' must be"),
                                           ("recall@5w", "must be an integer")])
def test_bad_budget_specs_are_input_errors(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        parse_metric(text)


def test_lengths_survive_a_run_file(tmp_path: Path) -> None:
    run: Any = {"q": [{"doc_id": "a", "chunk_id": "a#0", "length": 12}, "b"]}
    from ragauge.formats.runs import as_run

    write_run_jsonl(as_run(run), tmp_path / "run.jsonl")
    line = json.loads((tmp_path / "run.jsonl").read_text().splitlines()[-1])
    assert line["hits"] == [{"doc_id": "a", "chunk_id": "a#0", "length": 12}, {"doc_id": "b"}]
    back = read_run(tmp_path / "run.jsonl").result("q").hits
    assert [h.length for h in back] == [12, None]
    (tmp_path / "bad.jsonl").write_text('{"id": "q", "hits": [{"doc_id": "a", "length": -1}]}\n')
    with pytest.raises(InputError, match="hit 'length' \\(words\\) must be an integer >= 0"):
        read_run(tmp_path / "bad.jsonl")


def test_the_built_in_retrievers_record_each_passage_length(tmp_path: Path) -> None:
    from ragauge.retrieve import bm25, dense, hybrid
    from ragauge.retrieve.base import RetrieverOptions

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "a", "title": "Title words", "text": "one two three four five six seven"})
                      + "\n" + json.dumps({"id": "b", "text": "seven eight"}) + "\n")
    chunked = bm25.open(f"bm25:{corpus}?chunk_size=4&chunk_overlap=1", RetrieverOptions(), cache=tmp_path)
    # a: "one two three four" (a#0), "four five six seven" (a#1); b: "seven eight" (b#0)
    assert {(h.chunk_id, h.length) for h in chunked.search("seven", 5).hits} == {("a#1", 4), ("b#0", 2)}
    again = bm25.open(f"bm25:{corpus}?chunk_size=4&chunk_overlap=1", RetrieverOptions(), cache=tmp_path)
    layout = [(4, 0, 18), (4, 14, 33), (2, 0, 11)]  # (words, start, end)
    assert again.cached and again.layout == chunked.layout == layout
    entry = again.index_dir / "passages.json"  # an entry written before hits had offsets: taken from the corpus
    entry.write_text(json.dumps({k: v for k, v in json.loads(entry.read_text()).items() if k != "layout"}
                                | {"lengths": [4, 4, 2]}))
    older = bm25.open(f"bm25:{corpus}?chunk_size=4&chunk_overlap=1", RetrieverOptions(), cache=tmp_path)
    assert older.cached and older.layout == layout
    vectors = dense.open(f"dense:{corpus}?embedder=hash", RetrieverOptions(), cache=tmp_path)
    assert sorted(h.length for h in vectors.search("seven", 2).hits) == [2, 7]  # whole texts, titles not counted
    both = hybrid.open(f"hybrid:{corpus}?embedder=hash&chunk_size=4&chunk_overlap=1", RetrieverOptions())
    assert all(h.length is not None for h in both.search("seven eight", 5).hits)
