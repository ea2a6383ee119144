"""A judging session: actions on disk before the state changes, resume from the log, undo across
sessions, the order of "next", progress and pace."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from ragauge.curation.judge import JudgeSession, load_documents, open_session, pace
from ragauge.errors import InputError
from tests.curation.judging import make


def ticking(step: float = 10.0) -> Iterator[str]:
    t = datetime(2026, 11, 3, 9, 0, tzinfo=timezone.utc)
    while True:
        yield t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        t += timedelta(seconds=step)


def session(paths: dict[str, Path], annotator: str = "ana", step: float = 10.0) -> JudgeSession:
    s = open_session(paths["pool"], paths["corpus"], annotator=annotator)
    clock = ticking(step)
    s.clock = lambda: next(clock)
    return s


def lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_each_action_is_in_the_log_at_once_and_a_new_session_resumes(tmp_path: Path) -> None:
    paths = make(tmp_path)
    s = session(paths)
    assert s.next_position() == (0, 0) and s.log == paths["log"]
    s.grade(0, 0, 2)
    assert [r["grade"] for r in lines(paths["log"])] == [2]  # on disk before grade() returned
    s.skip(0, 1)
    again = session(paths)  # the process died; a new start reads the log
    assert again.status((0, 0)) == {"grade": 2, "skipped": False}
    assert again.status((0, 1)) == {"grade": None, "skipped": True}
    assert again.next_position() == (1, 0)
    p = again.progress()
    assert (p.total, p.graded, p.skipped, p.left, p.questions_done) == (4, 1, 1, 2, 2)  # q1 and q3 (empty) done


def test_undo_appends_a_record_and_reaches_back_into_an_earlier_session(tmp_path: Path) -> None:
    paths = make(tmp_path)
    s = session(paths)
    s.grade(0, 0, 1)
    s.grade(1, 0, 0)
    again = session(paths)
    undone = again.undo()
    assert undone is not None and undone.item == ("q2", "kb-jam") and again.index[undone.item] == (1, 0)
    assert again.status((1, 0))["grade"] is None and again.status((0, 0))["grade"] == 1
    assert [r["action"] for r in lines(paths["log"])] == ["grade", "grade", "undo"]  # nothing rewritten
    again.undo()
    assert again.undo() is None and again.progress().graded == 0


def test_next_wraps_around_then_offers_skipped_ones_then_is_done(tmp_path: Path) -> None:
    s = session(make(tmp_path))
    s.skip(0, 0)
    assert s.next_position((0, 0)) == (0, 1)
    s.grade(0, 1, 1)
    s.grade(1, 0, 1)
    assert s.next_position((1, 1)) == (1, 1)  # (1, 1) is still open: wrapping reaches it
    s.grade(1, 1, 0)
    assert s.next_position((1, 1)) == (0, 0)  # only the skipped one is left
    s.grade(0, 0, 2)
    assert s.next_position((0, 0)) is None


def test_pace_is_the_median_gap_without_breaks_and_gives_an_eta(tmp_path: Path) -> None:
    s = session(make(tmp_path), step=12.0)
    for pos in [(0, 0), (0, 1)]:
        s.grade(*pos, 1)
    assert s.progress().eta is None  # one gap: no pace yet
    s.grade(1, 0, 0)
    s.undo()
    p = s.progress()
    assert p.pace == 12.0 and p.eta == 12.0 * p.left and p.left == 2
    times = ["2026-11-03T09:00:00Z", "2026-11-03T09:00:04Z", "2026-11-03T09:00:10Z", "2026-11-03T10:00:10Z",
             "2026-11-03T10:00:20Z"]
    assert pace(times) == 6.0  # the hour-long break left out: the median of 4, 6 and 10


def test_bad_positions_and_grades_are_refused_and_nothing_is_written(tmp_path: Path) -> None:
    paths = make(tmp_path)
    s = session(paths)
    for q, c in [(0, 2), (2, 0), (-1, 0), ("0", 0), (True, 0), (0, None)]:
        with pytest.raises(InputError):
            s.grade(q, c, 1)
    with pytest.raises(InputError):
        s.grade(0, 0, float("nan"))
    assert not paths["log"].exists()


def test_a_failed_write_changes_nothing(tmp_path: Path) -> None:
    paths = make(tmp_path)
    s = session(paths)
    s.log = tmp_path / "pool.jsonl" / "log.jsonl"  # a file where its folder should be
    with pytest.raises(InputError, match="cannot write judgements log"):
        s.grade(0, 0, 1)
    assert s.status((0, 0)) == {"grade": None, "skipped": False} and s.progress().graded == 0


def test_notes_for_missing_texts_and_records_of_another_pool(tmp_path: Path) -> None:
    paths = make(tmp_path)
    paths["log"].write_text(json.dumps({"v": 1, "question": "q9", "doc_id": "x", "action": "grade", "grade": 1,
                                        "annotator": "ana", "time": "2026-11-03T09:00:00Z"}) + "\n")
    s = session(paths)
    assert any("1 of 4 candidates are not in the corpus" in n for n in s.notes)
    assert any("1 record(s) of ana" in n for n in s.notes)
    assert s.question(1)["candidates"][1]["missing"] is True
    undone = s.undo()  # the last record in effect is the foreign one
    assert undone is not None and undone.item == ("q9", "x") and undone.item not in s.index


def test_load_documents_keeps_only_the_wanted_ones_and_takes_mappings(tmp_path: Path) -> None:
    paths = make(tmp_path)
    docs = load_documents(paths["corpus"], {"kb-vpn", "kb-jam", "kb-none"})
    assert set(docs) == {"kb-vpn", "kb-jam"} and docs["kb-vpn"] == ("VPN", "Reset the VPN password in the portal.")
    assert load_documents({"a": "text", "b": ("T", "x")}, {"a", "b"}) == {"a": ("", "text"), "b": ("T", "x")}
    twice = tmp_path / "twice.jsonl"
    twice.write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(InputError, match="duplicate document id 'a'"):
        load_documents(twice, {"a"})


def test_a_pool_without_candidates_is_refused(tmp_path: Path) -> None:
    golden = [{"id": "q3", "query": "no candidate here", "relevant": ["kb-wifi"]}]
    paths = make(tmp_path, golden)
    with pytest.raises(InputError, match="no candidate to judge"):
        open_session(paths["pool"], paths["corpus"])


def test_an_adjudication_session_offers_only_the_disagreements_with_the_grades(tmp_path: Path) -> None:
    from ragauge.data.judgements import Judgement
    from ragauge.formats.judgements import append_judgement

    paths = make(tmp_path)
    for who, q, doc, grade in [("ana", "q1", "kb-vpn2", 1), ("bo", "q1", "kb-vpn2", 2),   # disputed
                               ("ana", "q1", "kb-portal", 0), ("bo", "q1", "kb-portal", 0),  # agreed
                               ("ana", "q2", "kb-ghost", 0), ("bo", "q2", "kb-ghost", 1),  # disputed
                               ("lead", "q2", "kb-jam", 1)]:  # the adjudicator's own grade: no dispute
        append_judgement(paths["log"], Judgement(q, doc, "grade", who, "2026-11-03T09:00:00Z", grade))
    s = open_session(paths["pool"], paths["corpus"], annotator="lead", disagreements=True)
    assert s.order == [(0, 0), (1, 1)] and s.sizes() == [1, 1, 0]
    p = s.progress()
    assert (p.total, p.questions, p.questions_done) == (2, 2, 0)
    view = s.question(0)
    assert [c["doc_id"] for c in view["candidates"]] == ["kb-vpn2"]
    assert view["candidates"][0]["others"] == {"ana": 1, "bo": 2} and view["candidates"][0]["index"] == 0
    with pytest.raises(InputError):
        s.grade(0, 1, 0)  # agreed on: not offered
    s.grade(0, 0, 2)
    assert s.next_position((0, 0)) == (1, 1)
    s.grade(1, 1, 1)
    assert s.next_position((1, 1)) is None and s.progress().questions_done == 2
    with pytest.raises(InputError, match="no disagreement to adjudicate"):
        open_session(paths["pool"], paths["corpus"], annotator="ana", disagreements=True)  # bo and lead agree


@pytest.mark.parametrize("module", ["starlette.applications", "uvicorn"])
def test_without_the_judge_extra_the_error_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    module: str) -> None:
    import sys

    from ragauge.curation.judge_app import JudgeServer, create_app
    from ragauge.errors import MissingExtra

    s = session(make(tmp_path))
    monkeypatch.setitem(sys.modules, module, None)  # as if it were not installed
    with pytest.raises(MissingExtra) as info:
        JudgeServer(create_app(s, "token"), "token")
    assert info.value.hint == "pip install 'ragauge[judge]'" and module.split(".")[0] in info.value.message
