"""Bi-encoder rescoring: the spec's parts, a reorder of the first stage's top hits by cosine (with the
dependency-free hash embedder, so no model is needed), opened through the registry."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve import rescore
from ragauge.retrieve.base import Retrieved, RetrieverOptions
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.test_dense import DOCS, write_corpus


def test_the_spec_splits_into_first_stage_and_reranker() -> None:
    first, rerank = rescore.split("bm25:c.jsonl?k1=0.9&chunk_size=50&rerank=minilm&rerank_depth=20")
    assert first == "bm25:c.jsonl?k1=0.9&chunk_size=50"
    assert rerank == rescore.Rerank("bi-encoder", "minilm", "dense:c.jsonl?chunk_size=50&embedder=minilm", 20)
    assert rescore.split("hybrid:c?embedder=hash&rerank=hash")[1].passages == "dense:c?embedder=hash"
    assert rescore.split("hybrid:c?rerank=bi-encoder:hash-64")[1] == rescore.Rerank(
        "bi-encoder", "hash-64", "dense:c?embedder=hash-64", 100)
    _, ce = rescore.split("bm25:c?title=0&rerank=cross-encoder:models/ms-marco&rerank_depth=50")
    assert ce == rescore.Rerank("cross-encoder", "models/ms-marco", "dense:c?title=0", 50)
    assert rescore.split("bm25:c?rerank=python:my.mod:score")[1] == rescore.Rerank("python", "my.mod:score",
                                                                                    "dense:c", 100)
    assert rescore.split("bm25:c?rerank=bi-encoder:python:my.mod:embed")[1].passages == (
        "dense:c?embedder=python%3Amy.mod%3Aembed")
    assert rescore.wants_rescoring("bm25:c?rerank=hash") and not rescore.wants_rescoring("bm25:c?k1=1")


@pytest.mark.parametrize("spec, message", [("dense:c?rerank=minilm", "rerank applies to bm25 and hybrid"),
                                           ("bm25:c?rerank=", "needs a reranker"),
                                           ("bm25:c?rerank=colbert", "unknown reranker 'colbert'"),
                                           ("bm25:c?rerank=cross-encoder:", "names no model directory"),
                                           ("bm25:c?rerank=python:nofunction", "python:module:function"),
                                           ("bm25:c?rerank=bi-encoder:bert", "unknown embedder"),
                                           ("bm25:c?rerank=hash&rerank_depth=0", "rerank_depth must be")])
def test_bad_rescoring_specs_are_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        rescore.split(spec)


def test_rescoring_reorders_the_first_stages_top_hits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    query = "help desk password printer error restart"
    first = open_retriever(f"bm25:{corpus}").search(query, 5).hits
    rescored = open_retriever(f"bm25:{corpus}?rerank=hash&rerank_depth=5")
    assert isinstance(rescored, rescore.RescoredRetriever)
    hits = rescored.search(query, 3).hits
    assert len(hits) == 3 and {h.doc_id for h in hits} <= {h.doc_id for h in first}
    passages = rescored.scorer.passages  # type: ignore[attr-defined]
    vector = passages.embedder.embed([query])[0]
    row = {d: i for i, d in enumerate(passages.doc_ids)}
    cosines = {h.doc_id: float(passages.matrix[row[h.doc_id]] @ vector) for h in first}
    assert [h.doc_id for h in hits] == sorted(cosines, key=lambda d: -cosines[d])[:3]
    assert [h.score for h in hits] == [round(cosines[h.doc_id], 6) for h in hits]
    assert all(h.length is not None for h in hits) and rescored.documents() == set(DOCS)
    assert rescored.describe()["rerank_depth"] == 5 and rescored.search(query, 0).hits == ()
    assert np.all(np.diff([h.score for h in rescored.search(query, 5).hits]) <= 0)


def test_hybrid_first_stages_are_rescored_on_their_chunks(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    r = rescore.open(f"hybrid:{corpus}?embedder=hash&chunk_size=6&chunk_overlap=2&rerank=hash&rerank_depth=10",
                     RetrieverOptions(), cache=tmp_path)
    hits = r.search("reboot the router", 4).hits
    assert hits and all(h.chunk_id is not None and h.chunk_id.startswith(f"{h.doc_id}#") for h in hits)


class _Listed:
    """A first stage that returns given hits in order (a retriever over a fixed list)."""

    spec = "listed:"

    def __init__(self, hits: list[Hit]) -> None:
        self.hits = hits

    def search(self, query: str, n: int) -> Retrieved:
        return Retrieved(tuple(self.hits[:n]))

    def describe(self) -> dict[str, object]:
        return {}

    def fingerprint(self) -> None:
        return None

    def documents(self) -> None:
        return None

    def close(self) -> None:
        pass


class _Given:
    """A scorer that gives each document a fixed score."""

    def __init__(self, scores: dict[str, float]) -> None:
        self.given = scores

    def scores(self, query: str, hits: Sequence[Hit]) -> np.ndarray:
        return np.asarray([self.given[str(h.doc_id)] for h in hits])

    def describe(self) -> dict[str, object]:
        return {"rerank": "given"}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=0, max_size=30), st.integers(1, 40), st.integers(1, 40))
def test_the_order_is_by_score_then_first_stage_rank(scores: list[int], depth: int, n: int) -> None:
    hits = [Hit(f"d{i}", None, float(100 - i), 10) for i in range(len(scores))]
    reranked = rescore.RescoredRetriever("x", _Listed(hits), _Given({f"d{i}": s / 2 for i, s in enumerate(scores)}),
                                         depth)
    got = reranked.search("q", n).hits
    pool = list(range(min(len(scores), max(n, depth))))  # the candidates: the first stage's top max(n, depth)
    expected = sorted(pool, key=lambda i: (-scores[i], i))[:n]
    assert [h.doc_id for h in got] == [f"d{i}" for i in expected]
    assert [h.score for h in got] == [scores[i] / 2 for i in expected] and all(h.length == 10 for h in got)
