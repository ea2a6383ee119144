"""LangChain: a ``VectorStore``, a ``BaseRetriever`` or another ``Runnable`` that returns Documents.

- ``VectorStore``: ``similarity_search_with_score(query, k=n)`` (the store's own score, a similarity
  or a distance as the store defines it); a store that implements only the async variant is awaited;
  one without scores is asked ``similarity_search(query, k=n)``.
- ``BaseRetriever``: ``invoke(query)`` on a copy whose ``search_kwargs["k"]`` is ``n`` (a
  ``VectorStoreRetriever``, what ``vectorstore.as_retriever()`` returns) or whose ``k`` field is ``n``
  (BM25Retriever, TFIDFRetriever and most community retrievers); ``ainvoke`` when the retriever
  implements only ``_aget_relevant_documents``. A retriever with neither setting returns as many as
  it is configured to (``describe()["k"]`` says so) and ragauge keeps the first ``n``.
- another ``Runnable`` (an LCEL chain ending in a retriever): ``invoke(query)``, k as configured.

The document id is the first of the metadata keys ``doc_id``, ``source`` (the file path or URL
LangChain's loaders record) found, or the one ``--doc-id-key`` names; ``--doc-id-key id`` takes
``Document.id``, which is otherwise kept as the chunk id.
"""

from __future__ import annotations

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

DEFAULT_KEYS = ("doc_id", "source")
_SUPPORTED = "a VectorStore, a BaseRetriever (e.g. vectorstore.as_retriever()) or a Runnable returning Documents"


def bind(obj: Any, options: RetrieverOptions) -> Binding:
    """The binding for ``obj`` (see the module docstring); InputError for any other LangChain object."""
    vectorstores = import_framework("langchain_core.vectorstores", "LangChain", "langchain-core")
    retrievers = import_framework("langchain_core.retrievers", "LangChain", "langchain-core")
    runnables = import_framework("langchain_core.runnables", "LangChain", "langchain-core")
    ids = DocIds.of("LangChain", "Document", options.doc_id_key, DEFAULT_KEYS)
    if isinstance(obj, vectorstores.VectorStore):
        return _vector_store(obj, vectorstores.VectorStore, ids)
    if isinstance(obj, retrievers.BaseRetriever):
        return _retriever(obj, retrievers.BaseRetriever, vectorstores.VectorStoreRetriever, ids)
    if isinstance(obj, runnables.Runnable):
        return _runnable(obj, ids)
    raise unusable(obj, "LangChain", _SUPPORTED, "pass the vector store, or vectorstore.as_retriever()")


def _settings(obj: Any, kind: str, how: str, k: str, is_async: bool, ids: DocIds) -> dict[str, Any]:
    return {"framework": "langchain", "class": qualname(obj), "kind": kind, "call": how, "k": k,
            "async": is_async, "doc_id_key": ids.describe()}


def _vector_store(store: Any, base: type, ids: DocIds) -> Binding:
    if overrides(store, base, "similarity_search_with_score"):
        method, is_async, scored = "similarity_search_with_score", False, True
    elif overrides(store, base, "asimilarity_search_with_score"):
        method, is_async, scored = "asimilarity_search_with_score", True, True
    else:
        method, is_async, scored = "similarity_search", False, False
    fn = getattr(store, method)

    def search(query: str, n: int) -> list[Hit]:
        found = as_list(call(fn, query, k=n), f"{qualname(store)}.{method}")
        return _hits(found if scored else [(doc, None) for doc in found], n, method, ids)

    return Binding(search, _settings(store, "VectorStore", f"{method}(query, k=n)", "n", is_async, ids))


def _retriever(retriever: Any, base: type, vector_retriever: Any, ids: DocIds) -> Binding:
    is_async = (not overrides(retriever, base, "_get_relevant_documents")
                and overrides(retriever, base, "_aget_relevant_documents"))
    make: Callable[[int], Any] | None = None
    if isinstance(retriever, vector_retriever):
        def make(n: int) -> Any:
            return retriever.model_copy(update={"search_kwargs": {**retriever.search_kwargs, "k": n}})
        how, k = "search_kwargs['k']", "n"
    elif _int_field(retriever, "k"):
        def make(n: int) -> Any:
            return retriever.model_copy(update={"k": n})
        how, k = "k", "n"
    else:
        how, k = "", "as configured (the retriever has no k ragauge can set; the first n are kept)"
    sized = per_depth(retriever, make)

    method = "ainvoke" if is_async else "invoke"

    def search(query: str, n: int) -> list[Hit]:
        target = sized(n)
        docs = as_list(call(getattr(target, method), query), f"{qualname(retriever)}.{method}")
        return _hits(docs, n, method, ids)

    shown = f"{method}(query)" + (f" with {how} = n" if how else "")
    return Binding(search, _settings(retriever, "BaseRetriever", shown, k, is_async, ids))


def _runnable(runnable: Any, ids: DocIds) -> Binding:
    def search(query: str, n: int) -> list[Hit]:
        docs = as_list(runnable.invoke(query), f"{qualname(runnable)}.invoke")
        return _hits(docs, n, "invoke", ids)

    return Binding(search, _settings(runnable, "Runnable", "invoke(query)",
                                     "as configured (a Runnable has no k ragauge can set; the first n are kept)",
                                     False, ids))


def _int_field(model: Any, name: str) -> bool:
    fields = getattr(type(model), "model_fields", {})
    info = fields.get(name)
    return info is not None and info.annotation in (int, "int") and isinstance(getattr(model, name, None), int)


def _hits(items: list[Any], n: int, method: str, ids: DocIds) -> list[Hit]:
    """The first ``n`` of a list of Documents or ``(Document, score)`` pairs as hits."""
    out: list[Hit] = []
    for rank, item in enumerate(items[:n], start=1):
        doc, score = (item[0], item[1]) if isinstance(item, tuple) and len(item) == 2 else (item, None)
        if not hasattr(doc, "metadata") or not hasattr(doc, "page_content"):
            raise InputError(f"{method} returned {type(doc).__name__}, not a LangChain Document",
                             hint="the chain must end in a retriever or return Documents")
        own_id = getattr(doc, "id", None)
        out.append(ids.hit(doc.metadata, {"id": own_id}, own_id, score, rank))
    return out
