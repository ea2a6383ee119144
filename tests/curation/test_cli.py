from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from ragauge.cli.main import cli

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def write_jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "corpus.jsonl", [
        {"id": "kb-vpn", "title": "VPN", "text": "Reset the VPN password in the portal."},
        {"id": "kb-printer", "title": "Printer", "text": "E-301 means a paper feed jam."},
    ])


def test_validate_clean_exits_0() -> None:
    result = run("golden", "validate", HELPDESK / "golden.jsonl", "--corpus", HELPDESK / "sections.jsonl",
                 "--min-per-tag", "3")
    assert result.exit_code == 0, result.output
    assert "45 questions (40 answerable, 5 no-answer)" in result.output and "clean" in result.output


def test_validate_section_labels_against_the_document_corpus_warns() -> None:
    result = run("golden", "validate", HELPDESK / "golden.jsonl", "--corpus", HELPDESK / "corpus.jsonl",
                 "--min-per-tag", "3")
    assert result.exit_code == 1, result.output
    assert "[section-label] 68 relevant id(s) are sections" in result.output


def test_validate_findings_exit_1_and_json(tmp_path: Path, corpus: Path) -> None:
    golden = write_jsonl(tmp_path / "golden.jsonl", [
        {"id": "q1", "query": "reset vpn password", "relevant": ["kb-vpn"], "tags": ["net"]},
        {"id": "q2", "query": "printer E-301", "relevant": ["kb-old#3"], "tags": ["net"]},
    ])
    result = run("golden", "validate", golden, "--corpus", corpus, "--format", "json", "--min-per-tag", "2")
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert [(f["code"], f["line"], f["ids"]) for f in data["findings"]] == [
        ("stale-label", 2, ["q2"]), ("chunk-id", 2, ["q2"])]
    assert data["documents"] == 2 and data["tags"] == {"net": 2} and data["errors"] == 1


def test_validate_against_a_retriever_index(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGAUGE_CACHE", str(tmp_path / "cache"))
    golden = write_jsonl(tmp_path / "golden.jsonl", [
        {"id": "q1", "query": "reset vpn password", "relevant": ["kb-vpn#reset"]},
        {"id": "q2", "query": "printer E-301", "relevant": ["kb-gone"]},
    ])
    result = run("golden", "validate", golden, "--retriever", f"bm25:{corpus}", "--min-per-tag", "0")
    assert result.exit_code == 1, result.output
    assert "[stale-label] question 'q2': relevant id 'kb-gone' not in the index" in result.output
    assert "'kb-vpn#reset' not in the index" not in result.output  # its document is there: not stale ...
    assert "[section-label] 1 relevant id(s) are sections ('kb-vpn#reset')" in result.output  # ... but never matched


@pytest.mark.parametrize("args", [
    ["--retriever", "cmd:cat"],                                      # cannot list its documents
    ["--corpus", "x.jsonl", "--retriever", "bm25:x.jsonl"],          # both
    ["--corpus", "missing-corpus.jsonl"],
])
def test_validate_document_source_errors_exit_2(tmp_path: Path, args: list[str]) -> None:
    golden = write_jsonl(tmp_path / "golden.jsonl", [{"id": "q1", "query": "x", "relevant": ["d"]}])
    result = run("golden", "validate", golden, *args)
    assert result.exit_code == 2, result.output


def test_validate_unusable_input_exits_2(tmp_path: Path) -> None:
    result = run("golden", "validate", tmp_path / "nope.jsonl")
    assert result.exit_code == 2 and "not found" in result.output
    csv = tmp_path / "golden.csv"
    csv.write_text("id,query\nq1,hello\n", encoding="utf-8")
    result = run("golden", "validate", csv)
    assert result.exit_code == 2 and "not a JSONL golden set" in result.output


def test_scrub_writes_output_and_report_without_values(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [
        {"id": "q1", "query": "mail john@acme.com or call 415-555-0132", "relevant": ["d"], "notes": "by a@b.com"},
        {"id": "q2", "query": "printer E-301 after update 10.0.19045.1", "relevant": []},
    ])
    out, report = tmp_path / "out.jsonl", tmp_path / "report.jsonl"
    result = run("golden", "scrub", source, "-o", out, "--report", report, "--fields", "query,notes")
    assert result.exit_code == 0, result.output
    assert "scrubbed 1 of 2 lines: EMAIL 2, PHONE 1" in result.output
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert rows[0] == {"id": "q1", "query": "mail <EMAIL_1> or call <PHONE_1>", "relevant": ["d"],
                       "notes": "by <EMAIL_2>"}  # another address: another placeholder
    assert rows[1] == {"id": "q2", "query": "printer E-301 after update 10.0.19045.1", "relevant": []}
    text = report.read_text()
    assert "john@acme.com" not in text and "415-555-0132" not in text and "a@b.com" not in text
    meta, line = (json.loads(x) for x in text.splitlines())
    assert meta["_meta"]["counts"] == {"EMAIL": 2, "PHONE": 1} and meta["_meta"]["fields"] == ["query", "notes"]
    assert line["id"] == "q1" and line["counts"] == {"EMAIL": 2, "PHONE": 1}
    assert line["redactions"]["query"] == [
        {"type": "EMAIL", "placeholder": "<EMAIL_1>", "start": 5, "end": 18},
        {"type": "PHONE", "placeholder": "<PHONE_1>", "start": 27, "end": 39}]
    # The scrubbed output is a valid golden set and scrubbing it again changes nothing.
    again = tmp_path / "again.jsonl"
    assert run("golden", "scrub", out, "-o", again, "--fields", "query,notes").exit_code == 0
    assert again.read_text() == out.read_text()


def test_scrub_regions_option(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "q1", "query": "mobile 07911 123456", "relevant": []}])
    out = tmp_path / "out.jsonl"
    assert run("golden", "scrub", source, "-o", out, "--regions", "us,gb").exit_code == 0
    assert "<PHONE_1>" in out.read_text()
    result = run("golden", "scrub", source, "-o", out, "--regions", "XX")
    assert result.exit_code == 2 and "unknown phone region" in result.output


def test_scrub_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "query": "x"}\nnot json\n', encoding="utf-8")
    result = run("golden", "scrub", bad, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2 and "bad.jsonl:2" in result.output
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.skipif(importlib.util.find_spec("presidio_analyzer") is not None, reason="presidio is installed")
def test_scrub_ner_without_the_extra_gives_an_install_hint(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "in.jsonl", [{"id": "q1", "query": "Ask Jane Roe", "relevant": []}])
    result = run("golden", "scrub", source, "-o", tmp_path / "out.jsonl", "--ner")
    assert result.exit_code == 2
    assert "presidio-analyzer" in result.output and "pip install 'ragauge[ner]'" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("command", ["validate", "scrub"])
def test_help_has_an_example(command: str) -> None:
    result = run("golden", command, "--help")
    assert result.exit_code == 0 and f"ragauge golden {command} " in result.output
