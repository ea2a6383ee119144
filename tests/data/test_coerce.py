"""data.coerce: hits from what a retriever returned."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.data.coerce import coerce_hit, coerce_hits
from ragauge.errors import InputError

_values = (st.none() | st.text(max_size=4) | st.integers(-5, 5) | st.floats() | st.booleans()
           | st.sampled_from(["0.5", "x", 2**70]) | st.lists(st.integers(), max_size=2))
_keys = st.sampled_from(["doc_id", "id", "chunk_id", "score", "length", "start", "end", "text", "metadata"])


def _coerced(item: Any) -> Any:
    try:
        return coerce_hit(item)
    except (InputError, TypeError, ValueError, OverflowError) as exc:
        return type(exc), str(exc)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.dictionaries(_keys, _values, max_size=5) | st.fixed_dictionaries(
    {"doc_id": _values}, optional={"score": _values, "chunk_id": _values, "id": _values, "text": _values})
    | st.fixed_dictionaries({"doc_id": st.text(max_size=4), "score": st.floats()}), max_size=4))
def test_json_objects_take_the_short_path_to_the_same_hits(items: list[dict[str, Any]]) -> None:
    """coerce_hits reads decoded JSON objects in fewer steps (an HTTP retriever's answers): the
    hits, and the errors, are coerce_hit's for each item."""
    expected = [_coerced(item) for item in items]
    try:
        got: Any = list(coerce_hits(items))
    except (InputError, TypeError, ValueError, OverflowError) as exc:
        assert (type(exc), str(exc)) == next(e for e in expected if isinstance(e, tuple))
        return
    assert got == expected


def test_an_explicit_id_key_of_none_is_not_read_from_id() -> None:
    assert coerce_hits([{"doc_id": None, "id": "x", "chunk_id": "c#1"}])[0].doc_id is None
    with pytest.raises(InputError, match="cannot read a document id"):
        coerce_hits([{"doc_id": None, "id": "x"}])
