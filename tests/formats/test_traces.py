"""OpenInference traces as run-line calls (formats/traces.py), on small hand-written OTLP JSON: calls
and stages, nested spans, document ids, and the refusals (file and line, what is wrong, how to fix)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.traces import read_traces
from tests.formats.otlp_files import documents, request, reranker, retriever, span, write


def test_one_retriever_span_is_one_call_without_a_stage(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", "VPN certificate expired", [("d2", 0.9), ("d7", 0.5)],
                                                          start=0, end=12_500_000)]))
    (t,) = read_traces([path]).trajectories
    assert t.line("q2") == {"id": "q2", "latency_ms": 12.5, "calls": [
        {"query": "VPN certificate expired", "hits": [{"doc_id": "d2", "score": 0.9}, {"doc_id": "d7", "score": 0.5}],
         "latency_ms": 12.5, "tool": "Retriever"}]}


def test_a_reranker_makes_stages_and_calls_follow_start_time(tmp_path: Path) -> None:
    q = "How do I reset my password?"
    spans = [  # written in the order spans end, as an SDK exports them
        reranker("3", q, [("d9", 0.4), ("d1", 0.3)], [("d1", 0.99), ("d9", 0.1)], parent="1", start=30_000_000,
                 end=38_000_000, name="CrossEncoderRerank"),
        retriever("2", q, [("d9", 0.4), ("d1", 0.3)], parent="1", start=2_000_000, end=25_000_000),
        span("1", "RAG pipeline", kind="CHAIN", input__value=q, start=0, end=40_000_000),
    ]
    path = write(tmp_path / "t.jsonl", request(spans[:1]), request(spans[1:]))
    (t,) = read_traces([path]).trajectories
    assert t.latency_ms == 40.0 and t.query == q and t.loc == f"{path}:2"
    first, rerank = t.calls
    assert first == {"query": q, "hits": [{"doc_id": "d9", "score": 0.4}, {"doc_id": "d1", "score": 0.3}],
                     "latency_ms": 23.0, "tool": "Retriever", "stage": "first"}
    assert rerank == {"query": q, "hits": [{"doc_id": "d1", "score": 0.99}, {"doc_id": "d9", "score": 0.1}],
                      "latency_ms": 8.0, "tool": "CrossEncoderRerank", "stage": "rerank"}


def test_a_retriever_inside_a_retriever_is_part_of_its_call(tmp_path: Path) -> None:
    spans = [span("1", "agent", kind="AGENT", input__value="Printer out of toner", end=90),
             retriever("2", "printer toner", [("d4", 1.0)], parent="1", start=10, end=40, name="EnsembleRetriever"),
             retriever("3", "printer toner", [("d4", 2.0)], parent="2", start=11, end=20, name="BM25"),
             span("4", "llm", kind="LLM", parent="1", start=41, end=50),
             retriever("5", "toner cartridge order", [("d8", 1.0)], parent="1", start=51, end=80, name="BM25")]
    (t,) = read_traces([write(tmp_path / "t.jsonl", request(spans))]).trajectories
    assert [(c["tool"], c["query"]) for c in t.calls] == [("EnsembleRetriever", "printer toner"),
                                                          ("BM25", "toner cartridge order")]


def test_document_ids_from_metadata_keep_the_chunk_id(tmp_path: Path) -> None:
    docs = [("node-1", 0.5, {"source": "docs/a.md", "page": 2}), (None, None, {"source": "docs/b.md"})]
    path = write(tmp_path / "t.jsonl", request([retriever("1", "q", docs)]))
    (t,) = read_traces([path], doc_id_key="source").trajectories
    assert t.calls[0]["hits"] == [{"doc_id": "docs/a.md", "chunk_id": "node-1", "score": 0.5}, {"doc_id": "docs/b.md"}]
    with pytest.raises(InputError, match=r"document 1 has no document.id \(its metadata keys: source\)") as caught:
        read_traces([path])
    assert caught.value.where == f"{path}:1" and "doc_id_key=KEY" in str(caught.value.hint)
    with pytest.raises(InputError, match=r"no document id under metadata key 'doc_id' \(its metadata keys: page, "
                                         r"source\)"):
        read_traces([path], doc_id_key="doc_id")


def test_chunk_ids_keep_document_id_as_the_chunk(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", "How do I reset my password?",
                                                          [("d9#0", 0.9), ("d1#4", 0.8), ("d1#2", 0.7)])]))
    (t,) = read_traces([path], chunk_ids=True).trajectories
    assert t.calls[0]["hits"] == [{"chunk_id": "d9#0", "score": 0.9}, {"chunk_id": "d1#4", "score": 0.8},
                                  {"chunk_id": "d1#2", "score": 0.7}]
    with pytest.raises(InputError, match="give one"):
        read_traces([path], chunk_ids=True, doc_id_key="source")


@pytest.mark.parametrize(("score", "said"), [({"doubleValue": "NaN"}, "finite"),
                                             ({"doubleValue": "Infinity"}, "finite"),
                                             ({"stringValue": "0.5"}, "document.score"),
                                             ({"boolValue": True}, "document.score")])
def test_a_score_that_is_not_a_finite_number_is_refused(tmp_path: Path, score: dict, said: str) -> None:
    raw = retriever("1", "q", [("d1", 0.5)])
    raw["attributes"].append({"key": "retrieval.documents.1.document.id", "value": {"stringValue": "d2"}})
    raw["attributes"].append({"key": "retrieval.documents.1.document.score", "value": score})
    path = write(tmp_path / "t.jsonl", request([span("9", "other", trace="f" * 32)]), request([raw]))
    with pytest.raises(InputError, match=said) as caught:
        read_traces([path])
    assert caught.value.where == f"{path}:2"


def test_dropped_attributes_and_missing_documents_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", request([retriever("1", "q", [("d1", 0.5)], dropped=12)]))
    with pytest.raises(InputError, match="lost 12 attribute") as caught:
        read_traces([path])
    assert "OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT" in str(caught.value.hint)
    raw = span("1", "r", kind="RETRIEVER", input__value="q",
               **{k: v for k, v in documents("retrieval.documents", [("a",), ("b",), ("c",)]).items() if ".0." not in
                  k.replace("__", ".")})
    with pytest.raises(InputError, match="no retrieval.documents.0 among its 2 documents"):
        read_traces([write(tmp_path / "t.jsonl", request([raw]))])


def test_a_metadata_that_is_not_a_json_object_is_refused(tmp_path: Path) -> None:
    raw = retriever("1", "q", [("d1", 0.5)])
    raw["attributes"].append({"key": "retrieval.documents.0.document.metadata", "value": {"stringValue": '{"sour'}})
    with pytest.raises(InputError, match="not JSON"):
        read_traces([write(tmp_path / "t.jsonl", request([raw]))], doc_id_key="source")
