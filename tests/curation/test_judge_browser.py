"""The judging page in a real browser (Debian's Chromium through Playwright, the fixture of
tests/browser.py): judge by keyboard, skip, undo, reload mid-way and find the state resumed, unfold a
long text, finish, and find the grades in the golden set. No console error (a CSP violation would
be one), no request beyond the page's own server. A screenshot is kept in test-artifacts/judge.png."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragauge.curation.judge import open_session
from ragauge.curation.judge_finish import merge_judgements
from ragauge.formats.golden import load_golden
from tests.curation.judging import make

pytest.importorskip("starlette", reason="the judge extra: pip install 'ragauge[judge]'")

ARTIFACTS = Path(__file__).parents[2] / "test-artifacts"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Any, dict[str, Path]]]:
    from ragauge.curation.judge_app import JudgeServer, create_app, new_token

    paths = make(tmp_path)
    session = open_session(paths["pool"], paths["corpus"], annotator="ana")
    token = new_token()
    server = JudgeServer(create_app(session, token, finish=lambda: merge_judgements(session.pool, session.log)),
                         token)
    server.start()
    try:
        yield server, paths
    finally:
        server.stop()


def classes(page: Any, index: int) -> list[str]:
    return page.get_attribute(f"#c{index}", "class").split()


def settled(page: Any) -> int:
    """How many requests the page's script has finished handling (it counts them in ``body[data-settled]``;
    read by selector, because the page's CSP forbids the eval that ``wait_for_function`` needs)."""
    return int(page.get_attribute("body", "data-settled") or 0)


def press(page: Any, key: str, *, to: int | None = None) -> None:
    """Press ``key`` and wait until the page has handled the server's answer, and with ``to``, until
    question ``to``'s page is loaded and its script has run (it drops the ``&c=`` the link carried)."""
    before = settled(page)
    page.keyboard.press(key)
    if to is None:
        page.wait_for_selector(f'body[data-settled="{before + 1}"]', state="attached")
    else:
        page.wait_for_url(lambda url: f"/q/{to}?" in url and "&c=" not in url)
        page.wait_for_load_state("load")


def click(page: Any, selector: str) -> None:
    before = settled(page)
    page.click(selector)
    page.wait_for_selector(f'body[data-settled="{before + 1}"]', state="attached")


def test_judge_by_keyboard_undo_reload_resume_and_finish(browser: Any, served: tuple[Any, dict[str, Path]]) -> None:
    server, paths = served
    origin = server.url.split("/?")[0]
    errors: list[str] = []
    foreign: list[str] = []
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith((origin, "data:")) else foreign.append(r.url))
    page.goto(server.url)
    assert page.url.startswith(f"{origin}/q/0?token=")  # sent to the first question
    assert page.inner_text("#query") == "reset the VPN password" and "current" in classes(page, 0)
    assert page.inner_html("#c0 .title") == "<mark>VPN</mark> <mark>passwords</mark>"  # the query's words

    press(page, "2")  # q1 / kb-vpn2: highly relevant
    assert "g2" in classes(page, 0) and "current" in classes(page, 1)
    assert page.inner_text("#c0 .state") == "2 · highly relevant" and page.inner_text("#p-graded") == "1"
    assert "folded" in classes(page, 1)  # kb-portal's text is long
    page.keyboard.press("o")
    assert "folded" not in classes(page, 1)
    press(page, "s", to=1)  # skip kb-portal: q1 has nothing open, on to q2
    assert "/q/1?" in page.url and page.inner_text("#query") == "printer E-301 paper jam"

    press(page, "0")  # q2 / kb-jam: not relevant ...
    assert "g0" in classes(page, 0) and "current" in classes(page, 1)
    press(page, "u")  # ... undone
    assert "graded" not in classes(page, 0) and "current" in classes(page, 0)
    assert page.inner_text("#c0 .state") == ""
    press(page, "1")  # q2 / kb-jam: relevant
    log = [json.loads(x) for x in paths["log"].read_text().splitlines()]
    assert [(r["doc_id"], r["action"], r.get("grade")) for r in log] == [
        ("kb-vpn2", "grade", 2), ("kb-portal", "skip", None), ("kb-jam", "grade", 0), ("kb-jam", "undo", None),
        ("kb-jam", "grade", 1)]

    page.reload()  # mid-way: the state comes back from the log
    page.wait_for_load_state("load")
    assert "g1" in classes(page, 0) and page.inner_text("#c0 .state") == "1 · relevant"
    assert "current" in classes(page, 1)  # the first candidate still open
    assert (page.inner_text("#p-graded"), page.inner_text("#p-skipped"), page.inner_text("#p-left")) == ("2", "1", "1")
    page.keyboard.press("k")
    assert "current" in classes(page, 0)
    page.keyboard.press("j")
    assert "current" in classes(page, 1)
    assert "not in the corpus" in page.inner_text("#c1")  # kb-ghost: only its id is known

    press(page, "1", to=0)  # kb-ghost: relevant; only the skipped one is left, back in q1
    assert "/q/0?" in page.url and "skipped" in classes(page, 1) and "current" in classes(page, 1)
    press(page, "0")  # kb-portal after all: not relevant
    assert page.is_visible("#done") and page.inner_text("#p-left") == "0"

    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "judge.png"), full_page=True)
    click(page, "#finish")
    assert page.is_visible("#finish-out") and page.inner_text("#finish-out").startswith("merged 4 label(s) into 2")
    golden = load_golden(paths["golden"])
    assert golden.by_id["q1"].relevant == {"kb-vpn": 1, "kb-vpn2": 2, "kb-portal": 0}
    assert golden.by_id["q2"].relevant == {"kb-printer": 2, "kb-old": 0, "kb-jam": 1, "kb-ghost": 1}
    assert errors == [] and foreign == []
    context.close()


