"""Judgements logs on disk: appended one flushed line at a time, read strictly with file:line, a torn
last record (a write the machine never finished) left out and cut off before appending again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.data.judgements import Judgement
from ragauge.errors import InputError
from ragauge.formats.judgements import append_judgement, default_log_path, open_log, read_judgements

T = "2026-11-03T09:00:00.000Z"


def rec(doc: str, grade: int | None = 1, action: str = "grade") -> Judgement:
    return Judgement("q1", doc, action, "ana", T, grade if action == "grade" else None)


def test_append_then_read_gives_the_records_with_their_lines(tmp_path: Path) -> None:
    log = tmp_path / "sub" / "log.jsonl"
    for r in (rec("d1"), rec("d2", action="skip"), rec("d1", action="undo")):
        append_judgement(log, r)
    read = read_judgements(log)
    assert [(r.doc_id, r.action, r.line) for r in read.records] == [("d1", "grade", 1), ("d2", "skip", 2),
                                                                   ("d1", "undo", 3)]
    assert read.notes == () and log.read_text().count("\n") == 3


def test_bad_lines_name_the_file_and_line(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(rec("d1").to_dict()) + "\n\n{not json}\n" + json.dumps(rec("d2").to_dict()) + "\n")
    with pytest.raises(InputError, match="not a judgement") as info:
        read_judgements(log)
    assert info.value.where == f"{log}:3"
    log.write_text(json.dumps(rec("d1").to_dict()) + "\n[1, 2]\n")
    with pytest.raises(InputError, match="expected a JSON object") as info:
        read_judgements(log)
    assert info.value.where == f"{log}:2"
    log.write_text(json.dumps({**rec("d1").to_dict(), "grade": "two"}) + "\n")
    with pytest.raises(InputError, match="'grade' must be") as info:
        read_judgements(log)
    assert info.value.where == f"{log}:1"


def test_a_missing_log_is_an_error_unless_a_first_session_opens_it(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not found"):
        read_judgements(tmp_path / "none.jsonl")
    assert open_log(tmp_path / "none.jsonl").records == () and not (tmp_path / "none.jsonl").exists()


def test_a_torn_last_record_is_left_out_with_a_note_and_cut_off_before_appending(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    whole = json.dumps(rec("d1").to_dict()) + "\n"
    log.write_text(whole + '{"v": 1, "question": "q1", "doc_')  # power lost mid-record
    read = read_judgements(log)
    assert len(read.records) == 1 and "unfinished last record" in read.notes[0] and f"{log}:2" in read.notes[0]
    opened = open_log(log)
    assert len(opened.records) == 1 and log.read_text() == whole
    append_judgement(log, rec("d2"))
    assert [r.doc_id for r in read_judgements(log).records] == ["d1", "d2"]


def test_a_whole_last_record_without_its_newline_is_kept_and_the_newline_restored(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text(json.dumps(rec("d1").to_dict()))
    assert len(open_log(log).records) == 1 and log.read_text().endswith("}\n")
    append_judgement(log, rec("d2"))
    assert len(read_judgements(log).records) == 2


def test_a_broken_line_in_the_middle_is_never_taken_for_a_torn_one(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text('{"v": 1, "quest\n' + json.dumps(rec("d1").to_dict()))
    with pytest.raises(InputError) as info:
        open_log(log)
    assert info.value.where == f"{log}:1"


def test_an_append_that_cannot_be_written_raises_and_leaves_no_partial_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot write judgements log"):
        append_judgement(blocker / "log.jsonl", rec("d1"))  # its folder is a file
    full = Path("/dev/full")
    if full.exists():
        with pytest.raises(InputError, match="cannot write judgements log"):
            append_judgement(full, rec("d1"))


def test_default_log_path_sits_beside_the_pool() -> None:
    assert default_log_path("runs/pool.jsonl") == Path("runs/pool.judgements.jsonl")
    assert default_log_path("pool") == Path("pool.judgements.jsonl")
