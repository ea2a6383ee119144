"""Renderers for a SweepResult: text (terminal), Markdown, JSON and an offline HTML page.

Configuration names, options, paths and notes are user text: each goes through the output language's
escaper in :mod:`ragauge.core.escape` (HTML through the shared Jinja2 environment).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ragauge.comparison.result import MetricDelta
from ragauge.core import escape
from ragauge.core.jsonl import dumps
from ragauge.experiments.analysis import significant
from ragauge.experiments.result import ConfigRow, SweepResult
from ragauge.reports.fit import fit_table, prose, styler, wrap
from ragauge.reports.registry import formats
from ragauge.reports.views import budget_text

FORMATS = formats("sweep")


def _num(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None or math.isnan(x) else f"{x:.{digits}f}"


def delta_cell(d: MetricDelta | None, alpha: float) -> str:
    """``+0.012 [-0.030, +0.050]*``: the difference, its interval, ``*`` when significant after Holm."""
    if d is None:
        return "reference"
    if d.ci[0] != d.ci[0]:
        return f"{d.diff:+.3f} [n/a]"
    return f"{d.diff:+.3f} [{d.ci[0]:+.3f}, {d.ci[1]:+.3f}]" + ("*" if significant(d, alpha) else "")


def ordered_metrics(r: SweepResult) -> list[str]:
    """The primary metric first, then the others in the sweep's order."""
    return [r.primary] + [m for m in r.metrics if m != r.primary]


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f}"


def _ms(row: ConfigRow, key: str) -> str:
    return "n/a" if row.latency_ms is None else f"{row.latency_ms[key]:.1f}"


def header(r: SweepResult) -> list[str]:
    cells = ["configuration"]
    for m in ordered_metrics(r):
        cells += [m, f"diff [{1 - r.alpha:.0%} CI]"]
    return cells + ["p50 ms", "p95 ms", RERANK_HEADER, "index MB", "build s", f"ceiling {r.primary}", "frontier"]


RERANK_HEADER = "rerank ms (first stage)"


def rerank_cell(row: ConfigRow) -> str:
    """``8.1 (2.3)``: the reranker's p50 per question and, in parentheses, its first stage's; blank
    for a configuration without a reranker."""
    if row.rerank_ms is None:
        return ""
    return f"{row.rerank_ms['p50']:.1f} ({row.rerank_ms['first_p50']:.1f})"


def rows(r: SweepResult, text: Callable[[object], str]) -> list[list[str]]:
    """One row per configuration; ``text`` escapes the user text (names)."""
    out = []
    for row in r.confirmed:
        mark = " (best)" if row.name == r.selection.best else ""
        cells = [text(row.name) + mark]
        for m in ordered_metrics(r):
            cells += [_num(row.means[m]), delta_cell(row.deltas.get(m) if row.name != r.reference else None, r.alpha)]
        cells += [_ms(row, "p50"), _ms(row, "p95"), rerank_cell(row), _mb(row.index_bytes),
                  "n/a" if row.index_seconds is None else f"{row.index_seconds:.1f}",
                  "" if row.ceiling is None else _num(row.ceiling[r.primary]), "yes" if row.pareto else ""]
        out.append(cells)
    return out


def legend(r: SweepResult) -> str:
    tests = sum(len(row.deltas) for row in r.rows)
    return (f"diff: configuration - reference ({r.reference}) on the same questions, paired test per metric; "
            f"* significant after Holm over {tests} tests (configurations x metrics) at alpha {r.alpha:g} (the "
            f"intervals are each test's own, not widened for the correction); "
            f"frontier: no other configuration has a higher {r.primary}, a lower p50 latency and a smaller index "
            f"all at once; build s: the time the configuration's indexes took to build (once, shared); ceiling: "
            f"for a rescored configuration, its {r.primary} had its candidates been ordered perfectly; rerank ms: "
            f"for a reranked configuration, the median time per question its reranker took, and in parentheses "
            f"its first stage's, both timed inside the retriever (p50 ms is the whole call)"
            + (f"; {budget}" if (budget := budget_text(r.metrics, r.meta.get("contract", {}))) else ""))


