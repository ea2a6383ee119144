"""Critical questions (``[gate] critical = ["q001"]``, ``critical_k = 10``): each must keep a relevant
document within the top k, whatever the means do."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.config import key_line
from ragauge.core.numbers import COUNT, check_number
from ragauge.errors import InputError
from ragauge.gating.outcome import RuleOutcome
from ragauge.gating.rules.kind import Context, RuleKind
from ragauge.metrics.spec import DEFAULT_K

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation
    from ragauge.gating.config import GateRules


def critical_rule(qid: str, k: int, ev: Evaluation) -> RuleOutcome:
    rule = f"critical question {qid!r} keeps a relevant document in the top {k}"
    position = ev.positions.get(qid)
    if position is None:
        if qid in (ev.meta.get("ppi") or {}).get("unlabelled", ()):  # --auto-labels: never on an assessor's word
            return RuleOutcome("critical", rule, False, f"{qid!r} carries no human label (\"relevant\": null): a "
                               "critical question is checked on its human labels only; label it")
        return RuleOutcome("critical", rule, False, f"{qid!r} is not an answerable question of the golden set")
    q = ev.queries[position]
    rank = q.first_relevant_rank
    ok = rank is not None and rank <= k
    where = f"first relevant at rank {rank}" if rank else "no relevant document retrieved"
    details = {"id": qid, "query": q.query, "first_relevant_rank": rank, "expected": list(q.relevant),
               "returned": [r.doc_id for r in q.top[:k]]}
    return RuleOutcome("critical", rule, ok, f"{qid}: {where}", [] if ok else [details])


def check(ctx: Context) -> list[RuleOutcome]:
    return [critical_rule(q, ctx.rules.critical_k, ctx.evaluation) for q in ctx.rules.critical]


def read(gate: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """``critical`` (question ids) and ``critical_k`` (a whole number >= 1)."""
    critical = gate.get("critical", [])
    if not isinstance(critical, list) or not all(isinstance(c, str) for c in critical):
        raise InputError("'gate.critical' must be a list of question ids", where=key_line(path, "critical"))
    k = int(check_number(gate.get("critical_k", DEFAULT_K), "'gate.critical_k'", COUNT,
                         where=key_line(path, "critical_k")))
    return {"critical": tuple(critical), "critical_k": k}


def loosened(now: GateRules, stored: GateRules) -> list[str]:
    """A critical question removed, or its k raised."""
    out = [f"critical question {q!r} removed" for q in stored.critical if q not in now.critical]
    if stored.critical and now.critical_k > stored.critical_k:
        out.append(f"critical_k {now.critical_k} (was {stored.critical_k})")
    return out


KIND = RuleKind("critical", ("critical", "critical_k"), read, check, loosened)
