"""The sweep reports: every format carries user text (configuration names, specs, paths, notes) as text
only, reads the numbers it is given, and the CLI renders each format."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings

from ragauge.cli.main import cli
from ragauge.comparison.result import MetricDelta
from ragauge.errors import InputError
from ragauge.experiments.result import (
    ConfigRow,
    Halving,
    HalvingRound,
    HoldoutReport,
    IndexBuild,
    Selection,
    SweepResult,
)
from ragauge.reports.sweep import delta_cell, render_sweep
from tests.reports.test_injection import (
    EXAMPLES,
    FIELD_TEXTS,
    PLAIN,
    _html_tags,
    _json_equal,
    _markdown_tags,
    _terminal_lines,
)

ROOT = Path(__file__).parents[2]


def delta(diff: float, p: float) -> MetricDelta:
    return MetricDelta(30, 0.5, 0.5 + diff, diff, (diff - 0.1, diff + 0.1), p, p, 10, 2, 18, "x", "paired t", 0.1)


def result(t: list[str]) -> SweepResult:
    rows = (ConfigRow(t[0], "bm25", {"k1": t[1]}, t[2], t[3], {"mrr": 0.5, "hit@1": 0.4}, {}, {"p50": 1.0, "p95": 2.0},
                      0.5, 1000, pareto=True),
            ConfigRow(t[4], "dense", {"embedder": t[5]}, t[6], t[7], {"mrr": 0.6, "hit@1": 0.5},
                      {"mrr": delta(0.1, 0.001), "hit@1": delta(0.1, 0.2)}, None, None, 2_000_000,
                      rerank_ms={"p50": 7.3, "p95": 9.0, "first_p50": 1.5}),
            ConfigRow(t[5], "bm25", {"k1": t[1]}, t[2], t[7], {"mrr": 0.3, "hit@1": 0.25}, {}, {"p50": 1.5, "p95": 3.0},
                      0.5, 1000, dropped=1, sample=12))
    selection = Selection("mrr", t[4], None, (t[4], t[0]), {t[0]: delta(0.1, 0.2)}, t[8])
    holdout = HoldoutReport(t[9], 20, 10, t[4], {"mrr": 0.6, "hit@1": 0.5}, {"mrr": 0.55, "hit@1": 0.5},
                            {"mrr": 0.5, "hit@1": 0.4}, {"mrr": delta(0.05, 0.3), "hit@1": delta(0.1, 0.3)})
    index = IndexBuild("bm25", t[10], "sha256:0", t[11], False, 0.4, 0.4, 1000, 12, (t[0], t[4]))
    meta = {"golden": {"path": t[11]}, "corpus": {"path": t[10]}, "questions": {"answerable": 30},
            "seconds": {"indexes": 1.0, "runs": 2.0, "total": 3.0}, "fetch": 100, "concurrency": 1}
    halving = Halving(500, 3, (HalvingRound(12, 3, (t[5],)),), 2, 30, 84, 90)
    return SweepResult(rows, t[0], ("mrr", "hit@1"), "mrr", 0.05, selection, holdout, (index,), (t[9], t[3]), meta,
                       halving)


@functools.cache
def plain(fmt: str) -> str:
    return render_sweep(result(PLAIN), fmt)


@settings(max_examples=EXAMPLES, deadline=None)
@given(FIELD_TEXTS)
def test_every_format_keeps_user_text_as_text(texts: list[str]) -> None:
    r = result(texts)
    _json_equal(render_sweep(r, "json"), r.to_dict())
    assert _markdown_tags(render_sweep(r, "markdown")) == _markdown_tags(plain("markdown"))
    assert _html_tags(render_sweep(r, "html")) == _html_tags(plain("html"))
    assert len(_terminal_lines(render_sweep(r, "text"))) == len(_terminal_lines(plain("text")))


def test_the_json_report_reads_back_equal() -> None:
    r = result(PLAIN)
    assert SweepResult.from_dict(json.loads(render_sweep(r, "json"))) == r


def test_the_text_report_shows_the_numbers_it_is_given() -> None:
    out = render_sweep(result(PLAIN), "text")
    assert "plain4 (best)" in out and "+0.100 [+0.000, +0.200]*" in out  # significant after Holm: starred
    assert "+0.100 [+0.000, +0.200] " in out or "+0.100 [+0.000, +0.200]\n" in out  # hit@1: p 0.2, no star
    assert "reference" in out and "2.00" in out and "plain8" in out and "holdout: plain4" in out
    assert delta_cell(delta(0.1, 0.001), 0.05).endswith("*") and not delta_cell(delta(0.1, 0.2), 0.05).endswith("*")
    assert delta_cell(None, 0.05) == "reference"
    table, dropped = out.split("dropped by successive halving", 1)
    assert "plain5" not in table.split("(best)")[0] and "0.300" not in table  # a dropped row is not in the table
    assert "round 1: 3 configurations on 12 questions, 1 dropped; then 2 on all 30 questions; 84 retrievals" in out
    assert any(line.split()[:4] == ["plain5", "1", "12", "0.300"] for line in dropped.splitlines())


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_shows_the_latency_a_reranker_adds(fmt: str) -> None:
    out = plain(fmt)
    assert "rerank ms (first stage)" in out and "7.3 (1.5)" in out and out.count("7.3 (1.5)") == 1
    assert "the median time per question its reranker took" in out


def test_a_version_1_sweep_file_still_loads() -> None:
    saved = result(PLAIN).to_dict()
    old = {**saved, "ragauge_sweep": 1, "rows": [{k: v for k, v in row.items() if k != "rerank_ms"}
                                                for row in saved["rows"]]}
    loaded = SweepResult.from_dict(old)
    assert [row.rerank_ms for row in loaded.rows] == [None, None, None]
    assert saved["ragauge_sweep"] == 2 and saved["rows"][1]["rerank_ms"] == {"p50": 7.3, "p95": 9.0, "first_p50": 1.5}
    with pytest.raises(InputError, match="sweep latency"):
        SweepResult.from_dict({**saved, "rows": [saved["rows"][0], {**saved["rows"][1], "rerank_ms": {"p50": -1}}]})


def test_the_cli_renders_every_format(tmp_path: Path) -> None:
    config = tmp_path / "sweep.toml"
    config.write_text('[sweep]\nk = [5]\n\n[[config]]\nname = "bm25"\nretriever = "bm25"\n\n'
                      '[[config]]\nretriever = "bm25"\nk1 = [0.6]\n')
    golden, corpus = ROOT / "examples/helpdesk/golden.jsonl", ROOT / "examples/helpdesk/sections.jsonl"
    base = ["sweep", str(golden), "--corpus", str(corpus), "--config", str(config), "-o", str(tmp_path / "out")]
    r = CliRunner().invoke(cli, base)
    assert r.exit_code == 0, r.output
    assert "bm25 k1=0.6" in r.stdout and "on ndcg@5" in r.stdout and "runs and sweep.json in" in r.stderr
    for fmt in ("json", "markdown", "html"):
        r = CliRunner().invoke(cli, [*base, "--format", fmt, "--report", str(tmp_path / f"report.{fmt}")])
        assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "report.json").read_text())["ragauge_sweep"] == 2
    assert "\n| bm25 k1=0.6" in (tmp_path / "report.markdown").read_text()
    assert "<svg" in (tmp_path / "report.html").read_text()
    r = CliRunner().invoke(cli, [*base, "--holdout", "0.3", "--holdout-tag", "networking"])
    assert r.exit_code == 2 and "not both" in r.stderr
    config.write_text('[[config]]\nretriever = "bm25"\nk_1 = 3\n')
    r = CliRunner().invoke(cli, base)
    assert r.exit_code == 2 and f"{config}:3: [[config]] #1: unknown bm25 option 'k_1'" in r.stderr


def test_the_progress_line_shows_each_stage_with_an_eta_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    import sys

    from ragauge.cli.sweep import stage_progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    show = stage_progress()
    assert show is not None
    show("index", 0, 2, "bm25:corpus.jsonl")
    show("index", 2, 2, "")
    show("run", 30, 90, "bm25 \x1b[31mk1=0.9")
    show("run", 90, 90, "dense")
    out = sys.stderr.getvalue()
    assert "index: 0/2 indexes" in out and "eta     ?" in out and "run: 30/90 questions" in out
    assert "\x1b[31m" not in out and "\\x1b[31m" in out  # a name cannot send a control sequence
    assert out.count("\n") == 2  # a line ends when its stage is done
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    assert stage_progress() is None  # not a terminal: quiet
