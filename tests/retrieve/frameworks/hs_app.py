"""A Haystack application for the tests: the helpdesk sections in haystack-ai's real
``InMemoryDocumentStore``, searched by ``InMemoryBM25Retriever`` and, in a Pipeline behind a small
text-embedder component (ragauge's lexical hash embedder), by ``InMemoryEmbeddingRetriever``.
Each Document's id is ``hs-<i>``; its meta holds the section id (``doc_id``) and its page's file."""

from __future__ import annotations

from haystack import Document, Pipeline, component
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever, InMemoryEmbeddingRetriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

from ragauge.models.embedders import HashEmbedder
from tests.retrieve.frameworks.corpus import page, sections

SECTIONS = sections()
_HASH = HashEmbedder(256)


def embed(text: str) -> list[float]:
    return [float(x) for x in _HASH.embed([text])[0]]


@component
class HashTextEmbedder:
    """Embeds the question as the documents were embedded (a text embedder's usual shape)."""

    @component.output_types(embedding=list[float])
    def run(self, text: str) -> dict[str, list[float]]:
        return {"embedding": embed(text)}


store = InMemoryDocumentStore()
store.write_documents([Document(id=f"hs-{i}", content=page(s), embedding=embed(page(s)),
                                meta={"doc_id": s["id"], "file_path": f"docs/{s['doc_id']}.md"})
                       for i, s in enumerate(SECTIONS)])

bm25 = InMemoryBM25Retriever(document_store=store, top_k=3)
"""Configured for 3: ragauge passes the run's depth as top_k."""

dense = InMemoryEmbeddingRetriever(document_store=store)
"""Takes a query embedding: usable only in a pipeline."""

pipeline = Pipeline()
pipeline.add_component("embedder", HashTextEmbedder())
pipeline.add_component("retriever", InMemoryEmbeddingRetriever(document_store=store))
pipeline.connect("embedder.embedding", "retriever.query_embedding")

two_outputs = Pipeline()
two_outputs.add_component("a", InMemoryBM25Retriever(document_store=store))
two_outputs.add_component("b", InMemoryBM25Retriever(document_store=store))