def questions_line(r: SweepResult) -> str:
    q = r.meta.get("questions", {})
    line = f"{q.get('answerable', '?')} answerable questions"
    if r.holdout is not None:
        line += f": tuned on {r.holdout.tune}, {r.holdout.held_out} held out ({r.holdout.rule})"
    return line


def holdout_rows(r: SweepResult, text: Callable[[object], str]) -> list[list[str]]:
    h = r.holdout
    if h is None:
        return []
    return [[text(m), _num(h.tuned[m]), _num(h.means[m]), _num(h.reference_means[m]),
             delta_cell(h.deltas.get(m), r.alpha) if h.deltas else "(the reference itself)",
             text(h.deltas[m].verdict) if m in h.deltas else ""] for m in ordered_metrics(r)]


def dropped_header(r: SweepResult) -> list[str]:
    return ["configuration", "dropped in round", "questions", *ordered_metrics(r), "p50 ms", "p95 ms"]


def dropped_rows(r: SweepResult, text: Callable[[object], str]) -> list[list[str]]:
    """One row per configuration successive halving dropped: its means on the sample it answered."""
    return [[text(row.name), str(row.dropped), str(row.sample), *(_num(row.means[m]) for m in ordered_metrics(r)),
             _ms(row, "p50"), _ms(row, "p95")] for row in r.dropped]


def halving_line(r: SweepResult) -> str:
    """What successive halving did, in one line ("" without it)."""
    h = r.halving
    if h is None:
        return ""
    rounds = "; ".join(f"round {i}: {x.configurations} configurations on {x.questions} questions, {len(x.dropped)} "
                       f"dropped" for i, x in enumerate(h.rounds, start=1))
    return (f"successive halving (budget {h.budget} retrievals, factor {h.factor}): {rounds}; then {h.confirmed} on "
            f"all {h.questions} questions; {h.retrievals} retrievals of the full sweep's {h.full}")


DROPPED_TITLE = ("dropped by successive halving: means on the sample of tuning questions each answered (not comparable "
                 "with the table above, not tested)")
HOLDOUT_HEADER = ["metric", "tuned (chosen on)", "held out", "reference, held out", "diff [CI]", "verdict"]
INDEX_HEADER = ["index", "passages", "build s", "opened s", "size MB", "cached", "used by"]


def index_rows(r: SweepResult, text: Callable[[object], str]) -> list[list[str]]:
    return [[text(i.spec), str(i.passages), "n/a" if i.build_seconds is None else f"{i.build_seconds:.1f}",
             f"{i.open_seconds:.1f}", _mb(i.size_bytes), "yes" if i.cached else "no", str(len(i.used_by))]
            for i in r.indexes]


def time_line(r: SweepResult) -> str:
    s = r.meta.get("seconds", {})
    return (f"wall time: indexes {s.get('indexes', 0):.1f} s, runs {s.get('runs', 0):.1f} s, total "
            f"{s.get('total', 0):.1f} s (concurrency {r.meta.get('concurrency')}, fetch {r.meta.get('fetch')})")


