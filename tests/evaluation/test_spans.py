"""Span labels at evaluation (``ragauge.evaluation.spans``): the overlap rule against a plain
re-statement scored by pytrec_eval on random runs, quote resolution, stale and relocated spans,
whole-document hits, the refusals, and the chunk offsets the built-in retrievers record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.data.golden import GoldenSet, parse_golden_line
from ragauge.data.hits import Hit, QueryResult
from ragauge.data.run import Run
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.evaluation.spans import OUTSIDE, quote_places
from ragauge.retrieve.corpus import Chunking, chunk

TEXT_LENGTH = 60
SPAN = st.tuples(st.integers(0, TEXT_LENGTH - 1), st.integers(1, 20)).map(
    lambda t: (t[0], min(t[0] + t[1], TEXT_LENGTH)))
HIT = st.tuples(st.integers(0, 3), st.one_of(st.none(), SPAN))
"""(document number, chunk offsets or None for the whole document)."""


def golden_of(labels: dict[int, list[tuple[int, int]]], grades: dict[int, int]) -> GoldenSet:
    relevant: list[Any] = []
    for doc, spans in labels.items():
        if spans:
            relevant += [{"doc": f"d{doc}", "start": a, "end": b, "grade": grades.get(doc, 1)} for a, b in spans]
        else:
            relevant.append({"doc": f"d{doc}", "grade": grades.get(doc, 1)})
    return GoldenSet.from_queries([parse_golden_line({"id": "q", "query": "x", "relevant": relevant}, "here")])


def run_of(hits: list[tuple[int, tuple[int, int] | None]]) -> Run:
    made = [Hit(f"d{d}", None if at is None else f"d{d}#{i}", None, None, *(at or (None, None)))
            for i, (d, at) in enumerate(hits)]
    return Run.from_results([QueryResult("q", tuple(made))])


def restated(labels: dict[int, list[tuple[int, int]]], grades: dict[int, int],
             hits: list[tuple[int, tuple[int, int] | None]], k: int) -> dict[str, float]:
    """The contract in plain words: a hit of a span-labelled document overlapping none of its spans is
    a judged wrong document of its own; then fold first-seen and score with pytrec_eval."""
    units = []
    for d, at in hits:
        spans = labels.get(d)
        inside = not spans or at is None or any(at[0] < b and a < at[1] for a, b in spans)
        units.append(f"d{d}" if inside else f"d{d}{OUTSIDE}")
    ranked = list(dict.fromkeys(units))
    qrels = {"q": {f"d{d}": grades.get(d, 1) for d in labels} | {u: 0 for u in ranked if u.endswith(OUTSIDE)}}
    run = {"q": {u: float(len(ranked) - i) for i, u in enumerate(ranked)}}
    got = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", f"recall.{k}", f"ndcg_cut.{k}", f"P.{k}"}).evaluate(run)
    if not ranked:
        return {"mrr": 0.0, f"recall@{k}": 0.0, f"ndcg@{k}": 0.0, f"precision@{k}": 0.0}
    q = got["q"]
    return {"mrr": q["recip_rank"], f"recall@{k}": q[f"recall_{k}"], f"ndcg@{k}": q[f"ndcg_cut_{k}"],
            f"precision@{k}": q[f"P_{k}"]}


@settings(max_examples=150, deadline=None)
@given(labels=st.dictionaries(st.integers(0, 3), st.lists(SPAN, max_size=3), min_size=1, max_size=3),
       grades=st.dictionaries(st.integers(0, 3), st.integers(1, 3)),
       hits=st.lists(HIT, max_size=10), k=st.integers(1, 6))
def test_overlap_rule_matches_the_contract(labels: dict[int, list[tuple[int, int]]], grades: dict[int, int],
                                           hits: list[tuple[int, tuple[int, int] | None]], k: int) -> None:
    hits = [(d, None if at is None else at) for d, at in hits]
    ev = evaluate_run(golden_of(labels, grades), run_of(hits), metrics=["mrr", f"recall@{k}", f"ndcg@{k}",
                                                                         f"precision@{k}"])
    want = restated(labels, grades, hits, k)
    got = ev.queries[0].values
    assert got == pytest.approx(want, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(hits=st.lists(HIT, max_size=10))
def test_a_span_over_the_whole_text_scores_as_the_document(hits: list[tuple[int, tuple[int, int] | None]]) -> None:
    run = run_of(hits)
    spans = evaluate_run(golden_of({0: [(0, TEXT_LENGTH)], 2: []}, {}), run, metrics=["mrr", "ndcg@5", "recall@3"])
    whole = evaluate_run(golden_of({0: [], 2: []}, {}), run, metrics=["mrr", "ndcg@5", "recall@3"])
    assert spans.summary == whole.summary


def corpus_file(tmp_path: Path, docs: dict[str, str]) -> Path:
    path = tmp_path / "corpus.jsonl"
    path.write_text("".join(json.dumps({"_id": d, "title": "T", "text": t}) + "\n" for d, t in docs.items()))
    return path


def golden_file(tmp_path: Path, rows: list[dict[str, Any]]) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


TEXT = "Back up the key first.  Then ROTATE the\n certificate in the panel. Restart."


def test_quotes_resolve_case_and_whitespace_insensitively() -> None:
    assert quote_places("rotate the certificate", TEXT) == ((29, 52),)
    assert quote_places("nowhere", TEXT) == ()
    assert quote_places("the", "the cat and THE dog") == ((0, 3), (12, 15))


def test_quote_labels_follow_the_chunk_that_holds_them(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, {"kb": TEXT, "other": "unrelated words"})
    golden = golden_file(tmp_path, [{"id": "q", "query": "rotate", "relevant": [{"doc": "kb", "quote":
                                                                                 "rotate the certificate"}]}])
    outside = {"q": [{"doc_id": "kb", "chunk_id": "kb#0", "start": 0, "end": 22},
                     {"doc_id": "kb", "chunk_id": "kb#1", "start": 24, "end": 40}]}
    ev = evaluate_run(golden, outside, metrics=["hit@1", "mrr", "judged@2"], corpus=corpus)
    assert ev.summary == {"hit@1": 0.0, "mrr": 0.5, "judged@2": 1.0}
    assert [r.doc_id for r in ev.queries[0].top] == ["kb" + OUTSIDE, "kb"]
    assert ev.meta["spans"] == {"labels": 1, "checked": True, "relocated": [], "stale": [], "unjudgeable": [],
                                "whole_hits": 0}
    whole = evaluate_run(golden, {"q": ["other", "kb"]}, metrics=["mrr"], corpus=corpus)  # no offsets, no chunk id
    assert whole.summary == {"mrr": 0.5}


def test_stale_spans_are_dropped_and_said_loudly(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, {"kb": TEXT})
    golden = golden_file(tmp_path, [
        {"id": "q1", "query": "a", "relevant": [{"doc": "kb", "quote": "restart"}]},
        {"id": "q2", "query": "b", "relevant": [{"doc": "kb", "quote": "reboot the toaster"}]},
        {"id": "q3", "query": "c", "relevant": [{"doc": "kb", "start": 0, "end": 500}, {"doc": "kb", "quote": "key"}]},
        {"id": "q4", "query": "d", "relevant": [{"doc": "gone", "quote": "x"}]},
    ])
    run = {q: [{"doc_id": "kb", "chunk_id": "kb#0", "start": 60, "end": 70}] for q in ("q1", "q2", "q3", "q4")}
    ev = evaluate_run(golden, run, metrics=["hit@1"], corpus=corpus)
    assert [q.id for q in ev.queries] == ["q1", "q3"]
    assert ev.summary == {"hit@1": 0.5}
    report = ev.meta["spans"]
    assert report["unjudgeable"] == ["q2"] and len(report["stale"]) == 2
    assert ev.meta["drift"]["unjudgeable"] == ["q4"]  # a document gone from the corpus is a stale label as ever
    assert {s["why"] for s in report["stale"]} == {"quote not found in the text",
                                                  f"runs to character 500, past the text's {len(TEXT)}"}
    assert any(w.startswith("NOTE: 2 of 4 span label(s) are stale") for w in ev.warnings)
    assert ev.no_answer["n"] == 0  # dropped questions are not no-answer questions


def test_moved_text_relocates_a_quoted_span(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, {"kb": "New intro. " + TEXT})
    golden = golden_file(tmp_path, [{"id": "q", "query": "a", "relevant": [
        {"doc": "kb", "quote": "rotate the certificate", "start": 29, "end": 52}]}])
    ev = evaluate_run(golden, {"q": [{"doc_id": "kb", "chunk_id": "kb#1", "start": 38, "end": 50}]}, metrics=["hit@1"],
                      corpus=corpus)
    assert ev.summary == {"hit@1": 1.0}
    assert len(ev.meta["spans"]["relocated"]) == 1 and any("away from their offsets" in w for w in ev.warnings)


def test_refusals_name_what_to_do(tmp_path: Path) -> None:
    golden = golden_file(tmp_path, [{"id": "q", "query": "a", "relevant": [{"doc": "kb", "quote": "key"}]}])
    with pytest.raises(InputError, match="can only be found in the corpus text") as info:
        evaluate_run(golden, {"q": ["kb"]}, metrics=["hit@1"])
    assert info.value.where == f"{golden}:1"
    offsets = golden_file(tmp_path, [{"id": "q", "query": "a", "relevant": [{"doc": "kb", "start": 0, "end": 4}]}])
    with pytest.raises(InputError, match="has no start/end"):
        evaluate_run(offsets, {"q": [{"doc_id": "kb", "chunk_id": "kb#3"}]}, metrics=["hit@1"])
    unchecked = evaluate_run(offsets, {"q": [{"doc_id": "kb", "chunk_id": "kb#0", "start": 2, "end": 9}]},
                             metrics=["hit@1"])
    assert unchecked.summary == {"hit@1": 1.0} and any("without checking them" in w for w in unchecked.warnings)


WORDS = st.lists(st.sampled_from(["a", "bb", "ccc", " ", "  ", "\n", "\t", "\u00a0", "\u2003", "\x1c", "é"]),
                 max_size=40).map("".join)


@settings(max_examples=200, deadline=None)
@given(text=WORDS, size=st.integers(1, 6), overlap=st.integers(0, 5), unit=st.sampled_from(["words", "chars"]))
def test_chunks_lie_where_their_offsets_say(text: str, size: int, overlap: int, unit: str) -> None:
    overlap = min(overlap, size - 1)
    passages = chunk([("d", "t", text)], Chunking(size, overlap, unit))
    for p in passages:
        assert 0 <= p.start <= p.end <= len(text)
        if unit == "chars":
            assert p.text == text[p.start:p.end]
        else:
            assert p.text.split() == text[p.start:p.end].split() and p.text == " ".join(p.text.split())
    if unit == "words":  # the windows are str.split()'s words, in order
        step = size - overlap
        words = text.split()
        assert [p.text for p in passages] == [" ".join(words[i:i + size])
                                              for i in range(0, max(len(words) - overlap, 1), step)]
    whole = chunk([("d", "t", text)], Chunking())[0]
    assert (whole.start, whole.end) == (0, len(text))


def test_built_in_retrievers_record_offsets(tmp_path: Path) -> None:
    from ragauge.retrieve.base import RetrieverOptions
    from ragauge.retrieve.registry import open_retriever

    corpus = corpus_file(tmp_path, {"kb": TEXT, "b": "certificate panel words here and there"})
    retriever = open_retriever(f"bm25:{corpus}?chunk_size=4&chunk_overlap=1", RetrieverOptions())
    try:
        hits = retriever.search("rotate certificate", 10).hits
    finally:
        retriever.close()
    assert hits and all(h.start is not None and h.end is not None for h in hits)
    texts = {"kb": TEXT, "b": "certificate panel words here and there"}
    for h in hits:
        assert h.length == len(texts[str(h.doc_id)][h.start:h.end].split())


def test_a_span_graded_0_marks_a_passage_that_does_not_answer(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, {"kb": TEXT})
    golden = golden_file(tmp_path, [{"id": "q", "query": "a", "relevant": [
        {"doc": "kb", "quote": "back up the key", "grade": 0}, {"doc": "kb", "quote": "restart", "grade": 2}]}])
    first = {"q": [{"doc_id": "kb", "chunk_id": "kb#0", "start": 0, "end": 22},
                   {"doc_id": "kb", "chunk_id": "kb#2", "start": 60, "end": 70}]}
    ev = evaluate_run(golden, first, metrics=["hit@1", "mrr"], corpus=corpus)
    assert ev.summary == {"hit@1": 0.0, "mrr": 0.5}
    assert ev.queries[0].relevant == {"kb": 2}


def test_hits_without_offsets_taken_whole_are_said_loudly(tmp_path: Path) -> None:
    corpus = corpus_file(tmp_path, {"kb": TEXT, "other": "unrelated words"})
    golden = golden_file(tmp_path, [{"id": "q", "query": "a", "relevant": [{"doc": "kb", "quote": "restart"}]}])
    ev = evaluate_run(golden, {"q": ["other", "kb"]}, metrics=["mrr"], corpus=corpus)
    assert ev.summary == {"mrr": 0.5} and ev.meta["spans"]["whole_hits"] == 1
    assert any(w.startswith("NOTE: 1 hit(s) of span-labelled documents carry no offsets") for w in ev.warnings)
