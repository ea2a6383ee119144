"""The HTML report: self-contained, escaped, and working in a real browser (headless Chromium).

The browser tests use Debian's ``chromium`` through Playwright's Python API (``executable_path``; no
browser download). Locally they are skipped, with the reason, when either is missing; with ``CI`` set
they fail instead. A screenshot is kept in test-artifacts/report.png.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ragauge.evaluation.result import Evaluation
from ragauge.reports.html import script_json
from ragauge.reports.render import render

ROOT = Path(__file__).parents[2]
ARTIFACTS = ROOT / "test-artifacts"


# --- static checks --------------------------------------------------------------------------------

def test_self_contained(evaluation: Evaluation) -> None:
    html = render(evaluation, "html")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    urls = re.findall(r"""(?:src|href|xlink:href)\s*=\s*["']([^"']*)""", html)
    assert all(u.startswith("data:") for u in urls), urls
    assert "url(" not in html and "@import" not in html and "http://" not in html and "https://" not in html


def test_user_text_is_escaped(evaluation: Evaluation) -> None:
    html = render(evaluation, "html")
    assert "<script>alert" not in html and "<img src=x" not in html and "<i>markup" not in html
    assert "&lt;i&gt;markup&lt;/i&gt;" in html  # a tag name in the chart, as text
    assert len(re.findall(r"<script\b", html)) == 2  # the data block and the report's own script


def test_embedded_json_cannot_close_its_script() -> None:
    payload = {"q": "</script><script>alert(1)</script> <!-- & -->", "n": float("nan")}
    text = script_json(payload)
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"q": payload["q"], "n": None}


def test_script_is_pinned_by_its_hash(evaluation: Evaluation) -> None:
    import base64
    import hashlib

    html = render(evaluation, "html")
    script = html.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html


def test_judged_at_k_is_on_one_card_whether_asked_for_or_recorded() -> None:
    import ragauge

    helpdesk = ROOT / "examples" / "helpdesk"
    for metrics, label in (("ndcg@5,hit@5,mrr", "judged@5: share labelled"), ("judged@5,ndcg@5,hit@5", "judged@5")):
        e = ragauge.evaluate_run(helpdesk / "golden.jsonl", helpdesk / "bm25.run.jsonl", metrics=metrics)
        cards = re.findall(r'<div class="card judged"[^>]*><div class="value">([^<]*)</div><div class="label">([^<]*)',
                           render(e, "html"))
        assert cards == [(f"{e.meta['judged']['mean']:.4f}", label)], metrics


# --- in a browser ---------------------------------------------------------------------------------

