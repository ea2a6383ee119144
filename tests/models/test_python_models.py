"""``python:module:function`` embedders and rerankers: what they compute, how strictly their results
are checked, and that a changed function is never served a stale embedding cache."""

from __future__ import annotations

import textwrap
from pathlib import Path

import numpy as np
import pytest

from ragauge.errors import InputError
from ragauge.models import python_models
from ragauge.models.embedders import check_name, get_embedder
from ragauge.retrieve import dense, rescore
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.test_dense import DOCS, write_corpus

EMBED = """
import numpy as np

WORDS = ["plants", "sunlight", "river", "guitar", "bitcoin", "the", "and"]


def embed(texts):
    return np.array([[t.lower().count(w) + 0.1 * i for i, w in enumerate(WORDS)] for t in texts]) * SCALE


SCALE = 1.0


def make():
    return embed


def nan(texts):
    return [[float("nan") if "river" in t else 1.0, 0.0] for t in texts]


def short(texts):
    return [[1.0, 2.0]] * (len(texts) - 1)


def ragged(texts):
    return np.ones((len(texts), 3 if len(texts) == 1 else 4))


def rerank(query, candidates):
    return [sum(c.lower().count(w) for w in query.lower().split()) for c in candidates]


def rerank_np(query, candidates):
    return np.asarray(rerank(query, candidates), dtype=np.float32)


def bad_score(query, candidates):
    return [float("inf") if "Bitcoin" in c else 0.0 for c in candidates]


def too_few(query, candidates):
    return [1.0]


def flags(query, candidates):
    return [True for _ in candidates]


def boom(query, candidates):
    raise RuntimeError("model server down")
"""


@pytest.fixture()
def module(tmp_path: Path) -> Path:
    path = tmp_path / "mymodels.py"
    path.write_text(textwrap.dedent(EMBED), encoding="utf-8")
    return path


def test_a_python_embedder_gives_unit_rows_and_names_its_source(module: Path) -> None:
    embedder = get_embedder(f"python:{module}:embed", python=True)
    assert isinstance(embedder, python_models.PythonEmbedder) and embedder.dim == 7
    rows = embedder.embed(["Plants and sunlight", ""])
    raw = np.array([[1, 1, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0, 0]]) + 0.1 * np.arange(7)
    assert np.allclose(rows, raw / np.linalg.norm(raw, axis=1, keepdims=True), atol=1e-6)
    described = embedder.describe()
    assert described["model"] == f"python:{module}:embed" and str(described["source"]).startswith("sha256:")
    assert get_embedder(f"python:{module}:make", python=True).embed(["river"]).shape == (1, 7)  # a factory, called once
    assert check_name(f"python:{module}:embed") == f"python:{module}:embed"  # kept as written, case included


@pytest.mark.parametrize("function, message", [("nan", "non-finite number for text 'the river'"),
                                               ("short", r"shape \(0,\) for 1 text"),
                                               ("ragged", r"expected \(2, 3\)")])
