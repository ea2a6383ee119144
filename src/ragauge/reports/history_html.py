"""The history as one offline HTML page: an inline SVG line chart per metric (overall and by tag), the
entries with their events, and the flips when asked for.

No script at all and no network request of any kind: inline CSS and SVG, a Content-Security-Policy that
forbids fetching and scripts. Jinja2 renders with autoescape on, so labels, tags and questions are text.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from ragauge.history.model import Entry
from ragauge.history.report import Flips, HistoryView, Marker, Series

WIDTH, LEFT, RIGHT, TOP, PLOT_H = 760, 52, 24, 34, 220
PALETTE = ("#2f6fb3", "#d9822b", "#23804a", "#b3402f", "#7b4fb8", "#8a6100", "#1f8a8a", "#c2417f", "#5f6b73",
           "#6b8e23")
LABEL_CHARS = 22

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="ragauge history">
<link rel="icon" href="data:,">
<title>ragauge history · {{ source }}</title>
<style>{{ css }}
table.entries td.when, table.entries td.num { white-space: nowrap; }
table.entries td, table.entries th, table.flips td, table.flips th { padding: 3px 10px 3px 0; text-align: left; vertical-align: top; }
svg.line .series { fill: none; stroke-width: 1.6; }
svg.line .series.overall { stroke-width: 3; }
svg.line .event { stroke: var(--muted); stroke-width: 1; stroke-dasharray: 4 3; }
svg.line .event.golden { stroke: var(--bad); stroke-dasharray: 2 3; }
svg.line .evlabel { font-size: 11px; fill: var(--muted); }
svg.line .evlabel.golden { fill: var(--bad); }
svg.line .grid { stroke: var(--line); } svg.line .tick { font-size: 11px; fill: var(--muted); }
ul.legend { list-style: none; padding: 0; margin: 6px 0 0; display: flex; flex-wrap: wrap; gap: 4px 16px; font-size: 12px; }
ul.legend .swatch { display: inline-block; width: 18px; height: 3px; vertical-align: middle; margin-right: 5px; }
</style>
</head>
<body>
<header>
  <h1>ragauge history</h1>
  <p class="sub"><code>{{ source }}</code> · {{ entries | length }} evaluation(s){% if entries %} · {{ entries[0].recorded_at[:10] }} → {{ entries[-1].recorded_at[:10] }}{% endif %}</p>
</header>
<main>
<section id="entries">
  <h2>Recorded evaluations <span class="note">L: labelled (e.g. a re-index) · G: golden set changed</span></h2>
  <table class="entries">
    <thead><tr><th>#</th><th>recorded (UTC)</th><th>event</th><th>label</th><th>golden set</th><th>commit</th><th>retriever / run</th></tr></thead>
    <tbody>
    {% for row in rows %}
      <tr><td class="num">{{ row.e.id }}</td><td class="when">{{ row.e.recorded_at[:16] | replace("T", " ") }}</td><td>{{ row.m.mark }}</td>
        <td>{{ row.e.label or "" }}</td><td class="when"><code>{{ row.golden }}</code> · {{ row.e.golden_questions or "?" }} q.</td>
        <td><code>{{ (row.e.git_commit or "-")[:8] }}</code></td><td>{{ row.e.retriever or row.e.run_path or "" }}</td></tr>
    {% endfor %}
    </tbody>
  </table>
</section>
{% for chart in charts %}
<section class="metric">
  <h2>{{ chart.metric }} <span class="note">overall{% if chart.lines | length > 1 %} and by tag{% endif %}</span></h2>
  <svg class="chart line" viewBox="0 0 {{ width }} {{ chart.height }}" role="img" aria-label="{{ chart.metric }} over time">
    {% for t in chart.yticks %}
    <line class="grid" x1="{{ left }}" x2="{{ width - right }}" y1="{{ t.y }}" y2="{{ t.y }}"/>
    <text class="tick" x="{{ left - 6 }}" y="{{ t.y + 4 }}" text-anchor="end">{{ t.label }}</text>
    {% endfor %}
    {% for x in chart.xticks %}
    <text class="tick" x="{{ x.x }}" y="{{ chart.base + 16 }}" text-anchor="middle">#{{ x.id }}</text>
    <text class="tick" x="{{ x.x }}" y="{{ chart.base + 30 }}" text-anchor="middle">{{ x.date }}</text>
    {% endfor %}
    {% for ev in chart.events %}
    <line class="event{% if ev.golden %} golden{% endif %}" x1="{{ ev.x }}" x2="{{ ev.x }}" y1="{{ top - 14 }}" y2="{{ chart.base }}"><title>{{ ev.title }}</title></line>
    <text class="evlabel{% if ev.golden %} golden{% endif %}" x="{{ ev.x - 3 if ev.end else ev.x + 3 }}" y="{{ top - 18 + ev.row * 12 }}"{% if ev.end %} text-anchor="end"{% endif %}>{{ ev.text }}</text>
    {% endfor %}
    {% for line in chart.lines %}
    <g class="line-{{ loop.index0 }}">
      {% for path in line.paths %}<polyline class="series{% if line.overall %} overall{% endif %}" stroke="{{ line.color }}"{% if line.dash %} stroke-dasharray="{{ line.dash }}"{% endif %} points="{{ path }}"/>{% endfor %}
      {% for p in line.points %}
      <circle cx="{{ p.x }}" cy="{{ p.y }}" r="{{ 4 if line.overall else 2.6 }}" fill="{{ line.color }}"><title>{{ line.name }} · #{{ p.id }} {{ p.date }}: {{ chart.metric }} = {{ p.text }}{% if p.n %} (n = {{ p.n }}){% endif %}</title></circle>
      {% endfor %}
    </g>
    {% endfor %}
  </svg>
  <ul class="legend">
    {% if chart.events %}<li><span class="swatch" style="background: repeating-linear-gradient(90deg, #888 0 4px, transparent 4px 7px)"></span>labelled · <span class="swatch" style="background: repeating-linear-gradient(90deg, #b3402f 0 2px, transparent 2px 5px)"></span>G: golden set changed</li>{% endif %}
    {% for line in chart.lines %}<li><span class="swatch" style="background: {{ line.color }}"></span>{{ line.name }}{% if line.last is not none %} · {{ line.last }}{% endif %}</li>{% endfor %}
  </ul>
</section>
{% endfor %}
{% if flips %}
<section id="flips">
  <h2>Flips on {{ flips.metric }} from #{{ flips.a }} to #{{ flips.b }} <span class="note">{{ flips.lost | length }} lost (hit → miss) · {{ flips.gained | length }} gained (miss → hit) · {{ flips.compared }} questions in both</span></h2>
  {% for title, rows in (("lost", flips.lost), ("gained", flips.gained)) %}
  {% if rows %}
  <h3>{{ title }}</h3>
  <table class="flips"><thead><tr><th>id</th><th>question</th><th>tags</th><th>first relevant rank</th></tr></thead><tbody>
  {% for r in rows %}<tr><td><code>{{ r.id }}</code></td><td>{{ r.query }}</td><td>{{ r.tags | join(", ") }}</td><td>{{ r.rank_before or "-" }} → {{ r.rank_after or "-" }}</td></tr>{% endfor %}
  </tbody></table>
  {% endif %}
  {% endfor %}
  {% if flips.only_a or flips.only_b %}<p class="note">Not compared: {{ flips.only_a | length }} question(s) only in #{{ flips.a }}, {{ flips.only_b | length }} only in #{{ flips.b }}.</p>{% endif %}
</section>
{% endif %}
</main>
</body>
</html>
"""


