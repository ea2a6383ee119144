"""Hybrid retrieval: reciprocal rank fusion by hand-computed values, document-level fusion of chunk
hits, option routing, and the real BM25 + MiniLM pair on the small corpus of test_dense."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

import pytest

from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve import hybrid
from ragauge.retrieve.base import Retrieved, Retriever, RetrieverOptions
from ragauge.retrieve.hybrid import HybridRetriever, best_chunks, fuse, rrf
from tests.retrieve.test_dense import DOCS, PARAPHRASES, needs_model, write_corpus

needs_bm25 = pytest.mark.skipif(
    importlib.util.find_spec("bm25s") is None and not os.environ.get("CI"),
    reason="bm25s is not installed: pip install -e '.[bm25]'")


# --- rrf: hand-computed values ------------------------------------------------------------------

def test_rrf_sums_reciprocal_ranks() -> None:
    fused = rrf([["a", "b", "c"], ["b", "c", "d"]], k=60)
    assert [key for key, _ in fused] == ["b", "c", "a", "d"]
    scores = dict(fused)
    assert scores["b"] == pytest.approx(1 / 62 + 1 / 61)  # rank 2, then rank 1
    assert scores["c"] == pytest.approx(1 / 63 + 1 / 62)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["d"] == pytest.approx(1 / 63)


def test_rrf_with_k_zero_and_one_list() -> None:
    assert rrf([["x", "y", "z"]], k=0) == [("x", 1.0), ("y", 0.5), ("z", pytest.approx(1 / 3))]


def test_rrf_small_k_lets_a_single_top_rank_beat_two_middling_ones() -> None:
    rankings = [["solo", "both"], ["other", "x", "y", "both"]]
    # k=0: solo 1/1 = 1.0 > both 1/2 + 1/4 = 0.75; k=60: both 1/62 + 1/64 > solo 1/61
    assert rrf(rankings, k=0)[0] == ("solo", 1.0)
    assert rrf(rankings, k=60)[0] == ("both", pytest.approx(1 / 62 + 1 / 64))


def test_rrf_ties_go_to_the_best_rank_then_the_earlier_list() -> None:
    # x: 1/1 + 1/2, y: 1/2 + 1/1 -> equal; both reach rank 1, x in the first list
    assert [key for key, _ in rrf([["x", "y"], ["y", "x"]], k=0)] == ["x", "y"]
    assert [key for key, _ in rrf([["y", "x"], ["x", "y"]], k=0)] == ["y", "x"]
    # p and q only in list 2 and list 1 at the same rank: equal score and rank, list 1 first
    assert [key for key, _ in rrf([["a", "q"], ["b", "p"]], k=60)] == ["a", "b", "q", "p"]


def test_rrf_counts_a_repeated_key_once_per_list_and_handles_empties() -> None:
    assert rrf([["a", "a", "b"]], k=0) == [("a", 1.0), ("b", pytest.approx(1 / 3))]
    assert rrf([], k=60) == []
    assert rrf([[], []], k=60) == []
    with pytest.raises(InputError, match="rrf_k"):
        rrf([["a"]], k=-1)


# --- document-level fusion ----------------------------------------------------------------------

def test_best_chunks_keeps_each_documents_first_hit() -> None:
    hits = [Hit("d1", "d1#2"), Hit("d2", "d2#0"), Hit("d1", "d1#0"), Hit(None, "orphan"), Hit("d3", "d3#1")]
    assert best_chunks(hits) == [Hit("d1", "d1#2"), Hit("d2", "d2#0"), Hit("d3", "d3#1")]


def test_fuse_ranks_documents_and_keeps_the_best_chunk() -> None:
    lexical = [Hit("d1", "d1#2", 9.0), Hit("d1", "d1#0", 8.0), Hit("d2", "d2#1", 7.0), Hit("d3", "d3#0", 1.0)]
    semantic = [Hit("d2", "d2#0", 0.9), Hit("d4", "d4#3", 0.8), Hit("d2", "d2#1", 0.7), Hit("d1", "d1#1", 0.6)]
    # documents: lexical d1, d2, d3; semantic d2, d4, d1
    fused = fuse([lexical, semantic], n=10, k=60)
    assert [h.doc_id for h in fused] == ["d2", "d1", "d4", "d3"]
    by_doc = {h.doc_id: h for h in fused}
    assert by_doc["d2"].score == pytest.approx(1 / 62 + 1 / 61, abs=1e-8)
    assert by_doc["d1"].score == pytest.approx(1 / 61 + 1 / 63, abs=1e-8)
    assert by_doc["d4"].score == pytest.approx(1 / 62, abs=1e-8)
    assert by_doc["d3"].score == pytest.approx(1 / 63, abs=1e-8)
    # the chunk of the list where the document ranked best; on equal ranks, the earlier list's
    assert by_doc["d2"].chunk_id == "d2#0"  # rank 1 in semantic beats rank 2 in lexical
    assert by_doc["d1"].chunk_id == "d1#2"
    assert by_doc["d4"].chunk_id == "d4#3"
    assert [h.doc_id for h in fuse([lexical, semantic], n=2, k=60)] == ["d2", "d1"]
    assert fuse([lexical, semantic], n=0) == []


def test_fuse_of_whole_documents_has_no_chunk_ids() -> None:
    fused = fuse([[Hit("a"), Hit("b")], [Hit("b"), Hit("c")]], n=5)
    assert [(h.doc_id, h.chunk_id) for h in fused] == [("b", None), ("a", None), ("c", None)]


# --- the adapter around two fakes: no model needed ----------------------------------------------

class FakeRetriever:
    def __init__(self, spec: str, ranking: list[Hit]) -> None:
        self.spec = spec
        self.ranking = ranking
        self.asked: list[int] = []
        self.closed = False

    def search(self, query: str, n: int) -> Retrieved:
        self.asked.append(n)
        return Retrieved(tuple(self.ranking[:n]))

    def describe(self) -> dict[str, Any]:
        return {"fake": self.spec}

    def fingerprint(self) -> str | None:
        return "sha256:fake"

    def documents(self) -> set[str] | None:
        return {h.doc_id for h in self.ranking if h.doc_id}

    def close(self) -> None:
        self.closed = True


def test_each_side_fetches_max_of_n_and_depth() -> None:
    lexical = FakeRetriever("bm25", [Hit(f"l{i}") for i in range(300)])
    semantic = FakeRetriever("dense", [Hit(f"s{i}") for i in range(300)])
    retriever = HybridRetriever("hybrid:x", Path("x"), {"rrf_k": 60.0, "depth": 100}, lexical, semantic)
    assert isinstance(retriever, Retriever)
    assert len(retriever.search("q", 10).hits) == 10
    assert len(retriever.search("q", 250).hits) == 250
    assert lexical.asked == semantic.asked == [100, 250]
    assert retriever.search("q", 0).hits == ()
    assert retriever.documents() == lexical.documents() | semantic.documents()  # type: ignore[operator]
    assert retriever.describe()["rrf_k"] == 60.0
    assert retriever.max_concurrency == 1
    retriever.close()
    assert lexical.closed and semantic.closed


def test_options_are_routed_to_each_side() -> None:
    own, bm25, dense = hybrid._route({"rrf_k": "10", "depth": "50", "k1": "1.2", "chunk_size": "100",
                                      "chunk_overlap": "10", "batch_size": "16", "title": "0"}, "hybrid:x")
    assert own == {"rrf_k": 10.0, "depth": 50, "fusion": "rrf", "weight": 0.5}
    assert bm25 == {"k1": "1.2", "chunk_size": "100", "chunk_overlap": "10", "title": "0"}
    assert dense == {"chunk_size": "100", "chunk_overlap": "10", "batch_size": "16", "title": "0"}
    with pytest.raises(InputError, match="option rrf_k='lots' in 'hybrid:x' must be a finite number >= 0"):
        hybrid._route({"rrf_k": "lots"}, "hybrid:x")
    with pytest.raises(InputError, match="option depth must be an integer >= 1"):
        hybrid._route({"depth": "0"}, "hybrid:x")


def test_weighted_fusion_options_are_checked() -> None:
    own, _, dense = hybrid._route({"fusion": "weighted", "weight": "0.25", "embedder": "hash"}, "hybrid:x")
    assert (own["fusion"], own["weight"]) == ("weighted", 0.25) and dense == {"embedder": "hash"}
    with pytest.raises(InputError, match="fusion='sum' .* must be one of rrf, weighted"):
        hybrid._route({"fusion": "sum"}, "hybrid:x")
    with pytest.raises(InputError, match="option weight applies to fusion=weighted only"):
        hybrid._route({"weight": "0.3"}, "hybrid:x")
    with pytest.raises(InputError, match="option rrf_k applies to fusion=rrf only"):
        hybrid._route({"fusion": "weighted", "rrf_k": "10"}, "hybrid:x")
    with pytest.raises(InputError, match=r"option weight must be a finite number in \[0, 1\]"):
        hybrid._route({"fusion": "weighted", "weight": "1.5"}, "hybrid:x")


# --- weighted score fusion: hand-computed values ----------------------------------------------

def test_min_max_maps_onto_the_unit_interval() -> None:
    assert hybrid.min_max([10.0, 5.0, 0.0]) == [1.0, 0.5, 0.0]
    assert hybrid.min_max([3.0, 3.0]) == [1.0, 1.0]
    assert hybrid.min_max([]) == []


def test_fuse_weighted_combines_normalised_scores() -> None:
    lexical = [Hit("d1", "d1#0", 10.0), Hit("d2", "d2#0", 6.0), Hit("d3", "d3#0", 2.0)]  # 1, 0.5, 0
    semantic = [Hit("d3", "d3#1", 0.9), Hit("d4", "d4#0", 0.5), Hit("d1", "d1#2", 0.1)]  # 1, 0.5, 0
    fused = hybrid.fuse_weighted([lexical, semantic], [0.25, 0.75], n=10)
    scores = {h.doc_id: h.score for h in fused}
    assert scores == {"d1": 0.25, "d2": 0.125, "d3": 0.75, "d4": 0.375}
    assert [h.doc_id for h in fused] == ["d3", "d4", "d1", "d2"]
    assert {h.doc_id: h.chunk_id for h in fused}["d3"] == "d3#1"  # rank 1 in the dense list beats rank 3
    # weight 0 on a side leaves the other side's order; ties go to the better rank, then the earlier list
    assert [h.doc_id for h in hybrid.fuse_weighted([lexical, semantic], [1.0, 0.0], n=2)] == ["d1", "d2"]
    assert [h.doc_id for h in hybrid.fuse_weighted([[Hit("a", None, 1.0)], [Hit("b", None, 5.0)]], [0.5, 0.5],
                                                   n=5)] == ["a", "b"]
    assert hybrid.fuse_weighted([[], []], [0.5, 0.5], n=5) == []


def test_fuse_weighted_refuses_a_weight_outside_the_unit_interval() -> None:
    with pytest.raises(InputError, match="weight"):
        hybrid.fuse_weighted([[Hit("a", None, 1.0)]], [1.5], n=1)


@pytest.mark.parametrize("spec, message", [("hybrid:", "needs a corpus path"), ("hybrid:/no/such.jsonl", "not found")])
def test_bad_specs_are_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        hybrid.open(spec, RetrieverOptions())


# --- the real pair ------------------------------------------------------------------------------

@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    return write_corpus(tmp_path / "corpus.jsonl")


@needs_bm25
@needs_model
def test_hybrid_finds_paraphrases_and_exact_terms(corpus: Path) -> None:
    retriever = hybrid.open(f"hybrid:{corpus}", RetrieverOptions())
    try:
        for question, doc_id in PARAPHRASES.items():
            lexical = {h.doc_id for h in retriever.bm25.search(question, 100).hits}
            assert doc_id not in lexical  # BM25 cannot find it ...
            fused = [h.doc_id for h in retriever.search(question, 100).hits]
            # ... so RRF ranks it after the documents both sides found, first among the dense-only ones
            assert fused.index(doc_id) <= len(lexical), (question, fused)
            assert fused[len(lexical & set(fused))] == doc_id, (question, fused)
        assert retriever.search("E4521", 1).hits[0].doc_id == "printer"
        hits = retriever.search("reboot the router", 50).hits
        assert hits[0].doc_id == "wifi"
        assert len({h.doc_id for h in hits}) == len(hits) == len(DOCS)
        assert retriever.documents() == set(DOCS)
        assert retriever.fingerprint() == retriever.dense.fingerprint() == retriever.bm25.fingerprint()
    finally:
        retriever.close()


@needs_bm25
@needs_model
def test_hybrid_scores_are_the_rrf_of_its_two_sides(corpus: Path) -> None:
    retriever = hybrid.open(f"hybrid:{corpus}?chunk_size=6&chunk_overlap=2&rrf_k=30&depth=40", RetrieverOptions())
    try:
        query = "restart the spooler when the print queue is stuck"
        lexical = best_chunks(retriever.bm25.search(query, 40).hits)
        semantic = best_chunks(retriever.dense.search(query, 40).hits)
        expected = dict(rrf([[h.doc_id for h in lexical], [h.doc_id for h in semantic]], k=30))
        hits = retriever.search(query, 10).hits
        assert hits[0].doc_id == "printer"
        for hit in hits:
            assert hit.score == pytest.approx(expected[hit.doc_id], abs=1e-8)  # type: ignore[index]
            assert hit.chunk_id is not None and hit.chunk_id.startswith(f"{hit.doc_id}#")
        assert retriever.describe()["dense"]["chunk_size"] == 6
        assert retriever.describe()["bm25"]["chunk_size"] == 6
    finally:
        retriever.close()
