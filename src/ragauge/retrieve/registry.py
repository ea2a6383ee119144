"""Retriever specs (``bm25:PATH``, ``http://...``, ``python:pkg.mod:func``) -> adapter instances.

Each scheme names the module that implements it; modules are imported only when used, so a
missing optional dependency surfaces as an install hint for that scheme alone.
"""

from __future__ import annotations

import importlib

from ragauge.errors import InputError
from ragauge.retrieve.base import Retriever, RetrieverOptions

ADAPTERS: dict[str, str] = {
    "python": "ragauge.retrieve.python_callable",
    "http": "ragauge.retrieve.http",
    "https": "ragauge.retrieve.http",
    "cmd": "ragauge.retrieve.command",
    "bm25": "ragauge.retrieve.bm25",
    "dense": "ragauge.retrieve.dense",
    "hybrid": "ragauge.retrieve.hybrid",
    "pgvector": "ragauge.retrieve.pgvector",
    "qdrant": "ragauge.retrieve.stores.qdrant",
    "chroma": "ragauge.retrieve.stores.chroma",
    "lancedb": "ragauge.retrieve.stores.lancedb",
    "faiss": "ragauge.retrieve.stores.faiss",
    "sqlite-vec": "ragauge.retrieve.stores.sqlite_vec",
    "elasticsearch": "ragauge.retrieve.elastic",
    "opensearch": "ragauge.retrieve.elastic",
}


def open_retriever(spec: str, options: RetrieverOptions | None = None) -> Retriever:
    """Build the adapter for ``spec``; each adapter module exposes ``open(spec, options)``. A built-in
    ``bm25:`` or ``hybrid:`` spec with a ``rerank`` option is rescored (``retrieve.rescore``)."""
    scheme, sep, _ = spec.partition(":")
    if not sep or scheme not in ADAPTERS:
        raise InputError(f"unknown retriever spec {spec!r}",
                         hint="use one of: " + ", ".join(f"{s}:..." for s in ADAPTERS if s != "https"))
    if scheme in ("bm25", "dense", "hybrid"):
        from ragauge.retrieve import rescore

        if rescore.wants_rescoring(spec):
            rescored: Retriever = rescore.open(spec, options or RetrieverOptions())
            return rescored
    module = importlib.import_module(ADAPTERS[scheme])
    retriever: Retriever = module.open(spec, options or RetrieverOptions())
    return retriever
