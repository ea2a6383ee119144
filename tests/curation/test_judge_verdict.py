"""Judging a pool made for a verdict (golden pool --for-verdict): the session serves the pairs in the
verdict's order, recomputed after every grade, skip and undo; its progress and the page (Starlette's
TestClient on the real app) say where the verdict stands and when it is certain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.judge import open_session
from ragauge.curation.verdict import VerdictState
from ragauge.formats.pool import read_pool, write_pool
from tests.curation.judging import make_verdict

TOKEN = "t0ken-for-tests"


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, Path]:
    return make_verdict(tmp_path)


def test_the_session_serves_the_verdicts_order_and_stops_being_needed_when_certain(paths: dict[str, Path]) -> None:
    session = open_session(paths["pool"], paths["corpus"], annotator="ana")
    twin = VerdictState(read_pool(paths["pool"]))  # what the order should be, judged alongside
    assert session.verdict is not None and not session.progress().verdict["certain"]
    served = []
    while not session.progress().verdict["certain"]:
        pos = session.next_position()
        assert pos is not None and session.item(pos) == twin.order()[0][0]
        served.append(session.item(pos))
        session.grade(*pos, 0)
        twin.set(session.item(pos), 0)
    assert len(served) == 10 and all(q.startswith("v") for q, _ in served)  # s0, s1 cannot move it: never served
    progress = session.progress()
    assert progress.verdict is not None and progress.verdict["low"] == progress.verdict["high"] == 1
    assert progress.graded == 10 and progress.left == 10
    log = [json.loads(x) for x in paths["log"].read_text().splitlines()]
    assert [(r["question"], r["doc_id"]) for r in log] == served


def test_undo_and_skip_put_a_pair_back_and_a_resumed_session_knows_the_grades(paths: dict[str, Path]) -> None:
    session = open_session(paths["pool"], paths["corpus"], annotator="ana")
    first = session.next_position()
    assert first is not None
    before = session.verdict.status() if session.verdict else None
    session.grade(*first, 0)
    assert session.verdict is not None and session.verdict.status() != before
    session.undo()
    assert session.verdict.status() == before and session.next_position() == first
    session.skip(*first)
    assert session.next_position() != first  # skipped: served after every open pair
    session.grade(*session.next_position(), 0)  # type: ignore[misc]
    again = open_session(paths["pool"], paths["corpus"], annotator="ana")
    assert again.verdict is not None and again.verdict.labels == session.verdict.labels
    other = open_session(paths["pool"], paths["corpus"], annotator="bo")  # another annotator starts afresh
    assert other.verdict is not None and other.verdict.labels == {} and other.next_position() == first


def test_without_a_verdict_the_same_pool_is_judged_in_pool_order(paths: dict[str, Path], tmp_path: Path) -> None:
    from dataclasses import replace

    plain = tmp_path / "plain.jsonl"
    write_pool(replace(read_pool(paths["pool"]), verdict=None), plain)
    session = open_session(plain, paths["corpus"], annotator="ana", log=tmp_path / "plain.log")
    assert session.verdict is None and session.item(session.next_position()) == ("s0", "s0-u1")  # type: ignore[arg-type]
    assert "verdict" not in session.progress().to_dict()


def test_the_page_shows_the_verdict_and_sends_its_status_with_every_answer(paths: dict[str, Path]) -> None:
    pytest.importorskip("starlette", reason="the judge extra: pip install 'ragauge[judge]'")
    from starlette.testclient import TestClient

    from ragauge.curation.judge_app import create_app

    session = open_session(paths["pool"], paths["corpus"], annotator="ana")
    client = TestClient(create_app(session, TOKEN), base_url="http://127.0.0.1", client=("127.0.0.1", 50000),
                        follow_redirects=False)
    first = session.next_position()
    assert first is not None and first[0] == 2  # v0: s0 and s1 come first in the pool, not in this order
    response = client.get(f"/?token={TOKEN}")
    assert response.headers["location"] == f"/q/{first[0]}?token={TOKEN}"
    html = client.get(f"/q/{first[0]}?token={TOKEN}").text
    assert 'id="verdict"' in html and "not yet certain" in html and "a.jsonl</code>" in html
    assert '<span id="v-certain-state" hidden>' in html
    data = json.loads(html.split('<script type="application/json" id="judge-data">')[1].split("</script>")[0])
    assert data["focus"] == first[1] and data["progress"]["verdict"]["certain"] is False
    while True:
        pos = session.next_position()
        assert pos is not None
        answer = client.post("/api/judge", json={"action": "grade", "grade": 0, "q": pos[0], "c": pos[1]},
                             headers={"X-Ragauge-Token": TOKEN}).json()
        if answer["progress"]["verdict"]["certain"]:
            break
        assert answer["next"] == dict(zip("qc", session.next_position()))  # type: ignore[arg-type]
    verdict = answer["progress"]["verdict"]
    assert verdict["low"] == verdict["high"] == 1 and verdict["words"]["1"] == "better"
    html = client.get(f"/q/2?token={TOKEN}").text
    assert '<div id="verdict" class="verdict certain">' in html and "CERTAIN: <span id=\"v-final\">better" in html
    assert client.post("/api/undo", headers={"X-Ragauge-Token": TOKEN}).json()["progress"]["verdict"]["certain"] \
        is False
