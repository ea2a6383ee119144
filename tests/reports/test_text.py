"""The terminal report: fitting a width, colour only when asked, ids never cut."""

from __future__ import annotations

import re
import sys

import pytest

from ragauge.cli.report import terminal_style
from ragauge.evaluation.result import Evaluation
from ragauge.reports.render import render

ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.parametrize("width", [60, 72, 100, 140])
def test_fits_the_width(evaluation: Evaluation, width: int) -> None:
    long = [line for line in render(evaluation, "text", width=width).splitlines() if len(line) > width]
    assert long == [], long


@pytest.mark.parametrize("width", [40, 60, 72])
def test_never_cuts_or_splits_an_id(evaluation: Evaluation, width: int) -> None:
    lines = render(evaluation, "text", width=width).splitlines()
    for q in evaluation.queries:
        for doc in [r.doc_id for r in q.top] + list(q.relevant):
            assert any(doc in line for line in lines), doc
        assert any(line.startswith(f"  {q.id}  ") for line in lines), q.id


def test_long_question_is_cut_with_an_ellipsis_only_when_fitting(evaluation: Evaluation) -> None:
    fitted = render(evaluation, "text", width=72)
    assert "The laptop fan is very loud and the battery drains in an…" in fitted
    unfitted = render(evaluation, "text")
    assert "before sending it for repair? Second line of the question." in unfitted  # newline folded to a space


def test_columns_past_the_width_are_dropped_with_a_note(evaluation: Evaluation) -> None:
    out = render(evaluation, "text", width=60)
    assert "more column(s) past the terminal width" in out
    assert "95% CI" in out  # the interval column is kept


def test_per_tag_interval_and_small_n_note(evaluation: Evaluation) -> None:
    out = render(evaluation, "text")
    # the betting interval, valid for any values: 1 hit in 3, or 0 of 2, bound nothing (not [0, 0])
    assert re.search(r"^net \*\s+3\s+0\.3333\s+\[0\.000, 1\.000\]", out, re.M), out
    assert re.search(r"^hw \*\s+2\s+0\.0000\s+\[0\.000, 1\.000\]", out, re.M), out
    assert "fewer than 5 questions: too few to mean much" in out


def test_worst_questions_show_rank_expected_and_marked_hits(evaluation: Evaluation) -> None:
    out = render(evaluation, "text", worst=3)
    assert "worst 3 questions" in out
    assert "q4  hit@1=0.0000  missing from the run" in out
    assert "q8  hit@1=0.0000  retriever error: TimeoutError" in out
    out = render(evaluation, "text", worst=15)
    assert "expected: printer (grade 2, rank 3), kb-9 (rank 2)" in out
    assert "returned: a, +kb-9, +printer" in out
    assert "no-answer questions: 1" in out and "q3  top: z" in out


def test_color_only_when_asked(evaluation: Evaluation) -> None:
    assert not ANSI.search(render(evaluation, "text"))
    colored = render(evaluation, "text", color=True, width=80)
    assert ANSI.search(colored)
    assert ANSI.sub("", colored) == render(evaluation, "text", width=80)


class _Tty:
    def isatty(self) -> bool:
        return True


def test_terminal_style_rules(monkeypatch: pytest.MonkeyPatch, tmp_path: object) -> None:
    monkeypatch.setattr(sys, "stdout", _Tty())
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("COLUMNS", "90")
    assert terminal_style(None, no_color=False) == {"color": True, "width": 90}
    assert terminal_style(None, no_color=True)["color"] is False
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal_style(None, no_color=False)["color"] is False
    from pathlib import Path

    assert terminal_style(Path("out.txt"), no_color=False) == {"color": False, "width": None}


def test_terminal_style_on_a_pipe(monkeypatch: pytest.MonkeyPatch) -> None:
    class Pipe:
        def isatty(self) -> bool:
            return False

    monkeypatch.setattr(sys, "stdout", Pipe())
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)
    assert terminal_style(None, no_color=False) == {"color": False, "width": None}


def test_an_all_no_answer_set_prints_n_a_not_nan() -> None:
    """The table printed nan beside a note saying the means are n/a."""
    import ragauge

    golden = [{"id": "q1", "query": "a", "relevant": []}, {"id": "q2", "query": "b", "relevant": []}]
    e = ragauge.evaluate_run(golden, {"q1": ["d"], "q2": ["x"]})
    for fmt in ("text", "markdown"):
        out = render(e, fmt)
        assert not re.search(r"\bnan\b", out) and "n/a" in out, out
    html = render(e, "html")
    assert not re.search(r">\s*nan\s*<", html) and "n/a" in html
