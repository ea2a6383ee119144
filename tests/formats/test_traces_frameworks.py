"""Traces from the real OpenInference instrumentors, round-tripped: a LangChain and a LlamaIndex
application (tests/retrieve/frameworks: lc_app, li_app) traced with the OpenTelemetry SDK, their spans
written as the Collector's file exporter writes them (otlp_files.collector_lines), imported and scored.
The document ids, scores and order that come back are those the framework returned, and the scores
equal those of the same answers given directly."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ragauge
from ragauge.errors import InputError
from tests.formats.otlp_files import collector_lines
from tests.retrieve.frameworks.conftest import need
from tests.retrieve.frameworks.corpus import GOLDEN, questions

QUESTIONS = questions()


class Tracing:
    """An SDK tracer provider with an in-memory exporter; ``write`` puts the finished spans in a file."""

    def __init__(self, limit: int | None = None) -> None:
        from opentelemetry.sdk.trace import SpanLimits, TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        self.exporter = InMemorySpanExporter()
        self.provider = TracerProvider(span_limits=SpanLimits(max_span_attributes=limit) if limit else None)
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))

    def write(self, path: Path) -> Path:
        path.write_text(collector_lines(self.exporter.get_finished_spans()), encoding="utf-8")
        self.exporter.clear()
        return path


@pytest.fixture
def langchain() -> Iterator[tuple[Any, Tracing]]:
    need("langchain_core", "langchain-core")
    need("openinference.instrumentation.langchain", "openinference-instrumentation-langchain")
    from openinference.instrumentation.langchain import LangChainInstrumentor

    from tests.retrieve.frameworks import lc_app

    tracing = Tracing()
    instrumentor = LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=tracing.provider)
    try:
        yield lc_app, tracing
    finally:
        instrumentor.uninstrument()


@pytest.fixture
def llamaindex() -> Iterator[tuple[Any, Tracing]]:
    need("llama_index.core", "llama-index-core")
    need("openinference.instrumentation.llama_index", "openinference-instrumentation-llama-index")
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    from tests.retrieve.frameworks import li_app  # the index is built before tracing starts

    tracing = Tracing()
    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=tracing.provider)
    try:
        yield li_app, tracing
    finally:
        instrumentor.uninstrument()


def test_langchain_retriever_traces_score_as_its_answers(langchain: tuple[Any, Tracing], tmp_path: Path) -> None:
    app, tracing = langchain
    direct = {}
    for q in QUESTIONS:
        direct[q["id"]] = [d.metadata["doc_id"] for d in app.keyword.invoke(q["query"])]
    path = tracing.write(tmp_path / "traces.jsonl")
    imported = ragauge.import_traces(path, GOLDEN, doc_id_key="doc_id", output=tmp_path / "run.jsonl")
    assert {r.id: [h.doc_id for h in r.hits] for r in imported.results} == direct
    assert all(len(r.calls) == 1 and r.calls[0].tool == "KeywordRetriever" and r.calls[0].stage is None
               and r.latency_ms is not None and r.latency_ms > 0 for r in imported.results)
    by_hand = ragauge.evaluate_run(GOLDEN, direct, k=[1, 4])
    assert ragauge.evaluate_run(GOLDEN, imported.run, k=[1, 4]).summary == by_hand.summary
    assert ragauge.evaluate_run(GOLDEN, tmp_path / "run.jsonl", k=[1, 4]).summary == by_hand.summary
    assert by_hand.summary["hit@4"] > 0.3
    with pytest.raises(InputError, match="has no document.id"):  # LangChain documents carry no id in a trace
        ragauge.import_traces(path, GOLDEN)


def test_a_langchain_agent_that_searches_twice_is_one_trajectory(langchain: tuple[Any, Tracing],
                                                                 tmp_path: Path) -> None:
    from langchain_core.runnables import RunnableLambda

    app, tracing = langchain

    def agent(question: str) -> list[Any]:
        words = question.split()
        half = len(words) // 2
        return app.keyword.invoke(" ".join(words[:half])) + app.keyword.invoke(" ".join(words[half:]))

    from openinference.instrumentation import using_session

    chain = RunnableLambda(agent)
    direct, asked = {}, {}
    for q in QUESTIONS[:10]:
        with using_session(f"session-{q['id']}" if q["id"] == QUESTIONS[0]["id"] else q["id"]):
            answer = chain.invoke(q["query"], config={"metadata": {"question_id": q["id"]}})
        direct[q["id"]] = [d.metadata["doc_id"] for d in answer]
        words = q["query"].split()
        asked[q["id"]] = [" ".join(words[:len(words) // 2]), " ".join(words[len(words) // 2:])]
    path = tracing.write(tmp_path / "traces.jsonl")
    by_text = ragauge.import_traces(path, GOLDEN, doc_id_key="doc_id")
    by_id = ragauge.import_traces(path, GOLDEN, doc_id_key="doc_id", id_attribute="metadata.question_id")
    assert by_text.results == by_id.results
    by_session = ragauge.import_traces(path, GOLDEN, doc_id_key="doc_id", id_attribute="session.id",
                                       skip_unmatched=True)
    assert by_session.results == by_id.results[1:] and len(by_session.unmatched) == 1
    assert {r.id: [c.query for c in r.calls] for r in by_id.results} == asked
    assert {r.id: [h.doc_id for h in r.hits] for r in by_id.results} == direct
    for r in by_id.results:
        assert r.latency_ms is not None and r.latency_ms >= sum(c.latency_ms or 0 for c in r.calls) * 0.999
    golden = ragauge.load_golden(GOLDEN)
    asked_golden = [q for q in golden if q.id in direct]
    assert (ragauge.evaluate_run(asked_golden, by_id.run, k=[5, 10]).summary
            == ragauge.evaluate_run(asked_golden, direct, k=[5, 10]).summary)


def _reranker() -> Any:
    """A LlamaIndex node postprocessor that reranks by words shared with the query, reporting itself
    as LlamaIndex's own rerankers do (ReRankStartEvent, ReRankEndEvent)."""
    from llama_index.core.instrumentation import get_dispatcher
    from llama_index.core.instrumentation.events.rerank import ReRankEndEvent, ReRankStartEvent
    from llama_index.core.postprocessor.types import BaseNodePostprocessor
    from llama_index.core.schema import NodeWithScore, QueryBundle

    dispatcher = get_dispatcher(__name__)

    class WordRerank(BaseNodePostprocessor):
        top_n: int = 3

        def _postprocess_nodes(self, nodes: list[NodeWithScore],
                               query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
            assert query_bundle is not None
            dispatcher.event(ReRankStartEvent(query=query_bundle, nodes=nodes, top_n=self.top_n, model_name="words"))
            words = set(query_bundle.query_str.lower().split())
            scored = [NodeWithScore(node=n.node, score=float(len(words & set(n.node.get_content().lower().split()))))
                      for n in nodes]
            out = sorted(scored, key=lambda n: -(n.score or 0.0))[: self.top_n]
            dispatcher.event(ReRankEndEvent(nodes=out))
            return out

    return WordRerank()


def test_llamaindex_retrieve_and_rerank_traces_give_both_stages(llamaindex: tuple[Any, Tracing],
                                                                tmp_path: Path) -> None:
    from llama_index.core.llms import MockLLM
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers.no_text import NoText

    app, tracing = llamaindex
    retriever = app.index.as_retriever(similarity_top_k=6)
    rerank = _reranker()
    engine = RetrieverQueryEngine(retriever, response_synthesizer=NoText(llm=MockLLM()), node_postprocessors=[rerank])
    first, final = {}, {}
    for q in QUESTIONS:
        nodes = engine.query(q["query"]).source_nodes
        final[q["id"]] = [(n.node.metadata["section"], n.node.node_id, n.score) for n in nodes]
    path = tracing.write(tmp_path / "traces.jsonl")
    for q in QUESTIONS:  # the first stage's answers asked again, outside the engine (and outside the file)
        first[q["id"]] = [(n.node.metadata["section"], n.node.node_id, n.score) for n in retriever.retrieve(q["query"])]
    imported = ragauge.import_traces(path, GOLDEN, doc_id_key="section")
    assert len(imported.results) == len(QUESTIONS) and not imported.skipped
    for r in imported.results:
        assert [(c.stage, c.tool) for c in r.calls] == [("first", "VectorIndexRetriever.retrieve"),
                                                        ("rerank", "WordRerank._postprocess_nodes")]
        assert [(h.doc_id, h.chunk_id, h.score) for h in r.calls[0].hits] == first[r.id]
        assert [(h.doc_id, h.chunk_id, h.score) for h in r.calls[1].hits] == final[r.id]
        assert r.hits == r.calls[1].hits  # the answer is what the application used: the reranked list
    reranked = {qid: [doc for doc, _, _ in hits] for qid, hits in final.items()}
    assert (ragauge.evaluate_run(GOLDEN, imported.run, k=[1, 3]).summary
            == ragauge.evaluate_run(GOLDEN, reranked, k=[1, 3]).summary)
    by_node = ragauge.import_traces(path, GOLDEN)  # document.id: LlamaIndex's node ids
    assert [h.doc_id for h in by_node.results[0].hits] == [node for _, node, _ in final[QUESTIONS[0]["id"]]]


def test_spans_over_the_attribute_limit_are_refused(tmp_path: Path) -> None:
    need("llama_index.core", "llama-index-core")
    need("openinference.instrumentation.llama_index", "openinference-instrumentation-llama-index")
    from openinference.instrumentation.llama_index import LlamaIndexInstrumentor

    from tests.retrieve.frameworks import li_app

    tracing = Tracing(limit=12)  # 6 documents of 4 attributes each do not fit
    instrumentor = LlamaIndexInstrumentor()
    instrumentor.instrument(tracer_provider=tracing.provider)
    try:
        li_app.index.as_retriever(similarity_top_k=6).retrieve(QUESTIONS[0]["query"])
    finally:
        instrumentor.uninstrument()
    path = tracing.write(tmp_path / "traces.jsonl")
    with pytest.raises(InputError, match="attribute.*over the tracer's limit") as caught:
        ragauge.import_traces(path, GOLDEN, doc_id_key="section")
    assert caught.value.where is not None and caught.value.where.startswith(f"{path}:")
