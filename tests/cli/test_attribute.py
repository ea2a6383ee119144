"""``ragauge attribute`` end to end: the bundled help-desk example, the formats, and bad input (exit 2,
one message naming the file and line)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli

ROOT = Path(__file__).parents[2]
HELPDESK = ROOT / "examples" / "helpdesk"
EXAMPLE = ["attribute", str(HELPDESK / "golden.jsonl"), "--run", str(HELPDESK / "bm25.run.jsonl"), "--answers",
           str(HELPDESK / "answers.jsonl"), "--threshold", "0.7"]
DATA = ROOT / "tests" / "fixtures" / "attribution"
FIXTURE = ["attribute", str(DATA / "golden.jsonl"), "--run", str(DATA / "run.jsonl")]


def invoke(*args: str):  # noqa: ANN201
    return CliRunner().invoke(cli, list(args))


def test_the_help_desk_example_splits_the_misses() -> None:
    result = invoke(*EXAMPLE)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert re.search(r"found in top 5 +26 \(65\.0%\) +5 \(12\.5%\)\n", out)
    assert re.search(r"not in top 5 +2 \(5\.0%\) +7 \(17\.5%\)\n", out)
    assert "not found, answer bad: 7 (17.5%) - search never found it: fix retrieval" in out
    assert "found, answer bad: 5 (12.5%) - found, but the answer was wrong: fix the prompt or the model" in out
    assert "hd-021, hd-023" in out and "no-answer questions with a verdict: 5" in out
    assert "verdicts: 21 review, 13 feedback, 11 judge-tool" in out
    assert result.stderr == ""


def test_the_example_agrees_with_the_python_call_and_its_json() -> None:
    result = invoke(*EXAMPLE, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    direct = ragauge.attribute(HELPDESK / "golden.jsonl", HELPDESK / "bm25.run.jsonl", HELPDESK / "answers.jsonl",
                               threshold=0.7)
    assert data["overall"]["cells"]["missed_bad"]["questions"] == list(direct.overall.cells["missed_bad"])
    assert ragauge.Attribution.from_dict(data).overall == direct.overall
    # the figures docs/how-to/attribution.md and examples/helpdesk/README.md quote
    paraphrase, exact = data["by_tag"]["paraphrase"]["cells"], data["by_tag"]["exact-term"]["cells"]
    assert (paraphrase["missed_bad"]["n"], data["by_tag"]["paraphrase"]["n"]) == (7, 18)
    assert set(data["overall"]["cells"]["missed_bad"]["questions"]) == set(paraphrase["missed_bad"]["questions"])
    assert (exact["missed_bad"]["n"], exact["found_bad"]["n"], data["by_tag"]["exact-term"]["n"]) == (0, 2, 18)
    rows = {q["id"]: q for q in data["questions"]}
    assert rows["hd-027"]["rank"] == 4 and rows["hd-027"]["cell"] == "found_bad"
    assert rows["hd-023"]["cell"] == "missed_good" and data["no_answer"]["no_answer_bad"]["questions"] == [
        "hd-043", "hd-044"]


def test_markdown_and_an_output_file(tmp_path: Path) -> None:
    out = tmp_path / "attribution.md"
    result = invoke(*EXAMPLE, "--format", "markdown", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    text = out.read_text(encoding="utf-8")
    assert text.startswith("### ragauge attribute: search or model?")
    assert "| **found in top 5** | 26 (65.0%) | 5 (12.5%) |" in text


def test_loud_notes_go_to_stderr_when_the_report_is_a_file(tmp_path: Path) -> None:
    result = invoke(*FIXTURE, "--answers", str(DATA / "answers.jsonl"), "--threshold", "0.5", "-o",
                    str(tmp_path / "a.txt"))
    assert result.exit_code == 0, result.output
    assert "NOTE: 1 of 11 question(s) have no answer verdict" in result.stderr
    assert "missing from the run" in result.stderr


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": "g1", "verdict": "maybe"}', "'verdict' must be"),
    ('{"id": "g1", "score": Infinity}', "not a finite number"),
    ('{"id": "g1"', "invalid JSON"),
    ('{"id": "g2", "verdict": "good"}\n{"id": "g2", "verdict": "bad"}', "two answer lines"),
])
def test_bad_answers_exit_2_with_file_and_line(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text('{"id": "g3", "verdict": "good"}\n' + line + "\n", encoding="utf-8")
    result = invoke(*FIXTURE, "--answers", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith(f"error: {path}:") and message in result.stderr
    assert "Traceback" not in result.output


def test_a_score_without_threshold_exits_2() -> None:
    result = invoke(*FIXTURE, "--answers", str(DATA / "answers.jsonl"))
    assert result.exit_code == 2 and f"{DATA / 'answers.jsonl'}:3" in result.stderr and "--threshold" in result.stderr


@pytest.mark.parametrize(("extra", "message"), [
    (["-k", "1,5"], "one cutoff"),
    (["-k", "0"], "-k takes integers"),
    (["--corpus", "corpus.jsonl"], "--corpus goes with --judge-endpoint"),
    (["--judge-model", "m"], "go together"),
    (["--judge-endpoint", "http://localhost:1", "--judge-model", "m"], "needs the corpus"),
    (["--judge-endpoint", "ftp://x", "--judge-model", "m", "--corpus", str(DATA / "corpus.jsonl")], "http:// or"),
])
def test_bad_options_exit_2(extra: list[str], message: str) -> None:
    result = invoke(*FIXTURE, "--answers", str(DATA / "answers.jsonl"), "--threshold", "0.5", *extra)
    assert result.exit_code == 2 and message in result.stderr, result.output


def test_missing_files_exit_2(tmp_path: Path) -> None:
    result = invoke(*FIXTURE, "--answers", str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2 and "nope.jsonl" in result.stderr
    result = invoke("attribute", str(DATA / "golden.jsonl"), "--run", str(tmp_path / "run.jsonl"), "--answers",
                    str(DATA / "answers.jsonl"))
    assert result.exit_code == 2 and "run.jsonl" in result.stderr
