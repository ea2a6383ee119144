"""What the reports show of retrieval inside agents and conversations, laid out once as tables of
plain text that each renderer escapes for its language and draws:

- ``meta["trajectories"]`` (``evaluation.trajectories``): per call position and per tool, the calls,
  the relevant documents each brought back first, the calls that brought none, latency and cost;
- ``meta["stages"]`` (``evaluation.stages``): each stage's means side by side, and what each step
  (``first → rerank``) promoted into and demoted out of the top k, with its rank-biased overlap;
- ``meta["turns"]`` (``evaluation.turns``): each metric's mean by turn of a conversation, with its
  drift from the conversation's first turn.

A section is there only when the evaluation holds it. Every string taken from the data (tool and
stage names, metric names) is user text: a saved result is a file anyone can write, so a renderer
escapes every title, header, cell and note of these tables. Counts of calls (``calls``,
``wasted_calls``...; ``metrics.spec.lower_is_better``) are not shares in [0, 1]: they are shown as
plain numbers, and ``views.lower_note`` says lower is better wherever they are listed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ragauge.evaluation.result import Evaluation
from ragauge.reports.views import lower_note, mean_text

NAN = float("nan")
NONE = "-"
"""A cell with nothing to show (the drift of a conversation's first turn, the cost of calls that
gave none)."""


@dataclass(frozen=True)
class Section:
    """One table: ``key`` names it for a report that lists properties (JUnit: ``stages.step``),
    ``title`` heads it, ``notes`` follow it; the first column is a row's label, the others numbers."""

    key: str
    title: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


def _mean(value: Any) -> str:
    """A mean as the reports show one (``views.mean_text``; ``n/a`` for none)."""
    return mean_text(NAN if value is None else float(value))


def _signed(value: Any) -> str:
    number = NAN if value is None else float(value)
    return "n/a" if number != number else f"{number:+.4f}"


def sections(evaluation: Evaluation) -> list[Section]:
    """Every table of the three sections the evaluation holds, in the order the reports show them."""
    meta = evaluation.meta
    out: list[Section] = []
    if meta.get("trajectories"):
        out += trajectory_sections(meta["trajectories"])
    if meta.get("stages"):
        out += stage_sections(meta["stages"])
    if meta.get("turns"):
        out.append(turn_section(meta["turns"], evaluation.metrics))
    return out


def trajectory_sections(t: Mapping[str, Any]) -> list[Section]:
    """By call position and by tool; the latency and cost columns only when a call gave them (a row
    none of whose calls did shows ``-``)."""
    rows = [*t.get("by_call", {}).values(), *t.get("by_tool", {}).values()]
    latency = any(r.get("latency_ms") is not None for r in rows)
    cost = any(r.get("cost") is not None for r in rows)
    header = ("calls", "found", "share found", "wasted", *(("latency ms",) if latency else ()),
              *(("cost",) if cost else ()))

    def number(value: Any, form: str) -> str:
        return NONE if value is None else format(float(value), form)

    def cells(label: str, r: Mapping[str, Any]) -> tuple[str, ...]:
        return (label, str(r.get("calls", 0)), str(r.get("found", 0)), number(r.get("share_found"), ".1%"),
                str(r.get("wasted", 0)), *((number(r.get("latency_ms"), ".1f"),) if latency else ()),
                *((number(r.get("cost"), ".6g"),) if cost else ()))

    lead = (f"{t.get('questions', 0)} answerable questions made {t.get('calls', 0)} calls "
            f"({float(t.get('calls_per_question', NAN)):.2f} a question) and found {t.get('found', 0)} "
            "relevant documents")
    rule = ("found: the relevant documents a call brought back first (the trajectory folded first-seen, within "
            "the fetch depth); wasted: calls that brought back none; share found: of all found"
            + ("; latency, cost: summed over the calls that give one" if latency or cost else ""))
    return [Section("trajectories.call", "Trajectories: by call", ("call", *header),
                    tuple(cells(k, r) for k, r in t.get("by_call", {}).items()), (lead,)),
            Section("trajectories.tool", "Trajectories: by tool", ("tool", *header),
                    tuple(cells(k, r) for k, r in t.get("by_tool", {}).items()), (rule,))]


def stage_sections(s: Mapping[str, Any]) -> list[Section]:
    """Each stage's means side by side (and the scored stage's change from the first), then what
    each step changed."""
    order = [str(name) for name in s.get("order", [])]
    means: Mapping[str, Mapping[str, Any]] = s.get("metrics", {})
    metrics = list(dict.fromkeys(m for name in order for m in means.get(name, {})))
    change = len(order) > 1

    def row(m: str) -> tuple[str, ...]:
        values = [means.get(name, {}).get(m) for name in order]
        moved = (_signed(float(values[-1] if values[-1] is not None else NAN)
                         - float(values[0] if values[0] is not None else NAN)),) if change else ()
        return (m, *map(_mean, values), *moved)

    notes = [f"the scored list is the last stage's ({s.get('scored', order[-1] if order else '?')})"
             + (f"; change: {order[-1]} minus {order[0]}" if change else "")]
    lower = lower_note(metrics)
    if lower:
        notes.append(lower)
    header = ("metric", *order, *(("change",) if change else ()))
    out = [Section("stages.metric", "Stages: " + " → ".join(order), header, tuple(map(row, metrics)), tuple(notes))]
    steps = s.get("steps", [])
    if steps:
        first = steps[0]
        rule = (f"promoted, demoted: relevant documents that entered, left the top {first.get('k', '?')}; RBO: the "
                f"mean rank-biased overlap of each question's lists as the rows show them (p={first.get('rbo_p')}, "
                f"to depth {first.get('rbo_depth')}): 1 is the same list, 0 nothing in common")
        out.append(Section(
            "stages.step", "Stages: what each step changed",
            ("step", "promoted", "demoted", "RBO", "identical lists", "questions promoted/demoted"),
            tuple((f"{step.get('from')} → {step.get('to')}", str(step.get("promoted", 0)), str(step.get("demoted", 0)),
                   _mean(step.get("rbo")), f"{step.get('identical', 0)} of {step.get('questions', 0)}",
                   f"{step.get('questions_promoted', 0)}/{step.get('questions_demoted', 0)}") for step in steps),
            (rule,)))
    return out


def turn_section(turns: Mapping[str, Any], metrics: Sequence[str]) -> Section:
    """Each metric's mean by turn, its drift from the conversation's first turn in brackets."""
    by_turn: Mapping[str, Mapping[str, Any]] = turns.get("by_turn", {})
    shown = [m for m in metrics if any(m in row for row in by_turn.values())]

    def cell(row: Mapping[str, Any], m: str) -> str:
        drift = row.get("drift") or {}
        return _mean(row.get(m)) + (f" ({_signed(drift[m])})" if m in drift else "")

    rows = tuple((turn, str(row.get("n", 0)), str((row.get("drift") or {}).get("pairs", NONE)),
                  *(cell(row, m) for m in shown)) for turn, row in by_turn.items())
    notes = [f"{turns.get('questions', 0)} questions in {turns.get('conversations', 0)} conversations; each cell the "
             "mean at that turn and, in brackets, its drift: the mean change from the conversation's first turn over "
             "the conversations that have both (pairs)"]
    lower = lower_note(shown)
    if lower:
        notes.append(lower)
    return Section("turns.turn", "By turn", ("turn", "n", "pairs", *shown), rows, tuple(notes))
