"""The search requests, as each engine documents them (the URLs are in tests/fixtures/search_contracts).

- ``bm25``: ``{"size": n, "query": {"match": {TEXT: {"query": Q}}}}`` on both engines.
- ``knn``, Elasticsearch: the top-level ``knn`` section ``{"field", "query_vector" | "query_vector_builder":
  {"text_embedding": {"model_id", "model_text"}}, "k", "num_candidates"}``; OpenSearch: the ``knn``
  query ``{"knn": {VECTOR: {"vector", "k", "method_parameters": {"ef_search"}}}}``, or with a
  ``model_id`` the neural-search plugin's ``{"neural": {VECTOR: {"query_text", "model_id", "k"}}}``.
- ``hybrid``, Elasticsearch: an ``rrf`` retriever over a ``standard`` (the match query) and a ``knn``
  retriever (Elasticsearch 8.14+; RRF needs a license that includes it); OpenSearch: the ``hybrid``
  query over the match and kNN queries, run through ``?search_pipeline=NAME`` (a pipeline with a
  normalization or score-ranker processor, which the cluster must have).

Every request asks only for the ``_source`` fields that hold the ids (none when the doc id is ``_id``).
"""

from __future__ import annotations

from typing import Any

from ragauge.errors import InputError
from ragauge.retrieve.elastic.target import Target


def source_fields(target: Target) -> list[str]:
    return [f for f in (target.doc_id, target.chunk_id) if f and f != "_id"]


def search_request(target: Target, query: str, n: int, vector: list[float] | None) -> tuple[dict[str, str], Any]:
    """The query-string parameters and the JSON body of one search for ``n`` hits."""
    k = target.k or n
    body: dict[str, Any] = {"size": n}
    match = {"match": {target.text_field: {"query": query}}}
    params: dict[str, str] = {}
    if target.engine == "elasticsearch":
        if target.mode == "bm25":
            body["query"] = match
        elif target.mode == "knn":
            body["knn"] = _es_knn(target, query, k, vector)
        else:
            window = target.rank_window_size or max(n, k)
            if window < n:
                raise InputError(f"{target.who}: rank_window_size={window} is below the depth {n} "
                                 "(Elasticsearch requires rank_window_size >= size)", hint="raise ?rank_window_size=")
            rrf: dict[str, Any] = {"retrievers": [{"standard": {"query": match}},
                                                  {"knn": _es_knn(target, query, k, vector)}],
                                   "rank_window_size": window}
            if target.rank_constant is not None:
                rrf["rank_constant"] = target.rank_constant
            body["retriever"] = {"rrf": rrf}
    else:
        if target.mode == "bm25":
            body["query"] = match
        elif target.mode == "knn":
            body["query"] = _os_knn(target, query, k, vector)
        else:
            body["query"] = {"hybrid": {"queries": [match, _os_knn(target, query, k, vector)]}}
            params["search_pipeline"] = target.search_pipeline or ""
    fields = source_fields(target)
    body["_source"] = fields if fields else False
    return params, body


def _es_knn(target: Target, query: str, k: int, vector: list[float] | None) -> dict[str, Any]:
    candidates = target.num_candidates or min(10_000, max(k, 100))
    if candidates < k:
        raise InputError(f"{target.who}: num_candidates={candidates} is below k={k}",
                         hint="Elasticsearch requires num_candidates >= k: raise ?num_candidates= or lower ?k=")
    knn: dict[str, Any] = {"field": target.vector_field}
    if target.model_id:
        knn["query_vector_builder"] = {"text_embedding": {"model_id": target.model_id, "model_text": query}}
    else:
        knn["query_vector"] = vector
    knn.update({"k": k, "num_candidates": candidates})
    return knn


def _os_knn(target: Target, query: str, k: int, vector: list[float] | None) -> dict[str, Any]:
    if target.model_id:
        return {"neural": {target.vector_field: {"query_text": query, "model_id": target.model_id, "k": k}}}
    knn: dict[str, Any] = {"vector": vector, "k": k}
    if target.ef_search is not None:
        knn["method_parameters"] = {"ef_search": target.ef_search}
    return {"knn": {target.vector_field: knn}}
