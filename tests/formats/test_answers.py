"""The answers file: verdicts and scores read strictly, with file:line for every refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.data.answers import Answers, AnswerVerdict
from ragauge.errors import InputError
from ragauge.formats.answers import as_answers, read_answers

FIXTURE = Path(__file__).parents[1] / "fixtures" / "attribution" / "answers.jsonl"


def _file(tmp_path: Path, *lines: str) -> Path:
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_reads_verdicts_booleans_scores_text_and_source() -> None:
    answers = read_answers(FIXTURE)
    assert len(answers) == 12 and answers.source == str(FIXTURE)
    by_id = answers.by_id
    assert by_id["g1"] == AnswerVerdict("g1", "good", None, "Open the VPN client and choose Reset token.", "review", 1)
    assert by_id["g4"].verdict == "good"            # "Good": any case
    assert by_id["g6"].verdict == "bad"             # false
    assert by_id["n2"].verdict == "good"            # true
    assert by_id["g3"].verdict is None and by_id["g3"].score == 0.9
    assert by_id["g7"].verdict is None and by_id["g7"].score is None and by_id["g7"].answer


def test_resolve_reads_scores_against_the_threshold_and_an_explicit_verdict_wins() -> None:
    answers = as_answers([{"id": "a", "score": 0.5}, {"id": "b", "score": 0.49}, {"id": "c", "verdict": "bad",
                                                                                  "score": 0.99}, {"id": "d"}])
    assert answers.resolve(0.5) == {"a": True, "b": False, "c": False, "d": None}  # score >= threshold is good
    assert answers.resolve(0.4)["b"] is True


def test_a_score_without_a_threshold_is_refused_with_its_line(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"id": "a", "verdict": "good"}', '{"id": "b", "score": 0.7}')
    with pytest.raises(InputError) as err:
        read_answers(path).resolve(None)
    assert err.value.where == f"{path}:2" and "--threshold" in (err.value.hint or "")


@pytest.mark.parametrize(("line", "message"), [
    ('{"verdict": "good"}', "missing or invalid 'id'"),
    ('{"id": 7, "verdict": "good"}', "missing or invalid 'id'"),
    ('{"id": "a", "verdict": "ok"}', "'verdict' must be"),
    ('{"id": "a", "verdict": 1}', "'verdict' must be"),
    ('{"id": "a", "score": "high"}', "'score' must be"),
    ('{"id": "a", "score": true}', "'score' must be"),
    ('{"id": "a", "score": NaN}', "not a finite number"),
    ('{"id": "a", "score": 1e400}', "'score' must be"),
    ('{"id": "a", "answer": ["x"]}', "'answer' must be a string"),
    ('{"id": "a", "source": 3}', "'source' must be a string"),
    ('["a", "good"]', "expected a JSON object"),
    ('{"id": "a", "verdict": "good"', "invalid JSON"),
])
def test_bad_lines_are_refused_with_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = _file(tmp_path, '{"id": "ok", "verdict": "good"}', "", line)
    with pytest.raises(InputError) as err:
        read_answers(path)
    assert err.value.where == f"{path}:3", err.value
    assert message in err.value.message


def test_a_question_given_twice_is_refused_naming_both_lines(tmp_path: Path) -> None:
    path = _file(tmp_path, '{"id": "a", "verdict": "good"}', '{"id": "b", "verdict": "bad"}',
                 '{"id": "a", "verdict": "bad"}')
    with pytest.raises(InputError) as err:
        read_answers(path)
    assert err.value.where == f"{path}:3" and "first on line 1" in err.value.message


def test_an_empty_or_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no lines"):
        read_answers(_file(tmp_path, ""))
    with pytest.raises(InputError):
        read_answers(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="no answers"):
        as_answers({})


def test_python_data_forms() -> None:
    answers = as_answers({"a": "good", "b": False, "c": 0.3, "d": None})
    assert [(x.id, x.verdict, x.score) for x in answers] == [("a", "good", None), ("b", "bad", None),
                                                           ("c", None, 0.3), ("d", None, None)]
    assert as_answers(answers) is answers
    with pytest.raises(InputError, match="'verdict' must be"):
        as_answers({"a": "great"})
    with pytest.raises(InputError, match="expected an AnswerVerdict or a dict"):
        as_answers(["a"])  # type: ignore[list-item]


@given(st.lists(st.builds(AnswerVerdict, st.text(min_size=1), st.sampled_from([None, "good", "bad"]),
                          st.one_of(st.none(), st.floats(allow_nan=False, allow_infinity=False)),
                          st.one_of(st.none(), st.text()), st.one_of(st.none(), st.text())),
                unique_by=lambda a: a.id, max_size=5))
def test_to_dict_and_from_dict_round_trip(lines: list[AnswerVerdict]) -> None:
    for line in lines:
        assert AnswerVerdict.from_dict(line.to_dict()) == line
    assert Answers.from_lines(lines).lines == tuple(lines)
