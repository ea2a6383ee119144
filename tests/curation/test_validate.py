from __future__ import annotations

import json
from pathlib import Path

import pytest

from ragauge.curation.validate import ValidationReport, validate_file, validate_lines
from ragauge.data.ids import is_chunk_id
from ragauge.errors import InputError
from ragauge.reports.validation import render_validation_text as render_text

HELPDESK = Path(__file__).parents[2] / "examples" / "helpdesk"


def write(tmp_path: Path, lines: list[object] | str) -> Path:
    path = tmp_path / "golden.jsonl"
    text = lines if isinstance(lines, str) else "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines)
    path.write_text(text + "\n", encoding="utf-8")
    return path


def codes(report: ValidationReport) -> list[tuple[str, int | None]]:
    return [(f.code, f.line) for f in report.findings]


def q(qid: str, query: str, relevant: object = ("d1",), tags: tuple[str, ...] = ()) -> dict[str, object]:
    return {"id": qid, "query": query, "relevant": list(relevant) if isinstance(relevant, tuple) else relevant,
            "tags": list(tags)}


def test_collects_every_problem_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, [
        q("q1", "How do I reset my VPN password?"),
        '{"id": "q2", "query": ',                            # 2: invalid JSON
        '["not", "an", "object"]',                            # 3
        {"id": "q4", "query": "missing relevant"},            # 4: schema
        q("q1", "id used twice"),                             # 5: duplicate id
        q("q6", "   "),                                       # 6: empty question
        q("q7", "how do I RESET my vpn password"),            # 7: duplicate question of q1
        q("q8", "reset my VPN password: how do I do it?"),    # 8: near-duplicate of q1
        q("q9", "Printer shows E-301", ["printers/codes#3", "kb_chunk_12", "kb-chunk-4", "x::12", "y@2"]),
        q("q10", "Printer jams", ["printers/kestrel#jams-that-keep-coming-back", "printers/v2.1", "a#b3"]),
    ])
    report = validate_file(path, min_per_tag=0)
    assert codes(report) == [
        ("invalid-json", 2), ("invalid-json", 3), ("schema", 4), ("duplicate-id", 5), ("empty-question", 6),
        ("duplicate-question", 7), ("near-duplicate", 8), ("chunk-id", 9),
    ]
    by_code = {f.code: f for f in report.findings}
    assert "first seen on line 1" in by_code["duplicate-id"].message
    assert by_code["schema"].message == "missing required field 'relevant'" and by_code["schema"].ids == ("q4",)
    assert by_code["duplicate-question"].ids == ("q1", "q7")
    assert by_code["near-duplicate"].ids == ("q1", "q8")
    for chunk in ("'printers/codes#3'", "'kb_chunk_12'", "'kb-chunk-4'", "'x::12'", "'y@2'"):
        assert chunk in by_code["chunk-id"].message
    assert "stable sections" in (by_code["chunk-id"].hint or "")
    assert report.questions == 6 and report.exit_code == 1


@pytest.mark.parametrize(("doc_id", "is_chunk"), [
    ("doc#3", True), ("doc#12", True), ("doc_chunk_12", True), ("doc-chunk-4", True), ("doc_chunk4", True),
    ("doc::12", True), ("doc@2", True), ("networking/vpn#renew-the-certificate", False), ("doc#s3", False),
    ("kb-1042", False), ("doc", False), ("release-2024", False), ("chunking-guide", False), ("user@example", False),
    ("kb-1#chunk-3", True), ("kb-1#c3", True), ("a/b-passage7", True), ("kb-1#setup", False),
])
def test_chunk_id_pattern(doc_id: str, is_chunk: bool) -> None:
    assert is_chunk_id(doc_id) is is_chunk


def test_tags_and_no_answer_counts(tmp_path: Path) -> None:
    rows = [q(f"n{i}", f"networking question {i}", tags=("networking",)) for i in range(5)]
    rows += [q("p1", "printer question", tags=("printers",)), q("x1", "the CEO's shoe size", [], ("no-answer",))]
    report = validate_file(write(tmp_path, rows))
    assert report.tags == {"networking": 5, "no-answer": 1, "printers": 1}
    assert (report.questions, report.answerable, report.no_answer) == (7, 6, 1)
    assert sorted(f.message.split("'")[1] for f in report.findings
                  if f.code == "small-tag") == ["no-answer", "printers"]
    assert validate_file(write(tmp_path, rows), min_per_tag=1).exit_code == 0


def test_all_no_answer_is_a_warning(tmp_path: Path) -> None:
    report = validate_file(write(tmp_path, [q("a", "x", []), q("b", "y", {"d": 0})]), min_per_tag=0)
    assert codes(report) == [("no-answerable", None)]


