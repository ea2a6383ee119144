"""``hybrid:PATH[?options]``: BM25 and dense retrieval over one corpus, fused by reciprocal rank.

Each side (``bm25:PATH`` and ``dense:PATH``) fetches ``max(n, depth)`` hits; both rankings are reduced
to documents (a document's rank is that of its best chunk) and fused with reciprocal rank fusion
(Cormack, Clarke & Büttcher, SIGIR 2009)::

    score(d) = sum over the rankings r that hold d of  1 / (rrf_k + rank_r(d))      (rank from 1)

Options: ``rrf_k`` (60), ``depth`` (100); ``chunk_size`` / ``chunk_overlap`` / ``chunk_unit`` and
``title`` go to both sides, ``batch_size`` to the dense side, any other option to the BM25 side
(``k1``, ``b``, ``stemmer``, ...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from ragauge.core.numbers import COUNT, NON_NEGATIVE, check_number
from ragauge.data.run import Hit
from ragauge.retrieve.base import Retrieved, Retriever, RetrieverOptions, spec_number
from ragauge.retrieve.corpus import corpus_spec

K = TypeVar("K", bound=Hashable)

RRF_K = 60.0
DEPTH = 100
_OWN = frozenset({"rrf_k", "depth"})
_SHARED = frozenset({"chunk_size", "chunk_overlap", "chunk_unit", "title"})


def rrf(rankings: Sequence[Sequence[K]], k: float = RRF_K) -> list[tuple[K, float]]:
    """Reciprocal rank fusion of ``rankings`` (each a list of keys, best first).

    Returns ``(key, score)`` best first, with ``score = sum 1 / (k + rank)`` over the rankings
    that hold the key, ``rank`` counting from 1. A key repeated within one ranking counts at its
    first position only. Equal scores are ordered by the best rank the key reached in any
    ranking, then by the first ranking that reached it, then by its first appearance overall.
    ``k`` must be a finite number >= 0 (else InputError).
    """
    k = check_number(k, "rrf_k", NON_NEGATIVE)
    scores: dict[K, float] = {}
    best: dict[K, tuple[int, int]] = {}
    for which, ranking in enumerate(rankings):
        seen: set[K] = set()
        for rank, key in enumerate(ranking, start=1):
            if key in seen:
                continue
            seen.add(key)
            scores[key] = scores.get(key, 0.0) + 1.0 / (k + rank)
            if key not in best or (rank, which) < best[key]:
                best[key] = (rank, which)
    first = {key: i for i, key in enumerate(scores)}
    order = sorted(scores, key=lambda key: (-scores[key], best[key], first[key]))
    return [(key, scores[key]) for key in order]


def best_chunks(hits: Sequence[Hit]) -> list[Hit]:
    """The first hit of each document, in order: a ranking of documents by their best chunk.
    Hits without a doc id are dropped."""
    out: list[Hit] = []
    seen: set[str] = set()
    for hit in hits:
        if hit.doc_id is not None and hit.doc_id not in seen:
            seen.add(hit.doc_id)
            out.append(hit)
    return out


def fuse(results: Sequence[Sequence[Hit]], n: int, k: float = RRF_K) -> list[Hit]:
    """Document-level RRF of several hit lists: at most ``n`` hits, one per document, each carrying
    the chunk that ranked best for it (on a tie, the chunk from the earlier list) and its fused score."""
    rankings: list[list[str]] = []
    chunk_of: dict[str, tuple[int, str | None]] = {}
    for hits in results:
        ranking = [(hit.doc_id, hit.chunk_id) for hit in best_chunks(hits) if hit.doc_id is not None]
        for rank, (doc, chunk) in enumerate(ranking, start=1):
            if doc not in chunk_of or rank < chunk_of[doc][0]:
                chunk_of[doc] = (rank, chunk)
        rankings.append([doc for doc, _ in ranking])
    fused = rrf(rankings, k)
    return [Hit(doc, chunk_of[doc][1], round(score, 8)) for doc, score in fused[:max(n, 0)]]


def _route(options: dict[str, str], spec: str) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    from ragauge.retrieve.dense import DENSE_OPTIONS

    own = {"rrf_k": spec_number(options, "rrf_k", RRF_K, NON_NEGATIVE, spec),
           "depth": spec_number(options, "depth", DEPTH, COUNT, spec)}
    dense = {key: value for key, value in options.items() if key in DENSE_OPTIONS}
    bm25 = {key: value for key, value in options.items()
            if key not in _OWN and (key in _SHARED or key not in DENSE_OPTIONS)}
    return own, bm25, dense


def _sub_spec(scheme: str, target: str, options: dict[str, str]) -> str:
    return f"{scheme}:{target}" + (f"?{urlencode(options)}" if options else "")


class HybridRetriever:
    """BM25 + dense over one corpus, document-level RRF; thread-safe when both sides are."""

    max_concurrency = 1  # the dense side serialises its model calls (see DenseRetriever)

    def __init__(self, spec: str, path: Path, own: dict[str, Any], bm25: Retriever, dense: Retriever) -> None:
        self.spec = spec
        self.path = path
        self.rrf_k: float = own["rrf_k"]
        self.depth: int = own["depth"]
        self.bm25 = bm25
        self.dense = dense

    def search(self, query: str, n: int) -> Retrieved:
        if n < 1:
            return Retrieved(())
        deep = max(n, self.depth)
        lexical = self.bm25.search(query, deep).hits
        semantic = self.dense.search(query, deep).hits
        return Retrieved(tuple(fuse([lexical, semantic], n, self.rrf_k)))

    def describe(self) -> dict[str, Any]:
        return {"corpus": str(self.path), "fusion": "rrf", "level": "document", "rrf_k": self.rrf_k,
                "depth": self.depth, "bm25": self.bm25.describe(), "dense": self.dense.describe()}

    def fingerprint(self) -> str | None:
        return self.dense.fingerprint() or self.bm25.fingerprint()

    def documents(self) -> set[str] | None:
        lexical, semantic = self.bm25.documents(), self.dense.documents()
        return None if lexical is None and semantic is None else (lexical or set()) | (semantic or set())

    def close(self) -> None:
        try:
            self.bm25.close()
        finally:
            self.dense.close()


def open(spec: str, options: RetrieverOptions) -> HybridRetriever:  # noqa: A001
    from ragauge.retrieve.bm25 import _KNOWN as BM25_OPTIONS
    from ragauge.retrieve.dense import DENSE_OPTIONS
    from ragauge.retrieve.registry import open_retriever

    path, given = corpus_spec(spec, options.extra, set(_OWN) | BM25_OPTIONS | DENSE_OPTIONS)
    own, bm25_options, dense_options = _route(given, spec)
    inner = dataclasses.replace(options, extra={})
    bm25 = open_retriever(_sub_spec("bm25", str(path), bm25_options), inner)
    try:
        dense = open_retriever(_sub_spec("dense", str(path), dense_options), inner)
    except BaseException:
        bm25.close()
        raise
    return HybridRetriever(spec, path, own, bm25, dense)
