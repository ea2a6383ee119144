"""The text rules of the failure patterns: tokens, identifier-like tokens, occurrence, overlap."""

from __future__ import annotations

import pytest

from ragauge.evaluation.text import TextAnalyzer, Texts, fold, identifiers, is_identifier, occurs, tokens


def test_tokens_keep_joined_identifiers_whole() -> None:
    assert tokens("Kestrel shows E-301, then 0x80070005 (v5.7.1) at KB-1042/sign-in!") == [
        "Kestrel", "shows", "E-301", "then", "0x80070005", "v5.7.1", "at", "KB-1042/sign-in"]
    assert tokens("can't __init__ a_b") == ["can", "t", "init", "a_b"]


@pytest.mark.parametrize(("token", "expected"), [
    ("E-301", True), ("0x80070005", True), ("AADSTS50076", True), ("KB-1042", True), ("v2", True),
    ("9002", True), ("550", True), ("5.7.1", True), ("TunnelPoint", True), ("iPhone", True),
    ("2", False), ("10", False), ("VPN", False), ("printer", False), ("Outlook", False), ("sign-in", False),
])
def test_identifier_like(token: str, expected: bool) -> None:
    assert is_identifier(token) is expected


def test_identifiers_of_a_query_each_once_as_written() -> None:
    assert identifiers("error 9002 and E-301 then error 9002 in 2 weeks on my VPN") == ["9002", "E-301"]


def test_occurs_is_case_insensitive_and_bounded() -> None:
    text = fold("Codes E-301/E-302 and E-3012; see KB-1042.")
    assert occurs("e-301", text) and occurs("E-302", text) and occurs("kb-1042", text)
    assert not occurs("E-30", text) and not occurs("-301", text)  # a piece of a token does not occur
    assert not occurs("301", fold("E-3012"))


def test_content_words_drop_stop_words_and_stem() -> None:
    analyzer = TextAnalyzer()
    assert analyzer.content_words("How do I reset my passwords? I can't log in to the printers") == [
        "reset", "password", "log", "printer"]


def test_overlap_counts_stems_and_joined_parts() -> None:
    analyzer = TextAnalyzer()
    words = analyzer.content_words("printers failing after sign-in")
    stems = analyzer.stems("d", "The printer fails until you sign in again.")
    assert analyzer.overlap(words, stems) == 1.0
    assert analyzer.overlap(analyzer.content_words("laptop nicked from car"), stems) == 0.0
    assert analyzer.overlap([], stems) == 1.0


def test_texts_fall_back_from_a_section_to_its_document() -> None:
    texts = Texts({"kb-1": "The whole article", "kb-2#setup": "Only this section"})
    assert texts.text("kb-1#install") == "The whole article"
    assert texts.text("kb-2#setup") == "Only this section"
    assert texts.text("kb-2") is None and texts.folded("nowhere") is None
    assert texts.folded("kb-1") == "the whole article"