def test_stale_labels_with_section_ids_against_document_level_corpus() -> None:
    lines = [(1, q("q1", "a", ["kb-1", "kb-2#section"])), (2, q("q2", "b", ["gone", "gone#sec", "kb-1"])),
             (3, q("q3", "c", []))]
    report = validate_lines(lines, documents={"kb-1", "kb-2"}, min_per_tag=0)
    assert codes(report) == [("stale-label", 2), ("section-label", None)]
    assert "'gone', 'gone#sec'" in report.findings[0].message and report.documents == 2
    assert "'kb-2#section'" in report.findings[1].message
    assert validate_lines(lines, min_per_tag=0).findings == ()


def test_helpdesk_example_is_clean_against_its_sections_and_warned_against_its_documents() -> None:
    from ragauge.retrieve.corpus import read_documents

    def findings(corpus: str) -> list[str]:
        documents = {d for d, _, _ in read_documents(HELPDESK / corpus)}
        return [f.code for f in validate_file(HELPDESK / "golden.jsonl", documents=documents, min_per_tag=3).findings]

    assert findings("sections.jsonl") == []
    assert findings("corpus.jsonl") == ["section-label"]  # every label is a section: a document index scores 0


@pytest.mark.parametrize(("text", "message"), [
    ("", "empty"),
    ("\n  \n", "empty"),
    ("id,query,relevant\nq1,hello,doc\n", "not a JSONL golden set"),
    ("[1, 2]\n", "not a JSONL golden set"),
])
def test_unusable_input_raises(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        validate_file(path)
    with pytest.raises(InputError, match="not found"):
        validate_file(tmp_path / "missing.jsonl")


def test_report_round_trips_and_renders(tmp_path: Path) -> None:
    report = validate_file(write(tmp_path, [q("q1", "a b c d e"), q("q1", "x")]), min_per_tag=0)
    assert ValidationReport.from_dict(json.loads(json.dumps(report.to_dict()))) == report
    text = render_text(report)
    assert f"ERROR   {tmp_path / 'golden.jsonl'}:2: [duplicate-id]" in text
    assert "1 error, 0 warnings" in text


def test_section_labels_against_a_document_only_index_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "q1", "query": "x", "relevant": ["kb-1#setup"]}\n'
                    '{"id": "q2", "query": "y", "relevant": ["kb-2#install", "kb-2"]}\n', encoding="utf-8")
    report = validate_file(path, documents={"kb-1", "kb-2"})
    (finding,) = [f for f in report.findings if f.code == "section-label"]
    assert "2 relevant id(s) are sections" in finding.message and "whole documents only" in finding.message
    assert not [f for f in report.findings if f.code == "stale-label"]
    assert not [f for f in validate_file(path, documents={"kb-1", "kb-1#setup", "kb-2"}).findings
                if f.code == "section-label"]


def test_a_lone_surrogate_or_nan_is_a_finding_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    path.write_text('{"id": "q1", "query": "\\ud800", "relevant": ["a"]}\n'
                    '{"id": "q2", "query": "y", "relevant": {"a": NaN}}\n', encoding="utf-8")
    report = validate_file(path)
    found = {f.line: f.message for f in report.findings if f.code == "invalid-json"}
    assert "lone UTF-16 surrogate" in found[1] and "NaN" in found[2] and report.exit_code == 1


def test_with_a_run_the_report_says_what_the_set_can_detect() -> None:
    from click.testing import CliRunner

    from ragauge import render
    from ragauge.cli.main import cli
    from ragauge.comparison.power import PowerReport, power
    from ragauge.curation.validate import validate_golden

    report = validate_golden(HELPDESK / "golden.jsonl", run=HELPDESK / "bm25.run.jsonl", k=5)
    assert report.power == power(HELPDESK / "golden.jsonl", HELPDESK / "bm25.run.jsonl", k=5).to_dict()
    back = ValidationReport.from_dict(json.loads(render(report, "json")))
    assert PowerReport.from_dict(back.power or {}).by_tag["mobile"]["hit@5"].mde is None
    text = render_text(report)
    assert "with 40 questions, hit@5 differences smaller than ±" in text
    assert "tag 'mobile' (n = 2) cannot detect anything" in text
    assert any("no test can detect a change in it" in f.message for f in report.findings if f.code == "small-tag")
    out = CliRunner().invoke(cli, ["golden", "validate", str(HELPDESK / "golden.jsonl"), "--run",
                                   str(HELPDESK / "bm25.run.jsonl"), "-k", "10"])
    assert out.exit_code == 1 and "hit@10" in out.stdout  # exit 1: the small tags are warnings
    assert validate_golden(HELPDESK / "golden.jsonl").power is None
