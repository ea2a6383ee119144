"""The MiniLM network rebuilt from the pinned model's own weights into ONNX Runtime's fused BERT operators.

The published ``model.onnx`` is a PyTorch (dynamo) export: attention is decomposed into per-head
MatMul/Softmax with a materialised 4-D mask and a NaN guard after every softmax, GELU is spelled out
with Erf, and every weight is an int8 tensor dequantized by Cast + Mul. ONNX Runtime fuses none of the
attention, so ~25% of the time went to elementwise ops over batch x 12 x 256 x 256 tensors, and the
int8 weights were only storage: every product ran in float32 (measured: 0.55 ms of CPU a word piece).

``build`` writes the same network with the contrib operators ONNX Runtime's transformer optimizer would
produce for a BERT (MultiHeadAttention, SkipLayerNormalization, BiasGelu), one text per call (so no
mask: a text's vector never depends on what else is embedded with it), mean pooling in the graph, and
the linear layers in one of two ``COMPUTE`` modes:

- ``float32``: MatMul on the dequantized weights, the exported model's arithmetic; vectors equal the
  original graph's to float rounding (max abs difference 1.5e-7 over SciFact's 5,183 abstracts).
- ``int8``: DynamicQuantizeMatMul on the package's int8 weights as stored (same values, same
  per-column scales); the activations entering each linear layer are quantized per text to uint8
  (one scale for the text's word pieces), so the products run on int8 dot-product instructions
  (AVX512-VNNI/AVX-VNNI). Vectors move (cosine to float32 >= 0.99; see minilm.py for the measured
  retrieval effect). The products are exact integers either way: on an x86 CPU without VNNI the
  weights are stored as uint8 with zero point 128 instead (ONNX Runtime's signed kernel there can
  saturate 16-bit sums), which changes speed, never the vectors.

The built graph is cached as a file keyed by the source model's sha256, the builder's version, the
ONNX Runtime version, the compute mode and the weight encoding (``graph_file``); building needs the
``onnx`` package (part of the ``dense`` extra) and takes ~1 s; a cached graph needs only onnxruntime.
Before it is cached, a built graph must reproduce the published one on a probe text (``check``).
"""

from __future__ import annotations

import hashlib
import platform
from pathlib import Path
from typing import Any

from ragauge.core.files import atomic_write
from ragauge.errors import InputError, MissingExtra

GRAPH_VERSION = 1
COMPUTE = ("int8", "float32")
HEADS = 12
LAYERS = 6
_PREFIX = "inner."


def signed_weights() -> bool:
    """Whether int8 products may use signed weights: an x86 CPU whose flags (Linux /proc/cpuinfo)
    show VNNI, or any non-x86 CPU. Unknown x86 CPUs get unsigned weights (exact everywhere, slower)."""
    if platform.machine().lower() not in ("x86_64", "amd64", "i386", "i686", "x86"):
        return True
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return bool(flags & {"avx512_vnni", "avx_vnni"})
    except OSError:
        pass
    return False


def check_compute(compute: str) -> None:
    """InputError for a compute mode that is not one of :data:`COMPUTE`."""
    if compute not in COMPUTE:
        raise InputError(f"unknown MiniLM compute mode {compute!r}", hint=f"one of: {', '.join(COMPUTE)}")


def graph_name(source_sha256: str, compute: str, signed: bool) -> str:
    """The cache file name of a built graph: every input that changes its bytes or its kernels."""
    import onnxruntime

    key = f"{source_sha256}|{GRAPH_VERSION}|{onnxruntime.__version__}|{compute}|{'s8' if signed else 'u8'}"
    return f"minilm-{compute}-{hashlib.sha256(key.encode()).hexdigest()[:24]}.onnx"


def graph_file(source: Path, source_sha256: str, compute: str, cache: Path) -> Path | bytes:
    """The built graph for ``compute``: its cached file under ``cache/minilm/`` (built and written
    there on first use), or its bytes when that folder cannot be written."""
    check_compute(compute)
    signed = compute == "float32" or signed_weights()
    target = cache / "minilm" / graph_name(source_sha256, compute, signed)
    if target.is_file():
        return target
    data = build(source, compute=compute, signed=signed)
    check(source, data, compute)
    try:  # another process building the same graph writes the same bytes
        atomic_write(target, data, what="MiniLM graph cache")
    except InputError:  # a cache folder that cannot be written: the graph from memory, built again next time
        return data
    return target


