"""The holdout split: deterministic by question id, independent of the other questions, by tag."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.errors import InputError
from ragauge.experiments.holdout import held_out_by_hash, split_questions


def golden(n: int, tagged: set[int] = frozenset()) -> GoldenSet:  # type: ignore[assignment]
    return GoldenSet.from_queries([GoldenQuery(f"q{i}", f"question {i}", {f"d{i}": 1},
                                               ("late",) if i in tagged else ()) for i in range(n)])


def test_the_hash_rule_is_the_documented_formula() -> None:
    for qid in ("q1", "hd-017", "ü-ß"):
        value = int.from_bytes(hashlib.sha256(f"ragauge-holdout:{qid}".encode()).digest()[:8], "big") / 2.0**64
        assert held_out_by_hash(qid, value + 1e-12) and not held_out_by_hash(qid, value)


@given(st.text(min_size=1), st.floats(0.01, 0.98), st.floats(0.001, 0.01))
def test_a_question_held_out_at_a_fraction_stays_held_out_at_a_larger_one(qid: str, f: float, more: float) -> None:
    assert not held_out_by_hash(qid, f) or held_out_by_hash(qid, f + more)


def test_the_split_is_deterministic_and_does_not_depend_on_the_other_questions() -> None:
    small, large = split_questions(golden(200), 0.3), split_questions(golden(400), 0.3)
    assert small is not None and large is not None
    assert small.held_out == split_questions(golden(200), 0.3).held_out  # type: ignore[union-attr]
    assert small.held_out == {q for q in large.held_out if int(q[1:]) < 200}
    assert 0.2 < len(large.held_out) / 400 < 0.4  # a binomial draw around 0.3
    assert small.tunes_on("q-not-held") and "0.3 of the questions" in small.rule


def test_a_tag_holds_out_its_questions() -> None:
    split = split_questions(golden(10, {2, 5}), tag="late")
    assert split is not None and split.held_out == {"q2", "q5"} and "'late'" in split.rule
    assert split_questions(golden(10)) is None


@pytest.mark.parametrize("kwargs, message", [
    ({"fraction": 0.3, "tag": "late"}, "not both"),
    ({"fraction": 1.0}, "holdout fraction must be"),
    ({"fraction": 0.0}, "holdout fraction must be"),
    ({"tag": "early"}, "no question carries the holdout tag 'early'"),
    ({"fraction": 0.999999}, "leaves no question to tune on"),
])
def test_bad_splits_are_input_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError, match=message):
        split_questions(golden(5, {1}), **kwargs)  # type: ignore[arg-type]
