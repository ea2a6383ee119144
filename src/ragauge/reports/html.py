"""The HTML report: one self-contained file that works offline.

Inline CSS, JS and SVG only; a Content-Security-Policy forbids every network request and every
script but the report's own (pinned by its hash), so even a failure of escaping could not load or run
anything. Jinja2 renders with autoescape on; the per-question data for the table travels as JSON
inside ``<script type="application/json">`` with ``<``, ``>`` and ``&`` escaped, and the script
writes user text with ``textContent`` only.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from ragauge.core.jinja import script_json as script_json
from ragauge.evaluation.patterns import PATTERNS
from ragauge.evaluation.result import Evaluation
from ragauge.reports import failures
from ragauge.reports.agents import Section, sections
from ragauge.reports.predicted import evaluation_sections
from ragauge.reports.views import (
    CONFIDENCE,
    NAN,
    NOT_FOUND,
    SMALL_TAG,
    budget_rule,
    fetch_label,
    is_count,
    is_judged,
    judged_line,
    lower_note,
    main_metric,
    max_cutoff,
    mean_text,
    rank_histogram,
    recall_curve,
    source_caption,
    source_rows,
    table_metrics,
    tag_rows,
    unjudged_rule,
    worst_questions,
)

CHART_W = 720   # the by-tag chart (viewBox units)
PAIR_W = 520    # the two charts side by side
LABEL_CHARS = 26
JUDGED_NOTE = "how complete the labels are, not how good the ranking is"
LOWER = "lower is better"
COUNT_NOTE = "a count of calls per question, lower is better"


def _short(text: str, n: int = LABEL_CHARS) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def _weakest(value: float) -> tuple[bool, float]:
    """Sorts values weakest first, NaN (no value) last."""
    return (value != value, 0.0 if value != value else value)


def _tag_charts(evaluation: Evaluation) -> list[dict[str, Any]]:
    """One horizontal bar chart per metric: a bar per tag, weakest first by that metric (ties in the
    result's order, a tag without a value last), with its 95% interval as a whisker (none below 2
    questions). The page shows the main metric's (``views.main_metric``) first. A count of calls
    (lower is better, not in [0, 1]) has no bar: its tags show their number, the highest first."""
    rows = tag_rows(evaluation, ci_metrics=evaluation.metrics)
    if not rows:
        return []
    left, bar_w, row_h, top = 200, 400, 26, 24
    scale = bar_w / 1.0
    charts = []
    main = main_metric(evaluation.metrics)
    for m in evaluation.metrics:
        bars = []
        count = is_count(m)
        for i, r in enumerate(sorted(rows, key=lambda r: _weakest(-r.means[m] if count else r.means[m]))):
            value = r.means[m]
            lo, hi = r.ci.get(m, (value, value))
            y = top + i * row_h
            bars.append({"tag": r.tag, "label": _short(r.tag), "n": r.n, "small": r.small, "value": value,
                         "lo": lo, "hi": hi, "y": y, "cy": y + row_h / 2 - 1, "w": max(value * scale, 0.0),
                         "lo_x": left + lo * scale, "hi_x": left + hi * scale})
        ticks = [] if count else [{"x": left + t * scale, "label": f"{t:g}"} for t in (0, 0.25, 0.5, 0.75, 1.0)]
        charts.append({"metric": m, "main": m == main, "bars": bars, "left": left, "bar_w": bar_w, "row_h": row_h,
                       "top": top, "height": top + len(rows) * row_h + 8, "ticks": ticks, "count": count})
    return charts


def _histogram(evaluation: Evaluation) -> dict[str, Any]:
    bins = rank_histogram(evaluation)
    total = sum(c for _, c in bins) or 1
    left, top, plot_h, gap = 12, 22, 170, 8
    slot = (PAIR_W - left - 12) / len(bins)
    peak = max((c for _, c in bins), default=0) or 1
    bars = []
    for i, (label, count) in enumerate(bins):
        h = plot_h * count / peak
        x = left + i * slot + gap / 2
        bars.append({"label": label, "count": count, "share": count / total, "x": x, "w": slot - gap,
                     "y": top + plot_h - h, "h": h, "cx": x + (slot - gap) / 2, "missing": label == NOT_FOUND})
    return {"bars": bars, "base": top + plot_h, "height": top + plot_h + 44, "left": left, "right": PAIR_W - 12,
            "width": PAIR_W, "total": total}


def _curve(evaluation: Evaluation) -> dict[str, Any]:
    curve = recall_curve(evaluation)
    left, right, top, plot_h = 40, 16, 12, 180
    plot_w = PAIR_W - left - right
    if curve.depth == 0:
        return {"depth": 0}

    def x(k: int) -> float:
        return left + (plot_w * (k - 1) / (curve.depth - 1) if curve.depth > 1 else plot_w / 2)

    def y(v: float) -> float:
        return top + plot_h * (1 - v)

    step = 1 if curve.depth <= 20 else 5 if curve.depth <= 100 else 10
    xticks = sorted({1, curve.depth, *range(step, curve.depth + 1, step)})
    series = []
    for name, values, cls in (("recall@k", curve.recall, "recall"), ("hit@k", curve.hit, "hit")):
        stem = name.split("@")[0]
        points = [{"x": x(k), "y": y(v), "label": f"{stem}@{k}", "v": v} for k, v in enumerate(values, start=1)]
        series.append({"name": name, "cls": cls, "points": points,
                       "path": " ".join(f"{p['x']:.1f},{p['y']:.1f}" for p in points)})
    return {"depth": curve.depth, "series": series, "left": left, "right": PAIR_W - right, "top": top,
            "base": top + plot_h, "height": top + plot_h + 54, "width": PAIR_W,
            "yticks": [{"y": y(t), "label": f"{t:g}"} for t in (0, 0.25, 0.5, 0.75, 1.0)],
            "xticks": [{"x": x(k), "label": str(k)} for k in xticks]}


def _questions(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The rows the table script shows, worst first (the text report's order)."""
    order = worst_questions(evaluation, len(evaluation.queries))
    return [{
        "id": q.id, "q": q.query, "tags": list(q.tags), "v": [q.values.get(m) for m in evaluation.metrics],
        "rank": q.first_relevant_rank, "status": q.status, "error": q.error,
        "rel": [[doc, grade] for doc, grade in q.relevant.items()],
        "top": [[r.doc_id, r.grade, r.score] for r in q.top],
        "hits": q.n_hits, "unique": q.n_unique, "folded": q.folded, "lat": q.latency_ms, "extra": q.extra,
        "fail": list(q.failure.patterns) if q.failure else [], "why": failures.why(q) or None,
    } for q in order]


