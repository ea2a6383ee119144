"""The terminal report: summary with its contract, per tag (weakest first, with a 95% interval),
the worst questions (what was expected, what came back), the no-answer section and the warnings.

``width`` fits the report to a terminal: long query text is cut with an ellipsis, lists of ids wrap
between ids (an id is never cut or split), and table columns that do not fit are dropped with a note.
``color`` adds ANSI styles; the caller decides (only on a terminal, never with --no-color or NO_COLOR).
Every piece of user text (ids, questions, tags, document ids, paths, metric names, messages: a saved
result is a file anyone can write) goes through :func:`ragauge.core.escape.terminal` before it is
measured or styled, so it can send no escape sequence and start no line of its own.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence

from ragauge.core.escape import terminal as t
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
    judged_line,
    latency_cost_line,
    lower_note,
    max_cutoff,
    mean_text,
    relevant_ids,
    source_caption,
    source_rows,
    tag_rows,
    unjudged_rule,
    worst_questions,
)

__all__ = ["render_text", "worst_questions", "WORST", "SMALL_TAG"]

Style = Callable[..., str]
ELLIPSIS = "…"


def _plain(text: str, **_: object) -> str:
    return text


def _styler(color: bool) -> Style:
    if not color:
        return _plain
    import click

    return click.style


def _one_line(text: str) -> str:
    """Prose on one line, escaped: whitespace runs become a space, other controls are made visible."""
    return t(" ".join(str(text).split()))


def _truncate(text: str, room: int | None) -> str:
    """``text`` on one line, cut to ``room`` characters with an ellipsis (untouched when room is None)."""
    text = _one_line(text)
    if room is None or len(text) <= room:
        return text
    return text[:max(room - 1, 0)].rstrip() + ELLIPSIS


def _wrap(text: str, width: int | None, indent: str = "", rest: str | None = None) -> list[str]:
    """Wrap prose at spaces only (never inside a word, an id or a path)."""
    rest = indent if rest is None else rest
    if width is None:
        return [indent + text]
    return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=rest,
                         break_long_words=False, break_on_hyphens=False) or [indent]


def _items(label: str, items: Sequence[tuple[str, str]], width: int | None, sep: str = ", ") -> list[str]:
    """``label`` then items (plain text, styled text) joined by ``sep``, wrapped between items only."""
    if not items:
        return [label + "(nothing)"]
    pad = " " * len(label)
    lines: list[str] = []
    cur, cur_len = label, len(label)
    for i, (plain, styled) in enumerate(items):
        piece = plain + (sep.rstrip() if i < len(items) - 1 else "")
        styled_piece = styled + (sep.rstrip() if i < len(items) - 1 else "")
        gap = 0 if cur_len == len(label) else 1
        if width is not None and cur_len > len(label) and cur_len + gap + len(piece) > width:
            lines.append(cur)
            cur, cur_len, gap = pad, len(pad), 0
        cur += " " * gap + styled_piece
        cur_len += gap + len(piece)
    lines.append(cur)
    return lines


def _table(header: list[str], rows: list[list[str]], width: int | None, keep: int, s: Style,
           indent: str = "", left: tuple[int, ...] = (0,)) -> tuple[list[str], list[str]]:
    """Aligned columns (the ``left`` ones left, others right). Columns past ``width`` are dropped from
    the right, never the first ``keep``; returns the lines and the dropped headers."""
    widths = [max(len(c) for c in col) for col in zip(header, *rows)]
    n = len(header)
    while width is not None and n > keep and len(indent) + sum(widths[:n]) + 2 * (n - 1) > width:
        n -= 1

    def fmt(cells: list[str]) -> str:
        return indent + "  ".join(c.ljust(w) if i in left else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(cells[:n], widths[:n]))).rstrip()

    lines = [s(fmt(header), bold=True), indent + "  ".join("-" * w for w in widths[:n]), *(fmt(r) for r in rows)]
    return lines, header[n:]


def _dropped(dropped: list[str], width: int | None) -> list[str]:
    if not dropped:
        return []
    return _wrap(f"({len(dropped)} more column(s) past the terminal width: {', '.join(dropped)}; "
                 f"widen it or use --format json/html)", width)


def _summary(evaluation: Evaluation, width: int | None, s: Style) -> list[str]:
    meta = evaluation.meta
    golden, run = t(meta.get("golden", {}).get("path", "?")), t(meta.get("run", {}).get("path", "?"))
    version = t(meta.get("ragauge_version", "?"))
    head = f"ragauge {version}  golden: {golden}  run: {run}"
    out = [s(head, bold=True)] if width is None or len(head) <= width else [
        s(f"ragauge {version}", bold=True), f"golden: {golden}", f"run:    {run}"]
    out.append("")
    means = [[t(m), mean_text(evaluation.summary.get(m, NAN))] for m in evaluation.metrics]
    lines, _ = _table(["metric", "mean"], means, None, 2, s)
    out += lines
    lower = lower_note(evaluation.metrics)
    if lower:
        out += _wrap(t(lower), width)
    perf = latency_cost_line(evaluation)
    if perf:
        out += _wrap(t(perf), width)
    contract, counts = meta.get("contract", {}), meta.get("counts", {})
    if contract:
        out.append("")
        pad = " " * 10
        out += _wrap(t(f"k={','.join(map(str, contract.get('k', []))) or '-'}  fetch={fetch_label(evaluation)}  "
                       f"relevant: {contract.get('relevance', '?')}"), width, "contract: ", pad)
        out += _wrap(t(f"dedup: {contract.get('dedup', '?')}; {contract.get('doc_id', '?')}"), width, pad)
        judged = judged_line(evaluation)
        out += _wrap(t(f"unjudged: {unjudged_rule(evaluation)}" + (f"; {judged}" if judged else "")), width, pad)
        budget = budget_rule(evaluation)
        if budget:
            out += _wrap(t(budget), width, pad)
    if counts:
        out += _wrap(t(f"means over {counts.get('answerable', len(evaluation.queries))} answerable of "
                       f"{counts.get('questions', '?')} questions; {counts.get('no_answer', 0)} no-answer "
                       f"question(s) reported apart"), width, " " * 10)
    return out


def _by_source(evaluation: Evaluation, width: int | None, s: Style) -> list[str]:
    rows = source_rows(evaluation)
    if not rows or not evaluation.metrics:
        return []
    m = evaluation.metrics
    out = ["", s("by source", bold=True)]
    lines, dropped = _table(["source", "n", *(t(name) for name in m)],
                            [[t(r.label), str(r.n), *(mean_text(r.means[name]) for name in m)] for r in rows],
                            width, 3, s)
    return out + lines + _dropped(dropped, width) + _wrap(t(source_caption(evaluation)), width)


def _by_tag(evaluation: Evaluation, width: int | None, s: Style) -> list[str]:
    if not evaluation.by_tag or not evaluation.metrics:
        return []
    m = list(evaluation.metrics)
    first, names = m[0], [t(name) for name in m]
    pct = f"{CONFIDENCE:.0%}"
    rows = []
    tags = tag_rows(evaluation)
    for row in tags:
        rows.append([t(row.tag) + (" *" if row.small else ""), str(row.n), f"{row.means[first]:.4f}",
                     interval_text(row.ci.get(first)), *(f"{row.means[name]:.4f}" for name in m[1:])])
    out = ["", s("by tag (weakest first)", bold=True)]
    lines, dropped = _table(["tag", "n", names[0], f"{pct} CI", *names[1:]], rows, width, 4, s)
    out += lines + _dropped(dropped, width)
    out += _wrap(f"{pct} CI: " + TAG_INTERVAL_NOTE.format(metric=names[0]) + ".", width)
    if any(row.small for row in tags):
        out += _wrap(f"* fewer than {SMALL_TAG} questions: too few to mean much (see how wide the interval is)", width)
    return out


def _agents(evaluation: Evaluation, width: int | None, s: Style) -> list[str]:
    """The trajectories by call and by tool, the stages side by side and the means by turn
    (``reports.agents``), each only when the evaluation holds it."""
    return draw_sections(sections(evaluation), width, s)


def draw_sections(found: Sequence[Section], width: int | None, s: Style) -> list[str]:
    """Tables of ``reports.agents.Section`` (first column left, the others right), each with its
    notes."""
    out: list[str] = []
    for section in found:
        lines, dropped = _table([t(h) for h in section.header], [[t(c) for c in row] for row in section.rows],
                                width, 2, s)
        out += ["", s(t(section.title), bold=True), *lines, *_dropped(dropped, width)]
        for note in section.notes:
            out += _wrap(t(note), width)
    return out


def _question(evaluation: Evaluation, q: QueryScore, width: int | None, s: Style, show: int) -> list[str]:
    first = evaluation.metrics[0]
    rank = q.first_relevant_rank
    qid = t(q.id)
    lead = f"  {qid}  {t(first)}={q.values.get(first, 0.0):.4f}  "
    if q.status == "missing":
        where = s("missing from the run", fg="red")
    elif q.status == "error":
        detail = f": {q.error}" if q.error else ""
        room = None if width is None else max(width - len(lead) - len("retriever error"), 10)
        where = s("retriever error", fg="red") + _truncate(detail, room)
    elif rank:
        where = f"first relevant at rank {rank}"
    else:
        where = s("no relevant document retrieved", fg="red")
    head = f"  {s(qid, bold=True)}{lead[2 + len(qid):]}{where}"
    out = [head]
    label = "    query:    "
    out.append(label + _truncate(q.query, None if width is None else max(width - len(label), 10)))
    ranks = {r.doc_id: r.rank for r in q.top}
    expected = []
    for doc in relevant_ids(q):
        notes = [f"grade {q.relevant[doc]:g}"] if q.relevant[doc] != 1 else []
        if doc in ranks:
            notes.append(f"rank {ranks[doc]}")
        text = t(doc) + (f" ({', '.join(notes)})" if notes else "")
        expected.append((text, text))
    out += _items("    expected: ", expected, width)
    got = [("+" + t(r.doc_id), s("+" + t(r.doc_id), fg="green", bold=True)) if r.relevant else (t(r.doc_id),) * 2
           for r in q.top[:show]]
    more = max(q.n_unique, len(q.top)) - len(got)
    if more > 0 and got:
        got.append((f"({more} more)", s(f"({more} more)", dim=True)))
    out += _items("    returned: ", got, width)
    if q.failure is not None:
        out += _wrap(t(failures.why(q)), width, "    why:      ", " " * 14)
    return out


def _worst(evaluation: Evaluation, worst: int, width: int | None, s: Style) -> list[str]:
    bad = worst_questions(evaluation, worst)
    if not bad:
        return []
    k = max_cutoff(evaluation)
    show = min(max(5, k or 5), 10)
    out = ["", s(f"worst {len(bad)} questions (by {t(evaluation.metrics[0])}; + marks a relevant document)", bold=True)]
    for q in bad:
        out += _question(evaluation, q, width, s, show)
    return out


def _failures(evaluation: Evaluation, width: int | None, s: Style) -> list[str]:
    """The "why it failed" table, the fix of each pattern, the perfect-reranker ceiling and what
    was not assessed."""
    table = evaluation.failure_table
    if table is None:
        return []
    out = ["", s("why it failed: " + failures.summary(table), bold=True)]
    if table.rows:
        lines, dropped = _table(failures.HEADER, [[t(c) for c in row] for row in failures.rows(table)], width, 4, s,
                                left=(0, 4))
        out += lines + _dropped(dropped, width)
    for name, fix in failures.fixes(table):
        out += _wrap(t(f"{name}: {fix}"), width, "  fix  ", " " * 7)
    line = failures.ceiling(table, fetch_label(evaluation))
    for note in ([line] if line else []) + failures.caveats(table):
        out += _wrap(t(note), width)
    return out


def _no_answer(evaluation: Evaluation, width: int | None, s: Style, limit: int = 10) -> list[str]:
    na = evaluation.no_answer
    if not na.get("n"):
        return []
    out = ["", s(f"no-answer questions: {na['n']} (not in any mean)", bold=True)]
    for q in na.get("questions", [])[:limit]:
        top = t(q["top"][0]["doc_id"]) if q.get("top") else "(nothing)"
        lead = f"  {t(q['id'])}  top: {top}  "
        room = None if width is None else width - len(lead)
        query = _truncate(q.get("query", ""), room) if room is None or room >= 10 else ""
        out.append((lead + query).rstrip())
    if na["n"] > limit:
        out.append(f"  (+{na['n'] - limit} more in --format json or html)")
    return out


def render_text(evaluation: Evaluation, worst: int = WORST, *, color: bool = False, width: int | None = None) -> str:
    """The terminal report. ``width`` None: no fitting (a file or a pipe); ``color``: ANSI styles."""
    s = _styler(color)
    out = _summary(evaluation, width, s)
    out += draw_sections(evaluation_sections(evaluation.meta), width, s)
    out += _by_source(evaluation, width, s)
    out += _by_tag(evaluation, width, s)
    out += _agents(evaluation, width, s)
    out += _failures(evaluation, width, s)
    if evaluation.metrics:
        out += _worst(evaluation, worst, width, s)
    out += _no_answer(evaluation, width, s)
    if evaluation.warnings:
        out += ["", s("warnings", bold=True)]
        for w in evaluation.warnings:
            out += [s(line, fg="yellow") for line in _wrap(_one_line(w), width, "  ! ", "    ")]
    return "\n".join(out) + "\n"
