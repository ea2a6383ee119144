"""Reranking the first stage's top hits: ``bm25:PATH?rerank=RERANKER&rerank_depth=100`` (also on ``hybrid:``).

The first stage (the spec without ``rerank`` and ``rerank_depth``) fetches ``max(n, rerank_depth)``
hits; each of the top ``rerank_depth`` is given a new score by the reranker and the ``n`` best are
returned, highest score first (equal scores keep the first stage's order), each hit's score being
the reranker's (rounded to 6 decimals). It reorders the first stage's candidates and never adds
one: whatever the first stage missed in its top ``rerank_depth`` stays missed (the sweep reports
that ceiling). ``RERANKER`` is one of:

- ``EMBEDDER`` or ``bi-encoder:EMBEDDER``: bi-encoder rescoring, the cosine between the question's
  embedding and the passage's. ``EMBEDDER`` is an ``embedder=`` value of ``dense:`` (``minilm``,
  ``hash`` / ``hash-N``, ``python:module:function``); the passage embeddings are those of
  ``dense:PATH`` with the same chunking and title handling, cached as the dense retriever caches
  them, so rescoring costs one question embedding and a few hundred dot products per question.
- ``cross-encoder:DIR``: a cross-encoder from a local model directory on ONNX Runtime, scoring each
  (question, passage) pair (``retrieve.cross_encoder`` states the exact contract).
- ``python:module:function``: ``function(query, candidates) -> scores`` (``retrieve.python_models``).

A cross-encoder or a ``python:`` reranker reads each candidate's text as ``dense:`` would embed it
(title and text; the text alone with ``title=0``; the spec's chunking). The retriever records, for
every call, the milliseconds of its first stage and of its reranking (``stage_latency``): what the
reranker adds to a question's latency.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlencode

import numpy as np

from ragauge.core.numbers import COUNT
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.base import Retrieved, Retriever, RetrieverOptions, spec_number, split_spec

OPTIONS = frozenset({"rerank", "rerank_depth"})
DEPTH = 100
SCHEMES = ("bm25", "hybrid")
KINDS = ("bi-encoder", "cross-encoder", "python")
_PASSAGE_OPTIONS = ("chunk_size", "chunk_overlap", "chunk_unit", "title")
_HINT = "rerank=minilm (bi-encoder), rerank=cross-encoder:DIR or rerank=python:module:function"


@dataclass(frozen=True)
class Rerank:
    """A parsed ``rerank`` value: its ``kind`` (one of KINDS), ``target`` (the embedder name, the
    model directory, or ``module:function``), the ``dense:`` spec of its passages (their chunking and
    title handling, and for a bi-encoder their embedder) and the ``depth`` it reorders."""

    kind: str
    target: str
    passages: str
    depth: int

    @property
    def label(self) -> str:
        return self.target if self.kind == "bi-encoder" else f"{self.kind}:{self.target}"


def reranker_of(value: str) -> tuple[str, str]:
    """``(kind, target)`` of a ``rerank`` value (module docstring); InputError for a malformed one.
    An embedder name is checked without loading its model; nothing is imported or opened."""
    from ragauge.models.embedders import check_name

    text = value.strip()
    kind, sep, target = text.partition(":")
    if sep and kind in ("cross-encoder", "bi-encoder"):
        if not target:
            what, example = ("model directory", "models/ms-marco-MiniLM-L6") if kind == "cross-encoder" else (
                "embedder", "minilm")
            raise InputError(f"rerank={value!r} names no {what}", hint=f"e.g. rerank={kind}:{example}")
        if kind == "bi-encoder":
            check_name(target)
        return kind, target
    if sep and kind == "python":
        module, colon, function = target.rpartition(":")
        if not colon or not module or not function:
            raise InputError(f"rerank={value!r} must look like python:module:function", hint=_HINT)
        return "python", target
    if not text:
        raise InputError("option rerank needs a reranker", hint=_HINT)
    try:
        check_name(text)
    except InputError as exc:
        raise InputError(f"unknown reranker {value!r}: {exc.message}", hint=_HINT) from None
    return "bi-encoder", text


def wants_rescoring(spec: str) -> bool:
    """Whether ``spec`` asks for reranking (a ``rerank`` option)."""
    return "rerank" in split_spec(spec)[2]


def split(spec: str) -> tuple[str, Rerank]:
    """The first stage's spec and the reranking of ``SCHEME:PATH?...&rerank=R[&rerank_depth=N]``
    (InputError for a bad one)."""
    scheme, target, options = split_spec(spec)
    if scheme not in SCHEMES:
        raise InputError(f"rerank applies to {' and '.join(SCHEMES)} specs, not {scheme}:",
                         hint="rerank the hits of bm25: or hybrid: (a dense: first stage can be a hybrid's side)")
    kind, what = reranker_of(options.pop("rerank", ""))
    depth = spec_number(options, "rerank_depth", DEPTH, COUNT, spec)
    options.pop("rerank_depth", None)
    first = f"{scheme}:{target}" + (f"?{urlencode(options)}" if options else "")
    passages = {key: options[key] for key in _PASSAGE_OPTIONS if key in options}
    if kind == "bi-encoder":
        passages["embedder"] = what
    dense = f"dense:{target}" + (f"?{urlencode(passages)}" if passages else "")
    return first, Rerank(kind, what, dense, int(depth))


class Scorer(Protocol):
    """Scores a question's candidates: ``scores(query, hits)`` -> one finite float per hit."""

    def scores(self, query: str, hits: Sequence[Hit]) -> np.ndarray: ...

    def describe(self) -> dict[str, Any]: ...


