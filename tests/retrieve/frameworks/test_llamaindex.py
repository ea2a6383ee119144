"""LlamaIndex objects as retrievers, against llama-index-core's real VectorStoreIndex (li_app)."""

from __future__ import annotations

from typing import Any

import pytest

import ragauge
from ragauge.errors import InputError
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.frameworks.conftest import need
from tests.retrieve.frameworks.corpus import GOLDEN, questions

APP = "python:tests.retrieve.frameworks.li_app"
FETCH = 6


@pytest.fixture(scope="module")
def app() -> Any:
    need("llama_index.core", "llama-index-core")
    from tests.retrieve.frameworks import li_app

    return li_app


def ran(spec: Any, **options: Any) -> dict[str, list[tuple[Any, Any, Any]]]:
    run = ragauge.run_retriever(str(GOLDEN), spec, fetch=options.pop("fetch", FETCH), concurrency=4, **options)
    out = {}
    for result in run.results():
        assert result.error is None, result.error
        out[result.id] = [(h.doc_id, h.chunk_id, h.score) for h in result.hits]
    return out


def direct(app: Any, query: str, key: str = "section") -> list[tuple[Any, Any, Any]]:
    found = app.index.as_retriever(similarity_top_k=FETCH).retrieve(query)
    return [(n.node.metadata[key] if key != "ref_doc_id" else n.node.ref_doc_id, n.node.node_id, n.score)
            for n in found]


def test_an_index_is_searched_with_similarity_top_k_n(app: Any) -> None:
    got = ran(f"{APP}:index", doc_id_key="section")
    for q in questions():
        assert got[q["id"]] == direct(app, q["query"]) and len(got[q["id"]]) == FETCH


def test_a_retriever_is_asked_for_the_depth_on_a_copy(app: Any) -> None:
    assert ran(f"{APP}:retriever", doc_id_key="section") == ran(f"{APP}:index", doc_id_key="section")
    assert app.retriever.similarity_top_k == 2, "the user's retriever must not change"


def test_the_default_doc_id_is_the_source_document(app: Any) -> None:
    got = ran(f"{APP}:retriever")
    q = questions()[3]
    assert got[q["id"]] == direct(app, q["query"], key="ref_doc_id")
    assert got[q["id"]][0][0] == app.index.as_retriever(similarity_top_k=1).retrieve(q["query"])[0].node.ref_doc_id


def test_evaluate_scores_the_framework_answers(app: Any) -> None:
    answers = {q["id"]: [h[0] for h in direct(app, q["query"])] for q in questions()}
    via_spec = ragauge.evaluate(str(GOLDEN), f"{APP}:index", k=[1, 5], fetch=FETCH, doc_id_key="section")
    assert via_spec.summary == ragauge.evaluate_run(str(GOLDEN), answers, k=[1, 5], fetch=FETCH).summary
    assert via_spec.summary["hit@5"] > 0.3  # lexical embeddings of the helpdesk: a real ranking, not noise


def test_doc_id_key_id_is_the_node_id_and_a_missing_key_lists_the_keys(app: Any) -> None:
    q = questions()[0]
    assert [h[0] for h in ran(f"{APP}:index", doc_id_key="id")[q["id"]]] == [h[1] for h in direct(app, q["query"])]
    with pytest.raises(InputError) as info:
        ran(f"{APP}:index", doc_id_key="file_name")
    assert ("no metadata key 'file_name': its metadata keys are 'section', 'title'; its own ids: ref_doc_id "
            in info.value.message)


def test_describe_and_the_object_itself(app: Any) -> None:
    opened = open_retriever(f"{APP}:retriever")
    try:
        assert opened.describe() == {
            "callable": "tests.retrieve.frameworks.li_app:retriever", "framework": "llamaindex",
            "class": "llama_index.core.indices.vector_store.retrievers.retriever.VectorIndexRetriever",
            "kind": "BaseRetriever", "call": "retrieve(query) with similarity_top_k = n", "k": "n", "async": False,
            "doc_id_key": ["doc_id", "ref_doc_id"]}
    finally:
        opened.close()
    run = ragauge.run_retriever(str(GOLDEN), app.index, fetch=FETCH, doc_id_key="section")
    q = questions()[5]
    assert [h.doc_id for h in run.result(q["id"]).hits] == [h[0] for h in direct(app, q["query"])]


def test_other_llamaindex_objects_are_refused(app: Any) -> None:
    with pytest.raises(InputError, match="TextNode is a LlamaIndex object ragauge cannot search with"):
        ragauge.run_retriever(str(GOLDEN), app.nodes[0])
