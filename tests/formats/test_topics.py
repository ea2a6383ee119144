from __future__ import annotations

from pathlib import Path

import pytest

from ragauge.errors import InputError
from ragauge.formats.topics import golden_from_topics, read_qrels_dict, read_query_tsv, read_topics, topic_query

FIXTURES = Path(__file__).parents[1] / "fixtures" / "importers"


def write(tmp_path: Path, text: str, name: str = "topics.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_classic_topics_read_every_field_without_labels_or_closing_tags() -> None:
    topics = read_topics(FIXTURES / "trec-topics.txt")
    assert [(t.id, t.line) for t in topics] == [("401", 1), ("402", 13), ("403", 25), ("404", 36)]
    t = topics[1]
    assert t.fields["title"] == "BitLocker recovery key"
    assert t.fields["desc"] == "Where do I find the recovery key when my laptop asks for it at start-up?"
    assert t.fields["narr"].startswith("Relevant documents say where the 48-digit key is kept and how to get it")
    assert topics[2].fields["title"] == "mailbox full cannot send"  # "</title>" dropped
    assert topic_query(t, "title+desc", "x") == "BitLocker recovery key Where do I find the recovery key when my " \
                                               "laptop asks for it at start-up?"


def test_tab_separated_topics_and_queries() -> None:
    assert [(t.id, t.fields["title"]) for t in read_topics(FIXTURES / "trec-topics.tsv")][:1] == [
        ("401", "account lockout after password change")]
    assert [t.id for t in read_query_tsv(FIXTURES / "msmarco-queries.tsv")] == ["1001", "1002", "1003", "1004"]


@pytest.mark.parametrize(("text", "line", "message"), [
    ("<top>\n<num> 1\n<title> a\n", 3, "the <top> opened on line 1 is never closed"),
    ("<top>\n<num> 1\n<top>\n", 3, "<top> inside the <top> opened on line 1"),
    ("<top>\n<num> 1\n<title> a\n</top>\nstray\n<top>\n</top>\n", 5, "text outside a <top>"),
    ("<top>\n<title> a\n</top>\n", 1, "a topic without a <num>"),
    ("<top>\nfree text\n<num> 1\n</top>\n", 2, "text before the first field tag"),
    ("<top>\n<num> 1\n<title> a\n</top>\n<top>\n<num> Number: 1\n<title> b\n</top>\n", 5,
     "topic '1' given twice (first on line 1)"),
    ("</top>\n<top>\n", 1, "</top> without a <top>"),
])
def test_malformed_topics_name_the_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        read_topics(path)
    assert message in err.value.message and err.value.where == f"{path}:{line}"


@pytest.mark.parametrize(("text", "line", "message"), [
    ("1\ta\n2 b\n", 2, "found no tab"), ("1\ta\n\t b\n", 2, "an empty id"), ("1\t \n", 1, "an empty text"),
    ("1\ta\n1\tb\n", 2, "id '1' given twice (first on line 1)"),
])
def test_malformed_tsv_names_the_line(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text, "q.tsv")
    with pytest.raises(InputError) as err:
        read_query_tsv(path)
    assert message in err.value.message and err.value.where == f"{path}:{line}"


def test_xml_topics_are_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="XML topics format"):
        read_topics(write(tmp_path, '<topics>\n<topic number="1">\n<query>covid</query>\n</topic>\n</topics>\n'))


def test_a_missing_field_names_the_topic(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "<top>\n<num> 7\n<title> t\n</top>\n"))
    with pytest.raises(InputError, match="topic '7' has no <desc>"):
        topic_query(topics[0], "desc", "topics.txt")


def test_golden_from_topics_keeps_judged_topics_in_order_and_notes_the_rest() -> None:
    topics = read_topics(FIXTURES / "trec-topics.txt")
    queries, notes = golden_from_topics(topics, read_qrels_dict(FIXTURES / "trec-qrels.txt"), field="desc",
                                        topics_path="t", qrels_path="q")
    assert [q.id for q in queries] == ["401", "402", "403"]
    assert dict(queries[0].relevant) == {"accounts/account-lockout": 2, "accounts/password-reset": 1,
                                         "accounts/windows-hello-pin": 0}
    assert queries[0].extra["title"] == "account lockout after password change" and "narrative" in queries[0].extra
    assert notes == ["1 topic(s) have no judgement in q and were left out (an unjudged topic is not a question "
                     "without an answer): 404"]


def test_leading_zeros_match_with_a_note_and_unknown_ids_are_refused(tmp_path: Path) -> None:
    topics = read_topics(write(tmp_path, "<top>\n<num> Number: 051\n<title> t\n</top>\n"))
    queries, notes = golden_from_topics(topics, {"51": {"d": 1}}, topics_path="t", qrels_path="q")
    assert queries[0].id == "051" and "without leading zeros (qrels '51' is topic '051')" in notes[0]
    with pytest.raises(InputError, match="1 judged topic id\\(s\\) are not in the topics file, e.g. '52'"):
        golden_from_topics(topics, {"52": {"d": 1}}, topics_path="t", qrels_path="q")


def test_qrels_with_a_pair_twice_are_refused(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="duplicate judgement"):
        read_qrels_dict(write(tmp_path, "1 0 d 1\n1 0 d 2\n", "qrels"))
