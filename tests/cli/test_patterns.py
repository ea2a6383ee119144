"""The failure patterns through the CLI: eval and report with and without --corpus, and 'ragauge metrics'."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner, Result

from ragauge.cli.main import cli
from ragauge.evaluation.patterns import PATTERNS


def invoke(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args], env={"COLUMNS": ""})


def files(tmp_path: Path) -> tuple[Path, Path, Path]:
    golden = tmp_path / "golden.jsonl"
    golden.write_text('{"id": "q1", "query": "kestrel shows E-301 paper", "relevant": ["kb-e301"]}\n'
                      '{"id": "q2", "query": "vpn", "relevant": ["kb-vpn"]}\n', encoding="utf-8")
    run = tmp_path / "run.jsonl"
    run.write_text('{"id": "q1", "hits": ["kb-paper", "kb-e301"]}\n{"id": "q2", "hits": ["kb-vpn"]}\n',
                   encoding="utf-8")
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "title": t, "text": x}) + "\n" for d, t, x in [
        ("kb-e301", "Kestrel codes", "E-301 is a paper feed jam."), ("kb-paper", "Paper jams", "Open the tray."),
        ("kb-vpn", "VPN", "Connect the VPN.")]), encoding="utf-8")
    return golden, run, corpus


def test_eval_without_a_corpus_says_the_text_patterns_were_not_assessed(tmp_path: Path) -> None:
    golden, run, _ = files(tmp_path)
    out = invoke("eval", golden, "--run", run, "-k", "1", "--no-color")
    assert out.exit_code == 0, out.output
    assert "why it failed: 1 of 2 answerable question(s) miss at k=1" in out.stdout
    assert "not assessed: exact-term miss, vocabulary gap — no corpus texts (give --corpus PATH)" in out.stdout
    assert "why:      ranked too low (rank 2)" in out.stdout


def test_eval_with_a_corpus_classifies_with_the_texts(tmp_path: Path) -> None:
    golden, run, corpus = files(tmp_path)
    out = invoke("eval", golden, "--run", run, "-k", "1", "--corpus", corpus, "--format", "json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    q1 = next(q for q in data["queries"] if q["id"] == "q1")
    assert q1["failure"] == {"primary": "exact-term", "secondary": ["ranked-too-low"],
                             "evidence": {"exact-term": {"terms": ["E-301"]}}}
    assert "failure" not in next(q for q in data["queries"] if q["id"] == "q2")
    table = data["failures"]
    assert (table["k"], table["misses"], table["ceiling"]) == (1, 1, 1)
    assert table["rows"][0]["pattern"] == "exact-term" and table["rows"][0]["examples"] == ["q1"]
    assert "exact-term" not in table["not_assessed"] and "stale-label" not in table["not_assessed"]


def test_report_with_a_corpus_adds_the_text_patterns_to_a_saved_result(tmp_path: Path) -> None:
    golden, run, corpus = files(tmp_path)
    saved = tmp_path / "result.json"
    assert invoke("eval", golden, "--run", run, "-k", "1", "--format", "json", "-o", saved).exit_code == 0
    plain = invoke("report", saved, "--no-color")
    assert "exact-term miss  " not in plain.stdout and "no corpus texts" in plain.stdout
    texts = invoke("report", saved, "--corpus", corpus, "--format", "markdown")
    assert texts.exit_code == 0, texts.output
    assert "| exact-term miss | 1 | 100.0% | 0 |" in texts.stdout and "no corpus texts" not in texts.stdout


def test_a_corpus_that_does_not_exist_is_bad_input(tmp_path: Path) -> None:
    golden, run, _ = files(tmp_path)
    out = invoke("eval", golden, "--run", run, "--corpus", tmp_path / "nowhere.jsonl")
    assert out.exit_code == 2 and "corpus not found" in out.output


def test_metrics_lists_every_pattern_with_its_fix() -> None:
    out = invoke("metrics")
    assert out.exit_code == 0
    for p in PATTERNS.values():
        assert f"{p.name}    ({p.title})" in out.stdout
    assert "misses at k when no relevant document" in out.stdout


def test_without_misses_the_block_is_one_line(tmp_path: Path) -> None:
    golden, run, _ = files(tmp_path)
    out = invoke("eval", golden, "--run", run, "-k", "2", "--no-color")
    assert out.exit_code == 0, out.output
    assert "why it failed: no question misses at k=2 (2 answerable)" in out.stdout
    assert "not assessed" not in out.stdout and "perfect reranker" not in out.stdout
