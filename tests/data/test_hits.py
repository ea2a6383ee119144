"""data.hits: a hit's score and extent are read by one rule, whatever shape the hit has."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.core.numbers import check_number
from ragauge.data.hits import Hit, parse_hit
from ragauge.errors import InputError

SCORES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.booleans(), st.text(max_size=3),
                   st.none(), st.integers(min_value=2**1024, max_value=2**1030))


@given(SCORES)
def test_a_hits_score_is_read_as_check_number_reads_it(score: Any) -> None:
    """parse_hit keeps a finite float as it is without calling check_number: the result, and the
    error for anything else, must be exactly check_number's."""
    try:
        expected: Any = None if score is None else check_number(score, "hit 'score'", where="run.jsonl:3")
    except InputError as exc:
        with pytest.raises(InputError) as got:
            parse_hit({"doc_id": "d1", "score": score}, "run.jsonl:3")
        assert (got.value.message, got.value.where, got.value.hint) == (exc.message, exc.where, exc.hint)
        return
    hit = parse_hit({"doc_id": "d1", "score": score}, "run.jsonl:3")
    assert hit == Hit("d1", None, expected)
    assert type(hit.score) is type(expected)


def test_a_hit_without_an_extent_and_one_with_it() -> None:
    assert parse_hit({"chunk_id": "c1"}, "x") == Hit(None, "c1")
    assert parse_hit({"doc_id": "d1", "length": 7, "start": 0, "end": 5}, "x") == Hit("d1", None, None, 7, 0, 5)
    with pytest.raises(InputError, match="'end' without 'start'"):
        parse_hit({"doc_id": "d1", "end": 5}, "x")

