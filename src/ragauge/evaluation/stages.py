"""Stages side by side: a run whose calls carry stages (``"first"``, then ``"rerank"``) is scored at
every stage, and each step from one stage to the next is described: the relevant documents it
promoted into the top k and demoted out of it, and how much it changed the list, label-free
(rank-biased overlap, ``metrics.overlap``, over each question's top documents as the rows show them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ragauge.evaluation.scores import QueryScore
from ragauge.metrics.overlap import DEFAULT_P, rbo


def list_change(before: Sequence[QueryScore], after: Sequence[QueryScore], k: int) -> dict[str, Any]:
    """What changed from ``before`` to ``after`` (rows of the same questions, matched by id): the
    relevant documents that entered (``promoted``) and left (``demoted``) the top ``k``, the
    questions each touched, and the mean RBO of the shown lists (``rbo_depth``: the longest)."""
    by_id = {q.id: q for q in before}
    promoted = demoted = up = down = identical = 0
    overlaps: list[float] = []
    depth = 0
    for new in after:
        old = by_id.get(new.id)
        if old is None:
            continue
        a = [r.doc_id for r in old.top]
        b = [r.doc_id for r in new.top]
        depth = max(depth, len(a), len(b))
        rel = {d for d, g in new.relevant.items() if g >= 1}
        top_a, top_b = set(a[:k]) & rel, set(b[:k]) & rel
        gained, lost = len(top_b - top_a), len(top_a - top_b)
        promoted += gained
        demoted += lost
        up += gained > 0
        down += lost > 0
        identical += a == b
        overlaps.append(rbo(a, b, DEFAULT_P))
    n = len(overlaps)
    return {"k": k, "questions": n, "promoted": promoted, "demoted": demoted, "questions_promoted": up,
            "questions_demoted": down, "identical": identical, "rbo": sum(overlaps) / n if n else None,
            "rbo_p": DEFAULT_P, "rbo_depth": depth}


def stage_report(order: Sequence[str], rows: Mapping[str, Sequence[QueryScore]],
                 summaries: Mapping[str, Mapping[str, float]], k: int) -> dict[str, Any]:
    """The stages in ``order`` (the last is the scored list), each one's metric means, and each step's
    :func:`list_change` at ``k``."""
    steps = [{"from": a, "to": b, **list_change(rows[a], rows[b], k)} for a, b in zip(order, order[1:])]
    return {"order": list(order), "scored": order[-1], "metrics": {s: dict(summaries[s]) for s in order},
            "steps": steps}
