"""A cross-encoder reranker loaded from a local model directory, run by ONNX Runtime (no torch):
``rerank=cross-encoder:DIR``.

The directory holds:

- the network: ``model.onnx``, else ``onnx/model.onnx`` (what sentence-transformers'
  ``CrossEncoder(NAME, backend="onnx").save_pretrained(DIR)`` and ``optimum-cli export onnx --model NAME
  --task text-classification DIR`` write). Inputs ``input_ids`` and ``attention_mask``, and
  ``token_type_ids`` when the graph has it (int64 or int32); the first output is the logits, of shape
  ``(batch, 1)`` (or ``(batch,)``);
- ``tokenizer.json``: the Hugging Face fast tokenizer, whose post-processor adds the special tokens
  of a pair (``[CLS] q [SEP] p [SEP]`` for BERT);
- optionally ``config.json`` (``num_labels`` / ``id2label``, ``max_position_embeddings``) and
  ``tokenizer_config.json`` (``model_max_length``).

Contract. For a question ``q`` and a passage ``p`` (its text as ``dense:`` embeds it: title and text,
or the text alone with ``title=0``), the score is the model's single logit for the pair ``(q, p)``
encoded by ``tokenizer.json``, truncated to ``max_length`` tokens by cutting the end of the passage
(the question is cut too, from its end, only when it alone leaves no room for a passage token). No
activation is applied: sentence-transformers' ``CrossEncoder.predict`` puts a sigmoid on a
single-label model by default, which keeps the order, so both rank alike and ragauge's score is the
logit. ``max_length`` is ``tokenizer_config.json``'s ``model_max_length`` when it is a real limit
(below 100,000), else 512, and never more than ``config.json``'s ``max_position_embeddings``. Pairs
run in batches of ``batch_size`` (32), longest first, padded with the tokenizer's pad id under an
attention mask of 0; a pair's score does not depend on its batch beyond float rounding. A model with
more than one label is refused (a ranking needs one relevance score), as is a non-finite logit.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ragauge.errors import InputError, MissingExtra

BATCH_SIZE = 32
PIECES = 50_000  # passages whose word pieces are kept between questions
DEFAULT_MAX_LENGTH = 512
_NOT_A_LIMIT = 100_000  # transformers writes int(1e30) as model_max_length when a tokenizer has none
_EXPORT = ("export it to ONNX: optimum-cli export onnx --model DIR --task text-classification DIR "
           "(pip install 'optimum[onnx]'), or in Python: "
           "sentence_transformers.CrossEncoder(DIR, backend='onnx').save_pretrained(DIR)")


def locate(directory: str | Path) -> tuple[Path, Path]:
    """The ONNX file and ``tokenizer.json`` of a model directory (InputError saying how to make a
    missing one)."""
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError("cross-encoder model directory not found", where=str(folder),
                         hint="rerank=cross-encoder:DIR names a local folder with model.onnx and tokenizer.json")
    model = next((p for p in (folder / "model.onnx", folder / "onnx" / "model.onnx") if p.is_file()), None)
    if model is None:
        torch = [p.name for p in folder.iterdir() if p.name in ("model.safetensors", "pytorch_model.bin")]
        what = f"a torch model ({torch[0]}) but no ONNX file" if torch else "no model.onnx (nor onnx/model.onnx)"
        raise InputError(f"the cross-encoder directory holds {what}", where=str(folder), hint=_EXPORT)
    tokenizer = folder / "tokenizer.json"
    if not tokenizer.is_file():
        raise InputError("the cross-encoder directory has no tokenizer.json", where=str(folder),
                         hint="save the fast tokenizer there: "
                              "transformers.AutoTokenizer.from_pretrained(NAME).save_pretrained(DIR)")
    return model, tokenizer


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read {path.name}: {exc}", where=str(path)) from None
    return data if isinstance(data, dict) else {}


def max_length_of(folder: Path) -> int:
    """The longest pair in tokens (module docstring)."""
    config, tok = _json(folder / "config.json"), _json(folder / "tokenizer_config.json")
    declared = tok.get("model_max_length")
    length = int(declared) if isinstance(declared, (int, float)) and 0 < declared < _NOT_A_LIMIT else DEFAULT_MAX_LENGTH
    positions = config.get("max_position_embeddings")
    return min(length, int(positions)) if isinstance(positions, int) and positions > 0 else length


def _labels(folder: Path) -> int:
    config = _json(folder / "config.json")
    if isinstance(config.get("num_labels"), int):
        return int(config["num_labels"])
    return len(config["id2label"]) if isinstance(config.get("id2label"), dict) else 1


class CrossEncoder:
    """The model of a directory (module docstring); ``scores(query, candidates, names)``.
    Thread-safe (calls are serialised: one ONNX Runtime call already uses every core)."""

    def __init__(self, directory: str | Path, batch_size: int = BATCH_SIZE) -> None:
        self.directory = Path(directory)
        model, tokenizer_file = locate(self.directory)
        labels = _labels(self.directory)
        if labels != 1:
            raise InputError(f"the cross-encoder has {labels} labels; ragauge ranks by one relevance logit",
                             where=str(self.directory / "config.json"),
                             hint="use a single-label (regression) cross-encoder such as the ms-marco models")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            package = "tokenizers" if (exc.name or "").startswith("tokenizers") else "onnxruntime"
            raise MissingExtra(package, "rerank", "the cross-encoder reranker") from None
        self.batch_size = batch_size
        self.max_length = max_length_of(self.directory)
        self.model = model
        self.sha256 = hashlib.sha256(model.read_bytes()).hexdigest()
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        try:
            self._session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
            self._tokenizer = Tokenizer.from_file(str(tokenizer_file))
        except Exception as exc:  # a damaged or foreign file: say which, no traceback
            raise InputError(f"cannot load the cross-encoder: {type(exc).__name__}: {exc}",
                             where=str(self.directory), hint=_EXPORT) from None
        self._inputs = {i.name: (np.int32 if "int32" in i.type else np.int64) for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - set(self._inputs)
        extra = set(self._inputs) - {"input_ids", "attention_mask", "token_type_ids"}
        if missing or extra:
            raise InputError(f"the cross-encoder's ONNX graph takes {', '.join(sorted(self._inputs))}; ragauge feeds "
                             "input_ids, attention_mask and (when present) token_type_ids", where=str(model),
                             hint=_EXPORT)
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        pad = self._tokenizer.token_to_id(str(_json(self.directory / "tokenizer_config.json").get("pad_token", "")))
        self._pad = pad if pad is not None else next(
            (i for i in (self._tokenizer.token_to_id(t) for t in ("[PAD]", "<pad>")) if i is not None), 0)
        self._special = self._tokenizer.num_special_tokens_to_add(True)
        self._pieces: dict[str, Any] = {}
        self._lock = threading.Lock()

    def _encode(self, query: str, candidates: Sequence[str]) -> list[Any]:
        """Each pair as ``tokenizer.encode((query, text))`` with the truncation of the contract. A
        passage's word pieces are kept (up to PIECES texts) and the pair is assembled by the
        tokenizer's own ``post_process`` (truncation, then its special tokens), which gives the same
        encoding: a passage ranked for many questions is tokenized once."""
        question = self._tokenizer.encode(query, add_special_tokens=False)
        new = [text for text in dict.fromkeys(candidates) if text not in self._pieces]
        if len(self._pieces) + len(new) > PIECES:
            self._pieces.clear()
            new = list(dict.fromkeys(candidates))
        self._pieces.update(zip(new, self._tokenizer.encode_batch(new, add_special_tokens=False)))
        room = self.max_length - self._special - len(question.ids)
        self._tokenizer.enable_truncation(self.max_length, strategy="only_second" if room >= 1 else "longest_first")
        try:
            return [self._tokenizer.post_process(question, self._pieces[text], add_special_tokens=True)
                    for text in candidates]
        finally:
            self._tokenizer.no_truncation()

    def scores(self, query: str, candidates: Sequence[str], names: Sequence[str]) -> np.ndarray:
        """The logit of each (query, candidate) pair; ``names`` label the candidates in errors."""
        out = np.zeros(len(candidates), dtype=np.float64)
        if not candidates:
            return out
        with self._lock:
            encodings = self._encode(query, candidates)
            order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
            for start in range(0, len(order), self.batch_size):
                batch = order[start:start + self.batch_size]
                out[batch] = self._logits([encodings[i] for i in batch])
        bad = np.flatnonzero(~np.isfinite(out))
        if len(bad):
            raise InputError(f"the cross-encoder gave a logit of {out[bad[0]]} for candidate {names[bad[0]]!r}",
                             where=str(self.model), hint="the model is damaged or not a cross-encoder")
        return out

    def _logits(self, encodings: list[Any]) -> np.ndarray:
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self._pad, dtype=np.int64)
        mask = np.zeros_like(ids)
        types = np.zeros_like(ids)
        for r, e in enumerate(encodings):
            ids[r, :len(e.ids)] = e.ids
            mask[r, :len(e.ids)] = 1
            types[r, :len(e.ids)] = e.type_ids
        given = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        feed = {name: given[name].astype(dtype) for name, dtype in self._inputs.items()}
        logits = np.asarray(self._session.run(None, feed)[0], dtype=np.float64)
        if logits.ndim == 2 and logits.shape[1] == 1:
            logits = logits[:, 0]
        if logits.shape != (len(encodings),):
            raise InputError(f"the cross-encoder's first output has shape {logits.shape} for {len(encodings)} pairs, "
                             f"not ({len(encodings)}, 1)", where=str(self.model),
                             hint="export a single-label text-classification model")
        return logits

    def describe(self) -> dict[str, Any]:
        return {"rerank": "cross-encoder", "model": str(self.directory), "onnx_sha256": self.sha256[:16],
                "max_length": self.max_length}
