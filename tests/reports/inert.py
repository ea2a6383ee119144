"""Checks that rendered output carries user text as text only, shared by the escaper and report tests.

Markdown is rendered with markdown-it-py in its GFM-like preset (tables, strike-through, autolinks
through linkify-it-py); bare ``example.com`` is not linked, as on GitHub. What GitHub links after
rendering (``@user``, ``#123``; and, to be safe, ``https://...`` and ``www.``) is looked for in the
text; e-mail addresses are linked while parsing, which linkify-it-py stands in for.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""What no terminal report may print: controls but tab and newline, bidi controls, lone surrogates."""

LINKED_BY_GITHUB = re.compile(
    r"(?<![A-Za-z0-9_])@[A-Za-z0-9]"       # @user, @org/team
    r"|#\d"                                # #123, owner/repo#123
    r"|(?i:[a-z][a-z0-9+.-]*://)|//"       # https://host, //host
    r"|(?i:\bwww\.)")                      # www.host


class Nodes(HTMLParser):
    """Start tags (name, attributes) and text nodes of an HTML fragment, in order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []
        self.cells: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))
        if tag in ("td", "th", "li"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th", "li") and self._cell is not None:
            self.cells.append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def gfm(markdown_text: str) -> str:
    """``markdown_text`` rendered to HTML the way GitHub renders a comment (raw HTML allowed)."""
    markdown_it = pytest.importorskip("markdown_it", reason="pip install 'markdown-it-py[linkify]'")
    pytest.importorskip("linkify_it", reason="pip install 'markdown-it-py[linkify]'")
    md = markdown_it.MarkdownIt("gfm-like", {"html": True})
    md.linkify.set({"fuzzy_link": False})
    return md.render(markdown_text)


def nodes(html: str) -> Nodes:
    parser = Nodes()
    parser.feed(html)
    parser.close()
    return parser


def assert_nothing_linked(parsed: Nodes) -> None:
    """No link or image element, and no text GitHub would turn into a link or a mention."""
    names = [name for name, _ in parsed.tags]
    assert "a" not in names and "img" not in names, names
    for text in parsed.text:
        assert not LINKED_BY_GITHUB.search(text), text
