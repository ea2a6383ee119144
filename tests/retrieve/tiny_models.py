"""A tiny cross-encoder made on the spot (no download): a WordPiece ``tokenizer.json`` built with
``tokenizers`` and an ONNX graph built with ``onnx``, plus its numpy twin to check ragauge against.

The network: ``logit = tanh(mean over real tokens of (E[input_id] + T[token_type_id])) @ W + b``
(the mean under the attention mask, so padding must not change a score). Used by the cross-encoder
tests and by ``benchmarks/bench_rerank.py``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]


def words_of(text: str) -> list[str]:
    """BERT's pre-tokenization of ASCII text: lower case, runs of word characters, each punctuation
    mark on its own."""
    return re.findall(r"\w+|[^\w\s]", text.lower())


@dataclass(frozen=True)
class TinyCrossEncoder:
    """The weights of a tiny cross-encoder and its vocabulary (word -> id)."""

    vocab: dict[str, int]
    embeddings: np.ndarray  # (V, D)
    types: np.ndarray  # (2, D)
    weight: np.ndarray  # (D, 1)
    bias: float

    def logit(self, ids: Sequence[int], type_ids: Sequence[int]) -> float:
        """The numpy recomputation of the graph for one unpadded pair."""
        x = self.embeddings[np.asarray(ids)] + self.types[np.asarray(type_ids)]
        return float(np.tanh(x.astype(np.float64).mean(axis=0)) @ self.weight[:, 0].astype(np.float64) + self.bias)

    def pair_ids(self, query: str, passage: str, max_length: int) -> tuple[list[int], list[int]]:
        """``[CLS] q [SEP] p [SEP]`` for texts whose words are whole vocabulary entries (or unknown),
        the passage cut to ``max_length``: the encoding the contract promises, built without ``tokenizers``."""
        q = [self.vocab.get(w, self.vocab["[UNK]"]) for w in words_of(query)]
        p = [self.vocab.get(w, self.vocab["[UNK]"]) for w in words_of(passage)]
        p = p[:max(max_length - len(q) - 3, 0)]
        ids = [self.vocab["[CLS]"], *q, self.vocab["[SEP]"], *p, self.vocab["[SEP]"]]
        return ids, [0] * (len(q) + 2) + [1] * (len(p) + 1)


def make_cross_encoder(folder: Path, words: Sequence[str], *, dim: int = 8, max_length: int | None = None,
                       seed: int = 7, onnx_dir: str = "", labels: int = 1) -> TinyCrossEncoder:
    """Write ``model.onnx`` (under ``onnx_dir`` when given), ``tokenizer.json`` and ``config.json``
    into ``folder``; the vocabulary is SPECIAL + ``words``."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, normalizers, pre_tokenizers, processors
    from tokenizers.models import WordPiece

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {token: i for i, token in enumerate(dict.fromkeys([*SPECIAL, *words]))}
    rng = np.random.default_rng(seed)
    model = TinyCrossEncoder(vocab, rng.normal(size=(len(vocab), dim)).astype(np.float32),
                             rng.normal(size=(2, dim)).astype(np.float32),
                             rng.normal(size=(dim, labels)).astype(np.float32), 0.25)

    tokenizer = Tokenizer(WordPiece(vocab, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])])
    tokenizer.save(str(folder / "tokenizer.json"))
    config: dict[str, object] = {"num_labels": labels}
    if max_length is not None:
        config["max_position_embeddings"] = max_length
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")

    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "length"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", labels])
    init = [numpy_helper.from_array(model.embeddings, "E"), numpy_helper.from_array(model.types, "T"),
            numpy_helper.from_array(model.weight, "W"), numpy_helper.from_array(np.float32([model.bias]), "bias"),
            numpy_helper.from_array(np.int64([1]), "axis1"), numpy_helper.from_array(np.int64([2]), "axis2")]
    nodes = [
        helper.make_node("Gather", ["E", "input_ids"], ["words"]),
        helper.make_node("Gather", ["T", "token_type_ids"], ["segments"]),
        helper.make_node("Add", ["words", "segments"], ["x"]),
        helper.make_node("Cast", ["attention_mask"], ["m"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["m", "axis2"], ["m3"]),
        helper.make_node("Mul", ["x", "m3"], ["xm"]),
        helper.make_node("ReduceSum", ["xm", "axis1"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["m3", "axis1"], ["count"], keepdims=0),
        helper.make_node("Div", ["total", "count"], ["mean"]),
        helper.make_node("Tanh", ["mean"], ["h"]),
        helper.make_node("MatMul", ["h", "W"], ["hw"]),
        helper.make_node("Add", ["hw", "bias"], ["logits"]),
    ]
    graph = helper.make_graph(nodes, "tiny-cross-encoder", ints, [out], init)
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx_model.ir_version = 8
    onnx.checker.check_model(onnx_model)
    target = folder / onnx_dir if onnx_dir else folder
    target.mkdir(parents=True, exist_ok=True)
    onnx.save(onnx_model, str(target / "model.onnx"))
    return model
