"""Output injection: any Unicode in every text field of an evaluation, a comparison, a gate result and a
history, rendered in every format, stays text.

Each example fills the fields (question ids, questions, tags, document ids, error text, warnings,
notes, rules, labels, paths) with arbitrary text (controls, lone surrogates, bidi controls, Markdown and
HTML syntax, URLs, mentions), renders, and checks each format: JSON parses back equal; JUnit parses
with ElementTree and its names come back; Markdown, rendered like GitHub, has exactly the elements it
has with plain text in the same fields (no link, image, raw HTML or extra cell) and no mention or bare
URL; HTML has exactly the elements it has with plain text; terminal text has no control character but
newline, no bidi control, and exactly the lines it has with plain text (no line of its own, so no fake
"gate PASSED").
"""

from __future__ import annotations

import functools
import json
import re
import xml.etree.ElementTree as ET
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ragauge.comparison.result import Comparison, MetricDelta
from ragauge.core import escape
from ragauge.evaluation.patterns import Assessment, Failure
from ragauge.evaluation.result import Evaluation, QueryScore, Returned
from ragauge.gating.check import GateResult, RuleOutcome
from ragauge.reports.comparison import render_comparison
from ragauge.reports.gate import render_gate
from ragauge.reports.render import render
from tests.reports.inert import TERMINAL_UNSAFE, assert_nothing_linked, gfm, nodes
from tests.reports.test_escape import NASTY

EXAMPLES = 60
FIELDS = 12
SGR = re.compile(r"\x1b\[[0-9;]*m")  # the styles the text report itself adds with color on

TEXT = (st.text(st.characters(codec=None, exclude_categories=()), min_size=1, max_size=24)
        | st.sampled_from(NASTY)
        | st.lists(st.sampled_from(NASTY), min_size=2, max_size=3).map(" ".join))
FIELD_TEXTS = st.lists(TEXT.filter(lambda s: bool(s.split())), min_size=FIELDS, max_size=FIELDS,
                       unique_by=lambda s: " ".join(s.split()))
"""Distinct, not blank: the same structure as the plain texts (an empty id would drop a bold, say)."""
PLAIN = [f"plain{i}" for i in range(FIELDS)]


# --- results with text in every field --------------------------------------------------------------

def evaluation(t: list[str]) -> Evaluation:
    m = ("hit@1", "recall@3")
    why = Failure("wrong-section", ("exact-term", t[8]),
                  {"wrong-section": {"ids": [t[4]]}, "exact-term": {"terms": [t[5]]}})
    q1 = QueryScore(t[0], t[1], (t[2],), {"hit@1": 0.0, "recall@3": 0.0}, {t[3]: 1.0}, None,
                    (Returned(t[4], 1, None, 0.9), Returned(t[5], 2, None, 0.5)), 2, 2, status="error", error=t[6],
                    failure=why)
    q2 = QueryScore(t[7], t[8], (t[2],), {"hit@1": 1.0, "recall@3": 1.0}, {t[3]: 2.0}, 1,
                    (Returned(t[3], 1, 2.0, 0.8),), 1, 1, latency_ms=12.0)
    no_answer = {"n": 1, "questions": [{"id": t[9], "query": t[10], "tags": [], "top": [{"doc_id": t[4], "rank": 1}]}]}
    meta = {"golden": {"path": t[11], "hash": "sha256:0"},
            "run": {"path": t[10], "hash": "sha256:1", "format": "jsonl"},
            "contract": {"k": [1, 3], "relevance": "grade >= 1", "dedup": "by document", "doc_id": t[9]},
            "counts": {"questions": 3, "answerable": 2, "no_answer": 1}, "ragauge_version": "0.0.0"}
    return Evaluation(m, {"hit@1": 0.5, "recall@3": 0.5}, {t[2]: {"n": 2, "hit@1": 0.5, "recall@3": 0.5}}, (q1, q2),
                      no_answer, (t[6], t[11]), meta, Assessment(3, {"vocabulary-gap": t[9]}, (t[10],)))