def test_a_python_embedder_that_breaks_its_contract_is_refused(module: Path, function: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        get_embedder(f"python:{module}:{function}", python=True).embed(["the river", "the road"])


def test_dense_search_with_a_python_embedder_is_its_cosine(module: Path, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    retriever = dense.open(f"dense:{corpus}?embedder=python:{module}:embed", dense.RetrieverOptions(),
                           cache=tmp_path / "cache")
    embedder = retriever.embedder
    texts = [f"{t} {x}" for t, x in DOCS.values()]
    scores = embedder.embed(texts) @ embedder.embed(["plants in sunlight"])[0]
    hits = retriever.search("plants in sunlight", 3).hits
    assert [h.doc_id for h in hits] == [list(DOCS)[i] for i in dense.top_n(scores, 3)]
    assert retriever.describe()["embedder"] == f"python:{module}:embed"


def test_a_changed_function_is_never_served_stale_embeddings(module: Path, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    spec = f"dense:{corpus}?embedder=python:{module}:embed"
    first = dense.open(spec, dense.RetrieverOptions(), cache=tmp_path / "cache")
    assert not first.cached and dense.open(spec, dense.RetrieverOptions(), cache=tmp_path / "cache").cached
    module.write_text(module.read_text().replace("SCALE = 1.0", "SCALE = -1.0"), encoding="utf-8")
    import sys

    sys.modules.pop("mymodels", None)
    changed = dense.open(spec, dense.RetrieverOptions(), cache=tmp_path / "cache")
    assert not changed.cached and changed.key != first.key
    assert np.allclose(changed.matrix, -first.matrix, atol=1e-6)


def test_without_a_source_file_the_embeddings_are_not_cached(module: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(python_models, "source_digest", lambda obj: None)
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    spec = f"dense:{corpus}?embedder=python:{module}:embed"
    first = dense.open(spec, dense.RetrieverOptions(), cache=tmp_path / "cache")
    again = dense.open(spec, dense.RetrieverOptions(), cache=tmp_path / "cache")
    assert not first.cached and not again.cached and not (tmp_path / "cache" / "dense").exists()
    assert "cannot be read" in first.describe()["cache"]


def test_source_digest_reads_the_defining_file(module: Path) -> None:
    import functools
    import hashlib

    assert python_models.source_digest(len) is None
    assert python_models.source_digest(test_source_digest_reads_the_defining_file) == (
        "sha256:" + hashlib.sha256(Path(__file__).read_bytes()).hexdigest())
    partial = functools.partial(test_source_digest_reads_the_defining_file)
    assert python_models.source_digest(partial) == python_models.source_digest(
        test_source_digest_reads_the_defining_file)


def test_a_python_reranker_orders_by_its_scores_ties_in_first_stage_order(module: Path, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    query = "plants sunlight water"
    first = open_retriever(f"bm25:{corpus}").search(query, 6).hits
    for name in ("rerank", "rerank_np"):
        reranked = open_retriever(f"bm25:{corpus}?rerank=python:{module}:{name}&rerank_depth=6")
        assert isinstance(reranked, rescore.RescoredRetriever)
        hits = reranked.search(query, 6).hits
        counts = {h.doc_id: sum(f"{DOCS[str(h.doc_id)][0]} {DOCS[str(h.doc_id)][1]}".lower().count(w)
                                for w in query.split()) for h in first}
        rank = {h.doc_id: i for i, h in enumerate(first)}
        assert [h.doc_id for h in hits] == sorted(counts, key=lambda d: (-counts[d], rank[d]))
        assert [h.score for h in hits] == [float(counts[h.doc_id]) for h in hits]
        assert reranked.describe()["rerank"] == f"python:{module}:{name}"


@pytest.mark.parametrize("function, message", [("bad_score", "returned inf for candidate 'crypto'"),
                                               ("too_few", r"returned 1 value\(s\) for [2-9] candidate"),
                                               ("flags", "returned True for candidate"),
                                               ("boom", "raised RuntimeError: model server down")])
def test_a_python_reranker_that_breaks_its_contract_is_refused(module: Path, tmp_path: Path, function: str,
                                                               message: str) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    reranked = open_retriever(f"bm25:{corpus}?rerank=python:{module}:{function}&rerank_depth=50")
    with pytest.raises(InputError, match=message):
        reranked.search("bitcoin water plants river sunlight", 50)


def test_a_store_refuses_a_python_embedder(module: Path) -> None:
    with pytest.raises(InputError, match="a vector store cannot"):
        get_embedder(f"python:{module}:embed")


def test_a_function_of_the_other_kind_is_refused_with_the_right_spelling(module: Path) -> None:
    with pytest.raises(InputError, match=r"cannot be called as a reranker, fn\(query, candidates\)") as caught:
        python_models.PythonReranker(f"{module}:embed")
    assert "rerank=bi-encoder:python:module:function" in str(caught.value.hint)
    with pytest.raises(InputError, match=r"cannot be called as an embedder, fn\(texts\)"):
        get_embedder(f"python:{module}:rerank", python=True)


def test_bi_encoder_rescoring_with_a_python_embedder(module: Path, tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    reranked = rescore.open(f"bm25:{corpus}?rerank=bi-encoder:python:{module}:embed&rerank_depth=5",
                            rescore.RetrieverOptions(), cache=tmp_path / "cache")
    assert isinstance(reranked.scorer, rescore.BiEncoder)
    assert reranked.describe()["passages"]["model"] == f"python:{module}:embed"
    first = open_retriever(f"bm25:{corpus}").search("plants water sunlight river", 5).hits
    embedder = reranked.scorer.passages.embedder
    hits = reranked.search("plants water sunlight river", 5).hits
    assert len(first) > 2 and {h.doc_id for h in hits} == {h.doc_id for h in first}
    cosines = {h.doc_id: float(embedder.embed([" ".join(DOCS[str(h.doc_id)])])[0]
                               @ embedder.embed(["plants water sunlight river"])[0]) for h in first}
    assert [h.score for h in hits] == pytest.approx([cosines[h.doc_id] for h in hits], abs=1e-6)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
