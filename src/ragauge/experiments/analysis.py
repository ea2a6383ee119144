"""From each configuration's evaluation to the sweep's table, frontier, selection and holdout check.

Every test is the paired test of ``comparison.compare`` (``stats.paired``: paired t, or McNemar with
Tango's interval for 0/1 values) on the questions every configuration answered:

- **against the reference**: each configuration x metric, Holm-corrected over all of them together;
- **the selection**: the configuration with the highest mean on the primary metric (the first in
  the sweep's order on a tie) against every other one on that metric, Holm-corrected over those
  tests. It is named the winner only when all of them are significant (which includes the
  runner-up); otherwise the best and every configuration not significantly below it are reported as
  indistinguishable. As in ``compare``, a difference is significant only when its Holm-adjusted p is
  below alpha and at least as many questions changed as any exact test needs at alpha;
- **the holdout**: the best configuration on the tuning questions against the reference on the
  held-out questions, Holm over the metrics.

The Pareto frontier is over (higher primary mean, lower p50 latency, smaller index on disk), from the
point estimates: a configuration is on it when no other one is at least as good on all three and
better on one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ragauge.comparison.compare import holm_family, paired_delta
from ragauge.comparison.result import MetricDelta
from ragauge.core.notes import LOUD
from ragauge.errors import InputError
from ragauge.evaluation.result import Evaluation
from ragauge.experiments.grid import Configuration, SweepPlan
from ragauge.experiments.holdout import Split
from ragauge.experiments.result import ConfigRow, HoldoutReport, IndexBuild, Selection
from ragauge.stats.power import min_questions

SHOWN = 5


@dataclass(frozen=True)
class Measured:
    """One configuration after its run: its spec, run file and evaluation, the indexes it used, and
    for a rescored configuration the evaluation of its hits in a perfect order (its ceiling) and the
    latency its reranker added (``ConfigRow.rerank_ms``)."""

    config: Configuration
    spec: str
    run: str
    evaluation: Evaluation
    indexes: tuple[IndexBuild, ...]
    ceiling: Evaluation | None = None
    rerank_ms: dict[str, float] | None = None


def significant(d: MetricDelta, alpha: float) -> bool:
    """A change ``compare`` would call significant: Holm-adjusted p below alpha, and at least as many
    questions changed as any exact test needs at alpha."""
    return d.n > 0 and d.p_adjusted < alpha and d.better + d.worse >= min_questions(alpha)


def shared_questions(measured: Sequence[Measured]) -> list[str]:
    """The answerable questions every configuration was scored on, in the golden set's order."""
    first = measured[0].evaluation
    return [qid for qid in first.row_ids if all(qid in m.evaluation.positions for m in measured[1:])]


def table(plan: SweepPlan, measured: Sequence[Measured], ids: Sequence[str]) -> list[ConfigRow]:
    """A row per configuration: means on ``ids``, Holm-corrected tests against the reference, costs."""
    ref = next(m for m in measured if m.config.name == plan.reference)
    raw: list[tuple[int, str, MetricDelta]] = []
    for i, m in enumerate(measured):
        if m is ref:
            continue
        for metric in plan.metrics:
            raw.append((i, metric, paired_delta(ref.evaluation.column(metric, ids), m.evaluation.column(metric, ids),
                                                plan.alpha, metric)))
    corrected = holm_family([d for _, _, d in raw], plan.alpha)
    deltas: dict[int, dict[str, MetricDelta]] = {}
    for (i, metric, _), d in zip(raw, corrected):
        deltas.setdefault(i, {})[metric] = d
    rows = []
    for i, m in enumerate(measured):
        latency = m.evaluation.meta.get("latency_ms")
        seconds = [b.build_seconds for b in m.indexes]
        rows.append(ConfigRow(
            m.config.name, m.config.retriever, m.config.settings, m.spec, m.run,
            {metric: _mean(m.evaluation.column(metric, ids)) for metric in plan.metrics}, deltas.get(i, {}),
            None if not latency else {"p50": float(latency["p50"]), "p95": float(latency["p95"])},
            None if any(s is None for s in seconds) else round(sum(s for s in seconds if s is not None), 3),
            sum(b.size_bytes for b in m.indexes), int(m.evaluation.meta["counts"]["errors"]),
            ceiling=None if m.ceiling is None else {metric: _mean(m.ceiling.column(metric, ids))
                                                     for metric in plan.metrics}, rerank_ms=m.rerank_ms))
    return pareto(rows, plan.primary)


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if len(values) else math.nan


