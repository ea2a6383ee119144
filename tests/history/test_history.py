"""The evaluation history: SQLite store, series over time, markers, flips, text/JSON/HTML renderings."""

from __future__ import annotations

import json
import re
import sqlite3
import xml.etree.ElementTree as ET
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import ragauge
from ragauge.errors import InputError
from ragauge.evaluation.result import Evaluation
from ragauge.history.model import Entry
from ragauge.history.report import (
    build_series,
    find_flips,
    history_json,
    markers,
    resolve_entry,
    scale,
)
from ragauge.history.store import SCHEMA_VERSION, open_history, record_evaluation
from ragauge.reports.history_html import render_html
from ragauge.reports.history_text import render_text, sparkline

ROOT = Path(__file__).parents[2]
SCIFACT = ROOT / "examples" / "scifact"
MINI = ROOT / "tests" / "fixtures" / "mini"
T0 = datetime(2026, 10, 1, 9, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def evaluations(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[str, Evaluation]]:
    """nostem, stem, then stem on a golden set with ten questions fewer (a golden-set change)."""
    golden = ragauge.load_golden(SCIFACT / "golden.jsonl")
    nostem = ragauge.read_run(SCIFACT / "bm25-nostem.run.jsonl")
    stem = ragauge.read_run(SCIFACT / "bm25.run.jsonl")
    trimmed = ragauge.GoldenSet.from_queries(list(golden)[10:], "trimmed.jsonl")
    return [("baseline, no stemming", ragauge.evaluate_run(golden, nostem, k=10)),
            ("re-index with stemming", ragauge.evaluate_run(golden, stem, k=10)),
            ("golden trimmed", ragauge.evaluate_run(trimmed, stem, k=10))]


@pytest.fixture
def history(tmp_path: Path, evaluations: list[tuple[str, Evaluation]]) -> Path:
    path = tmp_path / "sub" / "dir" / "history.sqlite"
    for i, (label, ev) in enumerate(evaluations):
        assert record_evaluation(path, ev, label=label, now=T0 + timedelta(days=i), git_commit=f"c{i}") == i + 1
    return path


def load(path: Path, questions: bool = False) -> list[Entry]:
    with open_history(path) as store:
        return store.entries(questions=questions)


# --- store ---------------------------------------------------------------------------------------

def test_record_round_trips(history: Path, evaluations: list[tuple[str, Evaluation]]) -> None:
    entries = load(history, questions=True)
    assert [e.id for e in entries] == [1, 2, 3]
    assert [e.label for e in entries] == [label for label, _ in evaluations]
    assert entries[0].recorded_at == "2026-10-01T09:00:00+00:00" and entries[2].git_commit == "c2"
    for entry, (_, ev) in zip(entries, evaluations):
        assert entry.summary == ev.summary and entry.metrics == ev.metrics
        assert entry.golden_hash == ev.meta["golden"]["hash"] and entry.contract == ev.meta["contract"]
        assert entry.run_hash == ev.meta["run"]["hash"]
        assert entry.retriever == ev.meta["run"]["meta"]["retriever"]
        assert {q.id: q.values for q in entry.questions} == {q.id: q.values for q in ev.queries}
        assert ({q.id: q.first_relevant_rank for q in entry.questions}
                == {q.id: q.first_relevant_rank for q in ev.queries})
    assert Entry.from_dict(entries[1].to_dict(questions=True)) == entries[1]
    with sqlite3.connect(history) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_by_tag_round_trips(tmp_path: Path) -> None:
    golden, run = ragauge.load_golden(MINI / "golden.jsonl"), ragauge.read_run(MINI / "run.jsonl")
    ev = ragauge.evaluate_run(golden, run, k=[1, 3], doc_id_sep="#")
    record_evaluation(tmp_path / "h.sqlite", ev, now=T0, git_commit=None)
    (entry,) = load(tmp_path / "h.sqlite")
    assert entry.by_tag == ev.by_tag and list(entry.by_tag) == list(ev.by_tag)
    series = build_series([entry], ["ndcg@3"])
    assert [(s.tag, s.values) for s in series] == [(None, [ev.summary["ndcg@3"]]),
                                                   *((t, [v["ndcg@3"]]) for t, v in sorted(ev.by_tag.items()))]
    assert [s.tag for s in build_series([entry], tags=["hw"])] == [None, "hw"] * len(ev.metrics)


def test_store_refusals(tmp_path: Path, evaluations: list[tuple[str, Evaluation]]) -> None:
    with pytest.raises(InputError, match="no history file"):
        load(tmp_path / "missing.sqlite")
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database, just text" * 100)
    with pytest.raises(InputError, match="cannot use the history"):
        load(junk)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(InputError, match="not a ragauge history"):
        record_evaluation(other, evaluations[0][1], now=T0, git_commit=None)
    newer = tmp_path / "newer.sqlite"
    record_evaluation(newer, evaluations[0][1], now=T0, git_commit=None)
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(InputError, match="newer ragauge"):
        load(newer)


# --- series, markers, sparklines -------------------------------------------------------------------

def test_series_equal_the_summaries(history: Path, evaluations: list[tuple[str, Evaluation]]) -> None:
    entries = load(history)
    series = build_series(entries)
    assert [s.metric for s in series] == ["hit@10", "recall@10", "mrr", "ndcg@10"]  # SciFact has no tags
    for s in series:
        assert s.tag is None and s.values == [ev.summary[s.metric] for _, ev in evaluations]
        assert [p.entry_id for p in s.points] == [1, 2, 3]
    (only,) = build_series(entries, ["Recall@10"])
    assert only.metric == "recall@10"
    with pytest.raises(InputError, match="no recorded evaluation has ndcg@5"):
        build_series(entries, ["ndcg@5"])
    with pytest.raises(InputError, match="no recorded evaluation has the tag"):
        build_series(entries, tags=["billing"])


def test_golden_changes_and_labels_are_marked(history: Path) -> None:
    entries = load(history)
    marks = markers(entries)
    assert [m.golden_changed for m in marks] == [False, False, True]
    assert [m.mark for m in marks] == ["L", "L", "*"]
    assert markers(entries[1:])[0].golden_changed is False  # the first shown is judged by the caller


@pytest.mark.parametrize("values, line", [
    ([0.0, 0.5, 1.0], "▁▅█"),
    ([0.2, 0.2], "▅▅"),  # drawn over at least MIN_SPAN: no change is the middle, not a swing
    ([None, 0.1, 0.3, None, 0.2], "·▁█·▅"),
    ([None], "·"),
    ([], ""),
    ([0.0, 1 / 8, 2 / 8, 3 / 8, 4 / 8, 5 / 8, 6 / 8, 7 / 8, 1.0], "▁▂▃▄▅▆▇██"),
])
def test_sparkline(values: list[float | None], line: str) -> None:
    assert sparkline(values) == line


# --- flips ---------------------------------------------------------------------------------------

def test_flips_equal_a_direct_comparison_of_hit_at_10(history: Path, evaluations: list[tuple[str, Evaluation]]) -> None:
    entries = load(history, questions=True)
    a, b = resolve_entry(entries, "first"), resolve_entry(entries, "prev")
    flips = find_flips(a, b)
    assert flips.metric == "hit@10" and (flips.a, flips.b) == (1, 2)
    before = {q.id: q.values["hit@10"] for q in evaluations[0][1].queries}
    after = {q.id: q.values["hit@10"] for q in evaluations[1][1].queries}
    assert {f.id for f in flips.lost} == {q for q in before if before[q] == 1 and after[q] == 0}
    assert {f.id for f in flips.gained} == {q for q in before if before[q] == 0 and after[q] == 1}
    assert flips.lost and flips.gained and flips.compared == len(before)
    # against the trimmed golden set, the ten dropped questions are listed apart, not as flips
    to_last = find_flips(a, resolve_entry(entries, "last"))
    assert len(to_last.only_a) == 10 and not to_last.only_b
    assert {f.id for f in to_last.gained} == {f.id for f in flips.gained} - set(to_last.only_a)
    on_mrr = find_flips(a, b, "mrr")
    assert on_mrr.metric == "mrr"
    assert all((f.before > 0) != (f.after > 0) for f in on_mrr.lost + on_mrr.gained)


def test_resolve_entry(history: Path) -> None:
    entries = load(history)
    assert [resolve_entry(entries, r).id for r in ("1", "#2", "last", "prev", "first")] == [1, 2, 3, 2, 1]
    with pytest.raises(InputError, match="no recorded evaluation '9'"):
        resolve_entry(entries, "9")
    with pytest.raises(InputError, match="at least two"):
        resolve_entry(entries[:1], "prev")


# --- renderings ----------------------------------------------------------------------------------

def test_text(history: Path) -> None:
    entries = load(history, questions=True)
    series = build_series(entries)
    text = render_text(entries, markers(entries), series, find_flips(entries[0], entries[1]), "h.sqlite")
    assert "history h.sqlite · 3 evaluation(s) · 2026-10-01 → 2026-10-03" in text
    assert "[re-index with stemming]" in text and " G  " in text  # golden hash column marks the change
    row = next(line for line in text.splitlines() if line.startswith("hit@10 "))
    breaks = [m.breaks for m in markers(entries)]
    assert sparkline(series[0].values, breaks, scale(series)) in row and f"{series[0].values[-1]:.4f}" in row
    assert "|" in row and row.rstrip().endswith("break")  # the last entry's golden set changed: no Δ across it
    events = next(line for line in text.splitlines() if "events" in line)
    assert events.rstrip().endswith("LL|*")
    assert "flips on hit@10 from #1 to #2" in text and "lost (hit → miss)" in text


def test_json_gives_the_raw_series(history: Path) -> None:
    entries = load(history)
    data = history_json(entries, markers(entries), build_series(entries))
    assert data["ragauge_history"] == 1
    assert [e["golden_changed"] for e in data["entries"]] == [False, False, True]
    first = data["series"][0]
    assert (first["metric"] == "hit@10"
            and [p["value"] for p in first["points"]] == [e.summary["hit@10"] for e in entries])
    json.dumps(data)


class _Checker(HTMLParser):
    VOID = {"meta", "link", "br", "img", "input", "hr", "line", "circle", "polyline", "rect", "path"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v or "" for k, v in attrs if k in ("src", "href", "xlink:href")]
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.urls += [v or "" for k, v in attrs if k in ("src", "href", "xlink:href")]

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.stack and self.stack[-1] == tag, (tag, self.stack[-5:])
        self.stack.pop()


def test_html_is_offline_escaped_and_parses(tmp_path: Path, evaluations: list[tuple[str, Evaluation]]) -> None:
    path = tmp_path / "h.sqlite"
    for i, (label, ev) in enumerate(evaluations):
        record_evaluation(path, ev, label="<script>alert(1)</script>" if i == 1 else label, now=T0 + timedelta(days=i),
                          git_commit=None)
    entries = load(path, questions=True)
    html = render_html(entries, markers(entries), build_series(entries), find_flips(entries[0], entries[1]), str(path))
    checker = _Checker()
    checker.feed(html)
    checker.close()
    assert checker.stack == []
    assert all(u.startswith("data:") for u in checker.urls), checker.urls
    assert "http://" not in html and "https://" not in html and "url(" not in html and "@import" not in html
    assert "<script" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "default-src 'none'" in html
    svgs = re.findall(r"<svg\b.*?</svg>", html, flags=re.S)
    assert len(svgs) == 4
    for svg in svgs:
        root = ET.fromstring(svg)
        assert root.tag == "svg" and root.findall(".//polyline") and root.findall(".//circle")
    assert "Flips on hit@10 from #1 to #2" in html


# --- CLI -----------------------------------------------------------------------------------------

def cli(*args: str) -> Any:
    from click.testing import CliRunner

    from ragauge.cli.main import cli as main

    return CliRunner().invoke(main, list(args))


def test_cli_record_and_history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    golden = str(SCIFACT / "golden.jsonl")
    for run, label in (("bm25-nostem.run.jsonl", None), ("bm25.run.jsonl", "re-index 2026-12")):
        args = ["eval", golden, "--run", str(SCIFACT / run), "-k", "10", "--format", "json", "-o", "r.json", "--record"]
        result = cli(*args, *(["--label", label] if label else []))
        assert result.exit_code == 0, result.output
        assert "recorded as #" in result.stderr
    assert (tmp_path / ".ragauge" / "history.sqlite").exists()  # the default place, folders created
    result = cli("history", "--flips", "prev", "last")
    assert result.exit_code == 0, result.output
    assert "[re-index 2026-12]" in result.stdout and "flips on hit@10 from #1 to #2" in result.stdout

    out = tmp_path / "h.json"
    result = cli("history", "--format", "json", "--metric", "recall@10,mrr", "-o", str(out))
    assert result.exit_code == 0, result.output
    data = json.loads(out.read_text())
    assert [s["metric"] for s in data["series"]] == ["recall@10", "mrr"]
    assert data["series"][1]["points"][-1]["value"] == json.loads((tmp_path / "r.json").read_text())["summary"]["mrr"]

    result = cli("history", "--format", "html", "--last", "1", "-o", "h.html")
    assert result.exit_code == 0, result.output
    assert "re-index 2026-12" in (tmp_path / "h.html").read_text()


def test_cli_history_errors(tmp_path: Path) -> None:
    golden, run = str(MINI / "golden.jsonl"), str(MINI / "run.jsonl")
    result = cli("history", "--history", str(tmp_path / "none.sqlite"))
    assert result.exit_code == 2 and "no history file" in result.stderr
    result = cli("eval", golden, "--run", run, "--label", "x")
    assert result.exit_code == 2 and "go with --record" in result.stderr
    path = str(tmp_path / "h.sqlite")
    assert cli("eval", golden, "--run", run, "--doc-id-sep", "#", "--record", "--history", path).exit_code == 0
    result = cli("history", "--history", path, "--flips", "prev", "last")
    assert result.exit_code == 2 and "at least two" in result.stderr
    result = cli("history", "--history", path, "--metric", "ndcg@99")
    assert result.exit_code == 2 and "no recorded evaluation has ndcg@99" in result.stderr


def _entry(i: int, golden: str, value: float, contract: dict | None = None, answerable: int = 100) -> object:
    from ragauge.history.model import Entry

    return Entry(i, f"2026-10-0{i}T09:00:00+00:00", None, golden, None, None, None, None, None, None, None, None,
                 ("ndcg@10", "mrr"), contract or {"fetch": None}, {"ndcg@10": value, "mrr": value / 2}, {},
                 {"answerable": answerable})


def test_no_delta_across_another_golden_set_or_contract() -> None:
    """history drew Δ across a Cranfield and a SciFact evaluation (-0.0656, +0.4078)."""
    entries = [_entry(1, "sha256:cran", 0.30), _entry(2, "sha256:sci", 0.70)]
    marks = markers(entries)
    assert marks[1].golden_changed and marks[1].breaks
    text = render_text(entries, marks, build_series(entries))
    row = next(line for line in text.splitlines() if line.startswith("ndcg@10"))
    assert row.rstrip().endswith("break") and "+0.4000" not in row and "|" in row
    entries = [_entry(1, "g", 0.60), _entry(2, "g", 0.61, {"fetch": 50}), _entry(3, "g", 0.62, {"fetch": 50}, 90)]
    marks = markers(entries)
    assert marks[1].contract_changed == ("fetch",) and marks[1].mark == "C" and marks[2].shrunk
    text = render_text(entries, marks, build_series(entries))
    row = next(line for line in text.splitlines() if line.startswith("ndcg@10"))
    assert row.rstrip().endswith("+0.0100")  # #2 -> #3: same golden set and contract
    assert "#2: contract changed (fetch)" in text and "#3: fewer answerable questions (90)" in text
    data = history_json(entries, marks, build_series(entries))
    assert [e["breaks"] for e in data["entries"]] == [False, True, False]


def test_trends_share_a_scale_so_a_small_change_looks_small() -> None:
    entries = [_entry(1, "g", 0.600), _entry(2, "g", 0.610)]
    text = render_text(entries, markers(entries), build_series(entries))
    row = next(line for line in text.splitlines() if line.startswith("ndcg@10"))
    assert "▁█" not in row  # a 0.01 change was drawn as a full swing
    assert scale(build_series(entries)) == (0.3, 0.61)  # mrr (0.300-0.305) and ndcg@10 on one scale
