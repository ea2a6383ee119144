"""The pool summary for a terminal (``ragauge golden pool``); its JSON is ``PoolResult.to_dict``."""

from __future__ import annotations

from ragauge.curation.pool import PoolResult, judged_in_pool

SHOWN = 5
"""Pairs named in the order a pool made for a verdict is judged in."""


def render_pool_text(result: PoolResult, *, per_question: bool = True) -> str:
    """The summary for a terminal: overall and per question, how many candidates came from how many
    systems; the notes. Names and ids go through :func:`ragauge.core.escape.terminal`."""
    from ragauge.core.escape import terminal as t
    from ragauge.core.table import text_table

    pool = result.pool
    n = len(pool.systems)
    by = pool.by_systems()
    split = ", ".join(f"{c} from {k} system{'s' if k != 1 else ''}" for k, c in by.items())
    judged = sum(judged_in_pool(q, pool.depth) for q in pool.questions)
    out = [f"pooled {n} system{'s' if n != 1 else ''} at depth {pool.depth} over {len(pool.questions)} questions: "
           f"{pool.candidates} candidate{'s' if pool.candidates != 1 else ''} to judge"
           + (f" ({split})" if split else "")
           + f"; {judged} already-judged document{'s' if judged != 1 else ''} in the pool left out"]
    out += [f"  {t(s.name)} ({s.kind}): answered {sum(s.name in q.systems for q in pool.questions)}"
            for s in pool.systems]
    if result.skipped:
        out.append(f"  {result.skipped} rejected candidate(s) skipped")
    empty = [q.id for q in pool.questions if not q.candidates]
    if empty:
        out.append(f"  {len(empty)} question(s) with no candidate: every pooled document is judged")
    out += [f"NOTE: {t(note)}" for note in result.notes]
    if result.verdict is not None:
        out += ["", *result.verdict.lines()]
        if result.order and not result.verdict.certain:
            first = ", ".join(f"{t(q)}/{t(d)}" for (q, d), _ in result.order[:SHOWN])
            out.append(f"  judge first ('golden judge' serves the pairs in this order, recomputed after each "
                       f"judgement): {first}" + (" ..." if len(result.order) > SHOWN else ""))
    if per_question and pool.questions:
        header = ["question", "candidates", *[f"from {k}" for k in range(1, n + 1)], "judged in pool"]
        rows = [[t(q.id), str(len(q.candidates)), *[str(q.by_systems().get(k, 0)) for k in range(1, n + 1)],
                 str(judged_in_pool(q, pool.depth))] for q in pool.questions]
        out += ["", *text_table(header, rows)]
    return "\n".join(out) + "\n"