def pareto(rows: Sequence[ConfigRow], primary: str) -> list[ConfigRow]:
    """``rows`` with ``pareto`` set for those no other row dominates (see the module docstring); a
    row without a latency counts as the slowest."""
    def point(r: ConfigRow) -> tuple[float, float, float]:
        quality = r.means[primary]
        return (-quality if not math.isnan(quality) else math.inf,
                r.latency_ms["p50"] if r.latency_ms else math.inf, float(r.index_bytes))

    points = [point(r) for r in rows]

    def dominated(p: tuple[float, float, float]) -> bool:
        return any(all(a <= b for a, b in zip(q, p)) and q != p for q in points)

    return [replace(r, pareto=not dominated(p)) for r, p in zip(rows, points)]


def select(plan: SweepPlan, measured: Sequence[Measured], rows: Sequence[ConfigRow],
           ids: Sequence[str]) -> Selection:
    """The best configuration on the primary metric and whether it beats every other one (module
    docstring)."""
    primary, alpha = plan.primary, plan.alpha
    order = sorted(range(len(rows)), key=lambda i: (-_or_low(rows[i].means[primary]), i))
    best = order[0]
    name = rows[best].name
    if len(rows) == 1:
        return Selection(primary, name, None, (name,), {}, "only one configuration: nothing to choose between")
    column = measured[best].evaluation.column(primary, ids)
    others = order[1:]
    tests = holm_family([paired_delta(measured[i].evaluation.column(primary, ids), column, alpha) for i in others],
                        alpha)
    by_name = {rows[i].name: d for i, d in zip(others, tests)}
    tied = [name] + [rows[i].name for i, d in zip(others, tests) if not (significant(d, alpha) and d.diff > 0)]
    runner = rows[others[0]].name
    d = by_name[runner]
    family = f"Holm over {len(others)} test{'s' if len(others) > 1 else ''} at alpha {alpha:g}"
    if len(tied) == 1:
        statement = (f"winner: {name} is best on {primary} and significantly ahead of every other configuration "
                     f"({family}); over the runner-up, {runner}: {d.diff:+.4f} [{d.ci[0]:+.4f}, {d.ci[1]:+.4f}]")
        return Selection(primary, name, name, tuple(tied), by_name, statement)
    listed = ", ".join(tied[1:SHOWN + 1]) + (f" and {len(tied) - 1 - SHOWN} more" if len(tied) > SHOWN + 1 else "")
    statement = (f"no winner: no configuration is distinguishable from the top {len(tied)} on {primary}; the best, "
                 f"{name}, is not significantly ahead of {listed} ({family})")
    return Selection(primary, name, None, tuple(tied), by_name, statement)


def _or_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


def holdout_check(plan: SweepPlan, measured: Sequence[Measured], chosen: str, split: Split, tune: Sequence[str],
                  held: Sequence[str]) -> tuple[HoldoutReport, list[str]]:
    """The chosen configuration measured on the held-out questions, against the reference; and notes."""
    notes: list[str] = []
    if len(held) < min_questions(plan.alpha):
        notes.append(f"{LOUD}only {len(held)} answerable held-out question(s): too few for any test at alpha "
                     f"{plan.alpha:g} (it needs {min_questions(plan.alpha)}); hold out more questions")
    by_name = {m.config.name: m.evaluation for m in measured}
    mine, ref = by_name[chosen], by_name[plan.reference]
    deltas: dict[str, MetricDelta] = {}
    if chosen != plan.reference and held:
        tests = holm_family([paired_delta(ref.column(m, held), mine.column(m, held), plan.alpha, m)
                             for m in plan.metrics], plan.alpha)
        deltas = dict(zip(plan.metrics, tests))
    report = HoldoutReport(split.rule, len(tune), len(held), chosen,
                           {m: _mean(mine.column(m, tune)) for m in plan.metrics},
                           {m: _mean(mine.column(m, held)) for m in plan.metrics},
                           {m: _mean(ref.column(m, held)) for m in plan.metrics}, deltas)
    return report, notes


def check_enough(ids: Sequence[str], alpha: float, what: str) -> None:
    """InputError when ``ids`` are too few for any paired test at ``alpha``."""
    if len(ids) < min_questions(alpha):
        raise InputError(f"only {len(ids)} answerable question(s) to {what}: no test at alpha {alpha:g} can tell a "
                         f"change from noise with fewer than {min_questions(alpha)}",
                         hint="sweep on a golden set with more answerable questions (or hold out fewer)")
