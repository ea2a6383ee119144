"""The history for a terminal: the entries, a sparkline per series on one shared scale, the events and
the flips. Every recorded string (labels, retrievers, paths, tags, metric names, question ids and text:
the history file is user data) goes through :func:`ragauge.core.escape.terminal`."""

from __future__ import annotations

from collections.abc import Sequence

from ragauge.core.escape import terminal as t
from ragauge.history.model import Entry
from ragauge.history.report import (
    BLOCKS,
    BOTH_MARK,
    BREAK,
    CONTRACT_MARK,
    GOLDEN_MARK,
    LABEL_MARK,
    MISSING,
    SHRUNK_MARK,
    Flips,
    HistoryView,
    Marker,
    Series,
    last_delta,
    scale,
    span,
)


def sparkline(values: Sequence[float | None], breaks: Sequence[bool] = (),
              bounds: tuple[float, float] | None = None) -> str:
    """One block per value on ``bounds`` (default: the values' own range widened to ``MIN_SPAN``);
    ``·`` where a value is missing, and ``|`` before a value whose entry ``breaks`` the series."""
    present = [v for v in values if v is not None]
    if not present:
        return MISSING * len(values)
    lo, hi = bounds if bounds is not None else span(present)
    out = []
    for i, v in enumerate(values):
        if i > 0 and i < len(breaks) and breaks[i]:
            out.append(BREAK)
        if v is None:
            out.append(MISSING)
        else:
            out.append(BLOCKS[max(0, min(int((v - lo) / (hi - lo) * len(BLOCKS)), len(BLOCKS) - 1))])
    return "".join(out)


def _short_hash(h: str) -> str:
    return t(h.split(":", 1)[-1][:8])


def _clip(text: str, n: int) -> str:
    """Prose on one line (escaped), cut to ``n`` characters."""
    text = t(" ".join(text.split()))
    return text if len(text) <= n else text[:n - 1] + "…"


def render_text(entries: Sequence[Entry], marks: Sequence[Marker], series: Sequence[Series],
                flip: Flips | None = None, source: str = "") -> str:
    """Entries table, then one row per series with its sparkline, then the flips when given.
    ``marks`` are the entries' markers (``markers`` over the whole history, then cut like ``entries``)."""
    if not entries:
        return f"history {t(source)}: no recorded evaluations\n"
    lines = [f"history {t(source)} · {len(entries)} evaluation(s) · {t(entries[0].recorded_at[:10])} → "
             f"{t(entries[-1].recorded_at[:10])}", ""]
    lines.append(f"{'#':>4}  {'recorded (UTC)':<16}  {'golden':<10}  {'commit':<8}  {'label / retriever'}")
    for e, m in zip(entries, marks):
        golden = _short_hash(e.golden_hash) + (" G" if m.golden_changed else "")
        what = f"[{t(e.label)}] " if e.label else ""
        what += _clip(e.retriever or e.run_path or "", 70)
        lines.append(f"{e.id if e.id is not None else '-':>4}  {t(e.recorded_at[:16].replace('T', ' ')):<16}  "
                     f"{golden:<10}  {t((e.git_commit or '-')[:8]):<8}  {what}".rstrip())
    metric_w = max([len("metric"), *(len(t(s.metric)) for s in series)])
    tag_w = min(max([len("(all)"), *(len(t(s.tag or "")) for s in series)]), 24)
    breaks = [m.breaks for m in marks]
    trend_w = max(len("trend"), len(entries) + sum(breaks[1:]))
    bounds = scale(series)
    lines += ["", f"{'metric':<{metric_w}}  {'tag':<{tag_w}}  {'trend':<{trend_w}}  {'first':>6}  {'last':>6}  "
              f"{'min':>6}  {'max':>6}  {'Δ last':>7}"]
    events = "".join((BREAK if i > 0 and breaks[i] else "") + m.mark for i, m in enumerate(marks))
    lines.append(f"{'':<{metric_w}}  {'events':<{tag_w}}  {events:<{trend_w}}")
    for s in series:
        present = [v for v in s.values if v is not None]
        tag = t(s.tag or "(all)")[:tag_w]
        if not present:
            continue
        change = last_delta(s.values, breaks)
        delta = f"{change:+.4f}" if change is not None else ("break" if breaks and breaks[-1] else "-")
        lines.append(f"{t(s.metric):<{metric_w}}  {tag:<{tag_w}}  {sparkline(s.values, breaks, bounds):<{trend_w}}  "
                     f"{present[0]:>6.4f}  {present[-1]:>6.4f}  {min(present):>6.4f}  {max(present):>6.4f}  {delta:>7}")
    lines += ["", f"trend: one block per evaluation, every row on one scale ({bounds[0]:.2f} to {bounds[1]:.2f}; "
              f"{MISSING} no value; {BREAK} the golden set or the contract changed: no Δ across it); events: "
              f"{LABEL_MARK} labelled, {GOLDEN_MARK} golden set changed, {CONTRACT_MARK} contract changed, "
              f"{SHRUNK_MARK} fewer answerable questions, {BOTH_MARK} several"]
    changes = [(e, m) for e, m in zip(entries, marks) if m.contract_changed or m.shrunk]
    for e, m in changes:
        said = ([f"contract changed ({', '.join(m.contract_changed)})"] if m.contract_changed else []) + \
            ([f"fewer answerable questions ({e.counts.get('answerable')})"] if m.shrunk else [])
        lines.append(f"  #{e.id}: {t('; '.join(said))}")
    if flip is not None:
        lines += [""] + flips_text(flip)
    return "\n".join(lines) + "\n"


def flips_text(f: Flips) -> list[str]:
    def rank(r: int | None) -> str:
        return "-" if r is None else str(r)

    lines = [f"flips on {t(f.metric)} from #{f.a} to #{f.b}: {len(f.lost)} lost (hit → miss), "
             f"{len(f.gained)} gained (miss → hit) of {f.compared} questions in both"]
    for title, rows in (("lost", f.lost), ("gained", f.gained)):
        if rows:
            lines.append(f"  {title}:")
            lines += [f"    {t(r.id)}  first relevant rank {rank(r.rank_before)} → {rank(r.rank_after)}  "
                      f"{_clip(r.query, 70)}" for r in rows]
    if f.only_a or f.only_b:
        lines.append(f"  not compared: {len(f.only_a)} question(s) only in #{f.a}, {len(f.only_b)} only in #{f.b}")
    return lines


def render_history_text(view: HistoryView) -> str:
    """``render_text`` of a :class:`~ragauge.history.report.HistoryView` (the registry's form)."""
    return render_text(view.entries, view.marks, view.series, view.flips, view.source)