def comparison(t: list[str]) -> Comparison:
    d = MetricDelta(2, 0.5, 0.25, -0.25, (-0.5, 0.0), 0.5, 0.5, 0, 1, 1, "no significant change")
    worse = [{"id": t[0], "query": t[1], "base_rank": 1, "new_rank": None, "diff": {"recall@3": -0.5},
              "displaced_by": [t[4], t[5]], "expected": [t[3]]}]
    meta = {"base": {"run": {"path": t[10]}}, "new": {"run": {"path": t[11]}}, "paired_questions": 2,
            "resamples": 100, "seed": 0}
    patterns = {"k": 3, "compared": [], "notes": [t[9]],
                "rows": [{"pattern": t[8], "title": t[8], "base": 1, "new": 0, "fixed": 1, "caused": 0,
                          "fixed_ids": [t[0]], "caused_ids": []}]}
    return Comparison({"recall@3": d}, {t[2]: {"recall@3": d}}, worse, {"base": {}, "new": {}}, {"base": {}, "new": {}},
                      [t[6], t[7]], meta, patterns)


def gate(t: list[str]) -> GateResult:
    outcomes = [RuleOutcome("tag_floor", t[0], False, t[1], [{"id": t[2], "now": 0.25, "query": t[3]}]),
                RuleOutcome("critical", t[4], True, t[5]),
                RuleOutcome("metric", t[6], False, t[7], [{"id": t[8], "expected": [t[9]], "returned": [t[10]]}])]
    return GateResult(outcomes, {"baseline": t[11], "baseline_created": t[9], "baseline_reason": t[10]})


def _json_equal(out: str, value: dict[str, Any]) -> None:
    out.encode("utf-8")
    assert not TERMINAL_UNSAFE.search(out)
    assert json.loads(out) == json.loads(json.dumps(value))


def _junit(out: str) -> ET.Element:
    return ET.fromstring(out.encode("utf-8"))


def _terminal_lines(out: str) -> list[str]:
    out.encode("utf-8")
    bad = TERMINAL_UNSAFE.search(SGR.sub("", out))
    assert bad is None, repr(bad.group())
    return out.splitlines()


def _markdown_tags(out: str) -> list[str]:
    out.encode("utf-8")
    assert not TERMINAL_UNSAFE.search(out)
    page = nodes(gfm(out))
    assert_nothing_linked(page)
    return [name for name, _ in page.tags]


def _html_tags(out: str) -> list[tuple[str, list[tuple[str, str | None]]]]:
    out.encode("utf-8")
    return [(name, [(k, None) for k, _ in attrs]) for name, attrs in nodes(out).tags]


@functools.cache
def plain(kind: str, fmt: str, **options: Any) -> str:
    """A report of the result with plain text in every field (the shape to compare with), once."""
    if kind == "evaluation":
        return render(evaluation(PLAIN), fmt, **options)
    if kind == "comparison":
        return render_comparison(comparison(PLAIN), fmt)
    return render_gate(gate(PLAIN), fmt)


# --- the properties --------------------------------------------------------------------------------

@given(FIELD_TEXTS)
@settings(max_examples=EXAMPLES, deadline=None)
def test_evaluation_reports(texts: list[str]) -> None:
    ev = evaluation(texts)
    _json_equal(render(ev, "json"), ev.to_dict())
    root = _junit(render(ev, "junit"))
    assert {c.get("name") for c in root.iter("testcase")} == {escape.xml(texts[0]), escape.xml(texts[7])}
    assert _markdown_tags(render(ev, "markdown")) == _markdown_tags(plain("evaluation", "markdown"))
    assert _html_tags(render(ev, "html")) == _html_tags(plain("evaluation", "html"))
    for options in ({}, {"width": 60}, {"color": True}):
        lines = _terminal_lines(render(ev, "text", **options))
        if "width" not in options:
            assert len(lines) == len(_terminal_lines(plain("evaluation", "text", **options)))


