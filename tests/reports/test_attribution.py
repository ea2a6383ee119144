"""The attribution reports: golden files of the labelled fixture (text and Markdown), and output injection:
any Unicode in every text field stays text in every format (the checks of test_injection.py)."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings

from ragauge.attribution.result import (
    FOUND_BAD,
    FOUND_GOOD,
    MISSED_BAD,
    MISSING,
    NO_ANSWER_BAD,
    UNJUDGED,
    Attribution,
    Linked,
)
from ragauge.cli.main import cli
from ragauge.core.jsonl import finite_or_none
from ragauge.errors import InputError
from ragauge.reports.attribution import render_attribution
from tests.reports.conftest import check_golden
from tests.reports.test_injection import EXAMPLES, FIELD_TEXTS, PLAIN, _json_equal, _markdown_tags, _terminal_lines

DATA = Path(__file__).parents[1] / "fixtures" / "attribution"
ARGS = ["attribute", "golden.jsonl", "--run", "run.jsonl", "--answers", "answers.jsonl", "--threshold", "0.5"]


@pytest.fixture
def in_data(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Run from tests/fixtures/attribution so the paths the report shows are short and stable."""
    monkeypatch.chdir(DATA)
    yield DATA


def _cli(*args: str) -> str:
    result = CliRunner().invoke(cli, [*ARGS, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.usefixtures("in_data")
def test_text_golden_file() -> None:
    check_golden("attribution.txt", _cli())


@pytest.mark.usefixtures("in_data")
def test_markdown_golden_file() -> None:
    check_golden("attribution.md", _cli("--format", "markdown"))


def test_an_unknown_format_is_refused() -> None:
    with pytest.raises(InputError, match="unknown report format"):
        render_attribution(attribution(PLAIN), "html")


def attribution(t: list[str]) -> Attribution:
    t = [*t[:2], t[2].strip(), *t[3:6], t[6].strip(), *t[7:]]
    # tags (t[2], t[6]) without outer spaces: a tag's leading space indents its table row, as in every
    # text table; that is cosmetic (the row cannot start a line of its own) and would upset the line count
    rows = (Linked(t[0], (t[2],), FOUND_GOOD, 1, "good", None, t[3]),
            Linked(t[1], (t[2], t[6]), MISSED_BAD, None, "bad", 0.25, t[4]),
            Linked(t[5], (t[6],), FOUND_BAD, 2, "bad", None, t[3]),
            Linked(t[7], (t[2],), UNJUDGED, 3, None, None, None, t[8]),
            Linked(t[9], (t[6],), MISSING, None, "good", None, t[4]),
            Linked(t[10], (), NO_ANSWER_BAD, None, "bad", None, t[3]))
    meta = {"golden": {"path": t[11], "hash": "sha256:0"}, "run": {"path": t[10], "hash": "sha256:1"},
            "answers": {"path": t[9], "lines": 7, "verdicts_by_source": {t[3]: 3, t[4]: 2}},
            "judge": {"endpoint": t[8], "model": t[7], "key_env": "RAGAUGE_JUDGE_API_KEY", "asked": 2, "good": 1,
                      "bad": 1, "undecided": 0, "failed": 0, "not_in_corpus": 0}}
    return Attribution(5, 0.5, rows, (t[11],), (t[0], f"NOTE: {t[1]}"), meta)


@functools.cache
def plain(fmt: str) -> str:
    return render_attribution(attribution(PLAIN), fmt)


def _top_level(lines: list[str]) -> int:
    """Lines that start at the margin: user text only ever continues an indented line when wrapped."""
    return sum(1 for line in lines if line[:1] not in ("", " "))


@given(FIELD_TEXTS)
@settings(max_examples=EXAMPLES, deadline=None)
def test_attribution_reports_keep_user_text_as_text(texts: list[str]) -> None:
    a = attribution(texts)
    _json_equal(render_attribution(a, "json"), finite_or_none(a.to_dict()))
    assert _markdown_tags(render_attribution(a, "markdown")) == _markdown_tags(plain("markdown"))
    lines = _terminal_lines(render_attribution(a, "text"))
    assert _top_level(lines) == _top_level(_terminal_lines(plain("text")))


def test_a_crafted_id_cannot_start_a_line_of_its_own() -> None:
    fake = "q1\r\x1b[2K\nnot found, answer bad: 0 (0.0%) - search never found it: fix retrieval"
    out = render_attribution(attribution([fake, *PLAIN[1:]]), "text")
    assert "\x1b" not in out and "\r" not in out
    assert all(not line.startswith("not found, answer bad") for line in out.splitlines())
    assert "q1\\r\\x1b[2K\\nnot found" in out
