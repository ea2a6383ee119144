"""Token budgets counted by a named tokenizer (``ragauge.models.tokens``): the counts against the
tokenizer itself on the text each hit covers, the budget cut on top of them, the contract that names
the unit, and every refusal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.evaluation.options import contract_differences
from ragauge.experiments.grid import plan_from_dict
from ragauge.models.tokens import open_tokenizer

VOCAB = ["[UNK]", "the", "printer", "jams", "paper", "tray", "certificate", "rotate", "vpn", "error"]


@pytest.fixture(scope="module")
def tokenizer_json(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny word-level Hugging Face tokenizer, made here: every word one token, punctuation apart."""
    from tokenizers import Tokenizer, models, pre_tokenizers

    tok = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    path = tmp_path_factory.mktemp("tok") / "tokenizer.json"
    tok.save(str(path))
    return path


def test_counts_are_the_tokenizers_own(tokenizer_json: Path) -> None:
    from tokenizers.implementations import BertWordPieceTokenizer  # type: ignore[attr-defined, unused-ignore]

    texts = ["the printer jams, again!", "", "unbelievably tokenizable words", "VPN-809 error"]
    assert open_tokenizer(f"hf:{tokenizer_json}").count(texts) == [6, 0, 3, 4]  # punctuation apart, unknowns count
    assert open_tokenizer(f"hf:{tokenizer_json.parent}").count(texts) == [6, 0, 3, 4]  # the folder holding it
    minilm = open_tokenizer("minilm")
    reference = BertWordPieceTokenizer(str(Path(__file__).parents[2] / "src/ragauge/models/data/minilm-vocab.txt"),
                                       lowercase=True)
    assert minilm.count(texts) == [len(reference.encode(t, add_special_tokens=False).ids) for t in texts]
    assert minilm.count(["word " * 600]) == [600]  # never truncated at the model's 256
    assert open_tokenizer("words").count(texts) == [4, 0, 3, 2]


DOC = "the printer jams , paper tray error . rotate the vpn certificate"


def files(tmp_path: Path) -> tuple[Path, Path]:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"_id": "a", "title": "T", "text": DOC}) + "\n"
                      + json.dumps({"_id": "b", "title": "T", "text": "paper paper paper"}) + "\n")
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"id": "q", "query": "x", "relevant": ["a"]}) + "\n")
    return corpus, golden


OFFSETS = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, len(DOC)), st.integers(0, 20)),
                   min_size=1, max_size=8)


@settings(max_examples=80, deadline=None)
@given(hits=OFFSETS, budget=st.integers(1, 12))
def test_the_budget_counts_tokens_of_the_text_each_hit_covers(tmp_path_factory: pytest.TempPathFactory,
                                                              tokenizer_json: Path, hits: list[tuple[str, int, int]],
                                                              budget: int) -> None:
    corpus, golden = files(tmp_path_factory.mktemp("b"))
    texts = {"a": DOC, "b": "paper paper paper"}
    run: dict[str, Any] = {"q": [{"doc_id": d, "chunk_id": f"{d}#{i}", "start": min(s, len(texts[d])),
                                  "end": min(s + n, len(texts[d]))} for i, (d, s, n) in enumerate(hits)]}
    name = f"hf:{tokenizer_json}"
    got = evaluate_run(golden, run, metrics=[f"hit@{budget}t"], corpus=corpus, tokenizer=name)
    counter = open_tokenizer(name)
    taken, total = [], 0
    for h in run["q"]:
        n = counter.count([texts[h["doc_id"]][h["start"]:h["end"]]])[0]
        if total + n > budget:
            break
        total += n
        taken.append(h["doc_id"])
    assert got.summary[f"hit@{budget}t"] == float("a" in taken)
    assert got.meta["contract"]["budget"] == counter.name == f"hf:tokenizer.json@sha256:{digest(tokenizer_json)}"


