"""Headless Chromium for the browser tests: Debian's ``chromium`` driven through Playwright's Python
API (``executable_path``; no browser download). Locally a test is skipped, with the reason, when
either is missing; with ``CI`` set it fails instead. tests/conftest.py makes ``browser`` a fixture of every test."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the browser test must run; .ci/run installs chromium and playwright)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed: pip install -e '.[test]'")
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        unavailable("chromium is not installed: apt-get install chromium")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield b
        b.close()