def _y_axis(values: list[float]) -> tuple[float, float, float]:
    """``(low, high, step)``: a range holding every value, in round steps (at most 6), within [0, 1]
    unless a value lies outside."""
    lo, hi = (min(values), max(values)) if values else (0.0, 1.0)
    lo, hi = lo - 0.005, hi + 0.005
    if hi - lo < 0.05:
        mid = (lo + hi) / 2
        lo, hi = mid - 0.025, mid + 0.025
    step = next((s for s in (0.01, 0.02, 0.025, 0.05, 0.1, 0.2, 0.25) if (hi - lo) / s <= 6), 0.5)
    low, high = math.floor(lo / step) * step, math.ceil(hi / step) * step
    if values and min(values) >= 0:
        low = max(low, 0.0)
    if values and max(values) <= 1:
        high = min(high, 1.0)
    return low, high, step


def _short(text: str, n: int = LABEL_CHARS) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


def chart(metric: str, series: Sequence[Series], entries: Sequence[Entry], marks: Sequence[Marker]) -> dict[str, Any]:
    """The geometry of one line chart: a line per series (overall first), x by entry order."""
    count = len(entries)
    plot_w = WIDTH - LEFT - RIGHT

    def x(i: int) -> float:
        return round(LEFT + (plot_w * i / (count - 1) if count > 1 else plot_w / 2), 1)

    values = [v for s in series for v in s.values if v is not None]
    lo, hi, step = _y_axis(values)

    def y(v: float) -> float:
        return round(TOP + PLOT_H * (1 - (v - lo) / (hi - lo)), 1)

    lines: list[dict[str, Any]] = []
    for n, s in enumerate(series):
        color = PALETTE[0] if s.tag is None else PALETTE[1 + (n - 1) % (len(PALETTE) - 1)]
        dash = "" if s.tag is None or (n - 1) < len(PALETTE) - 1 else "6 3"
        points: list[dict[str, Any]] = []
        runs: list[list[dict[str, Any]]] = []
        run: list[dict[str, Any]] = []
        for i, p in enumerate(s.points):
            if i > 0 and marks[i].breaks:  # another golden set or contract: no line across the change
                runs.append(run)
                run = []
            if p.value is None:  # no value here: the line breaks rather than bridging the gap
                runs.append(run)
                run = []
                continue
            point = {"x": x(i), "y": y(p.value), "id": p.entry_id, "date": p.recorded_at[:10], "n": p.n,
                     "text": f"{p.value:.4f}"}
            points.append(point)
            run.append(point)
        runs.append(run)
        last = s.values[-1]
        lines.append({"name": "overall" if s.tag is None else f"tag {s.tag}", "overall": s.tag is None,
                      "color": color, "dash": dash, "points": points,
                      "paths": [" ".join(f"{p['x']},{p['y']}" for p in r) for r in runs if len(r) > 1],
                      "last": None if last is None else f"{last:.4f}"})
    events: list[dict[str, Any]] = []
    for i, (e, m) in enumerate(zip(entries, marks)):
        end = x(i) > WIDTH - RIGHT - 130  # near the right edge: the text runs leftwards
        if m.golden_changed:
            events.append({"x": x(i), "golden": True, "row": 1, "text": "G", "end": end,
                           "title": f"#{e.id}: golden set changed ({e.golden_hash})"})
        elif m.contract_changed:
            events.append({"x": x(i), "golden": True, "row": 1, "text": "C", "end": end,
                           "title": f"#{e.id}: contract changed ({', '.join(m.contract_changed)})"})
        if m.label:
            events.append({"x": x(i), "golden": False, "row": 0, "text": _short(m.label), "end": end,
                           "title": f"#{e.id}: {m.label}"})
    every = max(1, math.ceil(count / 12))
    xticks = [{"x": x(i), "id": e.id, "date": e.recorded_at[5:10]} for i, e in enumerate(entries)
              if i % every == 0 or i == count - 1]
    yticks = [{"y": y(lo + step * t), "label": f"{round(lo + step * t, 4):g}"}
              for t in range(int(round((hi - lo) / step)) + 1)]
    return {"metric": metric, "lines": lines, "events": events, "xticks": xticks, "yticks": yticks,
            "base": TOP + PLOT_H, "height": TOP + PLOT_H + 40}


def render_html(entries: Sequence[Entry], marks: Sequence[Marker], series: Sequence[Series],
                flip: Flips | None = None, source: str = "") -> str:
    """The self-contained history page (``marks``: the entries' markers, as for ``render_text``)."""
    from ragauge.core.jinja import environment, static_file

    env = environment("the HTML history")
    from markupsafe import (
        Markup,  # after environment(): a missing Jinja2 gets its hint first
    )

    css = static_file(env, "report.css")
    by_metric: dict[str, list[Series]] = {}
    for s in series:
        by_metric.setdefault(s.metric, []).append(s)
    rows = [{"e": e, "m": m, "golden": e.golden_hash.split(":", 1)[-1][:8]} for e, m in zip(entries, marks)]
    return env.from_string(_TEMPLATE).render(
        source=source, css=Markup(css), entries=entries, rows=rows, flips=flip, width=WIDTH, left=LEFT,
        right=RIGHT, top=TOP, charts=[chart(m, ss, entries, marks) for m, ss in by_metric.items()],
    )


def render_history_html(view: HistoryView) -> str:
    """``render_html`` of a :class:`~ragauge.history.report.HistoryView` (the registry's form)."""
    return render_html(view.entries, view.marks, view.series, view.flips, view.source)
