"""Which failure patterns a change fixed and which it caused, question by question.

Over the paired questions, each has a primary failure pattern in the base and in the new result
(none when it did not miss). A pattern is **fixed** for a question whose base primary was that
pattern and whose new one is not (it hits now, or fails for another reason); **caused** for a
question whose new primary is that pattern and whose base one was not. Only patterns assessed in
both results count: when one result was classified with the corpus texts and the other without,
the text patterns are left out of both and each question's primary is the first of its remaining
patterns, so a pattern never appears or vanishes only because one side could not see it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ragauge.evaluation.patterns import PATTERNS
from ragauge.evaluation.result import Evaluation

SHOWN_IDS = 10


def pattern_changes(base: Evaluation, new: Evaluation, ids: Sequence[str]) -> dict[str, Any]:
    """``{"k", "compared", "rows", "notes"}`` for the paired question ``ids``: ``compared`` the
    patterns assessed in both; a row per pattern primary for some question on either side, with
    its count in base and new, the questions it was ``fixed`` and ``caused`` for (the first
    ``SHOWN_IDS`` of each in ``fixed_ids`` / ``caused_ids``). Empty rows and a note when the
    results count misses at different k or were not classified."""
    a, b = base.failures, new.failures
    if a is None or b is None:
        return {"k": None, "compared": [], "rows": [], "notes": ["failure patterns: a result was not classified"]}
    if a.k != b.k:
        return {"k": None, "compared": [], "rows": [],
                "notes": [f"failure patterns not compared: the results count misses at different k "
                          f"({a.k} and {b.k}); evaluate both with the same cutoffs"]}
    common = a.assessed & b.assessed
    compared = [p for p in PATTERNS if p in common]
    notes = []
    skipped = [PATTERNS[p].title for p in PATTERNS if p not in common and (p in a.assessed or p in b.assessed)]
    if skipped:
        notes.append(f"failure patterns assessed in only one result, left out of both: {', '.join(skipped)}")
    bq, nq = (dict(zip((q.id for q in e.queries), e.queries)) for e in (base, new))
    counts: dict[str, dict[str, Any]] = {}

    def row(p: str) -> dict[str, Any]:
        return counts.setdefault(p, {"pattern": p, "title": PATTERNS[p].title if p in PATTERNS else p, "base": 0,
                                     "new": 0, "fixed": 0, "caused": 0, "fixed_ids": [], "caused_ids": []})

    for qid in ids:
        before, after = bq[qid].failure, nq[qid].failure
        pb = before.primary_among(common) if before is not None else None
        pn = after.primary_among(common) if after is not None else None
        for side, p in (("base", pb), ("new", pn)):
            if p is not None:
                row(p)[side] += 1
        if pb == pn:
            continue
        for kind, p in (("fixed", pb), ("caused", pn)):
            if p is not None:
                r = row(p)
                r[kind] += 1
                if len(r[f"{kind}_ids"]) < SHOWN_IDS:
                    r[f"{kind}_ids"].append(qid)
    order = {p: i for i, p in enumerate(PATTERNS)}
    rows = sorted(counts.values(), key=lambda r: (-(r["fixed"] + r["caused"]), order.get(r["pattern"], len(order))))
    return {"k": a.k, "compared": compared, "rows": rows, "notes": notes}
