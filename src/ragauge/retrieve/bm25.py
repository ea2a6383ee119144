"""``bm25:PATH[?options]``: the built-in lexical retriever (bm25s), over a local corpus.

Options (query string): ``k1`` (1.5), ``b`` (0.75), ``method`` (lucene), ``stemmer`` (english |
none), ``stopwords`` (en | none), ``title`` (1: index title + text), and chunking:
``chunk_size`` / ``chunk_overlap`` / ``chunk_unit`` (words | chars). The index is cached on disk
under $RAGAUGE_CACHE (default ~/.cache/ragauge), keyed by the corpus content and the settings.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.hashing import content_hash
from ragauge.core.numbers import POSITIVE, UNIT, WHOLE
from ragauge.data.run import Hit
from ragauge.errors import InputError
from ragauge.retrieve.base import (
    Retrieved,
    RetrieverBase,
    RetrieverOptions,
    spec_number,
)
from ragauge.retrieve.corpus import (
    Chunking,
    cache_dir,
    chunk,
    corpus_fingerprint,
    corpus_spec,
    read_documents,
)

_KNOWN = {"k1", "b", "method", "stemmer", "stopwords", "title", "chunk_size", "chunk_overlap", "chunk_unit"}


def _settings(options: dict[str, str], spec: str) -> dict[str, Any]:
    """The settings of a bm25 spec, each number checked: ``k1`` > 0, ``b`` in [0, 1], chunk sizes
    integers >= 0 (their relation is checked by ``Chunking``)."""
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

    def __init__(self, spec: str, path: Path, settings: dict[str, Any]) -> None:
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
        self.chunking = Chunking(settings["chunk_size"], settings["chunk_overlap"], settings["chunk_unit"])
        self.corpus_hash = corpus_fingerprint(path)
        key = content_hash({"corpus": self.corpus_hash, "settings": settings, "bm25s": bm25s.__version__})
        self.index_dir = cache_dir() / "bm25" / key.split(":")[1][:32]
        self.cached = (self.index_dir / "passages.json").is_file()
        if self.cached:
            self.model = bm25s.BM25.load(str(self.index_dir))
            meta = json.loads((self.index_dir / "passages.json").read_text())
            self.doc_ids, self.chunk_ids = meta["doc_ids"], meta["chunk_ids"]
        else:
            self._build()

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
        passages = chunk(read_documents(self.path), self.chunking)
        if not passages:
            raise InputError("the corpus has no documents", where=str(self.path))
        texts = [p.indexed_text if self.settings["title"] else p.text for p in passages]
        tokens = bm25s.tokenize(texts, stopwords=self._stopwords(), stemmer=self._stemmer(), show_progress=False)
        self.model = bm25s.BM25(k1=self.settings["k1"], b=self.settings["b"], method=self.settings["method"])
        self.model.index(tokens, show_progress=False)
        self.doc_ids = [p.doc_id for p in passages]
        self.chunk_ids = [p.chunk_id for p in passages]
        tmp = self.index_dir.with_name(self.index_dir.name + ".tmp")
        tmp.mkdir(parents=True, exist_ok=True)
        self.model.save(str(tmp))
        (tmp / "passages.json").write_text(json.dumps({"doc_ids": self.doc_ids, "chunk_ids": self.chunk_ids}))
        try:
            tmp.replace(self.index_dir)
        except OSError:  # another process built it first
            pass

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
        return Retrieved(tuple(Hit(self.doc_ids[i], self.chunk_ids[i], round(float(scores[i]), 6))
                               for i in top if scores[i] > 0))

    def describe(self) -> dict[str, Any]:
        return {"corpus": str(self.path), "passages": len(self.doc_ids), "bm25s": self._bm25s.__version__,
                **self.settings}

    def fingerprint(self) -> str | None:
        return self.corpus_hash

    def documents(self) -> set[str] | None:
        return set(self.doc_ids)



def open(spec: str, options: RetrieverOptions) -> BM25Retriever:  # noqa: A001
    path, settings = corpus_spec(spec, options.extra, _KNOWN)
    return BM25Retriever(spec, path, _settings(settings, spec))