def test_adjudicate_the_disagreements_by_keyboard_then_finish(browser: Any, tmp_path: Path) -> None:
    """Two annotators disagree on kb-portal (q1, second candidate) and kb-ghost (q2, second); the
    adjudicator's page offers just those, in order, and their grades settle both on finish."""
    from ragauge.curation.judge_app import JudgeServer, create_app, new_token
    from ragauge.data.judgements import Judgement
    from ragauge.formats.judgements import append_judgement

    paths = make(tmp_path)
    for who, q, doc, grade in [("ana", "q1", "kb-portal", 1), ("bo", "q1", "kb-portal", 0),
                               ("ana", "q2", "kb-ghost", 2), ("bo", "q2", "kb-ghost", 1),
                               ("ana", "q2", "kb-jam", 1), ("bo", "q2", "kb-jam", 1)]:
        append_judgement(paths["log"], Judgement(q, doc, "grade", who, "2026-11-03T09:00:00Z", grade))
    session = open_session(paths["pool"], paths["corpus"], annotator="lead", disagreements=True)
    token = new_token()
    finish = lambda: merge_judgements(session.pool, session.log, adjudicator="lead")  # noqa: E731
    server = JudgeServer(create_app(session, token, finish=finish), token)
    server.start()
    errors: list[str] = []
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        assert page.eval_on_selector_all("#candidates > li", "els => els.map(e => e.id)") == ["c1"]
        assert "current" in classes(page, 1) and "ana: 1" in page.inner_text("#c1 .others")
        press(page, "0", to=1)  # kb-portal: not relevant; on to q2's kb-ghost
        assert "/q/1?" in page.url and page.eval_on_selector_all("#candidates > li", "els => els.map(e => e.id)") \
            == ["c1"]
        press(page, "u", to=0)  # the undo is in q1: back there
        assert "/q/0?" in page.url and "graded" not in classes(page, 1)
        press(page, "1", to=1)  # kb-portal: relevant after all
        press(page, "2")  # kb-ghost: highly relevant; nothing left
        assert page.is_visible("#done") and page.inner_text("#p-left") == "0"
        click(page, "#finish")
        assert page.inner_text("#finish-out").startswith("merged")
        page.close()
    finally:
        server.stop()
    golden = load_golden(paths["golden"])
    assert golden.by_id["q1"].relevant["kb-portal"] == 1 and golden.by_id["q2"].relevant["kb-ghost"] == 2
    assert golden.by_id["q2"].relevant["kb-jam"] == 1 and errors == []


def test_judge_a_pool_made_for_a_verdict_by_keyboard_until_it_is_certain(browser: Any, tmp_path: Path) -> None:
    """The page of a pool made for a verdict starts at the pair that decides most, goes where the verdict's
    order leads after each grade (to another question or within this one), and says when the verdict is
    certain: here after 10 grades of the 20 candidates, never touching s0 and s1, whose labels cannot move it."""
    from ragauge.curation.judge_app import JudgeServer, create_app, new_token
    from ragauge.curation.verdict import VerdictState
    from ragauge.formats.pool import read_pool
    from tests.curation.judging import make_verdict

    paths = make_verdict(tmp_path)
    session = open_session(paths["pool"], paths["corpus"], annotator="ana")
    twin = VerdictState(read_pool(paths["pool"]))
    token = new_token()
    server = JudgeServer(create_app(session, token, finish=lambda: merge_judgements(session.pool, session.log)),
                         token)
    server.start()
    errors: list[str] = []
    try:
        page = browser.new_page(viewport={"width": 1100, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url)
        index = {q.id: i for i, q in enumerate(twin.pool.questions)}
        assert page.is_visible("#v-open-state") and not page.is_visible("#v-certain-state")
        assert page.inner_text("#v-now") == "better" and page.inner_text("#v-low") == "no evidence of a change"
        grades = 0
        while not twin.status().certain:
            (question, doc), _ = twin.order()[0]
            qi = index[question]
            assert f"/q/{qi}?" in page.url
            ci = [c.doc_id for c in twin.pool.questions[qi].candidates].index(doc)
            assert "current" in classes(page, ci), (question, doc)
            twin.set((question, doc), 0)
            nxt = twin.order()[0][0][0]  # once certain, the order still leads on
            press(page, "0", to=None if index[nxt] == qi else index[nxt])
            grades += 1
        assert grades == 10
        assert page.is_visible("#v-certain-state") and not page.is_visible("#v-open-state")
        assert page.inner_text("#v-final") == "better" and page.inner_text("#v-unjudged") == "10"
        assert "certain" in page.get_attribute("#verdict", "class").split()
        page.close()
    finally:
        server.stop()
    log = [json.loads(x) for x in paths["log"].read_text().splitlines()]
    assert len(log) == 10 and all(r["question"].startswith("v") for r in log) and errors == []
