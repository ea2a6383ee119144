"""Remake docs/report-helpdesk.png with the very command the docs print under it.

The command is read from docs/reference/reports.md (the ``Made with `...` `` sentence after the
screenshot), run
as written (with this interpreter's ``ragauge``), and the report it writes is opened in Debian's
Chromium through Playwright: the tag filter set to ``paraphrase`` and question hd-018 expanded.

    python docs/make_screenshot.py            # needs chromium and playwright (the test extra)
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "docs/report-helpdesk.png"
PAGE = ROOT / "docs" / "reference" / "reports.md"
LINK = "../report-helpdesk.png"
"""How PAGE links to IMAGE."""
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def page_command(page: str) -> list[str]:
    """The command printed under the screenshot: ``Made with `ragauge ...` `` after its image line."""
    if f"]({LINK})" not in page:
        raise SystemExit(f"{PAGE.relative_to(ROOT)}: no image linking {LINK}")
    after = page.split(f"]({LINK})", 1)[1]
    found = re.search(r"Made with `(ragauge [^`]+)`", after)
    if found is None:
        raise SystemExit(f"{PAGE.relative_to(ROOT)}: no 'Made with `ragauge ...`' after the image {LINK}")
    return shlex.split(" ".join(found.group(1).split()))


def main() -> None:
    from playwright.sync_api import sync_playwright

    args = page_command(PAGE.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "ragauge", *args[1:]], cwd=ROOT, check=True,
                       env={**__import__("os").environ, "RAGAUGE_CACHE": tmp})
        report = ROOT / args[args.index("-o") + 1]
        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(report.resolve().as_uri())
            page.select_option("#tag-filter", "paraphrase")
            page.click("#qtable tr.q[data-id=hd-018]")
            page.evaluate("window.scrollTo(0, 0)")  # the click scrolled: sticky table headers would show mid-table
            page.screenshot(path=str(ROOT / IMAGE), clip={"x": 0, "y": 0, "width": 1280, "height": 1880},
                            full_page=True)
            browser.close()
        report.unlink()
    print(f"wrote {IMAGE} from: {' '.join(args)}")


if __name__ == "__main__":
    main()
