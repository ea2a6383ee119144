from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.importing import import_golden
from ragauge.errors import InputError
from ragauge.formats.golden import load_golden
from ragauge.formats.passages import passage_id

FIXTURES = Path(__file__).parents[1] / "fixtures" / "importers"
HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def test_trec_import_writes_a_golden_set_that_loads_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "golden.jsonl"
    result = import_golden("trec", [FIXTURES / "trec-topics.txt", FIXTURES / "trec-qrels.txt"], out)
    golden = load_golden(out)
    assert [q.id for q in golden] == ["401", "402", "403"] and golden.content_hash == result.golden.content_hash
    assert result.report.findings == () and result.notes[0].startswith("NOTE: 1 topic(s) have no judgement")


def test_msmarco_import(tmp_path: Path) -> None:
    result = import_golden("msmarco", [FIXTURES / "msmarco-queries.tsv", FIXTURES / "msmarco-qrels.tsv"])
    assert [(q.id, dict(q.relevant)) for q in result.golden] == [
        ("1001", {"accounts/account-lockout": 1}), ("1002", {"email/mailbox-quota": 1}),
        ("1003", {"laptops/bitlocker-recovery-key": 1})]


def test_ragas_against_the_corpus_it_was_generated_from_labels_documents() -> None:
    result = import_golden("ragas", FIXTURES / "ragas-testset.jsonl", corpus=HELPDESK / "corpus.jsonl")
    assert [dict(q.relevant) for q in result.golden] == [{"accounts/account-lockout": 1},
                                                         {"laptops/bitlocker-recovery-key": 1},
                                                         {"email/mailbox-quota": 1}]
    assert result.notes == ()


def test_ragas_without_a_corpus_gets_hash_ids_that_a_retriever_over_corpus_out_finds(tmp_path: Path) -> None:
    from ragauge import evaluate

    out, corpus = tmp_path / "golden.jsonl", tmp_path / "passages.jsonl"
    result = import_golden("ragas", FIXTURES / "ragas-testset.jsonl", out, corpus_out=corpus)
    first = result.golden.queries[0]
    assert list(first.relevant) == [passage_id("Your account is locked for 15 minutes after 10 wrong password "
                                               "attempts in a row. During a lockout you cannot log in to the "
                                               "laptop, email or any single sign-on application, even with the "
                                               "right password.")]
    assert result.notes[0].startswith("NOTE: the ragas file labels questions with the text of 4 reference context(s)")
    assert result.corpus_rows == 4 and len(corpus.read_text(encoding="utf-8").splitlines()) == 4
    scored = evaluate(out, f"bm25:{corpus}", k=3)
    assert scored.summary["hit@3"] == 1.0


def test_llamaindex_nodes_mapped_to_the_corpus() -> None:
    result = import_golden("llamaindex", FIXTURES / "llamaindex-qa-dataset.json", corpus=HELPDESK / "corpus.jsonl")
    assert [dict(q.relevant) for q in result.golden] == [{"accounts/account-lockout": 1},
                                                         {"accounts/account-lockout": 1}, {"email/mailbox-quota": 1}]


def test_deepeval_by_source_file() -> None:
    result = import_golden("deepeval", FIXTURES / "deepeval-goldens.json", relevant="source-file")
    assert [dict(q.relevant) for q in result.golden] == [{"accounts/account-lockout": 1}, {"email/mailbox-quota": 1}]


def test_options_that_do_not_apply_and_wrong_arity_are_refused() -> None:
    with pytest.raises(InputError, match="unknown format 'csv'"):
        import_golden("csv", "x")
    with pytest.raises(InputError, match="takes 2 path\\(s\\), TOPICS QRELS; got 1"):
        import_golden("trec", "x")
    with pytest.raises(InputError, match="^topic_field= does not apply to the ragas format"):  # its keyword
        import_golden("ragas", "x", topic_field="desc")
    with pytest.raises(InputError, match="^corpus= does not apply to the trec format"):
        import_golden("trec", ["t", "q"], corpus="c")
    with pytest.raises(InputError, match="give one of corpus= and corpus_out="):
        import_golden("ragas", "x", corpus="c", corpus_out="o")


def test_malformed_input_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    topics = tmp_path / "topics.tsv"
    topics.write_text("1\tvpn\n2\t\u00a0\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 d 1\n", encoding="utf-8")
    out = tmp_path / "golden.jsonl"
    with pytest.raises(InputError, match="an empty text") as err:
        import_golden("trec", [topics, qrels], out)
    assert err.value.where == f"{topics}:2" and not out.exists()


def test_a_result_that_fails_validation_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The validation net behind the readers: a question a reader let through empty stops the import."""
    import ragauge.formats.topics as topics_module

    monkeypatch.setattr(topics_module, "topic_query", lambda topic, field, path: "  ")
    out = tmp_path / "golden.jsonl"
    with pytest.raises(InputError, match="fails validation: line 1: question '401' is empty") as err:
        import_golden("trec", [FIXTURES / "trec-topics.txt", FIXTURES / "trec-qrels.txt"], out)
    assert "(3 errors, nothing written)" in err.value.message and not out.exists()


def test_chunk_ids_in_imported_qrels_are_warned_about_not_refused(tmp_path: Path) -> None:
    queries = tmp_path / "q.tsv"
    queries.write_text("1\tvpn\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 kb-1#3 1\n", encoding="utf-8")
    out = tmp_path / "golden.jsonl"
    result = import_golden("msmarco", [queries, qrels], out)
    assert [(f.code, f.line) for f in result.report.findings] == [("chunk-id", 1)]
    assert json.loads(out.read_text(encoding="utf-8"))["relevant"] == ["kb-1#3"]


def test_msmarco_messages_say_queries(tmp_path: Path) -> None:
    """The MS MARCO importer said "querys"."""
    queries = tmp_path / "q.tsv"
    queries.write_text("1\tvpn\n2\tprinter\n", encoding="utf-8")
    qrels = tmp_path / "qrels"
    qrels.write_text("1 0 kb-1 1\n", encoding="utf-8")
    result = import_golden("msmarco", [queries, qrels])
    assert any("1 query(s) have no judgement" in n for n in result.notes)
    qrels.write_text("9 0 kb-1 1\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        import_golden("msmarco", [queries, qrels])
    assert "not in the queries file" in err.value.message and "querys" not in str(err.value)


def test_jsonl_queries_with_trec_qrels_import(tmp_path: Path) -> None:
    """A collection of JSONL queries plus TREC qrels (Cranfield's derived files) needed a hand-written
    BEIR qrels/test.tsv."""
    queries = tmp_path / "queries.jsonl"
    queries.write_text('{"_id": "1", "text": "what similarity laws must be obeyed"}\n{"_id": "2", "text": "x y"}\n'
                       '{"_id": "3", "text": "unjudged"}\n')
    qrels = tmp_path / "qrels.trec"
    qrels.write_text("1 0 184 2\n1 0 29 1\n2 0 12 1\n")
    result = import_golden("msmarco", [queries, qrels])
    assert [(q.id, q.query, dict(q.relevant)) for q in result.golden] == [
        ("1", "what similarity laws must be obeyed", {"184": 2, "29": 1}), ("2", "x y", {"12": 1})]
    queries.write_text('{"_id": "1", "text": ""}\n')
    with pytest.raises(InputError, match="non-empty strings") as err:
        import_golden("msmarco", [queries, qrels])
    assert err.value.where is not None and err.value.where.endswith("queries.jsonl:1")
