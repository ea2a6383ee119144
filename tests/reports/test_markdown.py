"""The Markdown report: user text cannot break a table or inject HTML."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from ragauge.core.escape import markdown as escape
from ragauge.evaluation.result import Evaluation
from ragauge.reports.render import render

UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


@given(st.text())
def test_escape_makes_any_text_one_inert_cell(text: str) -> None:
    out = escape(text)
    assert "\n" not in out and "\r" not in out
    assert "<" not in out and ">" not in out
    # every pipe is preceded by an odd number of backslashes: escaped
    for m in re.finditer(r"(\\*)\|", out):
        assert len(m.group(1)) % 2 == 1, out


def test_table_rows_keep_their_column_count(evaluation: Evaluation) -> None:
    out = render(evaluation, "markdown", worst=15)
    for block in out.split("\n\n"):
        rows = [line for line in block.splitlines() if line.startswith("| ")]
        if rows:
            widths = {len(UNESCAPED_PIPE.findall(r.replace("\\\\", ""))) for r in rows}
            assert len(widths) == 1, block


def test_script_question_is_text(evaluation: Evaluation) -> None:
    out = render(evaluation, "markdown")
    assert "<script>" not in out and "<img" not in out and "<b>" not in out and "<i>" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt; why does a \\| pipe &amp; an" in out
    assert "\\*tables\\*" in out


def test_worst_questions_are_folded_in_details(evaluation: Evaluation) -> None:
    out = render(evaluation, "markdown", worst=2)
    assert "<details><summary>Worst 2 questions (by hit@1)</summary>" in out
    assert out.count("</details>") == out.count("<details>")
