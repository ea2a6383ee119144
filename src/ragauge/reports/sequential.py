"""Renderers for a sequential comparison: text, Markdown, JSON. Specs and notes are user text, each
through its output language's escaper (:mod:`ragauge.core.escape`)."""

from __future__ import annotations

from ragauge.comparison.sequential import METHOD, SequentialComparison
from ragauge.core import escape


def _lines(c: SequentialComparison) -> list[tuple[str, str]]:
    t = c.test
    return [
        ("base", str(c.base.get("spec"))),
        ("new", str(c.new.get("spec"))),
        ("metric", c.metric),
        ("verdict", c.verdict),
        ("questions asked", f"{t.asked} of {c.available} (order seed {c.seed}); {c.calls} retriever calls"),
        ("mean difference", "n/a" if t.diff != t.diff else f"{t.diff:+.4f} (new - base)"),
        (f"{1 - t.alpha:.0%} confidence sequence", f"[{t.ci[0]:+.4f}, {t.ci[1]:+.4f}]"),
        ("method", METHOD),
    ]


def render_sequential_markdown(c: SequentialComparison) -> str:
    md = escape.markdown
    rows = [f"| {md(k)} | {md(v)} |" for k, v in _lines(c)]
    return "\n".join(["### ragauge sequential comparison", "", "| | |", "|---|---|", *rows]) + "\n"


def render_sequential_text(c: SequentialComparison) -> str:
    t = escape.terminal
    width = max(len(k) for k, _ in _lines(c))
    return "\n".join(f"{t(k).ljust(width)}  {t(v)}" for k, v in _lines(c)) + "\n"


def render_sequential(c: SequentialComparison, fmt: str) -> str:
    """``c`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("sequential", c, fmt)
