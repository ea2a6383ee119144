"""Compare reports read a count of calls (lower is better, ``MetricDelta.lower_is_better``) the right
way up: each format says so, and a question whose count rose lists the rise among its drops."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ragauge
from ragauge.comparison.result import Comparison
from ragauge.reports.comparison import render_comparison

NOTE = "calls, wasted_calls: counts of calls per question, lower is better"


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _comparison(tmp_path: Path) -> Comparison:
    """The new run makes one more, useless call per question: calls and wasted_calls rise."""
    golden = [{"id": f"q{i}", "query": f"question {i}", "relevant": [f"d{i}"]} for i in range(8)]
    base = [{"id": f"q{i}", "calls": [{"hits": ["x", f"d{i}"], "tool": "search"}]} for i in range(8)]
    new = [{"id": r["id"], "calls": [*r["calls"], {"hits": ["nothing"], "tool": "search"}]} for r in base]
    return ragauge.compare(_write(tmp_path / "base.jsonl", base), _write(tmp_path / "new.jsonl", new),
                           golden=_write(tmp_path / "golden.jsonl", golden), metrics="recall@3,calls,wasted_calls")


def test_compare_reports_read_a_count_the_right_way_up(tmp_path: Path) -> None:
    c = _comparison(tmp_path)
    assert c.metrics["calls"].lower_is_better and (c.metrics["calls"].better, c.metrics["calls"].worse) == (0, 8)
    assert c.metrics["calls"].diff == 1.0 and not c.metrics["recall@3"].lower_is_better
    text = render_comparison(c, "text")
    assert NOTE in " ".join(text.split()) and "a negative diff (a fall) is better" in " ".join(text.split())
    assert "(calls +1.0000, wasted_calls +1.0000)" in text
    md = render_comparison(c, "markdown")
    assert NOTE.replace("_", "\\_") in md and "calls +1.0000, wasted\\_calls +1.0000" in md
    html = render_comparison(c, "html")
    assert NOTE in html and "calls +1.0000, wasted_calls +1.0000" in html


def test_a_comparison_without_a_count_says_nothing_of_it(tmp_path: Path) -> None:
    c = _comparison(tmp_path)
    shares = Comparison({"recall@3": c.metrics["recall@3"]}, {}, [], c.latency, c.cost, [], c.meta)
    for fmt in ("text", "markdown", "html"):
        assert "lower is better" not in render_comparison(shares, fmt), fmt
