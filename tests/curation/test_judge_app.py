"""The judging page through Starlette's TestClient (and one real server on a socket): the token and
loopback guard, the security headers, escaping of crafted text, and the JSON API the script uses."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from ragauge.curation.judge import JudgeSession, open_session
from ragauge.curation.judge_finish import merge_judgements
from tests.curation.judging import CORPUS, GOLDEN, make, write_jsonl

pytest.importorskip("starlette", reason="the judge extra: pip install 'ragauge[judge]'")
from starlette.testclient import TestClient  # noqa: E402

from ragauge.curation.judge_app import JudgeServer, create_app, new_token  # noqa: E402

TOKEN = "t0ken-for-tests"
CRAFTED = '</script><script>alert(1)</script><img src=x onerror=alert(2)> "quoted" & <b>bold</b>'


def client(s: JudgeSession, *, host: str = "127.0.0.1", base: str = "http://127.0.0.1", finish: Any = None,
           ) -> TestClient:
    return TestClient(create_app(s, TOKEN, finish=finish), base_url=base, client=(host, 50000),
                      follow_redirects=False)


@pytest.fixture
def paths(tmp_path: Path) -> dict[str, Path]:
    return make(tmp_path)


@pytest.fixture
def session(paths: dict[str, Path]) -> JudgeSession:
    return open_session(paths["pool"], paths["corpus"], annotator="ana")


def auth() -> dict[str, str]:
    return {"X-Ragauge-Token": TOKEN}


@pytest.mark.parametrize("url, headers", [
    ("/q/0", {}),
    ("/q/0?token=wrong", {}),
    ("/q/0?token=", {}),
    ("/", {"X-Ragauge-Token": TOKEN + "x"}),
    ("/api/progress", {}),
])
def test_every_request_without_the_token_is_refused(session: JudgeSession, url: str,
                                                    headers: dict[str, str]) -> None:
    response = client(session).get(url, headers=headers)
    assert response.status_code == 403 and response.text == "forbidden"
    assert client(session).post("/api/judge", json={"action": "grade", "grade": 1, "q": 0, "c": 0}).status_code == 403
    assert not session.log.exists()


def test_only_loopback_clients_and_loopback_host_names_get_in(session: JudgeSession) -> None:
    ok = f"/q/0?token={TOKEN}"
    assert client(session).get(ok).status_code == 200
    assert client(session, host="::1", base="http://localhost").get(ok).status_code == 200
    assert client(session, host="192.168.1.20").get(ok).status_code == 403  # another machine
    assert client(session, host="testclient").get(ok).status_code == 403
    assert client(session, base="http://evil.example").get(ok).status_code == 403  # DNS rebinding


def test_the_root_sends_to_where_judging_stands(session: JudgeSession) -> None:
    session.grade(0, 0, 1)
    session.grade(0, 1, 0)
    response = client(session).get(f"/?token={TOKEN}")
    assert response.status_code == 303 and response.headers["location"] == f"/q/1?token={TOKEN}"


def test_security_headers_and_the_script_and_style_pinned_by_hash(session: JudgeSession) -> None:
    response = client(session).get(f"/q/0?token={TOKEN}")
    csp = response.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "connect-src 'self'" in csp and "frame-ancestors 'none'" in csp
    html = response.text
    script = html.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    for kind, text in (("script", script), ("style", style)):
        digest = base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()
        assert f"{kind}-src 'sha256-{digest}'" in csp
    assert "unsafe-inline" not in csp and " style=" not in html
    assert not re.search(r"<[^>]*\son\w+\s*=", html)  # no inline event handler: the CSP would block it
    assert response.headers["referrer-policy"] == "no-referrer" and response.headers["cache-control"] == "no-store"
    assert response.headers["x-content-type-options"] == "nosniff"


def test_crafted_text_everywhere_is_shown_as_text(tmp_path: Path) -> None:
    golden = [{"id": f"q{CRAFTED}", "query": f"reset {CRAFTED}", "relevant": ["kb-vpn"], "tags": [CRAFTED]}]
    corpus = [*CORPUS, {"id": f"kb{CRAFTED}", "title": f"T {CRAFTED}", "text": f"reset body {CRAFTED}"}]
    paths = make(tmp_path, golden, {f"runs/{CRAFTED}": {golden[0]["id"]: [f"kb{CRAFTED}", "kb-vpn2"]}})
    write_jsonl(paths["corpus"], corpus)
    s = open_session(paths["pool"], paths["corpus"], annotator=CRAFTED)
    html = client(s).get(f"/q/0?token={TOKEN}").text
    assert "<script>alert" not in html and "<img" not in html and "<b>bold" not in html
    assert html.count("<script") == 2  # the data block and the page's own script
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&#34;quoted&#34; &amp; &lt;b&gt;bold&lt;/b&gt;" in html
    data = html.split('<script type="application/json" id="judge-data">', 1)[1].split("</script>", 1)[0]
    assert "<" not in data and json.loads(data)["token"] == TOKEN
    assert "<mark>reset</mark>" in html  # the query's word marked in the text, the markup the page's own


def test_judge_skip_undo_through_the_api(session: JudgeSession) -> None:
    c = client(session)
    r = c.post("/api/judge", json={"action": "grade", "grade": 2, "q": 0, "c": 0}, headers=auth())
    assert r.status_code == 200
    assert r.json()["saved"] == {"grade": 2, "skipped": False} and r.json()["next"] == {"q": 0, "c": 1}
    r = c.post("/api/judge", json={"action": "skip", "q": 0, "c": 1}, headers=auth())
    assert r.json()["next"] == {"q": 1, "c": 0} and r.json()["progress"]["skipped"] == 1
    r = c.post("/api/undo", headers=auth())
    assert r.json()["undone"] == {"q": 0, "c": 1, "grade": None, "skipped": False}
    page = c.get(f"/q/0?token={TOKEN}").text
    assert 'class="cand graded g2' in page and "2 · highly relevant" in page
    lines = [json.loads(x) for x in session.log.read_text().splitlines()]
    assert [x["action"] for x in lines] == ["grade", "skip", "undo"] and lines[0]["annotator"] == "ana"


@pytest.mark.parametrize("body", [
    {"action": "grade", "grade": 3, "q": 0, "c": 0},
    {"action": "grade", "grade": True, "q": 0, "c": 0},
    {"action": "grade", "grade": "1", "q": 0, "c": 0},
    {"action": "grade", "grade": 1, "q": 0, "c": 9},
    {"action": "grade", "grade": 1, "q": 2, "c": 0},
    {"action": "delete", "q": 0, "c": 0},
    [1, 2],
])
def test_bad_requests_are_refused_and_nothing_is_written(session: JudgeSession, body: Any) -> None:
    response = client(session).post("/api/judge", json=body, headers=auth())
    assert response.status_code == 400 and "error" in response.json()
    assert not session.log.exists()


def test_a_write_that_fails_answers_500_and_the_page_shows_nothing_saved(session: JudgeSession,
                                                                         tmp_path: Path) -> None:
    session.log = tmp_path / "pool.jsonl" / "log.jsonl"  # its folder is a file
    response = client(session).post("/api/judge", json={"action": "grade", "grade": 1, "q": 0, "c": 0},
                                    headers=auth())
    assert response.status_code == 500 and "cannot write judgements log" in response.json()["error"]
    assert session.status((0, 0))["grade"] is None


def test_finish_merges_and_reports(session: JudgeSession, paths: dict[str, Path]) -> None:
    c = client(session, finish=lambda: merge_judgements(session.pool, session.log))
    assert client(session).post("/api/finish", headers=auth()).status_code == 404  # no finish offered
    c.post("/api/judge", json={"action": "grade", "grade": 1, "q": 0, "c": 0}, headers=auth())
    response = c.post("/api/finish", headers=auth())
    assert response.status_code == 200 and response.json()["lines"][0].startswith("merged 1 label(s)")
    assert '"kb-vpn2"' in paths["golden"].read_text()
    assert GOLDEN[0]["query"] in paths["golden"].read_text()


def test_the_server_listens_on_loopback_only_and_guards_real_requests(session: JudgeSession) -> None:
    import httpx

    token = new_token()
    assert len(token) >= 40 and new_token() != token
    server = JudgeServer(create_app(session, token), token)
    server.start()
    try:
        assert server.socket.getsockname()[0] == "127.0.0.1" and server.port > 0
        assert server.url == f"http://127.0.0.1:{server.port}/?token={token}"
        assert httpx.get(server.url.split("?")[0]).status_code == 403
        page = httpx.get(server.url, follow_redirects=True)
        assert page.status_code == 200 and "reset the VPN password" in page.text
    finally:
        server.stop()


def test_the_printed_url_answers_at_once_a_request_made_before_serving_waits_for_it(session: JudgeSession,
                                                                                   ) -> None:
    import socket

    token = new_token()
    server = JudgeServer(create_app(session, token), token)
    # the URL is printed (and the browser opened) before run(): a connection made then is queued, not refused
    early = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        early.sendall(f"GET /api/progress HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Ragauge-Token: {token}\r\n"
                      "Connection: close\r\n\r\n".encode())
        server.start()
        reply = b""
        while chunk := early.recv(65536):
            reply += chunk
        assert reply.startswith(b"HTTP/1.1 200") and b'"graded"' in reply
    finally:
        early.close()
        server.stop()


def test_an_adjudication_page_shows_the_disputed_candidates_with_the_grades(paths: dict[str, Path]) -> None:
    from ragauge.data.judgements import Judgement
    from ragauge.formats.judgements import append_judgement

    for who, doc, grade in [("ana", "kb-portal", 1), ("<bo>", "kb-portal", 2), ("ana", "kb-vpn2", 1),
                            ("<bo>", "kb-vpn2", 1)]:
        append_judgement(paths["log"], Judgement("q1", doc, "grade", who, "2026-11-03T09:00:00Z", grade))
    s = open_session(paths["pool"], paths["corpus"], annotator="lead", disagreements=True)
    c = client(s)
    assert c.get(f"/?token={TOKEN}").headers["location"] == f"/q/0?token={TOKEN}"
    html = c.get(f"/q/0?token={TOKEN}").text
    assert 'id="c1"' in html and 'id="c0"' not in html  # kb-vpn2 is agreed on: not shown
    assert "adjudicating disagreements" in html and "&lt;bo&gt;: <b>2</b>" in html and "ana: <b>1</b>" in html
    data = json.loads(html.split('id="judge-data">', 1)[1].split("</script>", 1)[0])
    assert data["focus"] == 1 and data["sizes"] == [1, 0, 0]
    assert c.post("/api/judge", json={"action": "grade", "grade": 1, "q": 0, "c": 0}, headers=auth()).status_code == 400
    r = c.post("/api/judge", json={"action": "grade", "grade": 2, "q": 0, "c": 1}, headers=auth())
    assert r.status_code == 200 and r.json()["next"] is None and r.json()["progress"]["questions_done"] == 1