@given(FIELD_TEXTS)
@settings(max_examples=EXAMPLES, deadline=None)
def test_comparison_reports(texts: list[str]) -> None:
    c = comparison(texts)
    _json_equal(render_comparison(c, "json"), c.to_dict())
    assert _markdown_tags(render_comparison(c, "markdown")) == _markdown_tags(plain("comparison", "markdown"))
    assert _html_tags(render_comparison(c, "html")) == _html_tags(plain("comparison", "html"))
    assert len(_terminal_lines(render_comparison(c, "text"))) == len(_terminal_lines(plain("comparison", "text")))


@given(FIELD_TEXTS)
@settings(max_examples=EXAMPLES, deadline=None)
def test_gate_reports(texts: list[str]) -> None:
    g = gate(texts)
    _json_equal(render_gate(g, "json"), g.to_dict())
    root = _junit(render_gate(g, "junit"))
    assert [c.get("name") for c in root.iter("testcase")] == [escape.xml(texts[i]) for i in (0, 4, 6)]
    assert _markdown_tags(render_gate(g, "markdown")) == _markdown_tags(plain("gate", "markdown"))
    lines = _terminal_lines(render_gate(g, "text"))
    assert len(lines) == len(_terminal_lines(plain("gate", "text")))
    assert [line for line in lines if line.startswith("gate ")] == lines[:1]


def test_a_crafted_id_cannot_fake_a_passing_gate_line() -> None:
    fake = "q1\r\x1b[2K\x1b[32mgate PASSED\x1b[0m\ngate PASSED"
    out = render_gate(gate([fake, *PLAIN[1:]]), "text")
    assert out.count("\n") == plain("gate", "text").count("\n")
    assert "\x1b" not in out and "\r" not in out
    assert "q1\\r\\x1b[2K\\x1b[32mgate PASSED\\x1b[0m\\ngate PASSED" in out


def _history(t: list[str]) -> tuple[Any, ...]:
    from ragauge.history.model import Entry, QuestionPoint
    from ragauge.history.report import build_series, find_flips, markers

    def entry(i: int, value: float) -> Entry:
        q = QuestionPoint(t[0], t[1], (t[2],), {"hit@1": value}, 1 if value else None)
        return Entry(i, f"2026-01-0{i}T00:00:00Z", t[3] if i == 2 else None, f"sha256:{t[4]}", t[5], 1, t[6], None,
                     t[7], None, t[8], "0.0.0", ("hit@1",), {}, {"hit@1": value},
                     {t[2]: {"n": 1, "hit@1": value}}, {"answerable": 1}, {}, (q,))

    entries = [entry(1, 1.0), entry(2, 0.0)]
    return entries, markers(entries), build_series(entries), find_flips(entries[0], entries[1]), t[9]


@given(FIELD_TEXTS)
@settings(max_examples=EXAMPLES // 2, deadline=None)
def test_history_and_golden_validation_reports(texts: list[str]) -> None:
    from ragauge.curation.validate import Finding, ValidationReport
    from ragauge.reports.history_html import render_html as history_html
    from ragauge.reports.history_text import render_text as history_text
    from ragauge.reports.validation import render_validation_text as render_text

    args, plain_args = _history(texts), _history(PLAIN)
    assert len(_terminal_lines(history_text(*args))) == len(_terminal_lines(history_text(*plain_args)))
    assert _html_tags(history_html(*args)) == _html_tags(history_html(*plain_args))

    def report(t: list[str]) -> ValidationReport:
        return ValidationReport(t[0], 2, 1, 1, {t[1]: 1, t[2]: 1},
                                (Finding("error", "duplicate-id", t[3], 2, (t[4],), t[5]),), None, 5)

    lines = _terminal_lines(render_text(report(texts)))
    assert len(lines) == len(_terminal_lines(render_text(report(PLAIN))))
