"""The elasticsearch: and opensearch: retrievers against recorded contracts (tests/fixtures/
search_contracts, written from the engines' docs): a local server checks every request's method,
path, headers and body and replays the documented answers. Not a live server."""

from __future__ import annotations

import base64
import json
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.errors import InputError
from ragauge.models.embedders import HashEmbedder
from ragauge.retrieve.registry import open_retriever
from tests.retrieve.contracts import contract_server

ES_KEY = "VnVhQ2ZHY0JDZGJrUW0tZTVhT3g6dWkybHAyYXhUTm1zeWFrdzl0dk5udw=="
ES_KEY_ID, ES_KEY_SECRET = "VuaCfGcBCdbkQm-e5aOx", "ui2lp2axTNmsyakw9tvNnw"
OS_PASSWORD = "s3cret-Pa55word"
GOLDEN = [{"id": "q1", "query": "VPN certificate expired",
           "relevant": ["networking/vpn-error-codes#certificate-errors"]},
          {"id": "q2", "query": "printer paper jam E-301", "relevant": ["printers/error-codes#paper-handling-codes"]},
          {"id": "q3", "query": "reset my password", "relevant": ["accounts/account-lockout#overview"]}]
DOCS = ["networking/vpn-error-codes#certificate-errors", "networking/vpn-certificate-rotation#overview",
        "printers/error-codes#paper-handling-codes"]
ENV = ("ELASTIC_API_KEY", "ELASTIC_USERNAME", "ELASTIC_PASSWORD", "OPENSEARCH_USERNAME", "OPENSEARCH_PASSWORD")


@pytest.fixture(autouse=True)
def credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ELASTIC_API_KEY", ES_KEY)
    monkeypatch.setenv("OPENSEARCH_USERNAME", "reader")
    monkeypatch.setenv("OPENSEARCH_PASSWORD", OS_PASSWORD)


def run(spec: str, fetch: int = 5, **options: Any) -> Any:
    """One call at a time: a run stopped by a 4xx closes its client, and a second call still in
    flight would reach the contract server torn (a request without its body) and count as a
    violation the adapter did not commit."""
    return ragauge.run_retriever(GOLDEN, spec, fetch=fetch, concurrency=1, **options)


def searches(server: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in server["requests"] if r["path"].endswith("/_search")]


def secrets_absent(text: str) -> None:
    for secret in (ES_KEY, ES_KEY_ID, ES_KEY_SECRET, OS_PASSWORD, "wrong-Pa55word", "wrong-secret-1234",
                   base64.b64encode(f"reader:{OS_PASSWORD}".encode()).decode()):
        assert secret not in text


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch"])
def test_bm25_sends_the_documented_match_query_and_reads_the_hits(engine: str) -> None:
    with contract_server(engine, ["mapping_text", "search_bm25"]) as server:
        got = run(f"{engine}:{server['url']}/helpdesk?doc_id=doc_id", fetch=5)
    assert server["violations"] == []
    assert server["requests"][0]["path"] == "/helpdesk/_mapping/field/text", "the fields are checked first"
    bodies = [r["body"] for r in searches(server)]
    assert sorted(b["query"]["match"]["text"]["query"] for b in bodies) == sorted(q["query"] for q in GOLDEN)
    assert {b["size"] for b in bodies} == {5}
    assert [(h.doc_id, h.score) for h in got.result("q1").hits] == list(zip(DOCS, [7.2615, 5.1018, 2.0871]))


def test_a_raw_api_key_pair_is_sent_encoded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ELASTIC_API_KEY", f"{ES_KEY_ID}:{ES_KEY_SECRET}")
    with contract_server("elasticsearch", ["mapping_text", "search_bm25"]) as server:
        run(f"elasticsearch:{server['url']}/helpdesk?doc_id=doc_id")
    assert server["violations"] == [] and server["requests"][0]["headers"]["authorization"] == f"ApiKey {ES_KEY}"


def test_the_document_id_defaults_to_the_hit_id() -> None:
    with contract_server("elasticsearch", ["mapping_text", "search_ids_only"]) as server:
        got = run(f"elasticsearch:{server['url']}/helpdesk")
    assert server["violations"] == [] and [h.doc_id for h in got.result("q2").hits] == DOCS


def test_elasticsearch_knn_embeds_the_question_with_the_named_embedder() -> None:
    with contract_server("elasticsearch", ["mapping_embedding", "search_knn"]) as server:
        got = run(f"elasticsearch:{server['url']}/helpdesk?mode=knn&embedder=hash-256&doc_id=doc_id", fetch=4)
    assert server["violations"] == [] and [h.doc_id for h in got.result("q3").hits] == DOCS
    for request in searches(server):
        knn = request["body"]["knn"]
        question = next(q["query"] for q in GOLDEN if np.allclose(knn["query_vector"], HashEmbedder(256).embed(
            [q["query"]])[0], atol=1e-7))
        assert question and knn["k"] == 4 and knn["num_candidates"] == 100 and request["body"]["size"] == 4


