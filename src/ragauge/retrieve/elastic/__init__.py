"""``elasticsearch:URL/INDEX?...`` and ``opensearch:URL/INDEX?...``: search an index you already have.

Plain HTTP (httpx) against each engine's documented REST API; no client library. Options (query
string, or a ``[retriever.elasticsearch]`` / ``[retriever.opensearch]`` table of ragauge.toml):

- ``mode``: ``bm25`` (default: a ``match`` query on ``text_field``), ``knn`` (nearest neighbours on
  ``vector_field``) or ``hybrid`` (both, fused by the engine: Elasticsearch's ``rrf`` retriever,
  OpenSearch's ``hybrid`` query through ``search_pipeline=NAME``);
- ``text_field`` (``text``), ``vector_field`` (``embedding``), ``index`` (else the URL's last path
  segment), ``doc_id`` (``_id``, the hit's id; or a ``_source`` field, dotted for nested objects),
  ``chunk_id`` (a ``_source`` field; none by default);
- kNN: ``k`` (default the run's depth), ``num_candidates`` (Elasticsearch; default max(k, 100)),
  ``ef_search`` (OpenSearch 2.16+), and either ``embedder`` (ragauge embeds the question: ``minilm``
  by default, ``hash``; the name the index was built with) or ``model_id`` (the engine embeds it:
  Elasticsearch's ``query_vector_builder``, OpenSearch's ``neural`` query);
- hybrid: ``rank_window_size`` (default max(depth, k)) and ``rank_constant`` (Elasticsearch),
  ``search_pipeline`` (OpenSearch, required).

Credentials come from the environment only (a URL holding them is refused): Elasticsearch
``ELASTIC_API_KEY`` (the encoded key, sent as ``Authorization: ApiKey``) or ``ELASTIC_USERNAME`` /
``ELASTIC_PASSWORD``; OpenSearch ``OPENSEARCH_USERNAME`` / ``OPENSEARCH_PASSWORD`` (basic auth; the
user defaults to the engine's superuser, ``elastic`` / ``admin``). ``api_key_env``, ``username_env``
and ``password_env`` name other variables. The values never reach run files, describe() or a
message. Tested against recorded contracts (request and response shapes from the engines' docs,
replayed by a local server in the tests), not a live cluster.
"""

from __future__ import annotations

from ragauge.retrieve.adapter import Adapter, Option
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.elastic.engine import ElasticRetriever
from ragauge.retrieve.elastic.target import Target, parse_target

__all__ = ["ElasticRetriever", "Target", "open", "parse_target"]


def open(spec: str, options: RetrieverOptions) -> ElasticRetriever:  # noqa: A001
    """The retriever for ``spec`` (see the module docstring); opening checks the index and fields."""
    return ElasticRetriever(parse_target(spec, options), options)


ADAPTER = Adapter(
    "elasticsearch", ("elasticsearch", "opensearch"), open,
    "an Elasticsearch or OpenSearch index over its REST API (no client library): a match query, a kNN search (the "
    "question embedded by ragauge's embedder or the cluster's model_id) or both fused; credentials only from "
    "ELASTIC_API_KEY, ELASTIC_USERNAME/ELASTIC_PASSWORD or OPENSEARCH_USERNAME/OPENSEARCH_PASSWORD",
    "elasticsearch:https://localhost:9200/docs?mode=bm25",
    options=(Option("mode", "bm25, knn or hybrid", "bm25", ("bm25", "knn", "hybrid")),
             Option("text_field", "the text field", "text"), Option("vector_field", "the vector field", "embedding"),
             Option("doc_id", "the document id field", "_id"), Option("embedder", "how ragauge embeds the question"),
             Option("model_id", "the cluster's model embeds the question")))
