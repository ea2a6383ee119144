from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.golden import load_golden


def write(tmp_path: Path, text: str | bytes) -> Path:
    path = tmp_path / "golden.jsonl"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def test_loads_binary_graded_tags_extra_bom_and_blank_lines(tmp_path: Path) -> None:
    lines = [
        {"id": "q1", "query": "rotate VPN cert", "relevant": ["vpn", "kb-1"], "tags": ["net"], "owner": "ops"},
        {"id": "q2", "query": "printer", "relevant": {"printer": 2, "kb-9": 1}},
        {"id": "q3", "query": "no answer", "relevant": []},
    ]
    text = "\ufeff" + "\n\n".join(json.dumps(x) for x in lines) + "\n\n"
    golden = load_golden(write(tmp_path, text))
    assert [q.id for q in golden] == ["q1", "q2", "q3"]
    q1, q2, q3 = golden.queries
    assert dict(q1.relevant) == {"vpn": 1, "kb-1": 1} and q1.tags == ("net",) and q1.extra == {"owner": "ops"}
    assert dict(q2.relevant) == {"printer": 2, "kb-9": 1}
    assert q1.answerable and q2.answerable and not q3.answerable
    assert q1.line == 1 and q2.line == 3


def test_hash_ignores_order_and_extra_fields_but_not_labels(tmp_path: Path) -> None:
    a = load_golden(write(tmp_path, '{"id":"a","query":"x","relevant":["d"]}\n{"id":"b","query":"y","relevant":[]}\n'))
    b = load_golden(write(tmp_path, '{"id":"b","query":"y","relevant":[],"note":1}\n'
                                    '{"id":"a","query":"x","relevant":["d"]}\n'))
    c = load_golden(write(tmp_path, '{"id":"a","query":"x","relevant":["e"]}\n{"id":"b","query":"y","relevant":[]}\n'))
    assert a.content_hash == b.content_hash != c.content_hash


def test_an_unlabelled_question_is_read_only_where_automatic_labels_stand_in(tmp_path: Path) -> None:
    text = '{"id":"a","query":"x","relevant":["d"]}\n{"id":"b","query":"y","relevant":null}\n'
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert info.value.where == f"{path}:2" and "'relevant' is null: question 'b' is unlabelled" in info.value.message
    assert "--auto-labels auto.jsonl" in (info.value.hint or "") and "[] for a question nothing answers" in (
        info.value.hint or "")
    golden = load_golden(path, unlabelled=True)
    assert golden.unlabelled == ("b",) and not golden.by_id["b"].labelled and golden.by_id["a"].labelled
    assert golden.by_id["b"].to_dict() == {"id": "b", "query": "y", "relevant": None}
    no_answer = load_golden(write(tmp_path, text.replace("null", "[]")))
    labelled = load_golden(write(tmp_path, text.replace("null", '["e"]')))
    # unlabelled is not "nothing answers it"; labelling a question keeps the questions' hash
    assert golden.content_hash != no_answer.content_hash != labelled.content_hash
    assert golden.questions_hash == no_answer.questions_hash == labelled.questions_hash
    assert no_answer.unlabelled == () and load_golden(write(tmp_path, text.replace('"y"', '"z"')),
                                                      unlabelled=True).questions_hash != golden.questions_hash


@pytest.mark.parametrize(("text", "line", "message"), [
    ('{"id": "q1", "query": "x", "relevant": []}\n{"id": "q2", "query": ', 2, "invalid JSON"),
    ('["q1"]\n', 1, "expected a JSON object, got list"),
    ('{"query": "x", "relevant": []}\n', 1, "missing required field 'id'"),
    ('{"id": "q1", "relevant": []}\n', 1, "missing required field 'query'"),
    ('{"id": "q1", "query": "x"}\n', 1, "missing required field 'relevant'"),
    ('{"id": 7, "query": "x", "relevant": []}\n', 1, "'id' must be a non-empty string"),
    ('{"id": "q1", "query": 3, "relevant": []}\n', 1, "'query' must be a string"),
    ('{"id": "q1", "query": "x", "relevant": "doc"}\n', 1, "'relevant' must be a list or an object"),
    ('{"id": "q1", "query": "x", "relevant": [1]}\n', 1, "'relevant' items must be non-empty strings"),
    ('{"id": "q1", "query": "x", "relevant": {"d": "high"}}\n', 1, "grade of 'd' must be a finite number"),
    ('{"id": "q1", "query": "x", "relevant": [], "tags": "net"}\n', 1, "'tags' must be a list of strings"),
    ('{"id": "q1", "query": "x", "relevant": []}\n\n{"id": "q1", "query": "y", "relevant": []}\n', 3,
     "duplicate question id 'q1' (first seen on line 1)"),
])
def test_errors_name_file_and_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as info:
        load_golden(path)
    assert info.value.where == f"{path}:{line}"
    assert message in info.value.message
    assert "hint" not in str(info.value) or info.value.hint


def test_invalid_utf8(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"id": "q1", "query": "\xff", "relevant": []}\n')
    with pytest.raises(InputError, match="not valid UTF-8"):
        load_golden(path)


def test_missing_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="golden set file not found"):
        load_golden(tmp_path / "nope.jsonl")
    with pytest.raises(InputError, match="no questions"):
        load_golden(write(tmp_path, "\n\n"))


def test_a_huge_question_is_refused_with_its_line() -> None:
    """A 256 MiB question crashed the process (exit 139, nothing said, a temporary file left)."""
    from ragauge.data.golden import MAX_QUERY_CHARS, parse_golden_line

    with pytest.raises(InputError, match="characters long, more than 100,000") as info:
        parse_golden_line({"id": "q1", "query": "x" * (MAX_QUERY_CHARS + 1), "relevant": ["d"]}, "g.jsonl:3")
    assert info.value.where == "g.jsonl:3"
    assert parse_golden_line({"id": "q1", "query": "x" * MAX_QUERY_CHARS, "relevant": ["d"]}, "g.jsonl:3").query
