"""The one escaper per output language. Every renderer puts user text (question ids, questions, tags,
document ids, labels, paths, error messages, anything read from a saved result) through these, and
through nothing else.

- :func:`terminal`: text for a terminal or a CI log. Control characters (C0 with tab, newline and
  carriage return, DEL, C1 with CSI ``\\x9b`` and NEL), the bidi embeddings, overrides and isolates
  (U+202A-U+202E, U+2066-U+2069), the line and paragraph separators (U+2028, U+2029), lone
  surrogates and the non-characters U+FFFE, U+FFFF are written as visible escapes (``\\x1b``,
  ``\\n``, ``\\u202e``, ``\\udc80``), so user text can neither send an escape sequence, nor overwrite
  or start a line (``\\r``/``\\n``: a crafted id cannot fake a "gate PASSED" line), nor reorder what
  the reader sees. A backslash in the text is left alone (this is for display, not a reversible
  encoding). Every other character is kept.
- :func:`markdown`: text for inline GitHub Markdown (a table cell, a list item, a paragraph), or with
  ``in_html=True`` for a one-line HTML block in it (``<details><summary>...</summary>``). See its
  docstring for the rule.
- :func:`xml`: text an XML 1.0 document can hold, the same characters as :func:`terminal` made visible
  (tab, newline and carriage return excepted), for ElementTree, which then writes ``& < > "`` (and, in
  attributes, tab, newline and carriage return) as references.
- HTML: Jinja2 autoescape, in the one environment of :mod:`ragauge.core.jinja`; its ``finalize``
  is :func:`html`, which makes the same characters as :func:`terminal` visible (tab, newline and
  carriage return excepted: HTML shows them as spaces) before autoescape.

None of these raises on any ``str``, lone surrogates included; non-strings are formatted with ``str``.
"""

from __future__ import annotations

import re
from functools import cache

ZWSP = "\u200b"
"""Zero-width space: what :func:`markdown` puts where GitHub would otherwise make a link or a mention."""

_BIDI = "\u202a-\u202e\u2066-\u2069"
_UNSAFE = f"\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{_BIDI}\u2028\u2029\ud800-\udfff\ufffe\uffff"
_CONTROLS = re.compile(f"[\t\n\r{_UNSAFE}]")
"""What :func:`terminal` (and :func:`markdown`) make visible."""
_CONTROLS_BUT_WHITESPACE = re.compile(f"[{_UNSAFE}]")
"""What :func:`html` and :func:`xml` make visible: the same but tab, newline and carriage return."""
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _visible(match: re.Match[str]) -> str:
    ch = match.group()
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def terminal(text: object) -> str:
    """``text`` with every control, bidi control, line separator and lone surrogate written as a
    visible escape (``"a\\x1b[31mb"`` -> ``"a\\\\x1b[31mb"``, ``"\\r"`` -> ``"\\\\r"``); one line."""
    return _CONTROLS.sub(_visible, str(text))


def html(value: object) -> object:
    """Jinja2's ``finalize``: a plain string gets :func:`terminal`'s visible escapes except for tab,
    newline and carriage return; anything else (numbers, ``Markup`` the renderer built) is unchanged.
    Autoescape runs afterwards."""
    if type(value) is not str:
        return value
    return _CONTROLS_BUT_WHITESPACE.sub(_visible, value)


# --- Markdown ----------------------------------------------------------------------------------------

@cache
def _markdown_patterns() -> tuple[re.Pattern[str], ...]:
    """The patterns of :func:`markdown`, compiled on its first call (not by every command that
    imports this module for :func:`terminal`)."""
    return (
        re.compile(r"([\\`*_\[\]|~$])"),                                            # punctuation
        re.compile(r"^(?:#{1,6}|[+\-]|\d{1,9}(?=[.)]))(?=[.)]?(?:\s|$))|^-(?=-)"),  # a line start
        re.compile(r"((?<![A-Za-z0-9_])@(?=\S)|#(?=\d))"),  # @user, @org/team, #123, owner/repo#123
        re.compile(r"@(?=[^\s@]*\.)"),                       # user@example.com
        re.compile(r"/(?=/)"),                                # https://, ftp://, //host
        re.compile(r"(?i)\b(www)(?=\.)"),                    # www.host
    )


def markdown(text: object, *, in_html: bool = False) -> str:
    """``text`` made inert for inline GitHub-flavoured Markdown, on one line; with ``in_html``, for
    the inside of a one-line HTML block such as ``<details><summary>...</summary>``, where GitHub
    reads entities but no Markdown (so steps 3, 4 and 6 are skipped: their backslashes would show).

    The rule, in order:

    1. whitespace runs (newlines included, so a table row cannot break) become one space, and the
       ends are trimmed; other controls, bidi controls and lone surrogates are made visible as in
       :func:`terminal`;
    2. ``&``, ``<``, ``>`` become ``&amp;``, ``&lt;``, ``&gt;``: no HTML tag, comment, entity or
       ``<http://...>`` autolink;
    3. ``\\ ` * _ [ ] | ~ $`` are backslash-escaped: no link, image or footnote (each needs a
       ``[``), code span, emphasis, strike-through, math, and no pipe that would end a table cell;
    4. at the start, what would open a heading, a list item or a thematic break (``#`` to ``######``,
       ``-`` or ``+`` before a space, a number before ``.`` or ``)`` and a space, ``--``) is
       backslash-escaped (a ``>`` quote is already an entity): the text may begin a list item;
    5. a zero-width space (U+200B) goes after an ``@`` that starts a word, after ``#`` when a digit
       follows, between the two slashes of ``//``, and between ``www`` and its dot: GitHub makes
       links and mentions of ``@user``, ``#123``, ``owner/repo#1``, ``https://...`` and
       ``www.host`` in the rendered text, after Markdown escapes are gone, so only a character in
       the text itself stops them;
    6. an ``@`` with a dot after it in the same word (``user@example.com``) is backslash-escaped: an
       e-mail autolink needs the address in one piece of text, and a linkifier would take a
       zero-width space for part of an international domain name. ``recall@5`` is left alone.

    The rendered text reads as the input, but for the whitespace, the visible escapes and the
    invisible zero-width spaces (which a copied id will carry)."""
    punct, line_start, mention, email_at, scheme, www = _markdown_patterns()
    one_line = " ".join(str(text).split())
    shown = _CONTROLS.sub(_visible, one_line)
    out = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    if not in_html:
        out = line_start.sub(_line_start, punct.sub(r"\\\1", out))
    out = mention.sub(r"\1" + ZWSP, out)
    if not in_html:
        out = email_at.sub(r"\\@", out)
    return www.sub(r"\1" + ZWSP, scheme.sub("/" + ZWSP, out))


def _line_start(match: re.Match[str]) -> str:
    lead = match.group()
    return lead + "\\" if lead[0].isdigit() else "\\" + lead  # 1\. (a digit cannot be escaped), \#


# --- XML ----------------------------------------------------------------------------------------------

def xml(text: object) -> str:
    """``text`` for an ElementTree text or attribute (ElementTree writes ``& < > "`` as references),
    with :func:`terminal`'s visible escapes for the characters XML 1.0 forbids (C0 controls but tab,
    newline and carriage return; lone surrogates; U+FFFE, U+FFFF), those it discourages (DEL, C1) and
    the bidi controls and line separators. An XML parser reads the result back unchanged, except that
    a carriage return in element text comes back as a newline (XML's end-of-line handling)."""
    return _CONTROLS_BUT_WHITESPACE.sub(_visible, str(text))


__all__ = ["ZWSP", "html", "markdown", "terminal", "xml"]
