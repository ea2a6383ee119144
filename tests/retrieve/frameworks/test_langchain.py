"""LangChain objects as retrievers, against langchain-core's real InMemoryVectorStore (lc_app)."""

from __future__ import annotations

from typing import Any

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.frameworks.conftest import need
from tests.retrieve.frameworks.corpus import GOLDEN, questions

APP = "python:tests.retrieve.frameworks.lc_app"
FETCH = 7


@pytest.fixture(scope="module")
def app() -> Any:
    need("langchain_core", "langchain-core")
    from tests.retrieve.frameworks import lc_app

    return lc_app


def ran(spec: Any, **options: Any) -> dict[str, list[tuple[Any, Any, Any]]]:
    run = ragauge.run_retriever(str(GOLDEN), spec, fetch=options.pop("fetch", FETCH), concurrency=4, **options)
    out = {}
    for result in run.results():
        assert result.error is None, result.error
        out[result.id] = [(h.doc_id, h.chunk_id, h.score) for h in result.hits]
    return out


def test_vector_store_hits_are_what_similarity_search_with_score_returns(app: Any) -> None:
    got = ran(f"{APP}:store")
    for q in questions():
        expected = [(d.metadata["doc_id"], d.id, score) for d, score in
                    app.store.similarity_search_with_score(q["query"], k=FETCH)]
        assert got[q["id"]] == expected and len(expected) == FETCH


def test_evaluate_scores_the_framework_answers(app: Any) -> None:
    direct = {q["id"]: [d.metadata["doc_id"] for d in app.keyword.invoke(q["query"])][:4] for q in questions()}
    via_spec = ragauge.evaluate(str(GOLDEN), f"{APP}:keyword", k=[1, 4], fetch=4)
    by_hand = ragauge.evaluate_run(str(GOLDEN), direct, k=[1, 4], fetch=4)
    assert via_spec.summary == by_hand.summary and via_spec.summary["hit@4"] > 0.3


def test_retriever_is_asked_for_the_run_depth_not_its_own_k(app: Any) -> None:
    assert app.retriever.search_kwargs == {"k": 3}
    got = ran(f"{APP}:retriever")
    for q in questions():
        deeper = app.store.as_retriever(search_kwargs={"k": FETCH}).invoke(q["query"])
        assert got[q["id"]] == [(d.metadata["doc_id"], d.id, None) for d in deeper]
    assert app.retriever.search_kwargs == {"k": 3}, "the user's retriever must not change"


def test_a_k_field_is_set_to_the_depth(app: Any) -> None:
    got = ran(f"{APP}:keyword", fetch=9)
    q = questions()[0]
    assert got[q["id"]] == [(d.metadata["doc_id"], None, None)
                            for d in app.keyword.model_copy(update={"k": 9}).invoke(q["query"])]
    assert app.keyword.k == 4


def test_a_factory_is_called_once_to_build_the_retriever(app: Any) -> None:
    assert ran(f"{APP}:make_retriever") == ran(f"{APP}:retriever")


def test_a_runnable_keeps_its_own_depth_and_says_so(app: Any) -> None:
    got = ran(f"{APP}:chain")
    q = questions()[1]
    assert got[q["id"]] == [(d.metadata["doc_id"], d.id, None) for d in app.retriever.invoke(q["query"])]
    opened = open_retriever(f"{APP}:chain")
    assert opened.describe()["kind"] == "Runnable" and "as configured" in opened.describe()["k"]


def test_an_async_only_store_is_awaited(app: Any) -> None:
    assert ran(f"{APP}:async_store") == ran(f"{APP}:store")
    assert open_retriever(f"{APP}:async_store").describe()["async"] is True


def test_describe_names_the_framework_and_class(app: Any) -> None:
    described = open_retriever(f"{APP}:store").describe()
    assert described == {"callable": "tests.retrieve.frameworks.lc_app:store", "framework": "langchain",
                         "class": "langchain_core.vectorstores.in_memory.InMemoryVectorStore", "kind": "VectorStore",
                         "call": "similarity_search_with_score(query, k=n)", "k": "n", "async": False,
                         "doc_id_key": ["doc_id", "source"]}
    assert open_retriever(f"{APP}:retriever").describe()["call"] == "invoke(query) with search_kwargs['k'] = n"


def test_the_object_itself_works_from_python(app: Any) -> None:
    run = ragauge.run_retriever(str(GOLDEN), app.store, fetch=3)
    assert run.meta["retriever"] == "python:langchain_core.vectorstores.in_memory:InMemoryVectorStore"
    q = questions()[2]
    assert [h.doc_id for h in run.result(q["id"]).hits] == [
        d.metadata["doc_id"] for d in app.store.similarity_search(q["query"], k=3)]


def test_doc_id_key_names_the_metadata_key(app: Any) -> None:
    q = questions()[0]
    docs = app.store.similarity_search(q["query"], k=FETCH)
    assert [h[0] for h in ran(f"{APP}:store", doc_id_key="source")[q["id"]]] == [d.metadata["source"] for d in docs]
    assert [h[0] for h in ran(f"{APP}:store", doc_id_key="id")[q["id"]]] == [d.id for d in docs]


def test_a_missing_key_says_which_keys_exist(app: Any) -> None:
    with pytest.raises(InputError) as info:
        ran(f"{APP}:store", doc_id_key="page_id")
    assert ("no metadata key 'page_id': its metadata keys are 'doc_id', 'source', 'title'; its own ids: id 'chunk-"
            in info.value.message)
    with pytest.raises(InputError) as info:
        ran(f"{APP}:untagged")
    assert "no metadata keys 'doc_id' or 'source' (the LangChain defaults): its metadata keys are 'page', 'title'" \
        in info.value.message and "--doc-id-key" in (info.value.hint or "")


def test_the_cli_reports_a_missing_key_without_a_traceback(app: Any) -> None:
    r = CliRunner().invoke(cli, ["eval", str(GOLDEN), "--retriever", f"{APP}:untagged", "-k", "3"])
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "its metadata keys are 'page', 'title'" in r.stderr and "--doc-id-key" in r.stderr
    r = CliRunner().invoke(cli, ["eval", str(GOLDEN), "--retriever", f"{APP}:untagged", "-k", "3",
                                 "--doc-id-key", "page", "--format", "json"])
    assert r.exit_code == 0, r.output


def test_other_langchain_objects_are_refused_with_what_works(app: Any) -> None:
    with pytest.raises(InputError, match="DeterministicFakeEmbedding is a LangChain object ragauge cannot search "
                                         "with: it supports a VectorStore, a BaseRetriever"):
        open_retriever(f"{APP}:EMBEDDING")
