"""Retrieval inside agents and conversations in every report: an evaluation of a multi-call, staged run
over conversations (built as tests/evaluation/test_agents.py builds its runs) shows its trajectories by
call and by tool, its stages side by side and its means by turn in text, Markdown, HTML and JUnit,
each only when present; tool and stage names are user text (``<script>``, Markdown pipes, terminal
escapes stay text); counts of calls (lower is better) are plain numbers, never a bar on [0, 1].
Golden files: tests/fixtures/reports/expected/agents.txt and agents.md (UPDATE_GOLDEN=1 rewrites them).
"""

from __future__ import annotations

import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ragauge
from ragauge.cli.main import cli
from ragauge.core import escape
from ragauge.evaluation.result import Evaluation
from ragauge.reports.render import render
from tests.reports.conftest import check_golden
from tests.reports.inert import TERMINAL_UNSAFE, assert_nothing_linked, gfm, nodes

TOOL = "<script>alert(1)</script> a|b \x1b[2K\rgate PASSED"
"""A hostile tool name: HTML, a Markdown pipe, a terminal escape that would clear a line."""
STAGE = "re|rank <img src=x onerror=alert(1)> \x1b]8;;https://e.com\x07x"
"""A hostile stage name: a pipe, an HTML tag, an OSC 8 hyperlink."""
METRICS = "recall@3,ndcg@5,calls,calls_to_evidence,wasted_calls"
COUNTS = ("calls", "calls_to_evidence", "wasted_calls")


