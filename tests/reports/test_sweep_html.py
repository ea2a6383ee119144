"""The sweep page's drill-down: each configuration's row links, by a relative link that works from
disk, to the report ``ragauge eval --format html`` gives for its run; names and paths with markup
characters stay text, and the links resolve in a browser opened on the file."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from markupsafe import escape

import ragauge
from ragauge.cli.main import cli
from ragauge.reports.html import render_html as render_evaluation
from ragauge.reports.sweep_html import render_html
from tests.reports.test_injection import EXAMPLES, FIELD_TEXTS, PLAIN, _html_tags
from tests.reports.test_sweep import result

ROOT = Path(__file__).parents[2]
GOLDEN = ROOT / "examples" / "helpdesk" / "golden.jsonl"
CORPUS = ROOT / "examples" / "helpdesk" / "sections.jsonl"
NAME = 'bm25 <b>bold</b> & "quoted"'
CONFIG = f"""[sweep]
k = [5]
fetch = 30

[[config]]
name = "bm25"
retriever = "bm25"

[[config]]
name = '{NAME}'
retriever = "bm25"
k1 = 0.6

[[config]]
retriever = "bm25"
k1 = [0.3, 0.9, 1.2, 1.5]
b = [0.4]

[[config]]
name = "dense"
retriever = "dense"
embedder = "hash"
"""


class Links(HTMLParser):
    """Every ``<a href>`` of a page with its text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._open = dict(attrs).get("href") or ""
            self.links.append((self._open, ""))

    def handle_data(self, data: str) -> None:
        if self._open is not None:
            href, text = self.links[-1]
            self.links[-1] = (href, text + data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self._open = None


def links_of(page: str) -> list[tuple[str, str]]:
    parser = Links()
    parser.feed(page)
    return parser.links


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A sweep with a dropped configuration, its page saved in another folder, both with markup
    characters and a space in their paths."""
    base = tmp_path_factory.mktemp("drill")
    config = base / "sweep.toml"
    config.write_text(CONFIG, encoding="utf-8")
    out, page = base / 'out <&" #1', base / "pages & more" / "sweep.html"
    r = CliRunner().invoke(cli, ["sweep", str(GOLDEN), "--corpus", str(CORPUS), "--config", str(config), "-o", str(out),
                                 "--budget", "300", "--format", "html", "--report", str(page)])
    assert r.exit_code == 0, r.output
    return {"out": out, "page": page, "config": config, "result": ragauge.read_sweep(out)}


def test_every_row_links_to_its_runs_eval_report(swept: dict[str, Any]) -> None:
    page, result = swept["page"], swept["result"]
    text = page.read_text(encoding="utf-8")
    links = links_of(text)
    assert result.dropped and len(links) == len(result.rows)
    names = {row.name for row in result.rows}
    for href, label in links:
        assert not urlparse(href).scheme and not href.startswith("/")  # relative: it moves with the folders
        target = (page.parent / unquote(href)).resolve()
        assert target.is_file() and target.parent == (swept["out"] / "reports").resolve()
        assert label.removesuffix(" (best)") in names
    assert NAME not in text and str(escape(NAME)) in text  # the name is text, not markup
    assert {label.removesuffix(" (best)") for _, label in links} == names


def test_a_drilldown_is_the_eval_report_of_the_run(swept: dict[str, Any]) -> None:
    out, result = swept["out"], swept["result"]
    confirmed = result.row(NAME) if result.row(NAME).dropped is None else result.row("bm25")
    report = (out / "reports" / f"{Path(confirmed.run).stem}.html").read_text(encoding="utf-8")
    evaluation = ragauge.evaluate_run(GOLDEN, out / confirmed.run, metrics=list(result.metrics), fetch=30)
    assert report == render_evaluation(evaluation)
    dropped = result.dropped[0]
    report = (out / "reports" / f"{Path(dropped.run).stem}.html").read_text(encoding="utf-8")
    assert f"this run answered a sample of {dropped.sample} of the 45 questions" in report
    assert "its numbers are over the sample only" in report  # scored on the questions it answered, as its row


def test_on_stdout_the_links_are_relative_to_the_current_folder(swept: dict[str, Any], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(cli, ["sweep", str(GOLDEN), "--corpus", str(CORPUS), "--config", str(swept["config"]),
                                 "-o", "here", "--format", "html"])
    assert r.exit_code == 0, r.output
    hrefs = [href for href, _ in links_of(r.stdout)]
    assert hrefs and all(href.startswith("here/reports/") and (tmp_path / unquote(href)).is_file() for href in hrefs)


@settings(max_examples=EXAMPLES, deadline=None)
@given(FIELD_TEXTS)
def test_links_keep_user_text_as_text(texts: list[str]) -> None:
    def page(t: list[str]) -> str:
        r = result(t)
        return render_html(r, {row.name: f"reports/{i}.html" for i, row in enumerate(r.rows)})
    assert _html_tags(page(texts)) == _html_tags(page(PLAIN))


def test_the_page_opens_from_disk_and_its_links_open_the_reports(swept: dict[str, Any], browser: Any) -> None:
    context = browser.new_context()
    requests: list[str] = []
    tab = context.new_page()
    tab.on("request", lambda r: requests.append(r.url))
    tab.goto(swept["page"].resolve().as_uri())
    assert tab.title().startswith("ragauge sweep")
    hrefs = tab.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
    assert len(hrefs) == len(swept["result"].rows)
    tab.click("text=" + NAME)
    tab.wait_for_load_state("load")
    assert tab.url == (swept["out"] / "reports" / f"{Path(swept['result'].row(NAME).run).stem}.html").resolve().as_uri()
    assert tab.title().startswith("ragauge · ") and tab.locator("#qtable").count() == 1
    assert all(u.startswith("file://") for u in requests)  # nothing but the two files
    context.close()