def _failures(evaluation: Evaluation) -> dict[str, Any] | None:
    """The "why it failed" table, its notes, and the patterns the question table can filter by."""
    table = evaluation.failure_table
    if table is None:
        return None
    line = failures.ceiling(table, fetch_label(evaluation))
    return {"summary": failures.summary(table), "header": failures.HEADER, "misses": table.misses,
            "rows": [{"name": r.pattern.name, "cells": cells, "fix": r.pattern.fix}
                     for cells, r in zip(failures.rows(table), table.rows)],
            "notes": ([line] if line else []) + failures.caveats(table),
            "filter": [(r.pattern.name, r.pattern.title) for r in table.rows if r.count]}


def _ms(value: float) -> str:
    return f"{value:.1f}" if value < 10 else f"{value:.0f}"


def _cards(evaluation: Evaluation) -> list[dict[str, str]]:
    """A card per metric (judged@k ones marked apart: they describe the labels, not the ranking),
    then the mean judged@k the result records (``meta["judged"]``) unless a metric card shows it,
    then the counts and the latency."""
    meta = evaluation.meta
    counts = meta.get("counts", {})
    cards = [{"label": f"{m} ({LOWER})" if is_count(m) else m, "value": mean_text(evaluation.summary.get(m, NAN)),
              "unit": "", "kind": "judged" if is_judged(m) else "metric",
              "title": JUDGED_NOTE if is_judged(m) else COUNT_NOTE if is_count(m) else ""}
             for m in evaluation.metrics]
    recorded, line = meta.get("judged") or {}, judged_line(evaluation)
    name = "judged" if recorded.get("k") is None else f"judged@{recorded['k']}"
    if line is not None and name not in evaluation.metrics:
        cards.append({"label": f"{name}: share labelled", "value": mean_text(float(recorded["mean"])), "unit": "",
                      "kind": "judged", "title": f"{line} ({JUDGED_NOTE})"})
    cards.append({"label": "answerable questions", "value": str(counts.get("answerable", len(evaluation.queries))),
                  "unit": "", "kind": "count"})
    for key, label in (("no_answer", "no-answer (apart)"), ("missing", "missing from run"),
                       ("errors", "retriever errors")):
        if counts.get(key) or key == "no_answer":
            cards.append({"label": label, "value": str(counts.get(key, 0)), "unit": "",
                          "kind": "count" if key == "no_answer" else "bad"})
    latency = meta.get("latency_ms")
    if latency:
        cards.append({"label": f"latency p50 (p95 {_ms(latency['p95'])} ms)", "value": _ms(latency["p50"]),
                      "unit": "ms", "kind": "count"})
    return cards


