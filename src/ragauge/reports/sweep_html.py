"""The sweep's offline HTML page: the table, a quality / latency / index-size plot with the Pareto
frontier (inline SVG, no script), the configurations successive halving dropped, the holdout check
and the indexes. Every string goes through the shared, autoescaping Jinja2 environment.

The drill-down: :func:`write_drilldowns` writes, for every configuration, the report ``ragauge eval
--format html`` gives for its run (the eval report's own renderer, ``reports.html``) to
``DIR/reports/SLUG.html``; :func:`sweep_page` writes them and links each row of the page to its
report by a relative link, so the page and its reports open from disk (``file://``) with no server.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ragauge.experiments.result import SweepResult
from ragauge.reports.sweep import (
    DROPPED_TITLE,
    HOLDOUT_HEADER,
    INDEX_HEADER,
    RERANK_HEADER,
    dropped_header,
    dropped_rows,
    frontier_points,
    halving_line,
    holdout_rows,
    index_rows,
    legend,
    ordered_metrics,
    questions_line,
    rows,
    time_line,
)

W, H = 820, 360
LEFT, RIGHT, TOP, BOTTOM = 56, 640, 24, 320


def _ticks(low: float, high: float, n: int = 5) -> list[float]:
    if high <= low:
        return [low]
    return [low + (high - low) * i / (n - 1) for i in range(n)]


def plot(r: SweepResult) -> dict[str, Any]:
    """Screen coordinates of every configuration with a latency and a quality: x is p50 latency,
    y the primary mean, the radius grows with the square root of the index size."""
    points = [p for p in frontier_points(r) if p["latency"] is not None and not math.isnan(p["quality"])]
    if not points:
        return {"w": W, "h": H, "left": LEFT, "right": RIGHT, "top": TOP, "bottom": BOTTOM, "points": [],
                "xticks": [], "yticks": [], "path": ""}
    xs = [float(p["latency"]) for p in points]
    ys = [float(p["quality"]) for p in points]
    x0, x1 = 0.0, max(xs) * 1.1 or 1.0
    pad = (max(ys) - min(ys)) * 0.1 or 0.05
    y0, y1 = max(0.0, min(ys) - pad), min(1.0, max(ys) + pad)
    if y1 <= y0:
        y1 = y0 + 0.1
    biggest = max(float(p["size"]) for p in points) or 1.0

    def sx(v: float) -> float:
        return round(LEFT + (v - x0) / (x1 - x0) * (RIGHT - LEFT), 1)

    def sy(v: float) -> float:
        return round(BOTTOM - (v - y0) / (y1 - y0) * (BOTTOM - TOP), 1)

    placed = [{"name": p["name"], "short": p["name"] if len(p["name"]) <= 28 else p["name"][:27] + "…",
               "x": sx(p["latency"]), "y": sy(p["quality"]),
               "r": round(4 + 12 * math.sqrt(p["size"] / biggest), 1), "pareto": p["pareto"], "best": p["best"],
               "label": f"{r.primary} {p['quality']:.4f}, p50 {p['latency']:.1f} ms, index {p['size']:.2f} MB"}
              for p in points]
    frontier = sorted((p for p in placed if p["pareto"]), key=lambda p: (p["x"], p["y"]))
    return {"w": W, "h": H, "left": LEFT, "right": RIGHT, "top": TOP, "bottom": BOTTOM, "points": placed,
            "xticks": [{"x": sx(v), "label": f"{v:.1f}"} for v in _ticks(x0, x1)],
            "yticks": [{"y": sy(v), "label": f"{v:.3f}"} for v in _ticks(y0, y1)],
            "path": " ".join(f"{p['x']},{p['y']}" for p in frontier)}


def render_html(r: SweepResult, links: Mapping[str, str] | None = None) -> str:
    """The page; ``links`` maps a configuration's name to the URL of its drill-down report (a
    relative link, see :func:`sweep_page`): its name in the tables links there."""
    from ragauge.core.escape import html
    from ragauge.core.jinja import environment, static_file

    env = environment("the HTML sweep report")
    from markupsafe import Markup  # after environment(): a missing Jinja2 gets its hint first

    def text(value: object) -> str:
        return str(html(value))

    links = links or {}
    table = [{"cells": cells, "run": row.run, "href": links.get(row.name)}
             for cells, row in zip(rows(r, str), r.confirmed)]
    dropped = [{"cells": cells, "href": links.get(row.name)} for cells, row in zip(dropped_rows(r, str), r.dropped)]
    return env.get_template("sweep.html.j2").render(
        css=Markup(static_file(env, "report.css")), golden=r.meta.get("golden", {}).get("path"),
        corpus=r.meta.get("corpus", {}).get("path"), questions=questions_line(r), reference=r.reference,
        primary=r.primary, statement=r.selection.statement, metrics=ordered_metrics(r), rows=table,
        legend=legend(r), plot=plot(r), holdout=r.holdout, holdout_header=HOLDOUT_HEADER,
        holdout_rows=holdout_rows(r, text), index_header=INDEX_HEADER, index_rows=index_rows(r, text),
        time_line=time_line(r), notes=list(r.notes), halving=halving_line(r), dropped_title=DROPPED_TITLE,
        dropped_header=dropped_header(r), dropped=dropped, linked=bool(links), configurations=len(r.rows),
        rerank_header=RERANK_HEADER)


def write_drilldowns(r: SweepResult, golden: Any, folder: str | Path) -> dict[str, Path]:
    """Write ``folder/reports/SLUG.html`` for every configuration of ``r`` (the sweep's folder, which
    holds its runs): the HTML report ``ragauge eval GOLDEN --run RUN --metrics ... --fetch F`` gives
    for its run (with ``--corpus`` and ``--tokenizer`` when its span labels or budgets need them),
    over every question it answered (so a configuration successive halving dropped is
    reported on its sample only, as its row is). Returns the path written per configuration name."""
    from ragauge.core.files import atomic_write
    from ragauge.experiments.drilldown import configuration_evaluations
    from ragauge.reports.html import render_html as render_evaluation

    folder = Path(folder)
    (folder / "reports").mkdir(parents=True, exist_ok=True)
    pages = {}
    for row, evaluation in configuration_evaluations(r, golden, folder):
        page = folder / "reports" / f"{Path(row.run).stem}.html"
        atomic_write(page, render_evaluation(evaluation), what="drill-down report")
        pages[row.name] = page
    return pages


def relative_links(pages: Mapping[str, Path], at: str | Path) -> dict[str, str]:
    """Each page as a URL relative to the folder ``at`` (where the sweep page is saved),
    percent-encoded; an absolute ``file:`` URL when there is no relative path (another drive)."""
    out = {}
    for name, page in pages.items():
        try:
            out[name] = quote(Path(os.path.relpath(page, at)).as_posix())
        except ValueError:
            out[name] = page.resolve().as_uri()
    return out


def sweep_page(r: SweepResult, golden: Any, folder: str | Path, at: str | Path | None = None) -> str:
    """The sweep's HTML page with its drill-down: writes every configuration's report
    (:func:`write_drilldowns`) and returns the page, its links relative to the folder ``at`` where it
    will be saved (default: the current folder)."""
    pages = write_drilldowns(r, golden, folder)
    return render_html(r, relative_links(pages, Path.cwd() if at is None else at))
