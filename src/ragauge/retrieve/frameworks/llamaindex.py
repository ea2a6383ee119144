"""LlamaIndex: a retriever (``BaseRetriever``) or an index (``BaseIndex``, e.g. ``VectorStoreIndex``).

- an index: ``index.as_retriever(similarity_top_k=n).retrieve(query)`` (the retriever is built
  once per depth);
- a retriever with a ``similarity_top_k`` setting (``VectorIndexRetriever``, BM25, fusion
  retrievers): ``retrieve(query)`` on a copy whose ``similarity_top_k`` is ``n`` (the object you
  passed is not changed); any other retriever: ``retrieve(query)`` as configured, first ``n`` kept
  (``describe()["k"]`` says so). ``aretrieve`` when the retriever implements only ``_aretrieve``.

Scores are the ``NodeWithScore`` scores. The document id is the node's metadata ``doc_id``, else its
``ref_doc_id`` (the id of the Document the node was parsed from, which node parsers set), or the
metadata key ``--doc-id-key`` names; ``--doc-id-key id`` takes the node id, which is otherwise kept
as the chunk id.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.base import RetrieverOptions
from ragauge.retrieve.frameworks.common import (
    Binding,
    DocIds,
    as_list,
    call,
    import_framework,
    overrides,
    per_depth,
    qualname,
    unusable,
)

DEFAULT_KEYS = ("doc_id", "ref_doc_id")


def bind(obj: Any, options: RetrieverOptions) -> Binding:
    """The binding for ``obj`` (see the module docstring); InputError for any other LlamaIndex object."""
    base_retriever = import_framework("llama_index.core.base.base_retriever", "LlamaIndex",
                                      "llama-index-core").BaseRetriever
    base_index = import_framework("llama_index.core.indices.base", "LlamaIndex", "llama-index-core").BaseIndex
    ids = DocIds.of("LlamaIndex", "node", options.doc_id_key, DEFAULT_KEYS)
    make: Callable[[int], Any] | None = None
    if isinstance(obj, base_index):
        def make(n: int) -> Any:
            return obj.as_retriever(similarity_top_k=n)
        kind, how, k, is_async = "BaseIndex", "as_retriever(similarity_top_k=n).retrieve(query)", "n", False
    elif isinstance(obj, base_retriever):
        is_async = not overrides(obj, base_retriever, "_retrieve") and overrides(obj, base_retriever, "_aretrieve")
        method = "aretrieve" if is_async else "retrieve"
        if isinstance(getattr(obj, "similarity_top_k", None), int):
            def make(n: int) -> Any:
                sized = copy.copy(obj)
                sized.similarity_top_k = n
                return sized
            kind, how, k = "BaseRetriever", f"{method}(query) with similarity_top_k = n", "n"
        else:
            kind, how = "BaseRetriever", f"{method}(query)"
            k = "as configured (the retriever has no similarity_top_k ragauge can set; the first n are kept)"
    else:
        raise unusable(obj, "LlamaIndex", "a retriever (BaseRetriever) or an index (e.g. VectorStoreIndex)",
                       "pass the index, or index.as_retriever()")
    sized = per_depth(obj, make)

    def search(query: str, n: int) -> list[Hit]:
        retriever = sized(n)
        name = "aretrieve" if is_async else "retrieve"
        found = as_list(call(getattr(retriever, name), query), f"{qualname(retriever)}.{name}")
        return [_hit(item, rank, ids) for rank, item in enumerate(found[:n], start=1)]

    settings = {"framework": "llamaindex", "class": qualname(obj), "kind": kind, "call": how, "k": k,
                "async": is_async, "doc_id_key": ids.describe()}
    return Binding(search, settings)


def _hit(item: Any, rank: int, ids: DocIds) -> Hit:
    node = getattr(item, "node", None)
    if node is None:
        raise InputError(f"the retriever returned {type(item).__name__} at rank {rank}, not a NodeWithScore")
    node_id = getattr(node, "node_id", None)
    own = {"ref_doc_id": getattr(node, "ref_doc_id", None), "id": node_id}
    return ids.hit(getattr(node, "metadata", None), own, node_id, getattr(item, "score", None), rank)