# A probe sentence's word pieces ("[CLS] the printer on the third floor jams every morning . [SEP]")
_PROBE = [101, 1996, 15041, 2006, 1996, 2353, 2723, 9389, 2015, 2296, 2851, 1012, 102]
# How far the built graph's pooled, normalised vector of the probe may be from the published graph's.
TOLERANCE = {"float32": 1e-5, "int8": 0.05}  # int8 measured: 0.024 here, 0.027 at most on SciFact


def check(source: Path, built: bytes, compute: str) -> None:
    """Refuse a built graph that does not reproduce the published one on a probe text (max abs
    difference of the unit vectors within ``TOLERANCE``): a new ONNX Runtime whose operators
    changed meaning must not give other vectors under the same model name."""
    import numpy as np
    import onnxruntime

    def unit(path_or_bytes: str | bytes, feed: dict[str, Any]) -> Any:
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        session = onnxruntime.InferenceSession(path_or_bytes, options, providers=["CPUExecutionProvider"])
        out = session.run(None, feed)[0]
        vector = out[0].mean(axis=0) if out.ndim == 3 else out[0]
        return vector / np.linalg.norm(vector)

    ids = np.asarray([_PROBE], dtype=np.int64)
    published = unit(str(source), {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                   "token_type_ids": np.zeros_like(ids)})
    difference = float(np.abs(unit(built, {"input_ids": ids}) - published).max())
    if not difference <= TOLERANCE[compute]:
        raise InputError(f"the MiniLM graph rebuilt for compute={compute} does not reproduce the published "
                         f"model with onnxruntime {onnxruntime.__version__} (max difference {difference:.2g} "
                         "on a probe text)",
                         hint="install the onnxruntime version ragauge was tested with, or report it")


def build(source: Path, *, compute: str, signed: bool = True) -> bytes:
    """The serialized fused graph of the MiniLM at ``source`` (inputs ``input_ids`` [1, S] int64;
    output ``pooled`` [1, 384], the mean of the last hidden states, not yet normalised)."""
    try:
        import onnx
        from onnx import TensorProto, numpy_helper
    except ImportError:
        raise MissingExtra("onnx", "dense", "the dense retriever") from None
    return _Builder(onnx.load(str(source)), onnx, TensorProto, numpy_helper, compute, signed).model()


