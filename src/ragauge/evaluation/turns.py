"""Questions asked inside conversations (``GoldenQuery.conversation`` / ``turn``): each metric's mean
by turn position, and its drift: the mean change from a conversation's first turn to its turn t,
paired within conversations (only conversations that have both turns scored count)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragauge.data.golden import GoldenQuery
from ragauge.evaluation.scores import QueryScore

MAX_TURNS_SHOWN = 20
"""Turn positions beyond this are pooled into one row (``"21+"``)."""


def turn_report(rows: Sequence[QueryScore], golden: Mapping[str, GoldenQuery],
                names: Sequence[str]) -> dict[str, Any] | None:
    """Means by turn position and the drift from turn 1 over the answerable ``rows``; None when no
    question belongs to a conversation."""
    placed = [(q, golden[q.id]) for q in rows if golden[q.id].conversation is not None]
    if not placed:
        return None
    first: dict[str, QueryScore] = {}
    for row, item in placed:
        if item.turn == 1:
            first[item.conversation or ""] = row
    groups: dict[str, list[tuple[QueryScore, GoldenQuery]]] = {}
    for row, item in placed:
        turn = item.turn or 1
        groups.setdefault(str(turn) if turn <= MAX_TURNS_SHOWN else f"{MAX_TURNS_SHOWN + 1}+", []).append((row, item))
    out: dict[str, Any] = {}
    for key in sorted(groups, key=lambda k: int(k.rstrip("+"))):
        members = groups[key]
        row_out: dict[str, Any] = {"n": len(members)}
        for m in names:
            row_out[m] = sum(r.values[m] for r, _ in members) / len(members)
        paired = [(first[i.conversation or ""], r) for r, i in members
                  if i.conversation in first and i.turn != 1]
        if paired:
            row_out["drift"] = {"pairs": len(paired),
                                **{m: sum(r.values[m] - f.values[m] for f, r in paired) / len(paired) for m in names}}
        out[key] = row_out
    conversations = {item.conversation for _, item in placed}
    return {"conversations": len(conversations), "questions": len(placed), "by_turn": out}
