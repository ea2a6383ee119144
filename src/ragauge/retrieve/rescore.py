"""Bi-encoder rescoring: ``bm25:PATH?rerank=minilm&rerank_depth=100`` (also on ``hybrid:``).

The first stage (the spec without ``rerank`` and ``rerank_depth``) fetches ``max(n, rerank_depth)``
hits; each is rescored by the cosine between the query's embedding and its passage's embedding, and
the ``n`` best are returned, highest cosine first (equal cosines keep the first stage's order). The
passage embeddings are those of ``dense:PATH`` with the same chunking and title handling and the
embedder ``rerank`` names (``minilm``, the bundled all-MiniLM-L6-v2; or ``hash`` / ``hash-N``), cached
as the dense retriever caches them; so rescoring costs one query embedding and a few hundred dot
products per question. It reorders the first stage's candidates and never adds one: whatever the
first stage missed in its top ``rerank_depth`` stays missed (the sweep reports that ceiling).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import numpy as np

from ragauge.core.numbers import COUNT
from ragauge.errors import InputError
from ragauge.retrieve.base import Retrieved, Retriever, RetrieverOptions, spec_number, split_spec

OPTIONS = frozenset({"rerank", "rerank_depth"})
DEPTH = 100
SCHEMES = ("bm25", "hybrid")
_PASSAGE_OPTIONS = ("chunk_size", "chunk_overlap", "chunk_unit", "title")


def wants_rescoring(spec: str) -> bool:
    """Whether ``spec`` asks for rescoring (a ``rerank`` option)."""
    return "rerank" in split_spec(spec)[2]


def parts_of(spec: str) -> tuple[str, str, int]:
    """The first stage's spec, the ``dense:`` spec of the passage embeddings, and the rescoring depth
    of ``SCHEME:PATH?...&rerank=EMBEDDER[&rerank_depth=N]`` (InputError for a bad one)."""
    scheme, target, options = split_spec(spec)
    if scheme not in SCHEMES:
        raise InputError(f"rerank applies to {' and '.join(SCHEMES)} specs, not {scheme}:",
                         hint="rescoring dense hits with a bi-encoder would only repeat the dense ranking")
    embedder = options.pop("rerank", "")
    if not embedder:
        raise InputError(f"option rerank needs an embedder in {spec!r}", hint="e.g. rerank=minilm")
    depth = spec_number(options, "rerank_depth", DEPTH, COUNT, spec)
    options.pop("rerank_depth", None)
    first = f"{scheme}:{target}" + (f"?{urlencode(options)}" if options else "")
    passages = {key: options[key] for key in _PASSAGE_OPTIONS if key in options}
    dense = f"dense:{target}?" + urlencode({**passages, "embedder": embedder})
    return first, dense, int(depth)


class RescoredRetriever:
    """A first stage whose top ``depth`` hits are reordered by bi-encoder cosine (module docstring)."""

    max_concurrency = 1  # the embedder serialises its model calls (see DenseRetriever)

    def __init__(self, spec: str, first: Retriever, passages: Any, depth: int) -> None:
        self.spec = spec
        self.first = first
        self.passages = passages  # a DenseRetriever: embedder, matrix, doc_ids, chunk_ids
        self.depth = depth
        self._row = {(d, c): i for i, (d, c) in enumerate(zip(passages.doc_ids, passages.chunk_ids))}

    def search(self, query: str, n: int) -> Retrieved:
        if n < 1:
            return Retrieved(())
        candidates = list(self.first.search(query, max(n, self.depth)).hits)[:max(n, self.depth)]
        rows = [self._row.get((h.doc_id, h.chunk_id)) for h in candidates]
        missing = next((h for h, r in zip(candidates, rows) if r is None), None)
        if missing is not None:
            raise InputError(f"hit {missing.doc_id!r} / {missing.chunk_id!r} of the first stage has no passage "
                             f"embedding", hint="the first stage and the rescoring must index the same passages")
        vector = self.passages.embedder.embed([query])[0]
        scores = self.passages.matrix[np.asarray(rows, dtype=np.int64)] @ vector if rows else np.zeros(0)
        order = sorted(range(len(candidates)), key=lambda i: (-float(scores[i]), i))[:n]
        return Retrieved(tuple(replace(candidates[i], score=round(float(scores[i]), 6)) for i in order))

    def describe(self) -> dict[str, Any]:
        return {"rerank": "bi-encoder cosine", "rerank_depth": self.depth, "first_stage": self.first.describe(),
                "passages": self.passages.describe()}

    def fingerprint(self) -> str | None:
        return self.first.fingerprint()

    def documents(self) -> set[str] | None:
        return self.first.documents()

    def close(self) -> None:
        try:
            self.first.close()
        finally:
            self.passages.close()


def open(spec: str, options: RetrieverOptions, *, cache: Path | None = None) -> RescoredRetriever:  # noqa: A001
    """Open a rescored spec: its first stage through the registry, its passage embeddings as the
    dense retriever opens them (``cache``: the cache folder)."""
    from ragauge.retrieve import dense
    from ragauge.retrieve.registry import open_retriever

    first_spec, dense_spec, depth = parts_of(spec)
    first = open_retriever(first_spec, options)
    try:
        passages = dense.open(dense_spec, RetrieverOptions(), cache=cache)
    except BaseException:
        first.close()
        raise
    return RescoredRetriever(spec, first, passages, depth)