def digest(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def test_the_contract_names_the_unit_and_compare_tells_them_apart(tmp_path: Path) -> None:
    corpus, golden = files(tmp_path)
    run = {"q": [{"doc_id": "b", "chunk_id": "b#0", "start": 0, "end": 17, "length": 3},
                 {"doc_id": "a", "chunk_id": "a#0", "start": 0, "end": 16, "length": 3}]}
    words = evaluate_run(golden, run, metrics=["hit@6t"], corpus=corpus)
    pieces = evaluate_run(golden, run, metrics=["hit@6t"], corpus=corpus, tokenizer="minilm")
    # 3 + 3 words fit in 6; "paper paper paper" + "the printer jam ##s" are 3 + 4 word pieces, which do not
    assert words.summary == {"hit@6t": 1.0} and pieces.summary == {"hit@6t": 0.0}
    assert "budget" not in words.meta["contract"]  # words: files written before the field read the same
    assert contract_differences(words.meta["contract"], pieces.meta["contract"]) == ["budget"]
    plain = evaluate_run(golden, run, metrics=["hit@1"], corpus=corpus)  # no budget: nothing to tell apart
    assert contract_differences(plain.meta["contract"], pieces.meta["contract"]) == []
    (tmp_path / "run.jsonl").write_text("".join(json.dumps({"id": q, "hits": h}) + "\n" for q, h in run.items()))
    result = CliRunner().invoke(cli, ["eval", str(golden), "--run", str(tmp_path / "run.jsonl"), "--metrics", "hit@6t",
                                      "--corpus", str(corpus), "--tokenizer", "minilm"])
    assert result.exit_code == 0, result.output
    assert "token budgets count minilm tokens of each hit's text in the corpus" in result.output
    no_budget = evaluate_run(golden, run, metrics=["hit@1"], corpus=corpus, tokenizer="minilm")
    assert "budget" not in no_budget.meta["contract"]  # nothing counted, nothing to tell apart


def test_refusals(tmp_path: Path, tokenizer_json: Path) -> None:
    corpus, golden = files(tmp_path)
    with pytest.raises(InputError, match="unknown tokenizer 'bogus'"):  # even with nothing to count
        evaluate_run(golden, {"q": ["a"]}, metrics=["hit@1"], tokenizer="bogus")
    with pytest.raises(InputError, match="past the document's 17"):  # another version of the corpus
        evaluate_run(golden, {"q": [{"doc_id": "b", "chunk_id": "b#9", "start": 5, "end": 900}]}, metrics=["hit@5t"],
                     tokenizer="minilm", corpus=corpus)
    chunk = {"q": [{"doc_id": "a", "chunk_id": "a#0"}]}
    with pytest.raises(InputError, match="need the hits' texts"):
        evaluate_run(golden, chunk, metrics=["hit@5t"], tokenizer="minilm")
    with pytest.raises(InputError, match="chunk 'a#0' has no start/end"):
        evaluate_run(golden, chunk, metrics=["hit@5t"], tokenizer="minilm", corpus=corpus)
    with pytest.raises(InputError, match="'zz' is not in the corpus"):
        evaluate_run(golden, {"q": ["zz"]}, metrics=["hit@5t"], tokenizer="minilm", corpus=corpus)
    with pytest.raises(InputError, match="unknown tokenizer 'gpt-4'"):
        evaluate_run(golden, chunk, metrics=["hit@5t"], tokenizer="gpt-4", corpus=corpus)
    with pytest.raises(InputError, match="cannot read the tokenizer") as info:
        open_tokenizer(f"hf:{tmp_path}/missing.json")
    assert info.value.where == f"{tmp_path}/missing.json"
    whole = evaluate_run(golden, {"q": ["b", "a"]}, metrics=["hit@3t", "hit@20t"], tokenizer="minilm", corpus=corpus)
    assert whole.summary == {"hit@3t": 0.0, "hit@20t": 1.0}  # a document hit covers its whole text


def test_a_sweep_names_its_tokenizer() -> None:
    table = {"config": [{"retriever": "bm25"}]}
    assert plan_from_dict(table).tokenizer == "words"
    assert plan_from_dict({"sweep": {"tokenizer": "minilm"}, **table}).tokenizer == "minilm"
    for bad in ("gpt-4", "hf:", 3):
        with pytest.raises(InputError, match="tokenizer must be words, minilm or hf:PATH"):
            plan_from_dict({"sweep": {"tokenizer": bad}, **table})