def test_elasticsearch_knn_with_a_model_lets_the_engine_embed() -> None:
    with contract_server("elasticsearch", ["mapping_embedding", "search_knn_model"]) as server:
        retriever = open_retriever(f"elasticsearch:{server['url']}/helpdesk?mode=knn&model_id=my-e5-model&k=50"
                                   "&num_candidates=200&doc_id=doc_id")
        got = retriever.search("VPN certificate expired", 10)
        described = retriever.describe()
        retriever.close()
    assert server["violations"] == [] and [h.doc_id for h in got.hits] == DOCS
    builder = searches(server)[0]["body"]["knn"]
    assert builder["query_vector_builder"]["text_embedding"]["model_text"] == "VPN certificate expired"
    assert (builder["k"], builder["num_candidates"]) == (50, 200)
    assert described == {"engine": "elasticsearch", "url": server["url"], "index": "helpdesk", "mode": "knn",
                         "vector_field": "embedding", "k": 50, "model_id": "my-e5-model", "num_candidates": 200,
                         "doc_id": "doc_id", "chunk_id": None, "auth": "ApiKey from $ELASTIC_API_KEY"}


def test_elasticsearch_hybrid_is_an_rrf_retriever() -> None:
    with contract_server("elasticsearch", ["mapping_hybrid", "search_hybrid"]) as server:
        got = run(f"elasticsearch:{server['url']}/helpdesk?mode=hybrid&embedder=hash-256&rank_constant=20"
                  "&doc_id=doc_id", fetch=6)
    assert server["violations"] == [] and len(got.result("q1").hits) == 3
    rrf = searches(server)[0]["body"]["retriever"]["rrf"]
    assert rrf["rank_constant"] == 20 and rrf["rank_window_size"] == 6 and rrf["retrievers"][1]["knn"]["k"] == 6
    with pytest.raises(InputError, match="rank_window_size=3 is below the depth 6"):
        with contract_server("elasticsearch", ["mapping_hybrid"]) as server:
            open_retriever(f"elasticsearch:{server['url']}/helpdesk?mode=hybrid&embedder=hash-256"
                           "&rank_window_size=3").search("q", 6)


def test_opensearch_knn_neural_and_hybrid() -> None:
    with contract_server("opensearch", ["mapping_embedding", "search_knn"]) as server:
        run(f"opensearch:{server['url']}/helpdesk?mode=knn&embedder=hash-256&ef_search=100&doc_id=doc_id")
    assert server["violations"] == []
    assert searches(server)[0]["body"]["query"]["knn"]["embedding"]["method_parameters"] == {"ef_search": 100}
    with contract_server("opensearch", ["mapping_embedding", "search_neural"]) as server:
        run(f"opensearch:{server['url']}/helpdesk?mode=knn&model_id=aVeif4oB5Vm0Tdw8zYO2&doc_id=doc_id")
    assert server["violations"] == []
    with contract_server("opensearch", ["mapping_hybrid", "search_hybrid"]) as server:
        got = run(f"opensearch:{server['url']}/helpdesk?mode=hybrid&embedder=hash-256"
                  "&search_pipeline=nlp-search-pipeline&doc_id=doc_id")
    assert server["violations"] == [] and [h.doc_id for h in got.result("q2").hits] == DOCS
    with pytest.raises(InputError, match="OpenSearch hybrid search needs a search pipeline") as info:
        open_retriever("opensearch:http://127.0.0.1:9/helpdesk?mode=hybrid")
    assert "search_pipeline=" in (info.value.hint or "")


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch"])
def test_a_missing_index_is_named(engine: str) -> None:
    with contract_server(engine, ["index_not_found"]) as server:
        with pytest.raises(InputError) as info:
            open_retriever(f"{engine}:{server['url']}/nope")
    assert server["violations"] == []
    assert "index 'nope': the index does not exist (404 index_not_found_exception: no such index [nope])" \
        in info.value.message


@pytest.mark.parametrize("engine, env, wrong", [("elasticsearch", "ELASTIC_API_KEY",
                                                 base64.b64encode(b"VuaCfGcBCdbkQm-e5aOx:wrong-secret-1234").decode()),
                                                ("opensearch", "OPENSEARCH_PASSWORD", "wrong-Pa55word")])
