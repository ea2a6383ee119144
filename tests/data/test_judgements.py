"""Judgement records and their replay: grades, skips, undo as a stack per item, every field checked."""

from __future__ import annotations

from typing import Any

import pytest

from ragauge.data.judgements import Judgement, parse_judgement, parse_time, replay
from ragauge.errors import InputError

T = "2026-11-03T09:00:00.000Z"


def rec(doc: str, action: str = "grade", grade: float | None = None, who: str = "ana", q: str = "q1") -> Judgement:
    return Judgement(q, doc, action, who, T, grade)


def test_a_record_round_trips() -> None:
    r = rec("d1", grade=2)
    assert parse_judgement(r.to_dict(), "log:1") == r
    s = rec("d1", "skip")
    assert "grade" not in s.to_dict() and parse_judgement(s.to_dict(), "log:2") == s


def test_undo_pops_the_last_action_on_its_item_and_the_previous_one_shows_again() -> None:
    state = replay([rec("d1", grade=1), rec("d2", grade=0), rec("d1", grade=2), rec("d1", "undo")])["ana"]
    assert state.grades() == {("q1", "d1"): 1, ("q1", "d2"): 0}
    assert state.last() == rec("d2", grade=0)  # the next undo takes back d2, the latest in effect
    state.apply(rec("d2", "undo"))
    state.apply(rec("d1", "undo"))
    assert state.grades() == {} and state.last() is None


def test_a_skip_is_in_effect_but_not_a_grade_and_undo_brings_the_item_back() -> None:
    state = replay([rec("d1", grade=1), rec("d1", "skip")])["ana"]
    assert state.current(("q1", "d1")).action == "skip" and state.grades() == {}
    state.apply(rec("d1", "undo"))
    assert state.grades() == {("q1", "d1"): 1}


def test_an_undo_with_nothing_to_undo_is_kept_aside() -> None:
    state = replay([rec("d1", "undo")])["ana"]
    assert state.grades() == {} and len(state.stray_undos) == 1


def test_annotators_are_replayed_apart() -> None:
    states = replay([rec("d1", grade=1), rec("d1", grade=0, who="bo"), rec("d1", "undo", who="bo")])
    assert states["ana"].grades() == {("q1", "d1"): 1} and states["bo"].grades() == {}


@pytest.mark.parametrize("change, message", [
    ({"v": 2}, "upgrade ragauge"),
    ({"v": None}, "unsupported judgements log version"),
    ({"extra": 1}, "unknown field"),
    ({"question": ""}, "'question' must be a non-empty string"),
    ({"doc_id": 7}, "'doc_id' must be a non-empty string"),
    ({"action": "delete"}, "'action' must be one of"),
    ({"grade": None}, "'grade' must be"),
    ({"grade": float("nan")}, "'grade' must be"),
    ({"grade": True}, "'grade' must be"),
    ({"time": "yesterday"}, "ISO 8601"),
    ({"action": "skip"}, "has no 'grade'"),
])
def test_bad_fields_are_refused_at_their_location(change: dict[str, Any], message: str) -> None:
    obj = {**rec("d1", grade=1).to_dict(), **change}
    with pytest.raises(InputError, match=message) as info:
        parse_judgement(obj, "log.jsonl:7")
    assert info.value.where == "log.jsonl:7" or "upgrade" in (info.value.hint or "")


def test_a_grade_action_needs_a_grade() -> None:
    obj = rec("d1", grade=1).to_dict()
    del obj["grade"]
    with pytest.raises(InputError, match="needs a 'grade'"):
        parse_judgement(obj, "log.jsonl:1")


def test_times_with_z_offsets_or_none_read_as_utc() -> None:
    assert parse_time("2026-11-03T09:00:00Z") == parse_time("2026-11-03T10:00:00+01:00") == parse_time(
        "2026-11-03T09:00:00")
