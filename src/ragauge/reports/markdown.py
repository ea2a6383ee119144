"""The Markdown report: compact, for a pull-request comment or ``$GITHUB_STEP_SUMMARY``.

Summary table, per-tag table, then the worst questions, the no-answer questions and the warnings,
each folded inside ``<details>``. Every piece of user text (ids, questions, tags, paths, messages)
goes through :func:`ragauge.core.escape.markdown`, so it can neither break a table nor inject HTML,
links, images or mentions. Metric names and the metadata are user text too: a saved result is a file.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragauge.core.escape import markdown as escape
from ragauge.evaluation.result import Evaluation, QueryScore
from ragauge.reports import failures
from ragauge.reports.agents import Section, sections
from ragauge.reports.predicted import evaluation_sections
from ragauge.reports.views import (
    CONFIDENCE,
    NAN,
    SMALL_TAG,
    TAG_INTERVAL_NOTE,
    WORST,
    budget_rule,
    fetch_label,
    interval_text,
    latency_cost_line,
    lower_note,
    mean_text,
    relevant_ids,
    source_caption,
    source_rows,
    tag_rows,
    worst_questions,
)

QUERY_CHARS = 160
SHOWN_DOCS = 5


def _cut(text: str, n: int = QUERY_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _table(header: list[str], rows: list[list[str]], numeric_from: int | None = 1) -> list[str]:
    """A GFM table; columns from ``numeric_from`` on are right-aligned (None: none)."""
    rule = ["---:" if numeric_from is not None and i >= numeric_from else "---" for i in range(len(header))]
    return [_row(header), _row(rule), *(_row(r) for r in rows)]


def _question_row(evaluation: Evaluation, q: QueryScore) -> list[str]:
    first = evaluation.metrics[0]
    if q.status == "missing":
        rank = "missing from run"
    elif q.status == "error":
        rank = "error: " + escape(_cut(q.error or "", 80))
    else:
        rank = str(q.first_relevant_rank) if q.first_relevant_rank else "**not found**"
    returned = [f"**{escape(r.doc_id)}**" if r.relevant else escape(r.doc_id) for r in q.top[:SHOWN_DOCS]]
    why = escape(failures.why(q)) or "—"
    return [escape(q.id), escape(_cut(q.query)), f"{q.values.get(first, 0.0):.3f}", rank, why,
            ", ".join(escape(d) for d in relevant_ids(q)), ", ".join(returned) or "—"]


def _failures(evaluation: Evaluation) -> list[str]:
    """The "why it failed" table with each pattern's fix, the perfect-reranker ceiling and what was
    not assessed."""
    table = evaluation.failure_table
    if table is None:
        return []
    out = ["", f"**Why it failed:** {escape(failures.summary(table))}"]
    if table.rows:
        out += ["", _row([*failures.HEADER[:4], "the fix", failures.HEADER[4]]),
                _row(["---", "---:", "---:", "---:", "---", "---"])]
        out += [_row([*map(escape, cells[:4]), escape(r.pattern.fix), escape(cells[4])])
                for cells, r in zip(failures.rows(table), table.rows)]
    notes = [line for line in [failures.ceiling(table, fetch_label(evaluation))] if line] + failures.caveats(table)
    if notes:
        out += ["", "<sub>" + "<br>".join(escape(n) for n in notes) + "</sub>"]
    return out


def _agents(evaluation: Evaluation) -> list[str]:
    """The trajectories by call and by tool, the stages side by side and the means by turn
    (``reports.agents``), each only when the evaluation holds it."""
    return draw_sections(sections(evaluation))


def draw_sections(found: Sequence[Section]) -> list[str]:
    """Tables of ``reports.agents.Section``, each with its notes below it."""
    out: list[str] = []
    for section in found:
        out += ["", f"**{escape(section.title)}**", ""]
        out += _table([escape(h) for h in section.header], [[escape(c) for c in row] for row in section.rows])
        out += ["", "<sub>" + "<br>".join(escape(n) for n in section.notes) + "</sub>"] if section.notes else []
    return out


def render_markdown(evaluation: Evaluation, worst: int = WORST) -> str:
    """The Markdown report (GitHub-flavoured)."""
    meta = evaluation.meta
    m = list(evaluation.metrics)
    names = [escape(name) for name in m]
    counts = meta.get("counts", {})
    golden = meta.get("golden", {}).get("path", "?")
    run = meta.get("run", {}).get("path", "?")
    out = [f"### ragauge: {escape(run)} against {escape(golden)}", ""]
    out += _table(names, [[mean_text(evaluation.summary.get(name, NAN)) for name in m]], 0) if m else []
    k = ",".join(map(str, meta.get("contract", {}).get("k", []))) or "-"
    lower = lower_note(m)
    if lower:
        out += ["", f"<sub>{escape(lower)}</sub>"]
    out += ["", f"<sub>k={escape(k)} · fetch={escape(fetch_label(evaluation))} · means over "
                f"{escape(counts.get('answerable', len(evaluation.queries)))} answerable of "
                f"{escape(counts.get('questions', '?'))} questions · "
                f"{escape(counts.get('no_answer', 0))} no-answer · ragauge {escape(meta.get('ragauge_version', '?'))}"
                f"</sub>"]
    perf = latency_cost_line(evaluation)
    if perf:
        out += ["", f"<sub>{escape(perf)}</sub>"]
    budget = budget_rule(evaluation)
    if budget:
        out += ["", f"<sub>{escape(budget)}</sub>"]
    out += draw_sections(evaluation_sections(meta))

    sources = source_rows(evaluation) if m else []
    if sources:
        out += ["", "**By source**", ""]
        out += _table(["source", "n", *names], [[escape(r.label), str(r.n), *(mean_text(r.means[name]) for name in m)]
                                                for r in sources])
        out += ["", f"<sub>{escape(source_caption(evaluation))}</sub>"]

    rows = tag_rows(evaluation) if m else []
    if rows:
        pct = f"{CONFIDENCE:.0%}"
        body = []
        for r in rows:
            body.append([escape(r.tag) + (" \\*" if r.small else ""), str(r.n), f"{r.means[m[0]]:.4f}",
                         interval_text(r.ci.get(m[0]), "–"),
                         *(f"{r.means[name]:.4f}" for name in m[1:])])
        out += ["", "**By tag** (weakest first)", ""]
        out += _table(["tag", "n", names[0], f"{pct} CI", *names[1:]], body)
        note = f"{pct} CI: " + TAG_INTERVAL_NOTE.format(metric=names[0]) + "."
        if any(r.small for r in rows):
            note += f" \\* fewer than {SMALL_TAG} questions: too few to mean much."
        out += ["", f"<sub>{note}</sub>"]

    out += _agents(evaluation)
    out += _failures(evaluation)

    bad = worst_questions(evaluation, worst) if m else []
    if bad:
        out += ["", f"<details><summary>Worst {len(bad)} questions (by {escape(m[0], in_html=True)})</summary>", ""]
        out += _table(["id", "question", names[0], "first relevant", "why it failed", "expected",
                       f"returned (top {SHOWN_DOCS}, **bold** = relevant)"],
                      [_question_row(evaluation, q) for q in bad], None)
        out += ["", "</details>"]

    na = evaluation.no_answer
    if na.get("n"):
        out += ["", f"<details><summary>No-answer questions: {na['n']} (not in any mean)</summary>", ""]
        out += _table(["id", "question", "top returned"],
                      [[escape(q["id"]), escape(_cut(q.get("query", ""))),
                        escape(q["top"][0]["doc_id"]) if q.get("top") else "—"]
                       for q in na.get("questions", [])[:worst]], None)
        if na["n"] > worst:
            out += ["", f"and {na['n'] - worst} more."]
        out += ["", "</details>"]

    if evaluation.warnings:
        out += ["", f"<details><summary>Warnings: {len(evaluation.warnings)}</summary>", ""]
        out += [f"- {escape(w)}" for w in evaluation.warnings]
        out += ["", "</details>"]
    return "\n".join(out) + "\n"