def _missing(hit: Hit, what: str) -> InputError:
    return InputError(f"hit {hit.doc_id!r} / {hit.chunk_id!r} of the first stage has no passage {what}",
                      hint="the first stage and the reranker must index the same passages")


class BiEncoder:
    """Cosine between the question's and each passage's embedding (``passages``: a DenseRetriever)."""

    def __init__(self, passages: Any) -> None:
        self.passages = passages
        self._row = {(d, c): i for i, (d, c) in enumerate(zip(passages.doc_ids, passages.chunk_ids))}

    def scores(self, query: str, hits: Sequence[Hit]) -> np.ndarray:
        rows = [self._row.get((h.doc_id, h.chunk_id)) for h in hits]
        missing = next((h for h, r in zip(hits, rows) if r is None), None)
        if missing is not None:
            raise _missing(missing, "embedding")
        if not rows:
            return np.zeros(0)
        vector = self.passages.embedder.embed([query])[0]
        scores: np.ndarray = self.passages.matrix[np.asarray(rows, dtype=np.int64)] @ vector
        return scores

    def describe(self) -> dict[str, Any]:
        return {"rerank": "bi-encoder cosine", "passages": self.passages.describe()}


class PairModel(Protocol):
    """A cross-encoder or a ``python:`` reranker: one score per (query, candidate text)."""

    def scores(self, query: str, candidates: Sequence[str], names: Sequence[str]) -> np.ndarray: ...

    def describe(self) -> dict[str, Any]: ...


class OnText:
    """A pair model over the passages' texts (``texts``: (doc id, chunk id) -> text)."""

    def __init__(self, model: PairModel, texts: Mapping[tuple[str, str | None], str]) -> None:
        self.model = model
        self.texts = texts

    def scores(self, query: str, hits: Sequence[Hit]) -> np.ndarray:
        texts = []
        for hit in hits:
            text = self.texts.get((str(hit.doc_id), hit.chunk_id))
            if text is None:
                raise _missing(hit, "text")
            texts.append(text)
        return self.model.scores(query, texts, [h.chunk_id or str(h.doc_id) for h in hits])

    def describe(self) -> dict[str, Any]:
        return self.model.describe()


def passage_texts(passages: str) -> dict[tuple[str, str | None], str]:
    """The text of every passage of a ``dense:`` spec, as the dense retriever embeds it."""
    from ragauge.retrieve import dense
    from ragauge.retrieve.corpus import Chunking, chunk, read_documents

    path, settings = dense.settings_of(passages)
    chunking = Chunking.of(settings)
    return {(p.doc_id, p.chunk_id): p.indexed_text if settings["title"] else p.text
            for p in chunk(read_documents(path), chunking)}


