"""Remake docs/judge.png: the judging page on the bundled help-desk example, as the docs describe it
(docs/golden.md, docs/how-to/golden-set.md).

The two bundled runs are pooled at depth 5 (``ragauge golden pool examples/helpdesk/golden.jsonl
--run examples/helpdesk/bm25.run.jsonl --run examples/helpdesk/dense.run.jsonl --depth 5``), the
page is served for annotator "ana" with the section texts (``--corpus examples/helpdesk/sections.jsonl``)
and judged by keyboard in Debian's Chromium through Playwright: question hd-001 in full, then the
first two candidates of hd-002. The session's clock advances 9 s per action, so the ETA shows a
steady pace. Everything is written to a temporary folder; only the picture is kept.

    python docs/make_judge_screenshot.py        # needs chromium, playwright and the judge extra
"""

from __future__ import annotations

import functools
import shutil
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = ROOT / "docs" / "judge.png"
HELPDESK = ROOT / "examples" / "helpdesk"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
KEYS = ["1", "0", "1", "0", "1", "0"]  # hd-001's four candidates, then hd-002's first two
LAST_OF_FIRST = 4


def ticking(start: datetime, step: float) -> Iterator[str]:
    t = start
    while True:
        yield t.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        t += timedelta(seconds=step)


def main() -> None:
    from playwright.sync_api import sync_playwright

    import ragauge
    from ragauge.curation.judge import open_session
    from ragauge.curation.judge_app import JudgeServer, create_app, new_token
    from ragauge.curation.judge_finish import merge_judgements

    with tempfile.TemporaryDirectory() as tmp:
        pool = Path(tmp) / "pool.jsonl"
        ragauge.pool_golden(HELPDESK / "golden.jsonl", runs={"bm25.run.jsonl": HELPDESK / "bm25.run.jsonl",
                                                            "dense.run.jsonl": HELPDESK / "dense.run.jsonl"},
                            depth=5, output=pool)
        session = open_session(pool, HELPDESK / "sections.jsonl", annotator="ana")
        clock = ticking(datetime(2026, 11, 3, 9, 0, tzinfo=timezone.utc), 9.0)
        session.clock = lambda: next(clock)
        token = new_token()
        finish = functools.partial(merge_judgements, session.pool, session.log, output=Path(tmp) / "merged.jsonl")
        server = JudgeServer(create_app(session, token, finish=finish), token)
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1100, "height": 900})
                page.goto(server.url)
                for i, key in enumerate(KEYS, start=1):
                    before = int(page.get_attribute("body", "data-settled") or 0)
                    page.keyboard.press(key)
                    if i == LAST_OF_FIRST:  # its last candidate judged, the page moves on to hd-002
                        page.wait_for_url(lambda url: "/q/1?" in url and "&c=" not in url)
                    else:  # the script counts the answers it has handled
                        page.wait_for_selector(f'body[data-settled="{before + 1}"]', state="attached")
                page.wait_for_selector("#c2.current")
                page.screenshot(path=str(IMAGE), full_page=False)
                browser.close()
        finally:
            server.stop()
    print(f"wrote {IMAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