class Page:
    """A page on the report with everything that happened recorded."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.url = path.resolve().as_uri()
        self.requests: list[str] = []
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def _route(self, route: Any) -> None:
        if route.request.url == self.url:
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort()

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def ids(self) -> list[str]:
        return self.page.eval_on_selector_all("#qtable tbody tr.q", "rows => rows.map(r => r.dataset.id)")

    def shown(self) -> str:
        return self.page.inner_text("#shown")


@pytest.fixture
def page(browser: Any, evaluation: Evaluation, tmp_path: Path) -> Iterator[Page]:
    path = tmp_path / "report.html"
    path.write_text(render(evaluation, "html"), encoding="utf-8")
    p = Page(browser, path)
    yield p
    assert p.errors == [], p.errors
    assert p.dialogs == [], p.dialogs
    assert p.blocked == [] and p.requests == [p.url], p.requests
    p.context.close()


def test_loads_offline_and_renders_user_text_as_text(page: Page) -> None:
    pg = page.page
    assert page.ids()[:3] == ["q4", "q7", "q8"]  # worst first
    assert page.shown() == "showing 7 of 7"
    q5 = pg.locator("#qtable tr.q[data-id=q5] td.query")
    assert q5.inner_text().startswith("<script>alert(1)</script> why does a | pipe & an <b>ampersand</b>")
    assert pg.evaluate("document.querySelectorAll('script').length") == 2
    assert pg.evaluate("document.querySelectorAll('b, i, img, main script').length") == 0
    assert "<i>markup</i>" in pg.locator("#tags svg.tagchart:visible text.label").all_text_contents()


def test_header_click_sorts(page: Page) -> None:
    pg = page.page
    pg.click("#qtable th[data-key=id]")
    assert page.ids() == ["q1", "q2", "q4", "q5", "q6", "q7", "q8"]
    assert pg.get_attribute("#qtable th[data-key=id]", "aria-sort") == "ascending"
    pg.click("#qtable th[data-key=id]")
    assert page.ids() == ["q8", "q7", "q6", "q5", "q4", "q2", "q1"]
    pg.click("#qtable th[data-key=rank]")
    assert page.ids()[:2] == ["q1", "q2"] and page.ids()[-3:] == ["q4", "q7", "q8"]
    pg.click("#qtable th[data-key=v6]")  # ndcg@3, ascending
    values = [float(v) for v in pg.locator("#qtable tbody tr.q td.num:last-child").all_inner_texts()]
    assert values == sorted(values)


def test_tag_filter_search_and_misses(page: Page) -> None:
    pg = page.page
    pg.select_option("#tag-filter", "hw")
    assert sorted(page.ids()) == ["q2", "q6"] and page.shown() == "showing 2 of 7"
    pg.select_option("#tag-filter", "<i>markup</i>")
    assert page.ids() == ["q5"]
    pg.select_option("#tag-filter", "")
    pg.fill("#search", "PRINTER")  # the question text or any document id, any case
    assert sorted(page.ids()) == ["q2", "q7"]
    pg.fill("#search", "kb|pipe")
    assert page.ids() == ["q5"]
    pg.fill("#search", "")
    pg.check("#misses")
    assert sorted(page.ids()) == ["q4", "q6", "q7", "q8"]


def test_row_expands_to_expected_and_returned(page: Page) -> None:
    pg = page.page
    pg.click("#qtable tr.q[data-id=q5]")
    detail = pg.locator("#qtable tr.detail")
    assert detail.count() == 1
    text = detail.inner_text()
    assert "Expected" in text and "Returned, top 3" in text
    assert "<img src=x onerror=alert(2)>" in text  # a document id, shown as text
    assert "rank 2" in text and "not returned" in text  # kb|pipe found at 2, kb-esc never
    assert pg.get_attribute("#qtable tr.q[data-id=q5] button.exp", "aria-expanded") == "true"
    rel = pg.locator("#qtable tr.detail .docs > div:nth-child(2) tr.rel").all_inner_texts()
    assert len(rel) == 1 and "kb|pipe" in rel[0]
    ARTIFACTS.mkdir(exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    pg.click("#qtable tr.q[data-id=q5]")
    assert pg.locator("#qtable tr.detail").count() == 0


def test_tag_chart_metric_switch(page: Page) -> None:
    pg = page.page
    assert pg.locator("svg.tagchart:visible").count() == 1
    pg.select_option("#tag-metric", "2")  # hit@3
    visible = pg.locator("svg.tagchart:visible")
    assert visible.count() == 1 and visible.get_attribute("aria-label") == "hit@3 by tag"


def test_why_it_failed_table_and_pattern_filter(page: Page) -> None:
    pg = page.page
    rows = pg.locator("#why tbody tr").all_inner_texts()
    assert [r.split("\t")[0] for r in rows] == ["retriever error", "missing from the run", "ranked too low",
                                                "not retrieved at all"]
    assert "perfect reranker" in pg.inner_text("#why")
    assert pg.locator("#qtable tr.q[data-id=q6] td.why").inner_text() == "ranked too low"
    assert pg.locator("#qtable tr.q[data-id=q1] td.why").inner_text() == ""
    pg.select_option("#pattern-filter", "not-retrieved")
    assert page.ids() == ["q7"] and page.shown() == "showing 1 of 7"
    pg.click("#qtable tr.q[data-id=q7]")
    assert "why it failed: not retrieved at all (none in 5 fetched)" in pg.locator("#qtable tr.detail").inner_text()
    pg.select_option("#pattern-filter", "")
    assert page.shown() == "showing 7 of 7"


# --- issue 28: the report as a user read it ------------------------------------------------------

def test_the_tag_chart_opens_on_the_main_metric_weakest_first(page: Page) -> None:
    """It opened on hit@1; the main metric is nDCG at the largest k (views.main_metric)."""
    pg = page.page
    visible = pg.locator("svg.tagchart:visible")
    assert visible.count() == 1 and visible.get_attribute("aria-label") == "ndcg@3 by tag"
    assert pg.eval_on_selector("#tag-metric", "s => s.options[s.selectedIndex].text") == "ndcg@3"
    for metric in ("ndcg@3", "hit@3"):
        pg.select_option("#tag-metric", label=metric)
        values = [float(v.split()[0]) for v in pg.locator("svg.tagchart:visible text.val").all_text_contents()]
        assert values == sorted(values) and len(values) == 4, (metric, values)  # weakest first by its own metric


def test_judged_at_k_has_a_card(page: Page) -> None:
    card = page.page.locator(".card.judged")
    assert card.count() == 1
    assert card.inner_text().split() == ["0.2857", "judged@3:", "share", "labelled"]
    assert "judged@3=0.2857: mean share of the top 3 that the golden set labels" in card.get_attribute("title")


def _metric_headers(pg: Any) -> list[str]:
    return pg.eval_on_selector_all("#qtable th[data-key^=v]", "hs => hs.filter(h => !h.hidden).map(h => h.textContent)")


def test_the_question_table_shows_the_chosen_metric_columns(page: Page) -> None:
    """All seven metrics made a table too wide to read; it shows the main metric and hit at the
    largest k, and the reader adds others."""
    pg = page.page
    assert _metric_headers(pg) == ["hit@3", "ndcg@3"]
    assert pg.inner_text("#columns-shown") == "2 of 7"
    visible_cells = "rows => rows.map(r => [...r.querySelectorAll('td.num')].filter(td => !td.hidden).length)"
    assert set(pg.eval_on_selector_all("#qtable tbody tr.q", visible_cells)) == {3}  # first relevant + two metrics
    pg.click("details.columns summary")
    pg.check("details.columns input[value='4']")  # mrr
    assert _metric_headers(pg) == ["hit@3", "mrr", "ndcg@3"] and pg.inner_text("#columns-shown") == "3 of 7"
    assert set(pg.eval_on_selector_all("#qtable tbody tr.q", visible_cells)) == {4}
    pg.uncheck("details.columns input[value='2']")  # hit@3
    assert _metric_headers(pg) == ["mrr", "ndcg@3"]
    pg.click("details.columns summary")
    pg.click("#qtable tr.q[data-id=q5]")
    shown_columns = pg.eval_on_selector_all("#qtable > thead th", "hs => hs.filter(h => !h.hidden).length")
    assert pg.eval_on_selector("#qtable tr.detail > td", "td => td.colSpan") == shown_columns
    pg.click("#qtable th[data-key=v4]")  # sorting by a column the reader added
    values = [float(v) for v in pg.locator("#qtable tbody tr.q td.num:not([hidden])").all_inner_texts()[1::3]]
    assert values == sorted(values)


def test_tag_chips_do_not_break_inside_a_tag(browser: Any, tmp_path: Path) -> None:
    """On a narrow window the tags column broke "multi-section" into "multi-" and "section"."""
    import ragauge

    helpdesk = ROOT / "examples" / "helpdesk"
    e = ragauge.evaluate_run(helpdesk / "golden.jsonl", helpdesk / "bm25.run.jsonl", k=[1, 3, 5])
    path = tmp_path / "helpdesk.html"
    path.write_text(render(e, "html"), encoding="utf-8")
    p = Page(browser, path)
    try:
        p.page.set_viewport_size({"width": 640, "height": 900})
        chips = p.page.eval_on_selector_all(
            "#qtable span.tag", "ts => ts.map(t => [t.textContent, t.getBoundingClientRect().height])")
        assert {"multi-section", "exact-term"} <= {text for text, _ in chips}
        heights = [h for _, h in chips]
        assert max(heights) < 1.5 * min(heights), [c for c in chips if c[1] >= 1.5 * min(heights)][:3]
        assert p.errors == [] and p.blocked == []
    finally:
        p.context.close()
