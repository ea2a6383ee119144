"""Haystack components and pipelines as retrievers, against haystack-ai's real InMemoryDocumentStore
(hs_app)."""

from __future__ import annotations

from typing import Any

import pytest

import ragauge
from ragauge.errors import InputError
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.frameworks.conftest import need
from tests.retrieve.frameworks.corpus import GOLDEN, questions

APP = "python:tests.retrieve.frameworks.hs_app"
FETCH = 8


@pytest.fixture(scope="module")
def app() -> Any:
    need("haystack", "haystack-ai")
    from tests.retrieve.frameworks import hs_app

    return hs_app


def ran(spec: Any, **options: Any) -> dict[str, list[tuple[Any, Any, Any]]]:
    run = ragauge.run_retriever(str(GOLDEN), spec, fetch=options.pop("fetch", FETCH), concurrency=4, **options)
    out = {}
    for result in run.results():
        assert result.error is None, result.error
        out[result.id] = [(h.doc_id, h.chunk_id, h.score) for h in result.hits]
    return out


def triples(docs: list[Any], key: str = "doc_id") -> list[tuple[Any, Any, Any]]:
    return [(d.meta[key] if key != "id" else d.id, d.id, d.score) for d in docs]


def test_a_bm25_component_is_run_with_top_k_n(app: Any) -> None:
    got = ran(f"{APP}:bm25")
    for q in questions():
        expected = triples(app.bm25.run(query=q["query"], top_k=FETCH)["documents"])
        assert got[q["id"]] == expected and len(expected) == FETCH


def test_a_pipeline_gets_the_question_and_top_k(app: Any) -> None:
    got = ran(f"{APP}:pipeline")
    for q in questions()[:10]:
        out = app.pipeline.run({"embedder": {"text": q["query"]}, "retriever": {"top_k": FETCH}})
        assert got[q["id"]] == triples(out["retriever"]["documents"])
    described = open_retriever(f"{APP}:pipeline").describe()
    assert described["call"] == "run({embedder.text: query, retriever.top_k: n})" and described["k"] == "n"


def test_evaluate_scores_the_framework_answers(app: Any) -> None:
    answers = {q["id"]: [d.meta["doc_id"] for d in app.bm25.run(query=q["query"], top_k=FETCH)["documents"]]
               for q in questions()}
    via_spec = ragauge.evaluate(str(GOLDEN), f"{APP}:bm25", k=[1, 5], fetch=FETCH)
    assert via_spec.summary == ragauge.evaluate_run(str(GOLDEN), answers, k=[1, 5], fetch=FETCH).summary
    assert via_spec.summary["hit@5"] > 0.5


def test_doc_id_key(app: Any) -> None:
    q = questions()[0]
    docs = app.bm25.run(query=q["query"], top_k=FETCH)["documents"]
    assert [h[0] for h in ran(f"{APP}:bm25", doc_id_key="file_path")[q["id"]]] == [d.meta["file_path"] for d in docs]
    assert [h[0] for h in ran(f"{APP}:bm25", doc_id_key="id")[q["id"]]] == [d.id for d in docs]
    with pytest.raises(InputError) as info:
        ran(f"{APP}:bm25", doc_id_key="source")
    assert "no metadata key 'source': its metadata keys are 'doc_id', 'file_path'; its own ids: id 'hs-" \
        in info.value.message


def test_unusable_components_and_pipelines_say_what_to_do(app: Any) -> None:
    with pytest.raises(InputError, match="takes a query embedding, not the question's text") as info:
        open_retriever(f"{APP}:dense")
    assert "text embedder" in (info.value.hint or "")
    with pytest.raises(InputError, match="exactly one component whose 'documents' the Pipeline returns; it has a, b"):
        open_retriever(f"{APP}:two_outputs")
    with pytest.raises(InputError, match="InMemoryDocumentStore is a Haystack object ragauge cannot search with"):
        open_retriever(f"{APP}:store")


def test_describe(app: Any) -> None:
    opened = open_retriever(f"{APP}:bm25")
    try:
        assert opened.describe() == {
            "callable": "tests.retrieve.frameworks.hs_app:bm25", "framework": "haystack",
            "class": "haystack.components.retrievers.in_memory.bm25_retriever.InMemoryBM25Retriever",
            "kind": "component", "call": "run(query=query, top_k=n)", "k": "n", "async": False,
            "doc_id_key": ["doc_id", "source_id", "file_path"]}
    finally:
        opened.close()
