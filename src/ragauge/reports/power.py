"""Renderers for a PowerReport: text, Markdown and JSON (tags and metric names escaped)."""

from __future__ import annotations

from collections.abc import Callable

from ragauge.comparison.power import MetricPower, PowerReport
from ragauge.core import escape
from ragauge.reports.table import mde_text, text_table


def _needed(p: MetricPower) -> str:
    return "-" if p.needed is None else f"{p.needed:,}"


def _rows(report: PowerReport, text: Callable[[object], str]) -> list[list[str]]:
    effect = report.meta.get("effect")
    rows = []
    for m, p in report.metrics.items():
        row = [text(m), str(p.n), f"{p.sd_diff:.4f}", mde_text(p.mde)]
        rows.append(row + ([_needed(p)] if effect else []))
    return rows


def _header(report: PowerReport) -> list[str]:
    effect = report.meta.get("effect")
    return ["metric", "n", "sd of a change", "MDE"] + ([f"questions for ±{effect:g}"] if effect else [])


def _explain(report: PowerReport) -> list[str]:
    meta = report.meta
    return [f"MDE: the smallest difference these questions detect with {meta['power']:.0%} power in a two-sided "
            f"paired test at alpha {meta['alpha']}; none: fewer than {meta['min_questions']} questions, where no "
            f"test can detect anything. Spread: {meta['spread']}."]


def _sentences(report: PowerReport) -> list[str]:
    """The figures in words: the first metric overall, and each tag too small to detect anything."""
    if not report.metrics:
        return []
    m, p = next(iter(report.metrics.items()))
    out = [f"with {p.n} questions, {m} differences smaller than {mde_text(p.mde)} cannot be told from noise"
           if p.mde is not None else f"with {p.n} questions no {m} difference can be detected"]
    for tag, d in report.by_tag.items():
        q = d.get(m)
        if q is not None and q.mde is None:
            out.append(f"tag '{tag}' (n = {q.n}) cannot detect anything")
    return out


def render_power_text(report: PowerReport) -> str:
    t = escape.terminal
    out = [f"power  run: {t(report.meta['run']['path'])}", ""]
    out += text_table(_header(report), _rows(report, t))
    if report.by_tag:
        first = next(iter(report.metrics), None)
        out += ["", f"by tag ({t(first)})"]
        out += text_table(["tag", "n", "MDE"] + (["questions needed"] if report.meta.get("effect") else []),
                          [[t(tag), str(d[first].n), mde_text(d[first].mde)]
                           + ([_needed(d[first])] if report.meta.get("effect") else [])
                           for tag, d in report.by_tag.items() if first in d])
    out += [""] + [t(s) for s in _sentences(report)] + [""] + [t(s) for s in _explain(report)]
    return "\n".join(out) + "\n"


def render_power_markdown(report: PowerReport) -> str:
    md = escape.markdown
    header = _header(report)
    out = [f"### ragauge power: {md(report.meta['run']['path'])}", "", "| " + " | ".join(header) + " |",
           "|" + "---|" * len(header)]
    out += ["| " + " | ".join(row) + " |" for row in _rows(report, md)]
    out += [""] + [f"- {md(s)}" for s in _sentences(report)] + ["", f"<sub>{md(_explain(report)[0])}</sub>"]
    return "\n".join(out) + "\n"


def render_power(report: PowerReport, fmt: str) -> str:
    """``report`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("power", report, fmt)
