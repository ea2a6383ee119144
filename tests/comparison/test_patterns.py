"""compare: which failure patterns a change fixed and which it caused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import ragauge
from ragauge.comparison.result import Comparison
from ragauge.reports.comparison import render_comparison

GOLDEN = [
    {"id": "a", "query": "printer shows E-301", "relevant": ["rel-a"]},
    {"id": "b", "query": "y", "relevant": ["rel-b"]},
    {"id": "c", "query": "z", "relevant": ["rel-c"]},
    {"id": "d", "query": "w", "relevant": ["kb#answer"]},
    # found by both: a comparison needs 6 questions, and these add no pattern
    {"id": "e", "query": "v", "relevant": ["rel-e"]},
    {"id": "f", "query": "u", "relevant": ["rel-f"]},
]
BOTH = {"e": ["rel-e"], "f": ["rel-f"]}
BASE = {"a": ["x", "rel-a"], "b": ["x"], "c": ["rel-c"], "d": ["kb#intro", "kb#answer"], **BOTH}
NEW = {"a": ["rel-a"], "b": ["x", "rel-b"], "c": ["x"], "d": ["kb#intro", "kb#answer"], **BOTH}


def rows(c: Comparison) -> dict[str, tuple[int, int, int, int]]:
    return {r["pattern"]: (r["base"], r["new"], r["fixed"], r["caused"]) for r in c.patterns["rows"]}


def test_fixed_and_caused_per_pattern() -> None:
    c = ragauge.compare(BASE, NEW, golden=GOLDEN, k=1)
    assert c.patterns["k"] == 1
    assert rows(c) == {"ranked-too-low": (1, 1, 1, 1), "not-retrieved": (1, 1, 1, 1), "wrong-section": (1, 1, 0, 0)}
    by = {r["pattern"]: r for r in c.patterns["rows"]}
    assert by["ranked-too-low"]["fixed_ids"] == ["a"] and by["ranked-too-low"]["caused_ids"] == ["b"]
    assert by["not-retrieved"]["fixed_ids"] == ["b"] and by["not-retrieved"]["caused_ids"] == ["c"]
    text = render_comparison(c, "text")
    assert "failure patterns at k=1" in text and "ranked too low fixed: a" in text
    assert "| not retrieved at all | 1 | 1 | 1 | 1 |" in render_comparison(c, "markdown")
    assert "failure patterns at k=1" in render_comparison(c, "html")


def test_results_at_different_k_are_not_compared() -> None:
    base = ragauge.evaluate_run(GOLDEN, BASE, k=1)
    new = ragauge.evaluate_run(GOLDEN, NEW, k=[1, 2])
    c = ragauge.compare(base, new, metrics=["hit@1"])
    assert c.patterns["rows"] == [] and "different k (1 and 2)" in c.patterns["notes"][0]


def test_a_pattern_assessed_on_one_side_only_is_left_out_of_both() -> None:
    corpus = {"x": "Printer troubleshooting", "rel-a": "E-301 is a paper jam", "rel-b": "b", "rel-c": "c",
              "kb": "kb", "rel-e": "e", "rel-f": "f"}
    base = ragauge.evaluate_run(GOLDEN, BASE, k=1, corpus=corpus)
    new = ragauge.evaluate_run(GOLDEN, NEW, k=1)
    assert base.queries[0].failure is not None and base.queries[0].failure.primary == "exact-term"
    c = ragauge.compare(base, new)
    assert "exact-term" not in c.patterns["compared"]
    assert rows(c)["ranked-too-low"][:3] == (1, 1, 1)  # a's base primary without the text patterns
    assert "assessed in only one result" in c.patterns["notes"][0]


def test_a_comparison_file_without_patterns_still_loads(tmp_path: Path) -> None:
    data: dict[str, Any] = ragauge.compare(BASE, NEW, golden=GOLDEN, k=1).to_dict()
    del data["patterns"]
    old = Comparison.from_dict(json.loads(json.dumps(data)))
    assert old.patterns == {} and "failure patterns" not in render_comparison(old, "text")