class _Builder:
    def __init__(self, source: Any, onnx: Any, tensor: Any, arrays: Any, compute: str, signed: bool) -> None:
        self.onnx, self.helper, self.T, self.arrays = onnx, onnx.helper, tensor, arrays
        self.compute, self.signed = compute, signed
        self.source = {t.name: t for t in source.graph.initializer}
        self.nodes: list[Any] = []
        self.inits: dict[str, Any] = {}
        self.linear = _linear_weights(source.graph, self.source)

    def node(self, op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        contrib = op in ("MultiHeadAttention", "SkipLayerNormalization", "BiasGelu", "DynamicQuantizeMatMul")
        self.nodes.append(self.helper.make_node(op, inputs, [output], domain="com.microsoft" if contrib else "",
                                                **attrs))
        return output

    def keep(self, name: str) -> str:
        """A source initializer, copied as it is."""
        self.inits.setdefault(name, self.source[name])
        return name

    def array(self, name: str, value: Any) -> str:
        self.inits[name] = self.arrays.from_array(value, name)
        return name

    def dequantized(self, quantized: str, scale: str) -> str:
        """Cast + Mul of int8 weights, as the source spells it (ONNX Runtime folds it at load)."""
        cast = self.node("Cast", [self.keep(quantized)], quantized + "_f", to=self.T.FLOAT)
        return self.node("Mul", [cast, self.keep(scale)], quantized + "_w")

    def matmul(self, x: str, bias: str, out: str) -> str:
        """``x`` times the weights of the linear layer whose bias is ``bias`` (the bias not added)."""
        import numpy as np

        quantized, scale = self.linear[bias]
        if self.compute == "float32":
            return self.node("MatMul", [x, self.dequantized(quantized, scale)], out)
        if quantized + "_b" not in self.inits:
            q = self.arrays.to_array(self.source[quantized])
            scales = self.arrays.to_array(self.source[scale]).reshape(-1).astype(np.float32)
            if self.signed:
                weights, zero = q, np.zeros(scales.shape, np.int8)
            else:
                weights, zero = (q.astype(np.int16) + 128).astype(np.uint8), np.full(scales.shape, 128, np.uint8)
            self.array(quantized + "_b", weights)
            self.array(quantized + "_s", scales)
            self.array(quantized + "_z", zero)
        return self.node("DynamicQuantizeMatMul", [x, quantized + "_b", quantized + "_s", quantized + "_z"], out)

    def model(self) -> bytes:
        import numpy as np

        e = _PREFIX + "embeddings."
        word = self.dequantized(e + "word_embeddings.weight_q", e + "word_embeddings.weight_scale")
        position = self.dequantized(e + "position_embeddings.weight_q", e + "position_embeddings.weight_scale")
        token_type = self.arrays.to_array(self.source[e + "token_type_embeddings.weight"])[0]  # every type id is 0
        one, zero = self.array("one", np.array([1], np.int64)), self.array("zero", np.array([0], np.int64))
        length = self.node("Slice", [self.node("Shape", ["input_ids"], "shape"), one, self.array("two", np.array(
            [2], np.int64))], "length")
        summed = self.node("Add", [self.node("Gather", [word, "input_ids"], "words"), self.array("type0", token_type)],
                           "typed")  # in the source's order: (word + token type) + position
        summed = self.node("Add", [summed, self.node("Slice", [position, zero, length, zero], "positions")], "embedded")
        x = self.node("LayerNormalization", [summed, self.keep(e + "LayerNorm.weight"),
                                             self.keep(e + "LayerNorm.bias")], "x0", axis=-1, epsilon=1e-12)
        for layer in range(LAYERS):
            x = self.layer(layer, x)
        pooled = self.node("ReduceMean", [x], "pooled_3d", axes=[1], keepdims=0)
        graph = self.helper.make_graph(
            self.nodes, "all-MiniLM-L6-v2", [self.helper.make_tensor_value_info("input_ids", self.T.INT64, [1, "s"])],
            [self.helper.make_tensor_value_info(pooled, self.T.FLOAT, [1, 384])], list(self.inits.values()))
        model = self.helper.make_model(graph, opset_imports=[self.helper.make_opsetid("", 17),
                                                             self.helper.make_opsetid("com.microsoft", 1)])
        model.ir_version = 8
        data: bytes = model.SerializeToString()
        return data

    def layer(self, i: int, x: str) -> str:
        import numpy as np

        p = f"{_PREFIX}encoder.layer.{i}."
        qkv = [p + f"attention.self.{w}.bias" for w in ("query", "key", "value")]
        bias = self.array(f"l{i}_qkv_bias", np.concatenate([self.arrays.to_array(self.source[b]) for b in qkv]))
        q, k, v = (self.matmul(x, b, f"l{i}_{c}") for b, c in zip(qkv, "qkv"))
        context = self.node("MultiHeadAttention", [q, k, v, bias], f"l{i}_context", num_heads=HEADS)
        out = p + "attention.output."
        attended = self.node("SkipLayerNormalization", [
            self.matmul(context, out + "dense.bias", f"l{i}_o"), x, self.keep(out + "LayerNorm.weight"),
            self.keep(out + "LayerNorm.bias"), self.keep(out + "dense.bias")], f"l{i}_x1", epsilon=1e-12)
        inner = self.node("BiasGelu", [self.matmul(attended, p + "intermediate.dense.bias", f"l{i}_f1"),
                                       self.keep(p + "intermediate.dense.bias")], f"l{i}_gelu")
        return self.node("SkipLayerNormalization", [
            self.matmul(inner, p + "output.dense.bias", f"l{i}_f2"), attended, self.keep(p + "output.LayerNorm.weight"),
            self.keep(p + "output.LayerNorm.bias"), self.keep(p + "output.dense.bias")], f"l{i}_x2", epsilon=1e-12)


def _linear_weights(graph: Any, initializers: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """bias name -> (int8 weight, scale) of every linear layer of the source graph: a MatMul whose
    weight is ``Mul(Cast(int8), scale)`` and whose output is added to a bias initializer."""
    made = {out: n for n in graph.node for out in n.output}
    dequantized: dict[str, tuple[str, str]] = {}
    for n in graph.node:
        cast = made.get(n.input[0]) if n.op_type == "Mul" else None
        if cast is not None and cast.op_type == "Cast" and cast.input[0] in initializers:
            dequantized[n.output[0]] = (cast.input[0], n.input[1])
    used_by: dict[str, list[Any]] = {}
    for n in graph.node:
        for name in n.input:
            used_by.setdefault(name, []).append(n)
    linear: dict[str, tuple[str, str]] = {}
    for n in graph.node:
        if n.op_type == "MatMul" and n.input[1] in dequantized:
            for add in used_by.get(n.output[0], []):
                biases = [name for name in add.input if name in initializers] if add.op_type == "Add" else []
                if biases:
                    linear[biases[0]] = dequantized[n.input[1]]
    if len(linear) != 6 * LAYERS:
        raise InputError(f"the MiniLM graph has {len(linear)} linear layers, expected {6 * LAYERS}",
                         hint="the model file is not the pinned one")
    return linear
