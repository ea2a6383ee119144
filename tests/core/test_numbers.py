"""Every number read is finite and in range, or refused with file:line: the validator itself, then
any float (NaN and infinities included) written into every numeric field of every input file."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragauge.core.jsonl import dumps, read_json
from ragauge.core.numbers import COUNT, GRADE, NON_NEGATIVE, PROBABILITY, UNIT, Range, check_number
from ragauge.errors import InputError
from ragauge.formats.golden import load_golden
from ragauge.formats.runs import read_run

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
NUMBERS = (st.floats(allow_nan=True, allow_infinity=True) | st.integers(min_value=-10**30, max_value=10**30)
           | st.sampled_from([0, -0.0, 1e308, -1e308, 5e-324, 1e9, 1e9 + 1]))


@given(value=NUMBERS, allowed=st.sampled_from([Range(), NON_NEGATIVE, UNIT, PROBABILITY, COUNT, GRADE]))
def test_check_number_accepts_exactly_finite_values_in_range(value: float, allowed: Range) -> None:
    finite = isinstance(value, int) or math.isfinite(value)
    inside = finite and allowed.contains(value) and (not allowed.integer or float(value).is_integer())
    if inside:
        got = check_number(value, "x", allowed)
        assert got == (int(value) if allowed.integer else float(value)) and math.isfinite(got)
    else:
        with pytest.raises(InputError, match=r"x must be (a finite number|an integer)"):
            check_number(value, "x", allowed, where="f:3")


@pytest.mark.parametrize("value", [True, None, "1", [1], {"a": 1}])
def test_check_number_refuses_what_is_not_a_number(value: object) -> None:
    with pytest.raises(InputError, match="must be a finite number"):
        check_number(value, "x")


def _json_number(value: float) -> str:
    return json.dumps(value)  # NaN, Infinity, -Infinity for the non-finite ones


@FUZZ
@given(value=NUMBERS)
def test_golden_grades(value: float, tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "q0", "query": "x", "relevant": ["a"]}\n'
                    f'{{"id": "q1", "query": "x", "relevant": {{"a": {_json_number(value)}}}}}\n', encoding="utf-8")
    if (isinstance(value, int) or math.isfinite(value)) and abs(value) <= 1e9:
        assert load_golden(path).queries[1].relevant["a"] == value
    else:
        with pytest.raises(InputError) as info:
            load_golden(path)
        assert info.value.where == f"{path}:2"


@FUZZ
@given(value=NUMBERS, field=st.sampled_from(["score", "latency_ms", "cost"]))
def test_run_scores_latency_and_cost(value: float, field: str, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    number = _json_number(value)
    line = (f'{{"id": "q1", "hits": [{{"doc_id": "a", "score": {number}}}]}}' if field == "score"
            else f'{{"id": "q1", "hits": ["a"], "{field}": {number}}}')
    path.write_text('{"_meta": {"retriever": "t"}}\n' + line + "\n", encoding="utf-8")
    finite = (isinstance(value, int) and abs(value) < 1e308) or (isinstance(value, float) and math.isfinite(value))
    if finite and (field == "score" or value >= 0):
        run = read_run(path)
        got = run.result("q1").hits[0].score if field == "score" else getattr(run.result("q1"), field)
        assert got == float(value)
    else:
        with pytest.raises(InputError) as info:
            read_run(path)
        assert info.value.where == f"{path}:2"


@FUZZ
@given(value=st.floats(allow_nan=True, allow_infinity=True))
def test_trec_run_scores(value: float, tmp_path: Path) -> None:
    path = tmp_path / "run.trec"
    path.write_text(f"# comment\nq1 Q0 a 1 1.5 r\nq1 Q0 b 2 {value!r} r\n", encoding="utf-8")
    if not math.isnan(value):  # +-inf is a score, as trec_eval reads it; NaN has no rank
        assert sorted(read_run(path).score.tolist()) == sorted([1.5, value])
    else:
        with pytest.raises(InputError) as info:
            read_run(path)
        assert info.value.where == f"{path}:3"


@given(value=st.floats(allow_nan=True, allow_infinity=True))
def test_written_json_never_holds_nan_or_infinity(value: float) -> None:
    text = dumps({"a": value, "b": [value, {"c": value}]})
    assert "NaN" not in text and "Infinity" not in text
    back = json.loads(text)
    assert back["a"] == (value if math.isfinite(value) else None)


def test_a_json_file_names_the_line_of_a_bad_number(tmp_path: Path) -> None:
    path = tmp_path / "b.json"
    for token in ("NaN", "Infinity", "-Infinity", "1e999"):
        path.write_text('{\n  "a": 1,\n  "b": ' + token + "\n}\n", encoding="utf-8")
        with pytest.raises(InputError) as info:
            read_json(path, what="baseline")
        assert info.value.where == f"{path}:3", token