def write_agents(folder: Path, tool: str = TOOL, stage: str = STAGE) -> tuple[Path, Path]:
    """Three conversations (3, 2 and 2 turns); each question searched twice in stage "first" (a tool
    "search", then ``tool``) and reranked twice in ``stage`` (tools "rerank" and ``tool``), which
    promotes the relevant documents the second search found below the top 5 and drops one. The third
    turn's first search misses: recall drifts down."""
    golden: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    i = 0
    for conversation, turns in (("c1", 3), ("c2", 2), ("c3", 2)):
        for turn in range(1, turns + 1):
            qid = f"{conversation}t{turn}"
            a, b = f"{qid}-a", f"{qid}-b"
            golden.append({"id": qid, "query": f"question {qid}", "relevant": [a, b], "tags": ["agents"],
                           "conversation": conversation, "turn": turn,
                           "history": [f"question {conversation}t{t}" for t in range(1, turn)]})
            first = [f"n{i}1", *([a] if turn != 3 else []), f"n{i}2", f"n{i}5"]
            second = [f"n{i}3", f"n{i}4", *([b] if i % 2 == 0 else [])]  # b below the first stage's top 5
            kept = [a] if a in first and i != 1 else []  # question 1's reranker drops a: demoted
            run.append({"id": qid, "calls": [
                {"query": f"search {qid}", "hits": first, "tool": "search", "stage": "first", "latency_ms": 10},
                {"query": f"follow {qid}", "hits": second, "tool": tool, "stage": "first", "latency_ms": 5},
                {"hits": [*kept, first[0]], "tool": "rerank", "stage": stage, "latency_ms": 20, "cost": 0.001},
                {"hits": [*([b] if b in second else []), second[0]], "tool": tool, "stage": stage,
                 "latency_ms": 20}]})
            i += 1
    g, r = folder / "golden.jsonl", folder / "run.jsonl"
    g.write_text("".join(json.dumps(x) + "\n" for x in golden), encoding="utf-8")
    r.write_text("".join(json.dumps(x) + "\n" for x in run), encoding="utf-8")
    return g, r


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The hostile files in a folder of their own (the result records short relative paths)."""
    path = tmp_path_factory.mktemp("agents")
    write_agents(path)
    plain = path / "plain"
    plain.mkdir()
    write_agents(plain, "tool", "stage")
    yield path


def _evaluate(folder: Path) -> Evaluation:
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return ragauge.evaluate("golden.jsonl", run="run.jsonl", metrics=METRICS)
    finally:
        os.chdir(cwd)


@pytest.fixture(scope="module")
def ev(folder: Path) -> Evaluation:
    return _evaluate(folder)


@pytest.fixture(scope="module")
def plain_ev(folder: Path) -> Evaluation:
    return _evaluate(folder / "plain")


def test_the_evaluation_holds_the_three_sections(ev: Evaluation) -> None:
    meta = ev.meta
    assert meta["trajectories"]["calls"] == 14 and set(meta["trajectories"]["by_tool"]) == {"rerank", TOOL}
    assert meta["stages"]["order"] == ["first", STAGE]
    assert list(meta["turns"]["by_turn"]) == ["1", "2", "3"]


# --- text ------------------------------------------------------------------------------------------

def test_text_golden_file(ev: Evaluation) -> None:
    check_golden("agents.txt", render(ev, "text", worst=2))


def test_text_shows_each_section_with_the_numbers_of_the_result(ev: Evaluation) -> None:
    out = render(ev, "text")
    titles = ["Trajectories: by call", "Trajectories: by tool", "Stages: first → ", "Stages: what each step changed",
              "By turn"]
    at = [out.index(title) for title in titles]
    assert at == sorted(at) and out.index("by tag") < at[0] < out.index("why it failed")
    t = ev.meta["trajectories"]
    row = t["by_call"]["1"]
    assert re.search(rf"^1 +{row['calls']} +{row['found']} +{row['share_found']:.1%} +{row['wasted']} +"
                     rf"{row['latency_ms']:.1f} +{row['cost']:.6g}$", out, re.M)
    assert t["by_call"]["2"]["cost"] is None and re.search(r"^2 .* -$", out, re.M)  # no call gave a cost
    step = ev.meta["stages"]["steps"][0]
    assert f"{step['rbo']:.4f}" in out and f"top {step['k']}" in out
    drift = ev.meta["turns"]["by_turn"]["3"]["drift"]["recall@3"]
    assert f"({drift:+.4f})" in out and drift < 0
    assert "lower is better" in out


def test_text_keeps_hostile_names_as_text_on_their_own_lines(ev: Evaluation, plain_ev: Evaluation) -> None:
    for options in ({}, {"color": True}):
        out, plain = render(ev, "text", **options), render(plain_ev, "text", **options)
        assert not TERMINAL_UNSAFE.search(re.sub(r"\x1b\[[0-9;]*m", "", out))
        assert len(out.splitlines()) == len(plain.splitlines())
        assert "gate PASSED" not in [line.strip() for line in out.splitlines()]
    out = render(ev, "text", width=60)
    assert not TERMINAL_UNSAFE.search(out)
    assert "\\x1b[2K\\rgate PASSED" in render(ev, "text")


def test_a_count_interval_is_not_clipped_to_one(ev: Evaluation) -> None:
    from ragauge.reports.views import tag_rows

    (row,) = tag_rows(ev, ci_metrics=COUNTS)
    for m in COUNTS:
        lo, hi = row.ci[m]
        values = ev.column(m)
        assert lo <= row.means[m] <= hi <= values.max()
    assert row.ci["calls"][1] > 1  # every question made 2 calls: an interval on [0, 1] could not hold 2


# --- Markdown --------------------------------------------------------------------------------------

def test_markdown_golden_file(ev: Evaluation) -> None:
    check_golden("agents.md", render(ev, "markdown", worst=2))


def test_markdown_keeps_hostile_names_inert(ev: Evaluation, plain_ev: Evaluation) -> None:
    out = render(ev, "markdown")
    for title in ("**Trajectories: by call**", "**Trajectories: by tool**", "**Stages: what each step changed**",
                  "**By turn**"):
        assert title in out
    page = nodes(gfm(out))
    assert_nothing_linked(page)
    assert [tag for tag, _ in page.tags] == [tag for tag, _ in nodes(gfm(render(plain_ev, "markdown"))).tags]
    assert "script" not in [tag for tag, _ in page.tags]
    cells = [c for c in page.cells if "alert" in c]
    assert cells and all("<script>alert(1)</script> a|b" in c for c in cells if "script" in c)
    assert not TERMINAL_UNSAFE.search(out)


# --- HTML ------------------------------------------------------------------------------------------

def test_html_shows_the_sections_and_no_markup_from_the_data(ev: Evaluation, plain_ev: Evaluation) -> None:
    out = render(ev, "html")
    page = nodes(out)
    assert [(t, [k for k, _ in a]) for t, a in page.tags] == [
        (t, [k for k, _ in a]) for t, a in nodes(render(plain_ev, "html")).tags]
    assert "<script>alert" not in out and "<img src=x" not in out
    assert len(re.findall(r"<script\b", out)) == 2  # the data block and the report's own script
    for key in ("trajectories-call", "trajectories-tool", "stages-metric", "stages-step", "turns-turn"):
        assert f'<section class="agents" id="{key}">' in out
    assert any(c.startswith("<script>alert(1)</script> a|b \\x1b[2K") for c in page.cells)


def test_html_shows_a_count_as_a_number_not_a_bar(ev: Evaluation) -> None:
    out = render(ev, "html")
    charts = re.findall(r'<svg class="chart tagchart".*?</svg>', out, re.S)
    assert len(charts) == len(ev.metrics)
    for metric, chart in zip(ev.metrics, charts):
        count = metric in COUNTS
        assert ("<rect" in chart) is not count, metric
        assert ('class="tick"' in chart) is not count, metric
        assert f"{ev.summary[metric]:.3f}" in chart
    for m in COUNTS:
        assert f">{m} (lower is better)</option>" in out and f">{m} (lower is better)</div>" in out


def test_html_question_table_does_not_colour_a_count_as_good_or_bad(ev: Evaluation) -> None:
    """The override names the columns report.js gives the counts (the template's header order)."""
    out = render(ev, "html")
    head = re.search(r'<table id="qtable">\s*<thead><tr>(.*?)</tr></thead>', out, re.S)
    assert head is not None
    headers = re.findall(r"<th\b[^>]*>([^<]*)</th>", head.group(1))
    rule = re.search(r"\n([^\n{]*) \{ color: inherit; \}\n</style>", out)
    assert rule is not None
    columns = {int(n) for n in re.findall(r"td:nth-child\((\d+)\)", rule.group(1))}
    assert {headers[n - 1] for n in columns} == set(COUNTS)


def test_without_a_count_the_question_table_keeps_its_colours(evaluation: Evaluation) -> None:
    assert "color: inherit" not in render(evaluation, "html")


# --- JUnit, JSON and a saved result ----------------------------------------------------------------

def test_junit_lists_each_row_as_a_property(ev: Evaluation) -> None:
    root = ET.fromstring(render(ev, "junit").encode("utf-8"))
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["trajectories.call.1"].startswith("calls=7; found=")
    assert "trajectories.tool." + escape.xml(TOOL) in props
    assert props["stages.metric.recall@3"].startswith(f"first={ev.meta['stages']['metrics']['first']['recall@3']:.4f}")
    assert "lower is better" in props["counts.note"]
    assert set(props["turns.turn.3"].split("; ")[0:2]) == {"n=1", "pairs=1"}


def test_a_saved_result_renders_the_sections_identically(folder: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(folder)
    saved = tmp_path / "result.json"

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, [*args, "--no-color"])
        assert result.exit_code == 0, result.output
        return result.stdout

    args = ["eval", "golden.jsonl", "--run", "run.jsonl", "--metrics", METRICS]
    run(*args, "--format", "json", "-o", str(saved))
    assert json.loads(saved.read_text(encoding="utf-8"))["meta"]["stages"]["order"] == ["first", STAGE]
    for fmt in ("text", "markdown", "html", "junit"):
        assert run("report", str(saved), "--format", fmt) == run(*args, "--format", fmt), fmt


def test_without_the_sections_no_report_mentions_them(evaluation: Evaluation) -> None:
    for fmt in ("text", "markdown", "html", "junit"):
        out = render(evaluation, fmt)
        assert "Trajectories" not in out and "Stages" not in out and "By turn" not in out, fmt
        assert "lower is better" not in out and "trajectories." not in out, fmt
