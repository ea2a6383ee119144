"""Renderers for a Comparison: text (terminal), Markdown (pull requests), JSON, HTML.

Metric names, tags, question ids and text, document ids, paths and notes are user text (they come from
the golden set, the runs and saved results): each goes through the output language's escaper in
:mod:`ragauge.core.escape`; HTML through the shared Jinja2 environment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragauge.comparison.result import Comparison, MetricDelta
from ragauge.core import escape
from ragauge.reports.failures import change_examples, change_heading, change_rows, changes_markdown, changes_text
from ragauge.reports.fit import PROSE_WIDTH, fit_table, glue, prose, styler, wrap
from ragauge.reports.predicted import comparison_sections, markdown_lines
from ragauge.reports.table import mde_text
from ragauge.stats import DEFAULT_ALPHA

WORSE_SHOWN = 15


def _signed(x: float) -> str:
    return f"{x:+.4f}"


def _ci(d: MetricDelta) -> str:
    if d.ci[0] != d.ci[0]:
        return "n/a"
    return f"[{d.ci[0]:+.4f}, {d.ci[1]:+.4f}]"


def methods_line(c: Comparison) -> str:
    """Which paired test served which metrics, and what the MDE column means."""
    by_method: dict[str, list[str]] = {}
    for m, d in c.metrics.items():
        by_method.setdefault(d.method or "unknown", []).append(m)
    tests = "; ".join(f"{method} for {', '.join(names)}" for method, names in by_method.items())
    alpha = c.meta.get("alpha", DEFAULT_ALPHA)
    return (f"tests: {tests}; Holm over the metrics, and apart over tags x metrics. MDE: the smallest difference "
            f"this test detects on these questions with 80% power at alpha {alpha}, simulated "
            "(an MDE of none: these questions are too few to detect any difference)")


def lower_line(c: Comparison) -> str | None:
    """What a diff of a count means (``MetricDelta.lower_is_better``); None without such a metric."""
    counts = [m for m, d in c.metrics.items() if d.lower_is_better]
    if not counts:
        return None
    return (f"{', '.join(counts)}: {'a count' if len(counts) == 1 else 'counts'} of calls per question, lower is "
            "better: a negative diff (a fall) is better; better/worse count the questions whose count fell/rose")


def overlap_line(c: Comparison) -> str | None:
    """How much the lists changed, label-free (``meta["overlap"]``, ``evaluation.stages.list_change``);
    None for a comparison saved before it was measured."""
    o = c.meta.get("overlap")
    if not o or o.get("rbo") is None:
        return None
    return (f"lists changed: mean rank-biased overlap {o['rbo']:.4f} (p = {o['rbo_p']:g}, the top {o['rbo_depth']} "
            f"shown; 1 = the same lists); in the top {o['k']}, {o['promoted']} relevant document(s) promoted in "
            f"{o['questions_promoted']} question(s), {o['demoted']} demoted in {o['questions_demoted']}; "
            f"{o['identical']} of {o['questions']} lists identical")


def dropped(c: Comparison, diff: dict[str, float]) -> list[tuple[str, float]]:
    """The metrics of a question that got worse, with new - base: a share that fell, a count that
    rose (``MetricDelta.lower_is_better``; a metric the comparison does not list reads as a share)."""
    return [(m, v) for m, v in diff.items()
            if (v > 0 if m in c.metrics and c.metrics[m].lower_is_better else v < 0)]


def blind_tags(c: Comparison) -> list[str]:
    """Tags whose questions are too few for any test to detect a change."""
    return [tag for tag, d in c.by_tag.items() if all(x.mde is None for x in d.values())]


def _p(x: float) -> str:
    return f"{x:.4f}" if x >= 0.0001 else "<0.0001"


def _rows(c: Comparison, text: Callable[[object], str]) -> list[list[str]]:
    """One row per metric; ``text`` escapes the user text (the metric's name, the verdict)."""
    return [[text(m), f"{d.base:.4f}", f"{d.new:.4f}", _signed(d.diff), _ci(d), _p(d.p_value), _p(d.p_adjusted),
             f"{d.better}/{d.worse}/{d.tied}", mde_text(d.mde), text(d.verdict)] for m, d in c.metrics.items()]


def header(c: Comparison) -> list[str]:
    """The metric table's columns; the interval's confidence is the comparison's 1 - alpha."""
    return ["metric", "base", "new", "diff", f"{confidence(c)} CI", "p", "p (Holm)", "better/worse/tied", "MDE",
            "verdict"]


def confidence(c: Comparison) -> str:
    return f"{c.meta.get('confidence', 0.95):.0%}"


def _color(d: MetricDelta) -> str:
    """The interval bar's colour follows the verdict, not the raw interval."""
    return "#2a7" if d.verdict.startswith("better (") else "#c33" if d.verdict.startswith("worse (") else "#777"


def _rank(r: Any) -> str:
    return str(r) if r else "-"


def render_comparison_text(c: Comparison, worse: int = WORSE_SHOWN, *, color: bool = False,
                           width: int | None = None) -> str:
    """The terminal report. ``width`` None (a file, a pipe): tables at their full width, sentences
    at ``PROSE_WIDTH``; else everything fits ``width`` columns (``reports.fit``: wide tables in blocks,
    nothing dropped). ``color``: bold headings, better and worse verdicts in green and red."""
    t = escape.terminal
    s = styler(color)
    meta = c.meta
    text = prose(PROSE_WIDTH if width is None else width)
    base, new = t(meta["base"]["run"]["path"]), t(meta["new"]["run"]["path"])
    head = f"compare  base: {base}  new: {new}"
    out = [s(head, bold=True)] if width is None or len(head) <= width else [
        s("compare", bold=True), *wrap(f"base: {base}", width, "  ", "    ", split=True),
        *wrap(f"new:  {new}", width, "  ", "    ", split=True)]
    out += [f"{t(meta['paired_questions'])} paired questions", ""]
    verdicts = [d.verdict for d in c.metrics.values()]

    def paint(row: int, column: int) -> dict[str, Any] | None:
        if column != len(header(c)) - 1:
            return None
        return {"fg": "green"} if verdicts[row].startswith("better (") else \
            {"fg": "red"} if verdicts[row].startswith("worse (") else None

    out += fit_table(header(c), _rows(c, t), width, style=s, paint=paint)
    out += ["", *wrap(t(methods_line(c)), text, "", "  ", split=width is not None)]
    for line in (lower_line(c), overlap_line(c)):
        if line:
            out += wrap(t(line), text, "", "  ", split=width is not None)
    for section in comparison_sections(meta):
        out += ["", s(t(section.title), bold=True)]
        out += fit_table([t(h) for h in section.header], [[t(x) for x in row] for row in section.rows], width,
                         keep=2, style=s)
        out += [line for n in section.notes for line in wrap(t(n), text, "", "  ", split=width is not None)]
    if c.by_tag:
        out += ["", *(s(line, bold=True) for line in wrap("by tag (diff new - base, Holm-adjusted p; MDE of the "
                                                          "first metric)", text))]
        metrics = list(c.metrics)
        rows = [[t(tag), str(next(iter(d.values())).n),
                 *(f"{_signed(d[m].diff)} p={_p(d[m].p_adjusted)}" for m in metrics), mde_text(d[metrics[0]].mde)]
                for tag, d in c.by_tag.items()]
        out += fit_table(["tag", "n", *map(t, metrics), "MDE"], rows, width, keep=2, style=s)
        blind = blind_tags(c)
        if blind:
            out += wrap(f"tags too small to detect any change: {t(', '.join(blind))}", width, "  ", "    ",
                        split=True)
    if c.worse_queries:
        title = f"{len(c.worse_queries)} question(s) got worse" + (
            f"; the worst {worse}:" if len(c.worse_queries) > worse else ":")
        out += ["", s(title, bold=True)]
        for q in c.worse_queries[:worse]:
            drops = ", ".join(glue(f"{t(m)} {_signed(v)}") for m, v in dropped(c, q["diff"]))
            out += wrap(f"{t(q['id'])}  first relevant rank {_rank(q['base_rank'])} -> {_rank(q['new_rank'])}"
                        f"  ({drops})", width, "  ", "      ", split=True)
            out += wrap(t(q["query"][:100]), width, "    query:    ", " " * 14, split=True)
            if q["displaced_by"]:
                out += wrap(t(", ".join(q["displaced_by"])), width, "    now above it: ", " " * 18, split=True)
    out += changes_text(c.patterns, t, width=width, style=s)
    for key in ("latency", "cost"):
        side = getattr(c, key)
        if side.get("base") or side.get("new"):
            out += ["", *wrap(f"{key}: base {t(_fmt_stats(side.get('base')))}  new {t(_fmt_stats(side.get('new')))}",
                              width, "", "  ", split=True)]
    if c.notes:
        out += ["", s("notes", bold=True)] + [line for n in c.notes
                                               for line in wrap(t(n), text, "  ! ", "    ", split=width is not None)]
    return "\n".join(out) + "\n"


def _fmt_stats(stats: dict[str, float] | None) -> str:
    if not stats:
        return "(none)"
    return " ".join(f"{k}={v:.4g}" for k, v in stats.items())


def render_comparison_markdown(c: Comparison, worse: int = WORSE_SHOWN) -> str:
    md = escape.markdown
    out = [f"### ragauge compare: {md(c.meta['paired_questions'])} paired questions", ""]
    out.append("| " + " | ".join(header(c)) + " |")
    out.append("|" + "---|" * len(header(c)))
    out += ["| " + " | ".join(row) + " |" for row in _rows(c, md)]
    out += ["", f"<sub>{md(methods_line(c))}</sub>"]
    for line in (lower_line(c), overlap_line(c)):
        if line:
            out += ["", f"<sub>{md(line)}</sub>"]
    out += markdown_lines(comparison_sections(c.meta))
    blind = blind_tags(c)
    if blind:
        out += ["", f"<sub>tags too small to detect any change: {md(', '.join(blind))}</sub>"]
    if c.worse_queries:
        out += ["", f"<details><summary>{len(c.worse_queries)} question(s) got worse</summary>", "",
                "| id | first relevant rank | drops | now above it |", "|---|---|---|---|"]
        for q in c.worse_queries[:worse]:
            drops = ", ".join(f"{md(m)} {_signed(v)}" for m, v in dropped(c, q["diff"]))
            out.append(f"| {md(q['id'])} | {_rank(q['base_rank'])} → {_rank(q['new_rank'])} | {drops} | "
                       f"{', '.join(md(d) for d in q['displaced_by'])} |")
        out += ["", "</details>"]
    out += changes_markdown(c.patterns, md)
    if c.notes:
        out += [""] + [f"> {md(n)}" for n in c.notes]
    return "\n".join(out) + "\n"


def render_comparison_html(c: Comparison) -> str:
    """One self-contained, offline page (autoescaped Jinja2, inline CSS and SVG, no script)."""
    from ragauge.core.jinja import environment, static_file

    env = environment("the HTML comparison")
    from markupsafe import (
        Markup,  # after environment(): a missing Jinja2 gets its hint first
    )

    css = static_file(env, "report.css")
    width = 160.0
    spans = [abs(x) for d in c.metrics.values() for x in (*d.ci, d.diff) if x == x]
    ok = {m: d.ci[0] == d.ci[0] for m, d in c.metrics.items()}
    scale = max(spans + [1e-9])

    def x(v: float) -> float:
        return round(width / 2 + v / scale * (width / 2 - 6), 2)

    rows = [{"name": m, "d": d, "ci": _ci(d), "mde": mde_text(d.mde), "lo": x(d.ci[0]) if ok[m] else x(d.diff),
             "hi": x(d.ci[1]) if ok[m] else x(d.diff), "mid": x(d.diff), "zero": x(0.0),
             "color": _color(d)} for m, d in c.metrics.items()]
    return env.get_template("comparison.html.j2").render(
        css=Markup(css), meta=c.meta, base=c.meta["base"]["run"]["path"], new=c.meta["new"]["run"]["path"],
        rows=rows, w=int(width), names=list(c.metrics), by_tag=list(c.by_tag.items()),
        worse=[{**q, "drops": dropped(c, q["diff"])} for q in c.worse_queries],
        methods=methods_line(c), lower=lower_line(c), overlap=overlap_line(c), blind=blind_tags(c),
        confidence=confidence(c), ppi=[{"key": x.key, "title": x.title, "header": list(x.header),
                                         "rows": [list(r) for r in x.rows], "notes": list(x.notes)}
                                        for x in comparison_sections(c.meta)],
        extras=[("latency (ms)", c.latency), ("cost", c.cost)], notes=c.notes,
        patterns={"heading": change_heading(c.patterns), "rows": change_rows(c.patterns),
                  "examples": change_examples(c.patterns), "notes": c.patterns.get("notes", [])},
    )


def render_comparison(c: Comparison, fmt: str) -> str:
    """``c`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("comparison", c, fmt)
