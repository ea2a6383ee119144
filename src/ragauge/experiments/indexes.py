"""The indexes a sweep needs, each built once and shared by every configuration that uses it.

A configuration's retriever is the built-in one its spec names (``bm25:``, ``dense:``, ``hybrid:``),
so its answers are those ``ragauge run --retriever SPEC`` gives. What is shared is the index under
it: one BM25 index per distinct set of BM25 settings, one passage-embedding matrix per distinct
(embedder, chunking, title). Both live in the sweep's cache folder, keyed by the corpus content, the
settings and the embedder's identity (see ``retrieve.bm25`` and ``retrieve.dense``): an entry whose
recorded key does not match is rebuilt, never reused. One MiniLM model is loaded for the whole sweep.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.core.hashing import content_hash
from ragauge.experiments.grid import Configuration
from ragauge.experiments.result import IndexBuild
from ragauge.retrieve.base import Retrieved, Retriever

if TYPE_CHECKING:
    from ragauge.formats.corpus import CorpusTexts


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else 0


@dataclass(frozen=True)
class _Need:
    kind: str
    spec: str
    identity: str


class Indexes:
    """Opens (building when needed) the indexes of a set of configurations, once each.

    ``plan(configurations)`` lists the distinct indexes in first-use order; ``build(on_index)``
    opens them all, calling ``on_index(done, total, label)`` before each; ``retriever(config)``
    then returns the configuration's retriever over the shared indexes."""

    def __init__(self, corpus: Path, cache: Path) -> None:
        self.corpus = corpus
        self.cache = cache
        self._needs: dict[str, list[_Need]] = {}
        self._order: list[_Need] = []
        self._open: dict[str, Any] = {}
        self.builds: dict[str, IndexBuild] = {}
        self._embedders: dict[str, Any] = {}  # and the rerankers' models and passage texts

    @cached_property
    def texts(self) -> CorpusTexts:
        """The corpus texts, read once for every configuration's scoring (span labels, counted
        budgets, a reranker's ceiling)."""
        from ragauge.formats.corpus import read_corpus_texts

        return read_corpus_texts(self.corpus)

    def plan(self, configurations: list[Configuration]) -> list[str]:
        """Check every configuration's spec (InputError naming it) and list the indexes they need."""
        from ragauge.errors import InputError

        for config in configurations:
            try:
                needs = self._needs_of(config.spec(self.corpus))
            except InputError as exc:
                exc.message = f"configuration {config.name!r}: {exc.message}"
                raise
            self._needs[config.name] = needs
            for need in needs:
                if all(need.identity != seen.identity for seen in self._order):
                    self._order.append(need)
        return [need.spec for need in self._order]

    def _needs_of(self, spec: str) -> list[_Need]:
        from ragauge.retrieve import bm25, dense, hybrid, rescore

        scheme = spec.split(":", 1)[0]
        if scheme != "dense" and rescore.wants_rescoring(spec):  # the first stage's indexes, then the passages'
            first, rerank = rescore.split(spec)
            if rerank.kind != "bi-encoder":  # a pair model reads the passages' text, not an index
                dense.settings_of(rerank.passages)
                rescore.check_reranker(rerank.kind, rerank.target)
                return self._needs_of(first)
            return self._needs_of(first) + self._needs_of(rerank.passages)
        if scheme == "hybrid":
            _, _, lexical, semantic = hybrid.parts_of(spec)
            return self._needs_of(lexical) + self._needs_of(semantic)
        if scheme == "bm25":
            _, settings = bm25.settings_of(spec)
            return [_Need("bm25", spec, content_hash({"bm25": settings}))]
        _, settings = dense.settings_of(spec)
        settings = {k: v for k, v in settings.items() if k != "batch_size"}  # it does not change the vectors
        return [_Need("dense", spec, content_hash({"dense": settings}))]

    def build(self, on_index: Callable[[int, int, str], None] | None = None) -> list[IndexBuild]:
        """Open every planned index (building those not cached). Returns one record per index."""
        for done, need in enumerate(self._order):
            if on_index is not None:
                on_index(done, len(self._order), need.spec)
            self._open_index(need)
        if on_index is not None:
            on_index(len(self._order), len(self._order), "")
        for need in self._order:
            users = tuple(name for name, needs in self._needs.items() if need in needs)
            self.builds[need.identity] = dataclasses.replace(self.builds[need.identity], used_by=users)
        return [self.builds[need.identity] for need in self._order]

    def _open_index(self, need: _Need) -> Any:
        if need.identity in self._open:
            return self._open[need.identity]
        from ragauge.retrieve import bm25, dense
        from ragauge.retrieve.base import RetrieverOptions

        start = time.perf_counter()
        if need.kind == "bm25":
            index: Any = bm25.open(need.spec, RetrieverOptions(), cache=self.cache)
            where, passages = index.index_dir, len(index.doc_ids)
        else:
            _, settings = dense.settings_of(need.spec)
            from ragauge.core.cache import cache_dir

            index = dense.open(need.spec, RetrieverOptions(), embedder=self._embedder(settings), cache=self.cache,
                               shared=cache_dir())  # the embeddings dense: specs cache, under the same key
            where, passages = index.cache_path, len(index.doc_ids)
        seconds = time.perf_counter() - start
        self._open[need.identity] = index
        self.builds[need.identity] = IndexBuild(
            need.kind, need.spec, index.key, str(where), bool(index.cached),
            index.build_seconds, round(seconds, 3), _size(where), passages)
        return index

    def _embedder(self, settings: dict[str, Any]) -> Any:
        """One embedder object per embedder name for the whole sweep (the model is loaded once)."""
        from ragauge.models.embedders import DEFAULT_EMBEDDER, get_embedder
        from ragauge.models.minilm import MiniLM

        name = settings.get("embedder", DEFAULT_EMBEDDER)
        if name not in self._embedders:
            self._embedders[name] = (MiniLM(settings["batch_size"]) if name == DEFAULT_EMBEDDER
                                     else get_embedder(name, python=True))
        return self._embedders[name]

    def retriever(self, config: Configuration) -> Retriever:
        """The configuration's retriever over the shared, opened indexes (``build`` first)."""
        from ragauge.retrieve import rescore

        spec = config.spec(self.corpus)
        needs = self._needs[config.name]
        if config.retriever != "dense" and rescore.wants_rescoring(spec):
            first, rerank = rescore.split(spec)
            if rerank.kind == "bi-encoder":
                return rescore.RescoredRetriever(spec, self._first_stage(first, needs[:-1]),
                                                 rescore.BiEncoder(self._open_index(needs[-1])), rerank.depth)
            return rescore.RescoredRetriever(spec, self._first_stage(first, needs), self._pair_scorer(rerank),
                                             rerank.depth)
        return self._first_stage(spec, needs)

    def _pair_scorer(self, rerank: Any) -> Any:
        """A cross-encoder or ``python:`` reranker over the passages' texts; each model and each
        chunking's texts loaded once for the whole sweep."""
        from ragauge.retrieve import rescore

        model_key, texts_key = f"{rerank.kind}:{rerank.target}", f"texts:{rerank.passages}"
        if model_key not in self._embedders:
            self._embedders[model_key] = rescore.pair_model(rerank.kind, rerank.target)
        if texts_key not in self._embedders:
            self._embedders[texts_key] = rescore.passage_texts(rerank.passages)
        return rescore.OnText(self._embedders[model_key], self._embedders[texts_key])

    def _first_stage(self, spec: str, needs: list[_Need]) -> Retriever:
        from ragauge.retrieve import hybrid

        if not spec.startswith("hybrid:"):
            return Named(self._open_index(needs[0]), spec)
        path, own, _, _ = hybrid.parts_of(spec)
        return hybrid.HybridRetriever(spec, path, own, self._open_index(needs[0]), self._open_index(needs[1]))

    def index_builds(self, config: Configuration) -> list[IndexBuild]:
        """The records of the indexes ``config`` uses."""
        return [self.builds[need.identity] for need in self._needs[config.name]]


class Named:
    """A shared index answering under the spec of the configuration that uses it (the spec its run
    file records); everything else is the index's own."""

    def __init__(self, inner: Retriever, spec: str) -> None:
        self.inner = inner
        self.spec = spec
        if hasattr(inner, "max_concurrency"):
            self.max_concurrency = inner.max_concurrency

    def search(self, query: str, n: int) -> Retrieved:
        return self.inner.search(query, n)

    def describe(self) -> dict[str, Any]:
        return self.inner.describe()

    def fingerprint(self) -> str | None:
        return self.inner.fingerprint()

    def documents(self) -> set[str] | None:
        return self.inner.documents()

    def close(self) -> None:
        """Nothing: the index stays open for the other configurations that share it."""
