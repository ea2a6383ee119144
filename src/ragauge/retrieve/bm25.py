"""``bm25:PATH[?options]``: the built-in lexical retriever (bm25s), over a local corpus.

Options (query string): ``k1`` (1.5), ``b`` (0.75), ``method`` (lucene), ``stemmer`` (english |
none), ``stopwords`` (en | none), ``title`` (1: index title + text), and chunking:
``chunk_size`` / ``chunk_overlap`` / ``chunk_unit`` (words | chars). The index is cached on disk
under $RAGAUGE_CACHE (default ~/.cache/ragauge), keyed by the corpus content and the settings (bm25s
scores eagerly, so ``k1``, ``b`` and ``method`` are part of the index); an entry records its full key
and is used only when that key matches, else it is rebuilt.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.cache import cache_dir
from ragauge.core.hashing import content_hash
from ragauge.core.numbers import POSITIVE, UNIT, WHOLE
from ragauge.data.hits import Hit
from ragauge.errors import InputError
from ragauge.retrieve.adapter import Adapter, Option
from ragauge.retrieve.base import (
    Retrieved,
    RetrieverBase,
    RetrieverOptions,
    spec_number,
)
from ragauge.retrieve.corpus import (
    Chunking,
    chunk,
    corpus_fingerprint,
    corpus_spec,
    passage_layout,
    read_documents,
)

_KNOWN = {"k1", "b", "method", "stemmer", "stopwords", "title", "chunk_size", "chunk_overlap", "chunk_unit"}


def _settings(options: dict[str, str], spec: str) -> dict[str, Any]:
    """The settings of a bm25 spec, each number checked: ``k1`` > 0, ``b`` in [0, 1], chunk sizes
    integers >= 0 (their relation is checked by ``Chunking``); the stemmer is one PyStemmer knows, so
    a mistyped one is refused when the spec is read (a sweep checks every configuration before it
    builds anything), not when the first question is asked."""
    stemmer = options.get("stemmer", "english")
    if stemmer not in ("none", ""):
        import Stemmer

        if stemmer not in Stemmer.algorithms():
            raise InputError(f"unknown stemmer {stemmer!r} in {spec}",
                             hint=f"one of: none, {', '.join(sorted(Stemmer.algorithms()))}")
    return {
        "k1": spec_number(options, "k1", 1.5, POSITIVE, spec), "b": spec_number(options, "b", 0.75, UNIT, spec),
        "method": options.get("method", "lucene"), "stemmer": options.get("stemmer", "english"),
        "stopwords": options.get("stopwords", "en"), "title": options.get("title", "1") not in ("0", "false"),
        "chunk_size": spec_number(options, "chunk_size", 0, WHOLE, spec),
        "chunk_overlap": spec_number(options, "chunk_overlap", 0, WHOLE, spec),
        "chunk_unit": options.get("chunk_unit", "words"),
    }


class BM25Retriever(RetrieverBase):
    """bm25s over passages (documents or chunks); thread-safe search."""

    def __init__(self, spec: str, path: Path, settings: dict[str, Any], *, cache: Path | None = None) -> None:
        try:
            import bm25s
            import Stemmer  # noqa: F401  (PyStemmer)
        except ImportError as exc:  # both are core dependencies: the installation is broken
            raise InputError(f"the bm25 retriever needs {exc.name!r}, a dependency of ragauge, which is missing",
                             hint="reinstall ragauge: pip install --force-reinstall ragauge") from None
        self.spec = spec
        self.path = path
        self.settings = settings
        self._bm25s = bm25s
        self._local = threading.local()
        self.chunking = Chunking.of(settings)
        self.corpus_hash = corpus_fingerprint(path)
        self.key = content_hash({"corpus": self.corpus_hash, "settings": settings, "bm25s": bm25s.__version__})
        self.index_dir = (cache or cache_dir()) / "bm25" / self.key.split(":")[1][:32]
        self.build_seconds: float | None = None
        self.cached = self._load()
        if not self.cached:
            self._build()

    def _load(self) -> bool:
        """Load the cache entry when it is whole and was built for this key; False otherwise."""
        try:
            meta = json.loads((self.index_dir / "passages.json").read_text())
            if not isinstance(meta, dict) or meta.get("key", self.key) != self.key:  # older entries hold no key
                return False
            doc_ids, chunk_ids = meta["doc_ids"], meta["chunk_ids"]
            if not isinstance(doc_ids, list) or not isinstance(chunk_ids, list) or len(doc_ids) != len(chunk_ids):
                return False
            layout = meta.get("layout") or passage_layout(self.path, self.chunking, len(doc_ids))
            if not isinstance(layout, list) or len(layout) != len(doc_ids):
                return False
            self.model = self._bm25s.BM25.load(str(self.index_dir))
        except (OSError, ValueError, KeyError):
            return False
        self.doc_ids, self.chunk_ids, self.layout = doc_ids, chunk_ids, [tuple(x) for x in layout]
        seconds = meta.get("build_seconds")
        self.build_seconds = float(seconds) if isinstance(seconds, (int, float)) else None
        return True

    def _stemmer(self) -> Any:
        if self.settings["stemmer"] in ("none", ""):
            return None
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:  # PyStemmer objects are not thread-safe: one per thread
            import Stemmer

            try:
                stemmer = Stemmer.Stemmer(self.settings["stemmer"])
            except KeyError:
                raise InputError(f"unknown stemmer {self.settings['stemmer']!r}",
                                 hint="e.g. stemmer=english, or stemmer=none") from None
            self._local.stemmer = stemmer
        return stemmer

    def _stopwords(self) -> Any:
        return None if self.settings["stopwords"] in ("none", "") else self.settings["stopwords"]

    def _build(self) -> None:
        bm25s = self._bm25s
        start = time.perf_counter()
        passages = chunk(read_documents(self.path), self.chunking)
        if not passages:
            raise InputError("the corpus has no documents", where=str(self.path))
        texts = [p.indexed_text if self.settings["title"] else p.text for p in passages]
        tokens = bm25s.tokenize(texts, stopwords=self._stopwords(), stemmer=self._stemmer(), show_progress=False)
        self.model = bm25s.BM25(k1=self.settings["k1"], b=self.settings["b"], method=self.settings["method"])
        self.model.index(tokens, show_progress=False)
        self.doc_ids = [p.doc_id for p in passages]
        self.chunk_ids = [p.chunk_id for p in passages]
        self.layout = [(p.length, p.start, p.end) for p in passages]
        self.build_seconds = time.perf_counter() - start
        try:
            self.index_dir.parent.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=self.index_dir.name + ".", dir=self.index_dir.parent))
            tmp.chmod(0o755)
        except OSError:
            return  # a read-only cache only costs the next open the build time
        try:
            self.model.save(str(tmp))
            (tmp / "passages.json").write_text(json.dumps({"doc_ids": self.doc_ids, "chunk_ids": self.chunk_ids,
                                                           "layout": self.layout, "key": self.key,
                                                           "build_seconds": self.build_seconds}))
            if self.index_dir.exists():  # reached only when the entry there could not be loaded
                shutil.rmtree(self.index_dir, ignore_errors=True)
            tmp.replace(self.index_dir)
        except OSError:  # another process built it first, or the disk is full
            shutil.rmtree(tmp, ignore_errors=True)

    def search(self, query: str, n: int) -> Retrieved:
        tokens = self._bm25s.tokenize([query], stopwords=self._stopwords(), stemmer=self._stemmer(),
                                      return_ids=False, show_progress=False)[0]
        ids = self.model.get_tokens_ids(tokens)
        if not ids:
            return Retrieved(())
        scores = np.asarray(self.model.get_scores_from_ids(ids), dtype=np.float64)
        n = min(n, len(scores))
        top = np.argpartition(-scores, n - 1)[:n] if n < len(scores) else np.arange(len(scores))
        top = top[np.lexsort((top, -scores[top]))]  # score descending, then corpus order
        return Retrieved(tuple(Hit(self.doc_ids[i], self.chunk_ids[i], round(float(scores[i]), 6), *self.layout[i])
                               for i in top if scores[i] > 0))

    def describe(self) -> dict[str, Any]:
        return {"corpus": str(self.path), "passages": len(self.doc_ids), "bm25s": self._bm25s.__version__,
                **self.settings}

    def fingerprint(self) -> str | None:
        return self.corpus_hash

    def documents(self) -> set[str] | None:
        return set(self.doc_ids)



def settings_of(spec: str, options: RetrieverOptions | None = None) -> tuple[Path, dict[str, Any]]:
    """The corpus path and the checked settings of ``bm25:PATH[?options]``, defaults filled in
    (InputError for an unknown option, a bad value or chunk sizes that do not fit together)."""
    path, given = corpus_spec(spec, (options or RetrieverOptions()).extra, _KNOWN)
    settings = _settings(given, spec)
    Chunking.of(settings)
    return path, settings


def open(spec: str, options: RetrieverOptions, *, cache: Path | None = None) -> BM25Retriever:  # noqa: A001
    """Open ``bm25:PATH[?options]``; ``cache`` is the cache folder (default: ``core.cache.cache_dir()``)."""
    path, settings = settings_of(spec, options)
    return BM25Retriever(spec, path, settings, cache=cache)


ADAPTER = Adapter(
    "bm25", ("bm25",), open,
    "the built-in BM25 (bm25s, English stemming and stop words, title + text) over a JSONL or BEIR corpus or a folder "
    "of .md/.txt/.html files; the index is cached under $RAGAUGE_CACHE, keyed by corpus content and settings",
    "bm25:examples/scifact/corpus.jsonl.gz",
    options=(Option("k1", "term-frequency saturation", "1.5"), Option("b", "length normalisation", "0.75"),
             Option("chunk_size", "words or characters per chunk; 0: whole documents", "0"),
             Option("chunk_overlap", "overlap between consecutive chunks", "0"),
             Option("chunk_unit", "what chunk_size counts", "words", ("words", "chars")),
             Option("rerank", "reorder the top rerank_depth: minilm, bi-encoder:EMBEDDER, cross-encoder:DIR or "
                              "python:module:function"),
             Option("rerank_depth", "how many first-stage hits are reordered", "100")))
