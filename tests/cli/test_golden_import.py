from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.formats.golden import load_golden

FIXTURES = Path(__file__).parents[1] / "fixtures" / "importers"
HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def run(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_import_trec_and_its_alias_write_the_same_file(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    one = run("golden", "import", "trec", FIXTURES / "trec-topics.txt", FIXTURES / "trec-qrels.txt", "-o", a,
              "--topic-field", "desc")
    two = run("golden", "import-trec", FIXTURES / "trec-topics.txt", FIXTURES / "trec-qrels.txt", "-o", b,
              "--topic-field", "desc")
    assert one.exit_code == 0 and two.exit_code == 0, one.output + two.output
    assert a.read_bytes() == b.read_bytes()
    assert "NOTE: 1 topic(s) have no judgement" in one.output
    assert f"wrote 3 questions (3 answerable, 0 no-answer) to {a}" in one.output
    assert load_golden(a).queries[1].query == "Where do I find the recovery key when my laptop asks for it at start-up?"


def test_import_ragas_prints_the_hash_note_and_writes_the_passages(tmp_path: Path) -> None:
    out, corpus = tmp_path / "golden.jsonl", tmp_path / "passages.jsonl"
    result = run("golden", "import", "ragas", FIXTURES / "ragas-testset.jsonl", "-o", out, "--corpus-out", corpus)
    assert result.exit_code == 0, result.output
    assert "NOTE: the ragas file labels questions with the text of 4 reference context(s)" in result.output
    assert "[small-tag]" in result.output and f"wrote 4 passages to {corpus}" in result.output
    assert {json.loads(line)["id"] for line in corpus.read_text(encoding="utf-8").splitlines()} == {
        d for q in load_golden(out) for d in q.relevant}


def test_import_llamaindex_and_deepeval_against_a_corpus(tmp_path: Path) -> None:
    for fmt, path in (("llamaindex", "llamaindex-qa-dataset.json"), ("deepeval", "deepeval-goldens.jsonl")):
        out = tmp_path / f"{fmt}.jsonl"
        result = run("golden", "import", fmt, FIXTURES / path, "--corpus", HELPDESK / "corpus.jsonl", "-o", out)
        assert result.exit_code == 0, result.output
        assert all(doc in {"accounts/account-lockout", "email/mailbox-quota"} for q in load_golden(out)
                   for doc in q.relevant)


def test_import_refuses_bad_input_with_exit_2(tmp_path: Path) -> None:
    out = tmp_path / "golden.jsonl"
    result = run("golden", "import", "trec", FIXTURES / "trec-topics.txt", "-o", out)
    assert result.exit_code == 2 and "takes 2 path(s)" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"user_input": "q", "reference_contexts": ["nowhere in the corpus"]}\n', encoding="utf-8")
    result = run("golden", "import", "ragas", bad, "--corpus", HELPDESK / "corpus.jsonl", "-o", out)
    assert result.exit_code == 2 and f"{bad}:1: a reference context is in no document of the corpus" in result.output
    assert not out.exists()
    result = run("golden", "import", "beir", FIXTURES, "--topic-field", "desc", "-o", out)
    assert result.exit_code == 2 and "--topic-field does not apply to the beir format" in result.output
