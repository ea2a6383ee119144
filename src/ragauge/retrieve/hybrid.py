"""``hybrid:PATH[?options]``: BM25 and dense retrieval over one corpus, fused by reciprocal rank or by
weighted scores.

Each side (``bm25:PATH`` and ``dense:PATH``) fetches ``max(n, depth)`` hits; both rankings are reduced
to documents (a document's rank and score are those of its best chunk) and fused. ``fusion=rrf`` (the
default) is reciprocal rank fusion (Cormack, Clarke & Büttcher, SIGIR 2009)::

    score(d) = sum over the rankings r that hold d of  1 / (rrf_k + rank_r(d))      (rank from 1)

``fusion=weighted`` is a convex combination of min-max normalised scores, ``weight`` being the dense
side's share::

    score(d) = weight * norm_dense(d) + (1 - weight) * norm_bm25(d)
    norm_r(d) = (s_r(d) - min_r) / (max_r - min_r) over the documents ranking r returned (1 when all
                are equal), and 0 for a document that ranking did not return

Options: ``fusion`` (rrf | weighted), ``rrf_k`` (60, rrf only), ``weight`` (0.5, weighted only),
``depth`` (100); ``chunk_size`` / ``chunk_overlap`` / ``chunk_unit`` and ``title`` go to both sides,
``embedder``, ``compute`` and ``batch_size`` to the dense side, any other option to the BM25 side (``k1``, ``b``,
``stemmer``, ...).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlencode

from ragauge.core.numbers import COUNT, NON_NEGATIVE, UNIT, check_number
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.adapter import Adapter, Option
from ragauge.retrieve.base import Retrieved, Retriever, RetrieverOptions, spec_number
from ragauge.retrieve.corpus import corpus_spec

K = TypeVar("K", bound=Hashable)

RRF_K = 60.0
DEPTH = 100
WEIGHT = 0.5
FUSIONS = ("rrf", "weighted")
_OWN = frozenset({"rrf_k", "depth", "fusion", "weight"})
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


def _documents(results: Sequence[Sequence[Hit]]) -> tuple[list[list[Hit]], dict[str, tuple[int, Hit]]]:
    """Each hit list reduced to documents (``best_chunks``), and for each document the hit of the
    chunk that ranked best for it (on a tie, the one from the earlier list) with that rank."""
    lists = [best_chunks(hits) for hits in results]
    chunk_of: dict[str, tuple[int, Hit]] = {}
    for hits in lists:
        for rank, hit in enumerate(hits, start=1):
            doc = str(hit.doc_id)
            if doc not in chunk_of or rank < chunk_of[doc][0]:
                chunk_of[doc] = (rank, hit)
    return lists, chunk_of


def _fused(doc: str, best: Hit, score: float) -> Hit:
    """The fused hit of ``doc``: its best chunk (and that chunk's length and offsets) with the fused score."""
    return dataclasses.replace(best, doc_id=doc, score=round(score, 8))


def fuse(results: Sequence[Sequence[Hit]], n: int, k: float = RRF_K) -> list[Hit]:
    """Document-level RRF of several hit lists: at most ``n`` hits, one per document, each carrying
    the chunk that ranked best for it (on a tie, the chunk from the earlier list) and its fused score."""
    lists, chunk_of = _documents(results)
    fused = rrf([[str(hit.doc_id) for hit in hits] for hits in lists], k)
    return [_fused(doc, chunk_of[doc][1], score) for doc, score in fused[:max(n, 0)]]


def min_max(scores: Sequence[float]) -> list[float]:
    """Scores mapped linearly onto [0, 1] (the highest 1, the lowest 0); all 1 when they are equal."""
    if not scores:
        return []
    low, high = min(scores), max(scores)
    if high - low <= 0:
        return [1.0] * len(scores)
    return [(x - low) / (high - low) for x in scores]


def fuse_weighted(results: Sequence[Sequence[Hit]], weights: Sequence[float], n: int) -> list[Hit]:
    """Document-level weighted score fusion (see the module docstring): list ``i``'s min-max normalised
    scores count ``weights[i]`` (a hit without a score counts 0). At most ``n`` hits, one per document,
    each carrying the chunk that ranked best for it; equal scores are ordered as in :func:`rrf` (best
    rank reached, then the earlier list, then first appearance)."""
    if len(weights) != len(results):
        raise ValueError("one weight per hit list")
    lists, chunk_of = _documents(results)
    scores: dict[str, float] = {}
    best: dict[str, tuple[int, int]] = {}
    for which, (hits, weight) in enumerate(zip(lists, weights)):
        weight = check_number(weight, "weight", UNIT)
        for rank, (hit, norm) in enumerate(zip(hits, min_max([h.score or 0.0 for h in hits])), start=1):
            doc = str(hit.doc_id)
            scores[doc] = scores.get(doc, 0.0) + weight * norm
            if doc not in best or (rank, which) < best[doc]:
                best[doc] = (rank, which)
    first = {doc: i for i, doc in enumerate(scores)}
    order = sorted(scores, key=lambda doc: (-scores[doc], best[doc], first[doc]))
    return [_fused(doc, chunk_of[doc][1], scores[doc]) for doc in order[:max(n, 0)]]


def _route(options: dict[str, str], spec: str) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    from ragauge.retrieve.dense import DENSE_OPTIONS

    fusion = options.get("fusion", "rrf")
    if fusion not in FUSIONS:
        raise InputError(f"option fusion={fusion!r} in {spec!r} must be one of {', '.join(FUSIONS)}")
    for unused, needs in (("rrf_k", "rrf"), ("weight", "weighted")):
        if unused in options and fusion != needs:
            raise InputError(f"option {unused} applies to fusion={needs} only, in {spec!r}",
                             hint=f"drop {unused}, or set fusion={needs}")
    own = {"rrf_k": spec_number(options, "rrf_k", RRF_K, NON_NEGATIVE, spec),
           "depth": spec_number(options, "depth", DEPTH, COUNT, spec), "fusion": fusion,
           "weight": spec_number(options, "weight", WEIGHT, UNIT, spec)}
    dense = {key: value for key, value in options.items() if key in DENSE_OPTIONS}
    bm25 = {key: value for key, value in options.items()
            if key not in _OWN and (key in _SHARED or key not in DENSE_OPTIONS)}
    return own, bm25, dense


def _sub_spec(scheme: str, target: str, options: dict[str, str]) -> str:
    return f"{scheme}:{target}" + (f"?{urlencode(options)}" if options else "")


class HybridRetriever:
    """BM25 + dense over one corpus, fused per document (RRF or weighted scores); thread-safe when
    both sides are."""

    max_concurrency = 1  # the dense side serialises its model calls (see DenseRetriever)

    def __init__(self, spec: str, path: Path, own: dict[str, Any], bm25: Retriever, dense: Retriever) -> None:
        self.spec = spec
        self.path = path
        self.rrf_k: float = own["rrf_k"]
        self.depth: int = own["depth"]
        self.fusion: str = own.get("fusion", "rrf")
        self.weight: float = own.get("weight", WEIGHT)
        self.bm25 = bm25
        self.dense = dense

    def search(self, query: str, n: int) -> Retrieved:
        if n < 1:
            return Retrieved(())
        deep = max(n, self.depth)
        lexical = self.bm25.search(query, deep).hits
        semantic = self.dense.search(query, deep).hits
        if self.fusion == "weighted":
            return Retrieved(tuple(fuse_weighted([lexical, semantic], [1.0 - self.weight, self.weight], n)))
        return Retrieved(tuple(fuse([lexical, semantic], n, self.rrf_k)))

    def describe(self) -> dict[str, Any]:
        fusion: dict[str, Any] = ({"fusion": "rrf", "rrf_k": self.rrf_k} if self.fusion == "rrf" else
                                  {"fusion": "weighted", "weight": self.weight, "normalization": "min-max"})
        return {"corpus": str(self.path), **fusion, "level": "document", "depth": self.depth,
                "bm25": self.bm25.describe(), "dense": self.dense.describe()}

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


def parts_of(spec: str, options: RetrieverOptions | None = None) -> tuple[Path, dict[str, Any], str, str]:
    """The corpus path, the fusion settings (``fusion``, ``rrf_k``, ``weight``, ``depth``) and the
    ``bm25:`` and ``dense:`` specs of the two sides of ``hybrid:PATH[?options]`` (InputError for an
    unknown option or a bad fusion value)."""
    from ragauge.retrieve.bm25 import _KNOWN as BM25_OPTIONS
    from ragauge.retrieve.dense import DENSE_OPTIONS

    path, given = corpus_spec(spec, (options or RetrieverOptions()).extra, set(_OWN) | BM25_OPTIONS | DENSE_OPTIONS)
    own, bm25_options, dense_options = _route(given, spec)
    return path, own, _sub_spec("bm25", str(path), bm25_options), _sub_spec("dense", str(path), dense_options)


def open(spec: str, options: RetrieverOptions) -> HybridRetriever:  # noqa: A001
    from ragauge.retrieve import bm25 as bm25_adapter
    from ragauge.retrieve import dense as dense_adapter

    path, own, bm25_spec, dense_spec = parts_of(spec, options)
    inner = dataclasses.replace(options, extra={})
    bm25 = bm25_adapter.open(bm25_spec, inner)
    try:
        dense = dense_adapter.open(dense_spec, inner)
    except BaseException:
        bm25.close()
        raise
    return HybridRetriever(spec, path, own, bm25, dense)


ADAPTER = Adapter(
    "hybrid", ("hybrid",), open,
    "bm25: and dense: fused at the document level (best chunk kept) by reciprocal rank fusion, or by a weighted sum "
    "of min-max normalised scores",
    "hybrid:examples/scifact/corpus.jsonl.gz", extra="dense",
    options=(Option("fusion", "rrf or weighted", "rrf", ("rrf", "weighted")),
             Option("rrf_k", "the constant of reciprocal rank fusion", "60"),
             Option("weight", "with fusion=weighted: the dense side's share", "0.5"),
             Option("depth", "hits taken from each side before fusing", "100")))
