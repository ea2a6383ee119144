"""The cross-encoder reranker on a tiny model made in the test (tests/retrieve/tiny_models.py): its
scores are the graph's logits recomputed in numpy, the passage (not the question) is truncated, the
rerank order follows the scores with ties in the first stage's order, and a directory it cannot use
is an InputError that says how to fix it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
pytest.importorskip("tokenizers")

from ragauge.errors import InputError  # noqa: E402
from ragauge.formats.corpus import indexed_text  # noqa: E402
from ragauge.models.cross_encoder import CrossEncoder, max_length_of  # noqa: E402
from ragauge.retrieve import rescore  # noqa: E402
from ragauge.retrieve.registry import open_retriever  # noqa: E402
from tests.retrieve.tiny_models import make_cross_encoder, words_of  # noqa: E402

QUERY = "how do plants turn sunlight into sugar?"
PASSAGES = ["Plants use chlorophyll to turn sunlight, water and carbon dioxide into glucose.",
            "sugar", "The feline curled up on the windowsill and napped all afternoon in the sunshine.",
            "Plants plants plants sunlight sunlight", "zebra quartz"]  # the last words are not in the vocabulary


def vocabulary(*texts: str) -> list[str]:
    return sorted({w for t in texts for w in words_of(t)} - {"zebra", "quartz"})


def test_scores_are_the_graphs_logits(tmp_path: Path) -> None:
    model = make_cross_encoder(tmp_path / "ce", vocabulary(QUERY, *PASSAGES))
    encoder = CrossEncoder(tmp_path / "ce", batch_size=2)  # batches of unequal lengths: padding must not count
    got = encoder.scores(QUERY, PASSAGES, [f"p{i}" for i in range(len(PASSAGES))])
    expected = [model.logit(*model.pair_ids(QUERY, p, 512)) for p in PASSAGES]
    assert got.dtype == np.float64 and np.allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert len(set(np.round(got, 6))) == len(PASSAGES)  # the test can tell the passages apart
    assert np.allclose(CrossEncoder(tmp_path / "ce", batch_size=64).scores(QUERY, PASSAGES, PASSAGES), got, atol=1e-6)
    assert encoder.scores(QUERY, [], []).shape == (0,) and encoder.max_length == 512
    assert encoder.describe()["rerank"] == "cross-encoder"


def test_the_passage_is_truncated_not_the_question(tmp_path: Path) -> None:
    long = " ".join(["chlorophyll water carbon dioxide glucose"] * 20)
    model = make_cross_encoder(tmp_path / "ce", vocabulary(QUERY, long), max_length=16, onnx_dir="onnx")
    encoder = CrossEncoder(tmp_path / "ce")
    assert encoder.max_length == 16 and (tmp_path / "ce" / "onnx" / "model.onnx").is_file()
    got = encoder.scores(QUERY, [long], ["long"])[0]
    ids, types = model.pair_ids(QUERY, long, 16)
    assert len(ids) == 16 and got == pytest.approx(model.logit(ids, types), rel=1e-5)
    # the same passage cut by hand to what fits scores the same; the whole of it would not
    fitted = " ".join(words_of(long)[:16 - len(words_of(QUERY)) - 3])
    assert encoder.scores(QUERY, [fitted], ["f"])[0] == pytest.approx(got, rel=1e-6)
    assert model.logit(*model.pair_ids(QUERY, long, 10_000)) != pytest.approx(got, rel=1e-3)
    # a question longer than the model leaves no room: both are cut, and it still scores
    huge = " ".join(["sunlight"] * 40)
    assert np.isfinite(encoder.scores(huge, ["glucose water"], ["x"])).all()


def test_max_length_comes_from_the_tokenizer_config_within_the_positions(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 512}))
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 1e30}))
    assert max_length_of(tmp_path) == 512
    (tmp_path / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 256}))
    assert max_length_of(tmp_path) == 256
    (tmp_path / "config.json").write_text(json.dumps({"max_position_embeddings": 128}))
    assert max_length_of(tmp_path) == 128


def write(path: Path, docs: dict[str, tuple[str, str]]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for doc_id, (title, text) in docs.items():
            fh.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    return path


DOCS = {
    "a": ("Botany", "Plants use chlorophyll to turn sunlight into glucose."),
    "b": ("Botany", "Plants use chlorophyll to turn sunlight into glucose."),  # the same text: a tie
    "c": ("Pets", "The feline napped in the sunshine near plants."),
    "d": ("Plants", "Sugar from plants and sunlight."),
    "e": ("Cooking", "Boil plants in salted water."),
}


def test_reranking_follows_the_scores_and_keeps_ties_in_first_stage_order(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    corpus = write(tmp_path / "corpus.jsonl", DOCS)
    texts = {d: indexed_text(t, x) for d, (t, x) in DOCS.items()}
    model = make_cross_encoder(tmp_path / "ce", vocabulary(QUERY, *texts.values()))
    first = open_retriever(f"bm25:{corpus}").search(QUERY, 5).hits
    retriever = open_retriever(f"bm25:{corpus}?rerank=cross-encoder:{tmp_path / 'ce'}&rerank_depth=5")
    assert isinstance(retriever, rescore.RescoredRetriever) and retriever.stage_latency() is None
    hits = retriever.search(QUERY, 5).hits
    logits = {h.doc_id: model.logit(*model.pair_ids(QUERY, texts[str(h.doc_id)], 512)) for h in first}
    rank = {h.doc_id: i for i, h in enumerate(first)}
    assert [h.doc_id for h in hits] == sorted(logits, key=lambda d: (-round(logits[d], 5), rank[d]))
    assert [h.score for h in hits] == pytest.approx([logits[h.doc_id] for h in hits], abs=1e-5)
    a, b = [h.doc_id for h in hits].index("a"), [h.doc_id for h in hits].index("b")
    assert abs(a - b) == 1 and (a < b) == (rank["a"] < rank["b"])  # a tie keeps the first stage's order
    latency = retriever.stage_latency()
    assert latency is not None and set(latency) == {"p50", "p95", "first_p50"} and latency["p50"] > 0
    assert retriever.describe()["rerank"] == "cross-encoder" and retriever.describe()["rerank_depth"] == 5
    # title=0 gives the text alone, as dense:?title=0 embeds it
    untitled = open_retriever(f"bm25:{corpus}?title=0&rerank=cross-encoder:{tmp_path / 'ce'}&rerank_depth=5")
    top = untitled.search(QUERY, 5).hits[0]
    assert top.score == pytest.approx(model.logit(*model.pair_ids(QUERY, DOCS[str(top.doc_id)][1], 512)), abs=1e-5)


def test_a_directory_it_cannot_use_says_how_to_fix_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="directory not found"):
        CrossEncoder(tmp_path / "nowhere")
    torch = tmp_path / "torch"
    torch.mkdir()
    (torch / "model.safetensors").write_bytes(b"")
    with pytest.raises(InputError, match="a torch model") as caught:
        CrossEncoder(torch)
    assert caught.value.hint is not None and "optimum-cli export onnx" in caught.value.hint
    make_cross_encoder(tmp_path / "ce", ["plants"])
    (tmp_path / "ce" / "tokenizer.json").unlink()
    with pytest.raises(InputError, match="no tokenizer.json"):
        CrossEncoder(tmp_path / "ce")
    make_cross_encoder(tmp_path / "two", ["plants"], labels=2)
    with pytest.raises(InputError, match="2 labels"):
        CrossEncoder(tmp_path / "two")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "model.onnx").write_bytes(b"not onnx")
    (tmp_path / "broken" / "tokenizer.json").write_text("{}")
    with pytest.raises(InputError, match="cannot load the cross-encoder"):
        CrossEncoder(tmp_path / "broken")


@pytest.mark.parametrize("package", ["onnxruntime", "tokenizers"])
def test_a_missing_runtime_names_the_extra(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str) -> None:
    from ragauge.errors import MissingExtra

    make_cross_encoder(tmp_path / "ce", ["plants"])
    monkeypatch.setitem(__import__("sys").modules, package, None)
    with pytest.raises(MissingExtra, match=f"'{package}'") as caught:
        CrossEncoder(tmp_path / "ce")
    assert caught.value.hint == "pip install 'ragauge[rerank]'"


def test_kept_word_pieces_give_the_tokenizers_own_pair_encoding(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from tokenizers import Tokenizer

    from ragauge.models import cross_encoder

    long = " ".join(["chlorophyll water carbon dioxide glucose"] * 5)
    make_cross_encoder(tmp_path / "ce", vocabulary(QUERY, long, *PASSAGES), max_length=20)
    monkeypatch.setattr(cross_encoder, "PIECES", 3)  # the kept pieces are dropped and rebuilt on the way
    encoder = CrossEncoder(tmp_path / "ce")
    reference = Tokenizer.from_file(str(tmp_path / "ce" / "tokenizer.json"))
    for query in (QUERY, "sugar", " ".join(["sunlight"] * 30)):
        reference.enable_truncation(20, strategy="longest_first" if len(query) > 100 else "only_second")
        for texts in (PASSAGES, [long, *PASSAGES[:2]], [long]):
            got = encoder._encode(query, texts)
            want = reference.encode_batch([(query, t) for t in texts])
            assert [(e.ids, e.type_ids) for e in got] == [(e.ids, e.type_ids) for e in want]
            assert len(encoder._pieces) <= max(3, len(set(texts)))
