"""A LlamaIndex application for the tests: the helpdesk sections as nodes of llama-index-core's real
``VectorStoreIndex`` (its in-memory SimpleVectorStore), embedded by a small BaseEmbedding over
ragauge's lexical hash embedder; no LLM. Each node's id is ``node-<i>``, its metadata holds the
section id under ``section`` and its source Document is the section's page (``ref_doc_id``)."""

from __future__ import annotations

from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode

from ragauge.models.embedders import HashEmbedder
from tests.retrieve.frameworks.corpus import page, sections

SECTIONS = sections()
_HASH = HashEmbedder(256)


class HashEmbedding(BaseEmbedding):
    """Deterministic, lexical: ragauge's hash-256 embedder (see ragauge.models.embedders)."""

    def _get_query_embedding(self, query: str) -> list[float]:
        return [float(x) for x in _HASH.embed([query])[0]]

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_query_embedding(text)


nodes = [TextNode(text=page(s), id_=f"node-{i}", metadata={"section": s["id"], "title": s["title"]},
                  relationships={NodeRelationship.SOURCE: RelatedNodeInfo(node_id=s["doc_id"])})
         for i, s in enumerate(SECTIONS)]
index = VectorStoreIndex(nodes, embed_model=HashEmbedding(model_name="hash-256"))
retriever = index.as_retriever(similarity_top_k=2)
"""Configured for 2: ragauge must ask a copy of it for the run's depth."""
