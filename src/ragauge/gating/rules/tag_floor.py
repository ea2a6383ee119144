"""Tag floors (``[gate] tag_floors = { networking = { "recall@10" = 0.8 } }``): the mean of a metric over
a tag's questions must stay at or above its floor (at or below it, a ceiling, for a count where lower is
better)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.config import key_line
from ragauge.core.numbers import check_number
from ragauge.errors import InputError
from ragauge.evaluation.tags import mean_of
from ragauge.gating.outcome import RuleOutcome
from ragauge.gating.rules.kind import Context, RuleKind
from ragauge.gating.rules.metric import SHOWN, _values
from ragauge.metrics.spec import lower_is_better, parse_metric, value_range
from ragauge.stats.paired import EPS

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.gating.config import GateRules


def _floor_rule(tag: str, m: str, floor: float, ev: Evaluation, ids: Sequence[str], rows: list[int]) -> RuleOutcome:
    """The tag floor over the rows numbered ``rows`` (the tag's questions), read from the columns."""
    lower = lower_is_better(m)  # a count of calls: the floor is a ceiling
    rule = f"tag {tag!r}: {m} must stay {'<=' if lower else '>='} {floor:.4f}"
    if not rows:
        return RuleOutcome("tag_floor", rule, False, f"no answerable question has tag {tag!r}")
    values, ranks = _values(ev, m, ids), ev.first_ranks.tolist()
    value = mean_of([values[i] for i in rows])
    failed = value > floor + EPS if lower else value < floor - EPS
    ordered = sorted(rows, key=lambda i: (-values[i] if lower else values[i], ids[i]))
    questions: list[dict[str, Any]] = [{"id": ids[i], "now": values[i], "first_relevant_rank": ranks[i] or None}
                                       for i in ordered[:SHOWN]]
    if len(ordered) > SHOWN:
        questions.append({"more": len(ordered) - SHOWN})
    return RuleOutcome("tag_floor", rule, not failed, f"tag {tag!r} (n={len(rows)}): {m} = {value:.4f}",
                       questions if failed else [])


def check(ctx: Context) -> list[RuleOutcome]:
    return [_floor_rule(t, m, f, ctx.evaluation, ctx.ids, ctx.tag_rows.get(t, []))
            for t, floors in ctx.rules.tag_floors.items() for m, f in floors.items()]


def read(gate: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """``tag_floors``: tag -> metric spec -> floor, each in the metric's range."""
    tag_floors = gate.get("tag_floors", {})
    if not isinstance(tag_floors, dict):
        raise InputError("'gate.tag_floors' must map tags to { metric = minimum }", where=key_line(path, "tag_floors"),
                         hint='tag_floors = { networking = { "recall@10" = 0.8 } }')
    floors: dict[str, dict[str, float]] = {}
    for tag, rules in tag_floors.items():
        if not isinstance(rules, dict):
            raise InputError(f"tag_floors.{tag} must map metric specs to minimums", where=key_line(path, tag))
        floors[tag] = {str(parse_metric(m)): check_number(v, f"floor of {tag}/{m}", value_range(str(parse_metric(m))),
                                                          where=key_line(path, m)) for m, v in rules.items()}
    return {"tag_floors": floors}


def loosened(now: GateRules, stored: GateRules) -> list[str]:
    """A floor removed or lowered (a ceiling raised, for a count where lower is better)."""
    out = []
    for tag, floors in stored.tag_floors.items():
        for m, f in floors.items():
            value = now.tag_floors.get(tag, {}).get(m)
            looser = value is not None and (value > f + 1e-12 if lower_is_better(m) else value < f - 1e-12)
            if value is None or looser:
                change = "removed" if value is None else f"{value:.4f} (was {f:.4f})"
                out.append(f"tag {tag!r} {'ceiling' if lower_is_better(m) else 'floor'} of {m} {change}")
    return out


KIND = RuleKind("tag_floor", ("tag_floors",), read, check, loosened)
