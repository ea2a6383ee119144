"""core.jsonl.compact: the same text whether orjson or the standard library writes it."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.core import jsonl
from ragauge.core.jsonl import compact, dumps

REFERENCE = {"separators": (",", ":")}

scalars = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats() | st.text()
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=20)


@settings(max_examples=400, deadline=None)
@given(values)
def test_compact_is_the_standard_library_text_for_any_json_value(value: Any) -> None:
    text = compact(value)
    assert text == dumps(value, **REFERENCE)  # type: ignore[arg-type]
    assert json.loads(text) == json.loads(dumps(value))


@pytest.mark.parametrize("value", [
    1e-05, -3.5261614078782046e-05, 1.5e-07, 1e-10, 5e-324, 0.0001, 1e16, 1.7976931348623157e308, -0.0,
    {"score": 9.698132768381155e-07, "doc": "d"},
    math.nan, [math.inf, -math.inf, 0.5],
    "\x00\x1f\x7f\u0085\u061c\u200e\u202e\u2028\u2029 é \ud800", {"a\u202eb": "\udfff"},
    2**64 - 1, 2**64, -(2**63) - 1, {1: "int key", None: 0, 2.5: True},
    ("tuple", 1), {"nested": [[[{"x": []}]]]},
])
def test_compact_matches_the_standard_library_where_orjson_would_differ(value: Any) -> None:
    assert compact(value) == dumps(value, **REFERENCE)  # type: ignore[arg-type]


def test_non_finite_numbers_are_written_as_null() -> None:
    assert compact({"a": math.nan, "b": [math.inf]}) == '{"a":null,"b":[null]}'


def test_floats_read_back_to_the_same_value() -> None:
    values = [0.1, 1 / 3, 2.0 / 7, 123456.789e-20, 22.707, 1e22, 5e-324]
    assert json.loads(compact(values)) == values


def test_orjson_writes_plain_report_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    if jsonl._orjson() is None:
        pytest.skip("orjson is not installed")

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("fell back to the standard library")

    monkeypatch.setattr(jsonl, "dumps", refuse)
    row = {"id": "q1", "query": "wie viele Äpfel?", "map": 0.25, "top": [{"doc_id": "d", "rank": 1, "score": 22.7}]}
    assert compact(row) == json.dumps(row, ensure_ascii=False, separators=(",", ":"))


def test_the_standard_library_alone_writes_the_same_text(monkeypatch: pytest.MonkeyPatch) -> None:
    value = {"id": "q\u202e", "v": [0.5, 1e-05, math.nan], "n": 2**70}
    with_orjson = compact(value)
    monkeypatch.setattr(jsonl, "_orjson", lambda: None)
    assert compact(value) == with_orjson


def _decoded(text: str | bytes) -> tuple[str, Any]:
    """What ``loads`` makes of ``text``: ("ok", value) or ("error", kind), NaN made comparable."""
    try:
        return "ok", json.dumps(jsonl.loads(text), ensure_ascii=True)  # the text tells 1 from 1.0 and -0.0 from 0
    except ValueError as exc:
        return "error", getattr(exc, "kind", None)


documents = st.one_of(
    values.map(lambda v: dumps(v)),  # valid JSON with every kind of number and text
    st.text(alphabet='{}[]":,.-+eE0123456789 \\untrfalsNIiy\ud800\udc00é\x00\t', max_size=40),  # mostly invalid
)


@settings(max_examples=600, deadline=None)
@given(documents, st.booleans())
def test_loads_through_orjson_agrees_with_the_standard_library(text: str, as_bytes: bool) -> None:
    """orjson decodes first when installed; whatever it accepts must read back as the standard
    library reads it (or be refused the same way), big integers and lone surrogates included."""
    if jsonl._orjson_loads() is None:
        pytest.skip("orjson is not installed")
    data: str | bytes = text
    if as_bytes:
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            data = text.encode("utf-8", "surrogatepass")
    with_orjson = _decoded(data)
    jsonl._orjson_loads.cache_clear()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(jsonl, "_orjson_loads", lambda: None)
            assert with_orjson == _decoded(data)
    finally:
        jsonl._orjson_loads.cache_clear()


@pytest.mark.parametrize("text", [
    "123456789012345678901234567890", "[-9223372036854775809, 18446744073709551616]",
    '{"id": 10000000000000000000001}', "NaN", "[Infinity]", "1e400", '"\\ud800"', "\ufeff{}", "[1,]",
    '{"a": 1, "a": 2}', "0.1000000000000000055511151231257827",
])
def test_loads_gives_the_standard_library_value_where_orjson_would_differ(text: str) -> None:
    with_orjson = _decoded(text.encode("utf-8"))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(jsonl, "_orjson_loads", lambda: None)
        assert with_orjson == _decoded(text.encode("utf-8"))
