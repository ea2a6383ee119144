"""The escapers of ragauge.core.escape, one per output language, on any text."""

from __future__ import annotations

import json as stdlib_json
import xml.etree.ElementTree as ET

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ragauge.core import escape
from ragauge.core.jsonl import dumps
from tests.reports.inert import TERMINAL_UNSAFE, assert_nothing_linked, gfm, nodes

# any code point, lone surrogates and controls included, and the texts an attacker would try
NASTY = ["![x](https://e.com/x.png)", "[x](https://e.com)", "<https://e.com>", "https://e.com", "www.e.com",
         "@octocat", "#123", "o/r#1", "a@e.com", "<img src=x onerror=alert(1)>", "<!-- x", "&lt;b&gt;", "&#64;x",
         "`code`", "**b** _i_ ~~s~~", "a|b", "\\|", "\\", "# h", "- li", "1. li", "---", "$x$", "[^1]",
         "\x1b[2K\rgate PASSED", "\x9b31m", "\x1b]8;;https://e.com\x07x", "\u202eevil\u202c", "\u2066x", "\ud800",
         "a\nb", "\x00", "\ufffe", "x\u2028y"]
ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40) | st.sampled_from(NASTY)
PIECES = st.lists(ANY_TEXT, min_size=1, max_size=4).map("".join)


@given(PIECES)
@settings(max_examples=300)
def test_terminal_text_has_no_control_bidi_or_surrogate(text: str) -> None:
    out = escape.terminal(text)
    assert not TERMINAL_UNSAFE.search(out) and "\n" not in out and "\t" not in out, repr(out)
    out.encode("utf-8")
    if not escape._CONTROLS.search(text):
        assert out == text  # ordinary Unicode is kept


def test_terminal_escapes_are_visible() -> None:
    assert escape.terminal("q1\r\x1b[32mgate PASSED\x07") == "q1\\r\\x1b[32mgate PASSED\\x07"
    assert escape.terminal("\x9b\u202e\ud800é") == "\\x9b\\u202e\\ud800é"


@given(PIECES)
@settings(max_examples=300)
def test_xml_text_and_attributes_parse_back(text: str) -> None:
    node = ET.Element("case", name=escape.xml(text))
    node.text = escape.xml(text)
    out = ET.tostring(node, encoding="unicode")
    back = ET.fromstring(out.encode("utf-8"))
    assert back.get("name") == escape.xml(text)
    assert (back.text or "") == escape.xml(text).replace("\r\n", "\n").replace("\r", "\n")
    assert escape.xml("a\x00b\x1b") == "a\\x00b\\x1b"


@given(st.recursive(st.none() | st.booleans() | st.integers() | PIECES,
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(PIECES, inner, max_size=3),
                    max_leaves=8))
@settings(max_examples=200)
def test_json_parses_back_equal_and_encodes(value: object) -> None:
    out = dumps(value)  # the one JSON encoder (data.jsonl) carries the rule
    out.encode("utf-8")
    assert not TERMINAL_UNSAFE.search(out)
    assert stdlib_json.loads(out) == value


def _shown(text: str) -> str:
    """What a reader sees of ``escape.markdown(text)``: one line, controls visible, no zero-width space."""
    return escape.terminal(" ".join(text.split())).replace(escape.ZWSP, "")


@given(PIECES)
@settings(max_examples=300)
@example("x](https://e.com) ![y")
@example("1. a")
@example("a\\")
def test_markdown_in_a_table_cell_and_a_list_item_is_only_text(text: str) -> None:
    cell = escape.markdown(text)
    bold = f"**{cell}**" if cell else ""
    table = nodes(gfm(f"| id | b |\n|---|---|\n| {cell} | {bold} |\n"))
    assert [t for t, _ in table.tags] == ["table", "thead", "tr", "th", "th", "tbody", "tr", "td", "td",
                                          *(["strong"] if cell else [])]
    assert_nothing_linked(table)
    assert [c.replace(escape.ZWSP, "") for c in table.cells[2:]] == [_shown(text)] * 2
    item = nodes(gfm(f"- {cell}\n"))
    assert [t for t, _ in item.tags] == ["ul", "li"]
    assert_nothing_linked(item)
    assert item.cells[0].replace(escape.ZWSP, "").strip() == _shown(text)


def test_markdown_neutralises_what_github_links_after_rendering() -> None:
    z = escape.ZWSP
    assert [escape.markdown(t) for t in ("@octocat", "see #12", "o/r#3", "a@e.com", "https://e.com", "www.e.com")] == [
        f"@{z}octocat", f"see #{z}12", f"o/r#{z}3", "a\\@e.com", f"https:/{z}/e.com", f"www{z}.e.com"]
    assert escape.markdown("recall@5 doc#intro 0.1.0") == "recall@5 doc#intro 0.1.0"  # nothing to neutralise


def test_html_finalize_keeps_markup_and_whitespace() -> None:
    from markupsafe import Markup

    assert escape.html("a\tb\n\x1b\u202e") == "a\tb\n\\x1b\\u202e"
    kept = Markup("<style>\x1b</style>")
    assert escape.html(kept) is kept and escape.html(3) == 3


@given(PIECES)
@settings(max_examples=200)
def test_markdown_in_an_html_summary_is_only_text(text: str) -> None:
    page = nodes(gfm(f"<details><summary>why: {escape.markdown(text, in_html=True)}</summary>\n\nbody\n\n</details>\n"))
    assert [t for t, _ in page.tags] == ["details", "summary", "p"]
    assert_nothing_linked(page)
    assert "".join(page.text).replace(escape.ZWSP, "").startswith("why: " + _shown(text) + "\n")
