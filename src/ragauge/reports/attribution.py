"""Renderers for an Attribution: text (terminal), Markdown (pull requests), JSON.

Question ids, tags, paths, sources and notes are user text (from the golden set, the run, the answers
file, a saved result): each goes through the output language's escaper in :mod:`ragauge.core.escape`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Callable, Sequence

from ragauge.attribution.result import (
    ACTIONS,
    CELLS,
    ERROR,
    FOUND_BAD,
    FOUND_GOOD,
    LABELS,
    MISSED_BAD,
    MISSED_GOOD,
    MISSING,
    NO_ANSWER_BAD,
    NO_ANSWER_GOOD,
    UNJUDGED,
    Attribution,
    Table,
)
from ragauge.core import escape
from ragauge.core.jsonl import dumps
from ragauge.core.table import text_table
from ragauge.reports.registry import formats
from ragauge.reports.views import SMALL_TAG

FORMATS = formats("attribution")
SHOWN = 30
"""Question ids listed per cell in text and Markdown (JSON lists every one)."""
WIDTH = 100
SMALL_MARK = " \\*"
TAG_HEADER = ["n", "miss/bad", "found/bad", "miss/good", "found/good"]


def _pct(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.1%}"


def _count(table: Table, cell: str) -> str:
    return f"{table.count(cell)} ({_pct(table.share(cell))})"


def _ids(ids: Sequence[str], text: Callable[[object], str]) -> str:
    more = f" (+{len(ids) - SHOWN} more: --format json lists every one)" if len(ids) > SHOWN else ""
    return ", ".join(text(i) for i in ids[:SHOWN]) + more


def _sources(a: Attribution) -> str:
    by_source = a.meta.get("answers", {}).get("verdicts_by_source", {})
    return ", ".join(f"{n} {s}" for s, n in by_source.items()) or "none"


def _rule(a: Attribution) -> str:
    rule = f"found = a relevant document in the top {a.k} of the run"
    if a.threshold is not None:
        rule += f"; a score >= {a.threshold:g} is a good answer"
    return rule


def _conditional(t: Table) -> str:
    found = t.count(FOUND_GOOD) + t.count(FOUND_BAD)
    missed = t.count(MISSED_GOOD) + t.count(MISSED_BAD)
    return (f"good answers: {_pct(t.good_when_found)} when search found the document ({t.count(FOUND_GOOD)} of "
            f"{found}), {_pct(t.good_when_missed)} when it did not ({t.count(MISSED_GOOD)} of {missed})")


def _tag_cells(t: Table) -> list[str]:
    return [str(t.n), *(str(t.count(c)) for c in (MISSED_BAD, FOUND_BAD, MISSED_GOOD, FOUND_GOOD))]


def _judge_line(a: Attribution) -> str | None:
    judge = a.meta.get("judge")
    if not judge:
        return None
    who = f"{judge.get('model', judge.get('callable', '?'))} at {judge['endpoint']}" if "endpoint" in judge \
        else str(judge.get("callable", "?"))
    return (f"judge {who}: asked {judge.get('asked', 0)}, good {judge.get('good', 0)}, bad {judge.get('bad', 0)}, "
            f"undecided {judge.get('undecided', 0)}, failed {judge.get('failed', 0)}")


def _wrap(text: str, indent: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent, break_long_words=False,
                         break_on_hyphens=False) or [indent]


def render_attribution_text(a: Attribution) -> str:
    t = escape.terminal
    meta, table = a.meta, a.overall
    out = [f"ragauge attribute  golden: {t(meta.get('golden', {}).get('path', '?'))}  "
           f"run: {t(meta.get('run', {}).get('path', '?'))}",
           f"answers: {t(meta.get('answers', {}).get('path') or '(from Python)')}  verdicts: {t(_sources(a))}",
           t(_rule(a))]
    judge = _judge_line(a)
    if judge:
        out.append(t(judge))
    out += ["", *text_table(["", "answer good", "answer bad"],
                            [[f"found in top {a.k}", _count(table, FOUND_GOOD), _count(table, FOUND_BAD)],
                             [f"not in top {a.k}", _count(table, MISSED_GOOD), _count(table, MISSED_BAD)]]),
            f"{table.n} answerable question(s) in the table", _conditional(table)]
    if table.n:
        out += ["", "what to fix"]
        for cell in CELLS:
            out.append(f"  {LABELS[cell]}: {_count(table, cell)} - {ACTIONS[cell]}")
            if table.cells[cell]:
                out += _wrap(_ids(table.cells[cell], t), "    ")
    if a.by_tag:
        rows = [[t(tag) + (" *" if tt.n < SMALL_TAG else ""), *_tag_cells(tt)] for tag, tt in a.by_tag.items()]
        out += ["", "by tag (largest share of bad answers first)", *text_table(["tag", *TAG_HEADER], rows)]
        if any(tt.n < SMALL_TAG for tt in a.by_tag.values()):
            out.append(f"* fewer than {SMALL_TAG} questions: too few to mean much")
    no_answer = a.no_answer
    if any(no_answer.values()):
        out += ["", f"no-answer questions with a verdict: {sum(len(v) for v in no_answer.values())}"]
        for cell in (NO_ANSWER_BAD, NO_ANSWER_GOOD):
            out.append(f"  answer {'bad' if cell == NO_ANSWER_BAD else 'good'}: {len(no_answer[cell])} - "
                       f"{ACTIONS[cell]}")
            if no_answer[cell]:
                out += _wrap(_ids(no_answer[cell], t), "    ")
    outside = [(cell, a.ids(cell)) for cell in (UNJUDGED, MISSING, ERROR) if a.ids(cell)]
    if outside or a.not_in_golden:
        out += ["", "in no cell"]
        for cell, ids in outside:
            out += _wrap(f"{LABELS[cell]}: {len(ids)}: {_ids(ids, t)}", "  ")
        if a.not_in_golden:
            out += _wrap(f"answers for questions not in the golden set: {len(a.not_in_golden)}: "
                         f"{_ids(a.not_in_golden, t)}", "  ")
    if a.notes:
        out += ["", "notes"]
        for note in a.notes:
            out += textwrap.wrap(t(" ".join(note.split())), WIDTH, initial_indent="  ! ", subsequent_indent="    ",
                                 break_long_words=False, break_on_hyphens=False)
    return "\n".join(out) + "\n"


def render_attribution_markdown(a: Attribution) -> str:
    md = escape.markdown
    table = a.overall
    meta = a.meta
    out = ["### ragauge attribute: search or model?", "",
           "| | answer good | answer bad |", "|---|---:|---:|",
           f"| **found in top {a.k}** | {_count(table, FOUND_GOOD)} | {_count(table, FOUND_BAD)} |",
           f"| **not in top {a.k}** | {_count(table, MISSED_GOOD)} | {_count(table, MISSED_BAD)} |", "",
           f"<sub>{table.n} answerable question(s) in the table · {md(_rule(a))} · golden "
           f"{md(meta.get('golden', {}).get('path', '?'))} · run {md(meta.get('run', {}).get('path', '?'))} · "
           f"answers {md(meta.get('answers', {}).get('path') or '(from Python)')} ({md(_sources(a))})</sub>", "",
           md(_conditional(table))]
    judge = _judge_line(a)
    if judge:
        out += ["", f"<sub>{md(judge)}</sub>"]
    if table.n:
        out += ["", "| cell | n | what to do | questions |", "|---|---:|---|---|"]
        out += [f"| {md(LABELS[c])} | {_count(table, c)} | {md(ACTIONS[c])} | {_ids(table.cells[c], md) or '—'} |"
                for c in CELLS]
    if a.by_tag:
        out += ["", "<details><summary>By tag (largest share of bad answers first)</summary>", "",
                "| tag | " + " | ".join(TAG_HEADER) + " |", "|---|" + "---:|" * len(TAG_HEADER)]
        out += [f"| {md(tag)}{SMALL_MARK if tt.n < SMALL_TAG else ''} | " + " | ".join(_tag_cells(tt)) + " |"
                for tag, tt in a.by_tag.items()]
        if any(tt.n < SMALL_TAG for tt in a.by_tag.values()):
            out += ["", f"<sub>\\* fewer than {SMALL_TAG} questions: too few to mean much.</sub>"]
        out += ["", "</details>"]
    rows = [(f"no-answer question, answer {'bad' if c == NO_ANSWER_BAD else 'good'}", ids, ACTIONS[c])
            for c, ids in a.no_answer.items() if ids]
    rows += [(LABELS[c], a.ids(c), "in no cell") for c in (UNJUDGED, MISSING, ERROR) if a.ids(c)]
    if a.not_in_golden:
        rows.append(("not in the golden set", a.not_in_golden, "ignored"))
    if rows:
        out += ["", "<details><summary>No-answer questions and questions in no cell</summary>", "",
                "| | n | | questions |", "|---|---:|---|---|"]
        out += [f"| {md(label)} | {len(ids)} | {md(what)} | {_ids(ids, md)} |" for label, ids, what in rows]
        out += ["", "</details>"]
    if a.notes:
        out += [""] + [f"> {md(note)}\n" for note in a.notes]
    return "\n".join(out).rstrip("\n") + "\n"


def render_attribution_json(a: Attribution) -> str:
    """The versioned dict, indented, but one line per question row (the file stays short and diffable)."""
    parts = []
    for key, value in a.to_dict().items():
        if key == "questions" and value:
            rows = ",\n".join(f"    {dumps(row)}" for row in value)
            parts.append(f"  {dumps(key)}: [\n{rows}\n  ]")
        else:
            parts.append(f"  {dumps(key)}: " + dumps(value, indent=2).replace("\n", "\n  "))
    return "{\n" + ",\n".join(parts) + "\n}\n"


def render_attribution(a: Attribution, fmt: str) -> str:
    """``a`` as ``fmt`` (``reports.registry``)."""
    from ragauge.reports.registry import render

    return render("attribution", a, fmt)