def check_reranker(kind: str, target: str) -> None:
    """InputError now, before anything runs, for a model directory without its files or a
    ``python:`` reranker that cannot be imported (nothing is loaded or called)."""
    if kind == "cross-encoder":
        from ragauge.models.cross_encoder import locate

        locate(target)
    elif kind == "python":
        from ragauge.core.objects import load_callable

        load_callable(target)


def pair_model(kind: str, target: str) -> PairModel:
    """The cross-encoder or ``python:`` reranker a parsed ``rerank`` value names (loaded now)."""
    if kind == "cross-encoder":
        from ragauge.models.cross_encoder import CrossEncoder

        return CrossEncoder(target)
    from ragauge.models.python_models import PythonReranker

    return PythonReranker(target)


class RescoredRetriever:
    """A first stage whose top ``depth`` hits are reordered by a reranker (module docstring)."""

    max_concurrency = 1  # the models serialise their calls (see DenseRetriever)

    def __init__(self, spec: str, first: Retriever, scorer: Scorer, depth: int, closing: Any = None) -> None:
        self.spec = spec
        self.first = first
        self.scorer = scorer
        self.depth = depth
        self._closing = closing  # what close() closes besides the first stage (a passages index it opened)
        self._lock = threading.Lock()
        self._ms: list[tuple[float, float]] = []

    def search(self, query: str, n: int) -> Retrieved:
        if n < 1:
            return Retrieved(())
        start = time.perf_counter()
        candidates = list(self.first.search(query, max(n, self.depth)).hits)[:max(n, self.depth)]
        ranked = time.perf_counter()
        scores = np.asarray(self.scorer.scores(query, candidates), dtype=np.float64)
        done = time.perf_counter()
        with self._lock:
            self._ms.append(((ranked - start) * 1000.0, (done - ranked) * 1000.0))
        order = sorted(range(len(candidates)), key=lambda i: (-float(scores[i]), i))[:n]
        return Retrieved(tuple(replace(candidates[i], score=round(float(scores[i]), 6)) for i in order))

    def stage_latency(self) -> dict[str, float] | None:
        """Over the calls answered so far, in milliseconds: ``p50`` / ``p95`` of the reranking alone
        and ``first_p50`` of the first stage (numpy's linear percentiles, as every latency of a run);
        None before any call."""
        with self._lock:
            if not self._ms:
                return None
            first, rerank = np.asarray(self._ms).T
        return {"p50": round(float(np.percentile(rerank, 50)), 3), "p95": round(float(np.percentile(rerank, 95)), 3),
                "first_p50": round(float(np.percentile(first, 50)), 3)}

    def describe(self) -> dict[str, Any]:
        return {**self.scorer.describe(), "rerank_depth": self.depth, "first_stage": self.first.describe()}

    def fingerprint(self) -> str | None:
        return self.first.fingerprint()

    def documents(self) -> set[str] | None:
        return self.first.documents()

    def close(self) -> None:
        try:
            self.first.close()
        finally:
            if self._closing is not None:
                self._closing.close()


def open(spec: str, options: RetrieverOptions, *, cache: Path | None = None) -> RescoredRetriever:  # noqa: A001
    """Open a reranked spec: its first stage (a bm25:, dense: or hybrid: spec, opened by its own
    adapter), then its reranker (a bi-encoder's passage embeddings as the dense retriever opens them;
    ``cache``: the cache folder)."""
    from ragauge.retrieve import bm25, dense, hybrid

    first_spec, rerank = split(spec)
    stages: dict[str, Callable[[str, RetrieverOptions], Retriever]] = {
        "bm25": bm25.open, "dense": dense.open, "hybrid": hybrid.open}
    scheme = first_spec.partition(":")[0]
    if scheme not in stages:
        raise InputError(f"rerank applies to bm25:, dense: and hybrid: specs, not {scheme}:",
                         hint="rerank your own retriever in your code, or rerank a built-in one")
    first = stages[scheme](first_spec, options)
    try:
        if rerank.kind == "bi-encoder":
            passages = dense.open(rerank.passages, RetrieverOptions(), cache=cache)
            return RescoredRetriever(spec, first, BiEncoder(passages), rerank.depth, passages)
        scorer = OnText(pair_model(rerank.kind, rerank.target), passage_texts(rerank.passages))
        return RescoredRetriever(spec, first, scorer, rerank.depth)
    except BaseException:
        first.close()
        raise