def test_a_refused_login_says_so_without_the_key(engine: str, env: str, wrong: str, tmp_path: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(env, wrong)
    golden = tmp_path / "golden.jsonl"
    golden.write_text(json.dumps(GOLDEN[0]) + "\n")
    with contract_server(engine, ["unauthorized"]) as server:
        with pytest.raises(InputError) as info:
            open_retriever(f"{engine}:{server['url']}/helpdesk")
        r = CliRunner().invoke(cli, ["run", str(golden), "--retriever", f"{engine}:{server['url']}/helpdesk",
                                     "-o", str(tmp_path / "run.jsonl")])
    assert server["violations"] == []
    assert "authentication failed (401" in info.value.message and "were refused" in (info.value.hint or "")
    secrets_absent(str(info.value))
    assert r.exit_code == 2 and "authentication failed" in r.stderr and "Traceback" not in r.output
    secrets_absent(r.output)


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch"])
def test_permission_denied_stops_the_run_without_the_key(engine: str) -> None:
    with contract_server(engine, ["mapping_text", "forbidden"]) as server:
        with pytest.raises(InputError) as info:
            run(f"{engine}:{server['url']}/helpdesk?doc_id=doc_id")
    assert server["violations"] == []
    assert "permission denied (403 security_exception: " in info.value.message
    secrets_absent(str(info.value))
    if engine == "elasticsearch":
        assert "unauthorized for API key id [***] of user [reader]" in info.value.message


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch"])
def test_shard_failures_in_a_200_are_failures_not_partial_hits(engine: str) -> None:
    with contract_server(engine, ["mapping_text", "search_shard_failure"]) as server:
        with pytest.raises(InputError, match="every") as info:
            run(f"{engine}:{server['url']}/helpdesk?doc_id=doc_id", retries=0)
    assert server["violations"] == []
    errors = [r.error for r in info.value.run.results()]  # type: ignore[attr-defined]
    assert len(errors) == 3 and all("1 of 2 shards failed (shard 1 of 'helpdesk': " in (e or "") and
                                    "so the hits are partial" in (e or "") for e in errors)


def test_a_wrong_field_is_named_with_the_fields_that_exist() -> None:
    with contract_server("elasticsearch", ["mapping_no_body_field", "mapping_full"]) as server:
        with pytest.raises(InputError) as info:
            open_retriever(f"elasticsearch:{server['url']}/helpdesk?text_field=body")
    assert server["violations"] == []
    assert info.value.message == ("Elasticsearch index 'helpdesk' has no field 'body' (text fields: title, text, "
                                  "meta.summary)") and "?text_field=" in (info.value.hint or "")
    with contract_server("opensearch", ["mapping_text_is_vector"]) as server:
        with pytest.raises(InputError, match="field 'embedding' is a text field, not a knn_vector"):
            open_retriever(f"opensearch:{server['url']}/helpdesk?mode=knn&embedder=hash-256")
    with contract_server("elasticsearch", ["mapping_dims_768"]) as server:
        with pytest.raises(InputError, match="holds 768-dimension vectors but the 'hash-256' embedder makes 256"):
            open_retriever(f"elasticsearch:{server['url']}/helpdesk?mode=knn&embedder=hash-256")
    assert server["violations"] == []


def test_a_missing_doc_id_field_lists_what_came_back() -> None:
    with contract_server("elasticsearch", ["mapping_text", "search_bm25"]) as server:
        with pytest.raises(InputError) as info:
            run(f"elasticsearch:{server['url']}/helpdesk?doc_id=page")
    assert "hit 1 (_id '1') has no 'page' in its _source (fields returned: 'doc_id')" in info.value.message
    assert set(server["violations"]) == {"search_bm25: body._source[0]: expected 'doc_id', got 'page'"}, \
        "the contract server saw the request ask for the field the spec named"


def test_credentials_only_from_the_environment() -> None:
    with pytest.raises(InputError) as info:
        open_retriever("elasticsearch:https://elastic:hunter22secret@es.example:9200/helpdesk")
    assert "holds credentials" in info.value.message and "hunter22secret" not in str(info.value)
    assert "ELASTIC_API_KEY" in (info.value.hint or "")
    with pytest.raises(InputError, match="holds credentials"):
        open_retriever("opensearch:https://os.example:9200/helpdesk?api_key=abcdef123456")
    with pytest.raises(InputError, match="option num_candidates is for Elasticsearch, not OpenSearch") as info:
        open_retriever("opensearch:https://os.example:9200/helpdesk?mode=knn&num_candidates=50")
    assert "ef_search" in (info.value.hint or "")


def test_the_run_file_holds_no_secret(tmp_path: Any) -> None:
    out = tmp_path / "run.jsonl"
    with contract_server("elasticsearch", ["mapping_text", "search_bm25"]) as server:
        run(f"elasticsearch:{server['url']}/helpdesk?doc_id=doc_id", output=str(out))
    text = out.read_text()
    secrets_absent(text)
    meta = json.loads(text.splitlines()[0])["_meta"]
    assert meta["settings"]["auth"] == "ApiKey from $ELASTIC_API_KEY" and meta["settings"]["mode"] == "bm25"
