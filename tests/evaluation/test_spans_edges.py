"""Span labels and tokenizer-counted budgets at the edges an independent review found: synthetic
halves, TREC chunk docnos, retriever dict hits, runs from another corpus version, padded tokenizers,
shrunk texts, validate --run, and the diagnosis of chunks outside the labelled span. Each failed
before its fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragauge.data.coerce import coerce_hit
from ragauge.data.spans import Span
from ragauge.errors import InputError
from ragauge.evaluation.evaluate import evaluate_run
from ragauge.evaluation.spans import place_span

TEXT = "alpha beta gamma delta. To fix it rotate the certificate now. epsilon zeta eta theta iota kappa lambda mu."
QUOTE = "rotate the certificate"
AT = (TEXT.index(QUOTE), TEXT.index(QUOTE) + len(QUOTE))  # (34, 56)
CHUNKS = [("d1#2", 60, len(TEXT)), ("d1#1", 33, 60), ("d1#0", 0, 33)]
"""Rank 1 misses the quote, rank 2 holds it."""


def write_corpus(tmp_path: Path, title: str = "Certificates guide") -> Path:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "d1", "title": title, "text": TEXT}) + "\n"
                      + json.dumps({"id": "d2", "title": "Other", "text": "nothing here at all, other words."}) + "\n")
    return corpus


def hits() -> list[dict[str, Any]]:
    return [{"doc_id": "d1", "chunk_id": c, "start": a, "end": b} for c, a, b in CHUNKS]


def test_synthetic_questions_do_not_shift_span_offsets_by_the_title(tmp_path: Path) -> None:
    """score_run reads the corpus once for both halves with corpus_texts (title + " " + text), and
    document_texts takes a mapping as the texts span offsets count in: every quote lands
    len(title) + 1 characters too far, so the real half scores a chunk that misses the quote."""
    corpus = write_corpus(tmp_path)
    label = [{"doc": "d1", "quote": QUOTE}]
    golden = [{"id": "real", "query": "fix", "relevant": label},
              {"id": "llm", "query": "fix", "relevant": label, "source": "synthetic"}]
    run = {"real": hits(), "llm": hits()}
    split = evaluate_run(golden, run, metrics="hit@1,mrr", corpus=corpus)
    mixed = evaluate_run(golden, run, metrics="hit@1,mrr", corpus=corpus, mix_synthetic=True)
    assert mixed.summary == {"hit@1": 0.0, "mrr": 0.5}
    assert split.summary == mixed.summary


def test_synthetic_questions_do_not_shift_token_counts_by_the_title(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path, title="A very long title " * 5)
    golden = [{"id": "real", "query": "fix", "relevant": ["d1"]},
              {"id": "llm", "query": "fix", "relevant": ["d1"], "source": "synthetic"}]
    run = {"real": hits()[2:], "llm": hits()[2:]}  # [0, 33): "alpha beta gamma delta. To fix it": 8 minilm tokens
    pytest.importorskip("tokenizers")
    split = evaluate_run(golden, run, metrics="hit@8t", corpus=corpus, tokenizer="minilm")
    mixed = evaluate_run(golden, run, metrics="hit@8t", corpus=corpus, tokenizer="minilm", mix_synthetic=True)
    assert split.summary == {"hit@8t": 1.0} == mixed.summary


def test_trec_chunk_docnos_are_chunks_not_whole_documents(tmp_path: Path) -> None:
    """With --doc-id-sep a TREC docno is a chunk id (resolve_doc_ids), but match_spans and
    hit_tokens read run.chunk_id, null for TREC runs, and take each chunk as its whole document: it
    overlaps every span, silently."""
    corpus = write_corpus(tmp_path)
    run = tmp_path / "run.trec"
    run.write_text("".join(f"real Q0 {c} {r} {3 - r} t\n" for r, (c, _a, _b) in enumerate(CHUNKS, start=1)))
    golden = [{"id": "real", "query": "fix", "relevant": [{"doc": "d1", "quote": QUOTE}]}]
    with pytest.raises(InputError, match="no start/end"):
        evaluate_run(golden, run, metrics="hit@1", corpus=corpus, doc_id_sep="#")


def test_hits_past_the_end_of_their_document_are_refused_not_counted_as_0_tokens(tmp_path: Path) -> None:
    """text[start:end] past the end is '' and counts 0 tokens: a run from another version of the
    corpus fits any budget."""
    pytest.importorskip("tokenizers")
    corpus = write_corpus(tmp_path)
    run = {"q": [{"doc_id": "d1", "chunk_id": "d1#9", "start": 5000, "end": 9000},
                 {"doc_id": "d2", "chunk_id": "d2#0", "start": 0, "end": 33}]}
    golden = [{"id": "q", "query": "x", "relevant": ["d2"]}]
    with pytest.raises(InputError, match="past|beyond|end"):
        evaluate_run(golden, run, metrics="hit@12t", corpus=corpus, tokenizer="minilm")


def test_a_retrievers_dict_hits_keep_their_offsets() -> None:
    """coerce_hit (http:, python:, command retrievers) drops start/end (and length): a chunk hit
    {"doc_id", "start", "end"} becomes a whole-document hit, which overlaps every span."""
    hit = coerce_hit({"doc_id": "d1", "chunk_id": "d1#2", "start": 60, "end": 106, "length": 8, "score": 2.0})
    assert (hit.start, hit.end, hit.length) == (60, 106, 8)


def test_a_quoted_span_whose_text_shrank_is_relocated_not_stale() -> None:
    """Contract 1: with a quote too, when the text moved the quote is looked for in the whole text.
    Offsets past a shortened text return 'stale' before the quote is tried."""
    old = "x" * 200 + " " + QUOTE
    span = Span(201, 201 + len(QUOTE), QUOTE)
    assert old[span.start:span.end] == QUOTE
    places, why, moved = place_span(span, QUOTE + " now")
    assert (places, why, moved) == (((0, len(QUOTE)),), None, True)


def test_a_tokenizer_json_that_pads_does_not_count_its_padding(tmp_path: Path) -> None:
    """_Pieces turns truncation off but not padding: a tokenizer.json saved with padding (ONNX
    exports often are) counts every hit as the batch's longest text, or as the fixed pad length.
    retrieve/cross_encoder.py and retrieve/minilm.py call no_padding(); evaluation/tokens.py does not."""
    pytest.importorskip("tokenizers")
    from ragauge.models.tokens import open_tokenizer

    plain = open_tokenizer("minilm")
    raw = plain._tokenizer._tokenizer  # type: ignore[attr-defined]
    raw.enable_padding(pad_id=0, pad_token="[PAD]", length=512)
    raw.save(str(tmp_path / "tokenizer.json"))
    padded = open_tokenizer(f"hf:{tmp_path}")
    texts = ["one", "one two three four five six seven eight"]
    assert padded.count(texts) == open_tokenizer("minilm").count(texts)


def test_golden_validate_with_a_run_passes_its_corpus_to_the_power_check(tmp_path: Path) -> None:
    """golden validate --corpus C --run R: the span check reads C, but power(golden, run, k=k) scores
    the run without it, so a quoted span stops the command with 'pass the corpus (--corpus PATH)'."""
    from click.testing import CliRunner

    from ragauge.cli.main import cli

    corpus = write_corpus(tmp_path)
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps({"id": "q", "query": "fix", "relevant": [{"doc": "d1", "quote": QUOTE}]}) + "\n")
    run = tmp_path / "run.jsonl"
    run.write_text(json.dumps({"id": "q", "hits": hits()}) + "\n")
    result = CliRunner().invoke(cli, ["golden", "validate", str(golden), "--corpus", str(corpus), "--run", str(run)])
    assert "--corpus PATH" not in result.output, result.output


def test_stale_synthetic_spans_do_not_abort_the_real_questions(tmp_path: Path) -> None:
    """_score raises 'every question's span labels are stale' for the half it is given: when every
    synthetic question's span is stale the whole evaluation stops, though the real ones resolve
    (no title, so the title shift of the first finding plays no part)."""
    corpus = write_corpus(tmp_path, title="")
    golden = [{"id": "real", "query": "fix", "relevant": [{"doc": "d1", "quote": QUOTE}]},
              {"id": "llm", "query": "fix", "relevant": [{"doc": "d1", "quote": "nowhere in the text"}],
               "source": "synthetic"}]
    got = evaluate_run(golden, {"real": hits(), "llm": hits()}, metrics="mrr", corpus=corpus)
    assert got.summary == {"mrr": 0.5}


def test_a_chunk_outside_the_span_is_not_diagnosed_as_an_id_scheme_mismatch_or_not_retrieved(tmp_path: Path) -> None:
    """Every hit of the labelled document lies outside its span: explain_zeros sees the renamed ids
    and says loudly that the run and the golden set use different id schemes, and the failure
    pattern says 'not retrieved at all' (a recall problem) though the document was retrieved."""
    corpus = write_corpus(tmp_path, title="")
    golden = [{"id": "q", "query": "fix", "relevant": [{"doc": "d1", "quote": QUOTE}]}]
    got = evaluate_run(golden, {"q": hits()[:1]}, metrics="hit@1", corpus=corpus)
    assert not [w for w in got.warnings if "id scheme" in w], got.warnings
    failure = got.queries[0].failure
    assert failure is None or failure.primary != "not-retrieved"
