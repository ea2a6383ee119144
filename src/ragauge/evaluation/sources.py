"""Real and synthetic questions, kept apart: questions an LLM wrote (``"source": "synthetic"``, from
``golden draft`` or a ragas test set) tend to reuse their section's words and read easier than the
questions users ask, so a mean over both describes neither.

When a golden set mixes them, an evaluation's means (summary, per tag, failures, the rows every
report and the gate read) cover the real questions; the synthetic ones are scored on their own and
shown in ``Evaluation.by_source`` and a loud note. ``mix_synthetic`` scores all together (the
by-source means are still shown, and the note says the means mix them).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ragauge.core.notes import LOUD
from ragauge.data.golden import GoldenSet
from ragauge.evaluation.result import Asked, Evaluation
from ragauge.evaluation.tags import mean_of

if TYPE_CHECKING:
    import numpy as np

REAL = "real"
SYNTHETIC = "synthetic"


def is_synthetic(row: Asked | dict[str, Any]) -> bool:
    """Whether a result row, a row's question (``Evaluation.asked``) or a no-answer entry is a
    synthetic question's."""
    extra = row.get("extra") or {} if isinstance(row, dict) else row.extra
    return bool(extra.get("source") == SYNTHETIC)


def split(golden: GoldenSet) -> tuple[GoldenSet, GoldenSet]:
    """``(real, synthetic)`` questions of ``golden``, each in golden order."""
    return (GoldenSet.from_queries([q for q in golden if not q.synthetic], golden.source),
            GoldenSet.from_queries([q for q in golden if q.synthetic], golden.source))


def source_means(ev: Evaluation, rows: np.ndarray | None = None) -> dict[str, float]:
    """``{"n": answerable questions, metric: mean}`` over the rows ``rows`` of ``ev`` (all when
    None), read from its columns (NaN means when there are none)."""
    n = len(ev.queries) if rows is None else len(rows)
    return {"n": n, **{m: mean_of(ev.column(m) if rows is None else ev.column(m)[rows]) for m in ev.metrics}}


def by_source(ev: Evaluation) -> dict[str, dict[str, float]]:
    """Means of the real and of the synthetic rows of ``ev``; a source without questions is left out."""
    import numpy as np

    synthetic = np.fromiter(map(is_synthetic, ev.asked), dtype=bool, count=len(ev.queries))
    groups = {REAL: np.flatnonzero(~synthetic), SYNTHETIC: np.flatnonzero(synthetic)}
    return {source: source_means(ev, rows) for source, rows in groups.items() if len(rows)}


def note(real: int, synthetic: int, *, mixed: bool) -> str:
    """The loud note for a golden set holding ``synthetic`` LLM-written questions beside ``real`` ones."""
    why = "LLM-written questions tend to reuse their section's words and read easier than users' questions"
    if not real:
        return (f"{LOUD}all {synthetic} questions are synthetic (\"source\": \"synthetic\": an LLM wrote them): "
                f"these numbers say how the retriever finds them, not how it serves users; {why}")
    if mixed:
        return (f"{LOUD}the means mix {real} real and {synthetic} synthetic (LLM-written) question(s), as "
                f"--mix-synthetic asked; {why}: see the means by source")
    return (f"{LOUD}{synthetic} of {real + synthetic} questions are synthetic (\"source\": \"synthetic\": an LLM "
            f"wrote them): every mean here covers the {real} real ones; the synthetic ones are scored apart "
            f"(means by source), never averaged in (--mix-synthetic mixes them)")