def render_text(r: SweepResult, *, color: bool = False, width: int | None = None) -> str:
    """The terminal report. ``width`` None (a file, a pipe): every table and sentence on full-width
    lines; else everything fits ``width`` columns (``reports.fit``: a table too wide is printed in
    blocks of its columns, each metric with its difference, nothing dropped). ``color``: bold
    headings, significant differences in green (better) or red (worse)."""
    t = escape.terminal
    s = styler(color)
    text = prose(width)
    split = width is not None
    golden = r.meta.get("golden", {})
    where = [f"golden: {t(golden.get('path'))}", f"corpus: {t(r.meta.get('corpus', {}).get('path'))}"]
    head = "ragauge sweep  " + "  ".join(where)
    out = [s(head, bold=True)] if width is None or len(head) <= width else [
        s("ragauge sweep", bold=True), *(x for w in where for x in wrap(w, width, "  ", "    ", split=True))]
    out += [*wrap(f"{t(questions_line(r))}; reference: {t(r.reference)}; primary metric: {t(r.primary)}", text,
                  split=split), ""]
    body = rows(r, t)
    cells = [row[1:-7] for row in body]  # each metric's mean and difference, in pairs

    def paint(row: int, column: int) -> dict[str, Any] | None:
        cell = cells[row][column - 1] if 1 <= column <= len(cells[row]) else ""
        return {"fg": "green" if cell.startswith("+") else "red"} if cell.endswith("*") else None

    out += fit_table(header(r), body, width, groups=[2] * len(ordered_metrics(r)), style=s, paint=paint)
    out += ["", *wrap(t(legend(r)), text, split=split), "",
            *(s(x, bold=True) for x in wrap(t(r.selection.statement), text, split=split))]
    if r.halving is not None:
        out += ["", *wrap(t(halving_line(r)), text, split=split), "",
                *(s(x, bold=True) for x in wrap(DROPPED_TITLE, text, split=split))]
        out += fit_table(dropped_header(r), dropped_rows(r, t), width, style=s)
    if r.holdout is not None:
        out += ["", *(s(x, bold=True) for x in wrap(
            f"holdout: {t(r.holdout.chosen)}, chosen on {r.holdout.tune} questions, measured on "
            f"{r.holdout.held_out} it was not chosen on", text, split=split))]
        out += fit_table(HOLDOUT_HEADER, holdout_rows(r, t), width, style=s)
    out += ["", *(s(x, bold=True) for x in wrap("indexes (each built once, shared by the configurations that use it)",
                                                text, split=split))]
    out += fit_table(INDEX_HEADER, index_rows(r, t), width, style=s)
    out += ["", *wrap(t(time_line(r)), text, split=split)]
    if r.notes:
        out += ["", s("notes", bold=True)] + [x for n in r.notes for x in wrap(t(n), text, "  ! ", "    ", split=split)]
    return "\n".join(out) + "\n"


def _md_table(head: list[str], body: list[list[str]]) -> list[str]:
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + ["| " + " | ".join(b) + " |" for b in body]


def render_markdown(r: SweepResult) -> str:
    md = escape.markdown
    golden = r.meta.get("golden", {})
    out = [f"### ragauge sweep: {len(r.rows)} configurations", "",
           f"golden: {md(golden.get('path'))}, corpus: {md(r.meta.get('corpus', {}).get('path'))}; "
           f"{md(questions_line(r))}; reference: {md(r.reference)}; primary metric: {md(r.primary)}", ""]
    out += _md_table([md(h) for h in header(r)], rows(r, md))
    out += ["", f"<sub>{md(legend(r))}</sub>", "", f"**{md(r.selection.statement)}**"]
    if r.halving is not None:
        out += ["", md(halving_line(r)), "", f"<details><summary>{md(DROPPED_TITLE)}</summary>", ""]
        out += _md_table([md(h) for h in dropped_header(r)], dropped_rows(r, md)) + ["", "</details>"]
    if r.holdout is not None:
        out += ["", f"Holdout: {md(r.holdout.chosen)}, chosen on {r.holdout.tune} questions, measured on "
                    f"{r.holdout.held_out} it was not chosen on", ""]
        out += _md_table(HOLDOUT_HEADER, holdout_rows(r, md))
    out += ["", "<details><summary>indexes and wall time</summary>", ""]
    out += _md_table(INDEX_HEADER, index_rows(r, md))
    out += ["", md(time_line(r)), "", "</details>"]
    if r.notes:
        out += [""] + [f"> {md(n)}" for n in r.notes]
    return "\n".join(out) + "\n"


def render_json(r: SweepResult) -> str:
    return dumps(r.to_dict(), indent=2) + "\n"


def render_sweep(r: SweepResult, fmt: str) -> str:
    """``r`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("sweep", r, fmt)


def frontier_points(r: SweepResult) -> list[dict[str, Any]]:
    """(name, primary mean, p50 latency, index MB, on the frontier) per configuration, for the plot."""
    return [{"name": row.name, "quality": row.means[r.primary],
             "latency": None if row.latency_ms is None else row.latency_ms["p50"],
             "size": row.index_bytes / 1e6, "pareto": row.pareto, "best": row.name == r.selection.best}
            for row in r.confirmed]
