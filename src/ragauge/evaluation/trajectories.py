"""Where a multi-call run's evidence came from: per call position and per tool, from the calls of
each answerable question's scored trajectory (``data.hits.scored_calls``).

A call *found* a relevant document when it was the first call to return it (``Rankings.calls``: the
trajectory is folded into documents first-seen); a call that found none is *wasted*. Latency and
cost are summed over the calls that give them (None when no call of the row gives one). Within the
fetch depth, like every metric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ragauge.data.hits import Call, scored_calls
from ragauge.metrics.rankings import Rankings

UNNAMED = "(no tool)"
"""The tool of a call that names none."""


def trajectory_report(ids: Sequence[str], rankings: Rankings, calls: Mapping[str, tuple[Call, ...]],
                      answerable: np.ndarray) -> dict[str, Any] | None:
    """The breakdown of the answerable questions among ``ids`` (rankings order) that ``calls`` holds;
    None when the run has no multi-call question."""
    if not calls:
        return None
    found: dict[int, dict[int, int]] = {}  # question -> call -> relevant documents it found first
    if rankings.calls is not None:
        rel = rankings.rel_pos
        for q, c in zip(rankings.qidx[rel].tolist(), rankings.calls[rel].tolist()):
            found.setdefault(q, {})
            found[q][c] = found[q].get(c, 0) + 1
    by_call: dict[int, dict[str, float]] = {}
    by_tool: dict[str, dict[str, float]] = {}
    questions = total = 0
    for i, qid in enumerate(ids):
        if not answerable[i] or qid not in calls:
            continue
        questions += 1
        mine = found.get(i, {})
        for number, call in enumerate(scored_calls(calls[qid])):
            total += 1
            new = mine.get(number, 0)
            for row in (by_call.setdefault(number + 1, _empty()), by_tool.setdefault(call.tool or UNNAMED, _empty())):
                row["calls"] += 1
                row["found"] += new
                row["wasted"] += new == 0
                if call.latency_ms is not None:
                    row["latency_ms"] += call.latency_ms
                    row["timed"] += 1
                if call.cost is not None:
                    row["cost"] += call.cost
                    row["priced"] += 1
    if not questions:
        return None
    every = sum(row["found"] for row in by_call.values())
    for row in [*by_call.values(), *by_tool.values()]:
        row["share_found"] = row["found"] / every if every else 0.0
    return {"questions": questions, "calls": total, "calls_per_question": total / questions,
            "found": int(every), "by_call": {str(k): _ints(v) for k, v in sorted(by_call.items())},
            "by_tool": {k: _ints(v) for k, v in sorted(by_tool.items())}}


def _empty() -> dict[str, float]:
    return {"calls": 0, "found": 0, "wasted": 0, "latency_ms": 0.0, "cost": 0.0, "timed": 0, "priced": 0}


def _ints(row: dict[str, float]) -> dict[str, float | None]:
    out: dict[str, float | None] = {k: int(row[k]) for k in ("calls", "found", "wasted")}
    out["latency_ms"] = float(row["latency_ms"]) if row["timed"] else None
    out["cost"] = float(row["cost"]) if row["priced"] else None
    out["share_found"] = float(row["share_found"])
    return out
