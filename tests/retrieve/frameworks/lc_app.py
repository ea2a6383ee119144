"""A LangChain application for the tests: the helpdesk sections in langchain-core's real
``InMemoryVectorStore`` with its ``DeterministicFakeEmbedding`` (vectors seeded by a hash of the
text: deterministic, not semantic). ``python:tests.retrieve.frameworks.lc_app:NAME`` specs point here."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding, Embeddings
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore

from tests.retrieve.frameworks.corpus import page, sections

SECTIONS = sections()
EMBEDDING = DeterministicFakeEmbedding(size=64)

store = InMemoryVectorStore(EMBEDDING)
store.add_documents([Document(page_content=page(s), metadata={"doc_id": s["id"], "source": f"docs/{s['doc_id']}.md",
                                                              "title": s["title"]}) for s in SECTIONS],
                    ids=[f"chunk-{i}" for i in range(len(SECTIONS))])

untagged = InMemoryVectorStore(EMBEDDING)
untagged.add_documents([Document(page_content=page(s), metadata={"title": s["title"], "page": s["doc_id"]})
                        for s in SECTIONS[:50]], ids=[f"u-{i}" for i in range(50)])

retriever = store.as_retriever(search_kwargs={"k": 3})
"""Configured for 3: ragauge must ask it for the run's depth."""

chain = RunnableLambda(lambda q: q.strip()) | retriever
"""An LCEL chain ending in the retriever: a Runnable whose depth ragauge cannot set."""


def make_retriever() -> BaseRetriever:
    """A factory (no arguments): a python: spec calls it once to build the retriever."""
    return store.as_retriever()


class KeywordRetriever(BaseRetriever):
    """A user's own retriever with a ``k`` field: sections ranked by shared words, ties by position."""

    k: int = 4
    docs: list[Document]

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        words = set(query.lower().split())
        scored = [(len(words & set(d.page_content.lower().split())), -i, d) for i, d in enumerate(self.docs)]
        return [d for _, _, d in sorted(scored, key=lambda t: (t[0], t[1]), reverse=True)[: self.k]]


keyword = KeywordRetriever(docs=[Document(page_content=page(s), metadata={"doc_id": s["id"]}) for s in SECTIONS])


class AsyncOnlyStore(VectorStore):
    """A store whose only scored search is async (as some client-backed stores are): it answers from
    ``store`` through langchain-core's own async API."""

    def __init__(self, inner: InMemoryVectorStore) -> None:
        self.inner = inner

    async def asimilarity_search_with_score(self, query: str, k: int = 4,
                                            **kwargs: Any) -> list[tuple[Document, float]]:
        return await self.inner.asimilarity_search_with_score(query, k=k, **kwargs)

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        raise NotImplementedError("async only")

    @classmethod
    def from_texts(cls, texts: list[str], embedding: Embeddings, metadatas: list[dict[Any, Any]] | None = None,
                   **kwargs: Any) -> AsyncOnlyStore:
        raise NotImplementedError


async_store = AsyncOnlyStore(store)
