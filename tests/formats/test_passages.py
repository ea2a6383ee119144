from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ragauge.errors import InputError
from ragauge.formats.passages import Draft, PassageIndex, passage_id, question_id, resolve

DOCS = [("a", "The VPN  certificate\nexpires yearly. Renew it in the portal."), ("b", "Printers: E-301 is a jam."),
        ("c", "Renew it in the portal.")]


def test_ids_hash_the_whitespace_normalised_text() -> None:
    assert passage_id("  Renew it\n in the portal. ") == passage_id("Renew it in the portal.")
    assert passage_id("x") == "ctx-" + hashlib.sha256(b"x").hexdigest()[:16]
    assert passage_id("Renew") != passage_id("renew")  # case is kept
    assert question_id("ragas", "How?") == "ragas-" + hashlib.sha256(b"How?").hexdigest()[:10]


def test_the_index_finds_documents_equal_to_or_containing_a_passage() -> None:
    index = PassageIndex(DOCS)
    assert index.find("certificate expires yearly.") == ["a"]
    assert index.find("Renew it in the portal.") == ["a", "c"]
    assert index.find("Printers: E-301 is a jam.") == ["b"]
    assert index.find("jam. Renew") == []  # never across two documents
    assert index.find("   ") == []


@given(st.lists(st.text(alphabet="ab \n", max_size=12), min_size=1, max_size=6), st.text(alphabet="ab \n", max_size=5))
def test_find_agrees_with_a_plain_substring_search(texts: list[str], passage: str) -> None:
    docs = [(f"d{i}", t) for i, t in enumerate(texts)]
    norm = " ".join(passage.split())
    expected = [d for d, t in docs if norm and norm in " ".join(t.split())]
    assert PassageIndex(docs).find(passage) == expected


def test_resolve_by_corpus_labels_every_containing_document_and_notes_it() -> None:
    drafts = [Draft("q1", "renew?", "f:1", {}, ("Renew it in the portal.", "certificate expires")),
              Draft("q2", "jam?", "f:2", {"known": 2}, ("E-301 is a jam.",))]
    got = resolve(drafts, PassageIndex(DOCS))
    assert [dict(q.relevant) for q in got.queries] == [{"a": 1, "c": 1}, {"known": 2, "b": 1}]
    assert got.corpus_rows == () and len(got.notes) == 1 and "f:1: a, c" in got.notes[0]


def test_resolve_refuses_passages_in_no_document_naming_their_lines() -> None:
    drafts = [Draft("q1", "?", "f:3", {}, ("nowhere",)), Draft("q2", "?", "f:7", {}, ("also nowhere",))]
    with pytest.raises(InputError) as err:
        resolve(drafts, PassageIndex(DOCS))
    assert err.value.where == "f:3" and "(and 1 more: f:7)" in err.value.message


def test_resolve_by_hash_says_so_loudly_and_gives_corpus_rows() -> None:
    drafts = [Draft("q1", "?", "f:1", {}, ("alpha", "beta")), Draft("q2", "?", "f:2", {}, ("alpha",))]
    got = resolve(drafts, None, what="context", source="the ragas file")
    assert [sorted(q.relevant) for q in got.queries] == [sorted([passage_id("alpha"), passage_id("beta")]),
                                                         [passage_id("alpha")]]
    assert got.corpus_rows == ((passage_id("alpha"), "alpha"), (passage_id("beta"), "beta"))
    assert got.notes[0].startswith("the ragas file labels questions with the text of 3 context(s), not document ids: "
                                   "each distinct one (2) got a content-hash id")


def test_an_empty_passage_is_refused() -> None:
    with pytest.raises(InputError, match="an empty context") as err:
        resolve([Draft("q1", "?", "f:4", {}, (" \n",))])
    assert err.value.where == "f:4"


@pytest.mark.parametrize("block", [1, 7, 1 << 22])
@given(st.lists(st.text(alphabet="ab é\n", min_size=0, max_size=60), min_size=1, max_size=5), st.data())
def test_find_all_agrees_with_find_on_every_passage(block: int, texts: list[str], data: st.DataObject) -> None:
    """find_all reads the corpus once for every passage (hashed 16-byte windows, the places found
    compared whole), where find scanned it once per passage: the same documents, in the same order,
    whatever the block the windows are hashed in; passages cut from the documents (found), across
    two of them (never found), shorter than the anchor, multi-byte."""
    import ragauge.formats.passages as passages

    docs = [(f"d{i}", t) for i, t in enumerate(texts)]
    joined = "\x00".join(" ".join(t.split()) for _, t in docs)
    cuts = data.draw(st.lists(st.tuples(st.integers(0, len(joined)), st.integers(0, 40)), max_size=8))
    wanted = [joined[a:a + n] for a, n in cuts] + data.draw(st.lists(st.text(alphabet="ab é", max_size=20), max_size=3))
    index = PassageIndex(docs)
    old = passages._BLOCK, passages.ONE_PASS
    passages._BLOCK, passages.ONE_PASS = block, 0  # one reading, however few the passages
    try:
        got = index.find_all(wanted)
    finally:
        passages._BLOCK, passages.ONE_PASS = old
    assert got == {" ".join(p.split()): index.find(p) for p in wanted}


def test_resolve_finds_many_long_passages_in_one_reading() -> None:
    docs = [(f"doc{i}", f"Section {i}. " + " ".join(f"word{i}x{j}" for j in range(40))) for i in range(300)]
    drafts = [Draft(f"q{i}", "?", f"f:{i}", {}, (" ".join(f"word{i}x{j}" for j in range(5, 15)),)) for i in range(300)]
    got = resolve(drafts, PassageIndex(docs))
    assert [dict(q.relevant) for q in got.queries] == [{f"doc{i}": 1} for i in range(300)]


def test_find_all_names_a_document_once_however_often_it_holds_the_passage(monkeypatch: pytest.MonkeyPatch) -> None:
    import ragauge.formats.passages as passages

    long = "renew the certificate in the portal"
    docs = [("a", f"{long}. Then {long} again."), ("b", "nothing here at all, not a thing"), ("c", f"x {long}"),
            ("d", f"{long}"), ("e", "renew the certificate in the porta")]
    index = PassageIndex(docs)
    monkeypatch.setattr(passages, "ONE_PASS", 0)
    got = index.find_all([long, "  renew the  certificate\nin the portal ", "the certificate in the portal. Then"])
    assert got == {long: ["a", "c", "d"], "the certificate in the portal. Then": ["a"]}
    assert got[long] == index.find(long)


def test_find_all_counts_documents_by_place_and_takes_any_string(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two documents under one id are two documents, as find counts them; a lone surrogate (a str
    Python holds, which UTF-8 cannot encode) is compared as find compares it, not an error."""
    import ragauge.formats.passages as passages

    monkeypatch.setattr(passages, "ONE_PASS", 0)
    long = "the quick brown fox jumps"
    index = PassageIndex([("x", long), ("x", f"{long} again"), ("s", f"odd \ud800 {long} \ud800 end")])
    for wanted in ([long], ["\ud800"], [f"\ud800 {long} \ud800"], [f"{long} \udfff"]):
        assert index.find_all(wanted) == {p: index.find(p) for p in wanted}
    assert index.find_all([long])[long] == ["x", "x", "s"]