def _count_columns(evaluation: Evaluation, data: dict[str, Any]) -> str:
    """CSS that keeps the question table's good (1) and bad (0) colours off the columns of counts of
    calls (where 0 wasted calls is good): empty without such a metric, so the page is unchanged. The
    columns are numbered as report.js lays a row out: expander, id, question, tags (when any), first
    relevant, why it failed (when any misses), then one cell per metric."""
    before = 4 + int(data["has_tags"]) + int(data["has_why"])
    cells = [f"#qtable td:nth-child({before + i + 1}).{cls}" for i, m in enumerate(evaluation.metrics) if is_count(m)
             for cls in ("zero", "one")]
    return "\n" + ", ".join(cells) + " { color: inherit; }\n" if cells else ""


def _agents(evaluation: Evaluation) -> list[dict[str, Any]]:
    """The trajectories by call and by tool, the stages side by side and the means by turn
    (``reports.agents``), each only when the evaluation holds it; Jinja2 escapes every string."""
    return section_dicts(sections(evaluation))


def section_dicts(found: Sequence[Section]) -> list[dict[str, Any]]:
    """Tables of ``reports.agents.Section`` as the templates draw them (Jinja2 escapes every string)."""
    return [{"key": s.key, "title": s.title, "header": list(s.header), "rows": [list(r) for r in s.rows],
             "notes": list(s.notes)} for s in found]


def render_html(evaluation: Evaluation) -> str:
    """The self-contained HTML report."""
    from ragauge.core.jinja import environment, static_file

    env = environment()
    from markupsafe import (
        Markup,  # after environment(): a missing Jinja2 gets its hint first
    )

    evaluation = evaluation.with_rows_made()  # the charts, cards and tables below each read every row
    script = static_file(env, "report.js")
    css = static_file(env, "report.css")
    script_hash = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    meta = evaluation.meta
    contract = {"k": [], "relevance": "grade >= 1", "mean_over": "answerable questions", "dedup": "?",
                "doc_id": "?", **meta.get("contract", {})}
    counts = {"questions": len(evaluation.queries) + int(evaluation.no_answer.get("n", 0)),
              **meta.get("counts", {})}
    golden = {"path": "?", "hash": "", **meta.get("golden", {})}
    run = {"path": "?", "hash": "", "format": "?", **meta.get("run", {})}
    shown = table_metrics(evaluation.metrics)
    data = {"metrics": list(evaluation.metrics), "shown": [i for i, m in enumerate(evaluation.metrics) if m in shown],
            "k": max_cutoff(evaluation), "queries": _questions(evaluation),
            "depth": recall_curve(evaluation).depth, "has_tags": any(q.tags for q in evaluation.queries),
            "has_why": evaluation.failure_table is not None and evaluation.failure_table.misses > 0,
            "titles": {name: p.title for name, p in PATTERNS.items()}}
    css += _count_columns(evaluation, data)
    return env.get_template("report.html.j2").render(
        ev=evaluation, version=meta.get("ragauge_version", "?"), contract=contract, counts=counts,
        golden=golden, run=run, fetch=fetch_label(evaluation), css=Markup(css),
        cards=_cards(evaluation), tag_charts=_tag_charts(evaluation), shown=shown, hist=_histogram(evaluation),
        curve=_curve(evaluation), k=max_cutoff(evaluation), confidence=f"{CONFIDENCE:.0%}", small_tag=SMALL_TAG,
        tags=sorted({t for q in evaluation.queries for t in q.tags}), no_answer=evaluation.no_answer,
        warnings=evaluation.warnings, data_json=Markup(script_json(data)), script=Markup(script),
        script_hash=script_hash, chart_w=CHART_W, unjudged=unjudged_rule(evaluation), judged=judged_line(evaluation),
        budget=budget_rule(evaluation),
        failures=_failures(evaluation),
        sources=[{"source": r.source, "label": r.label, "n": r.n,
                  "cells": [mean_text(r.means[m]) for m in evaluation.metrics]} for r in source_rows(evaluation)],
        source_note=source_caption(evaluation),
        agents=_agents(evaluation), lower=lower_note(evaluation.metrics),
        ppi=section_dicts(evaluation_sections(meta)),
    )
