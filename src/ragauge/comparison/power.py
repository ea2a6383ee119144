"""How much a golden set can tell: the minimum detectable effect and the questions an effect needs.

``power`` works from one evaluated run (a change is modelled from its per-question values with an
assumed correlation, ``stats.power.Differences.one_run``) or from two (their observed paired
differences), overall and per tag. Every figure is simulated for the test ``compare`` and the gate
run (``stats.power``), so the three agree on the same question.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragauge.core.numbers import CORRELATION, PROBABILITY, UNIT, Range, check_number
from ragauge.evaluation.result import Evaluation
from ragauge.evaluation.tags import group_by_tag
from ragauge.metrics.spec import DEFAULT_K
from ragauge.stats import DEFAULT_ALPHA
from ragauge.stats.power import (
    DEFAULT_CORRELATION,
    DEFAULT_POWER,
    Differences,
    min_questions,
    minimum_detectable_effect,
    required_questions,
)

if TYPE_CHECKING:
    from ragauge.metrics.judged import Unjudged

POWER_VERSION = 1
POWER = Range(0.5, 1, high_open=True)
"""A power worth planning for: at least an even chance of detecting the effect."""


@dataclass(frozen=True)
class MetricPower:
    """One metric on one set of questions: ``n`` answerable questions, the spread ``sd_diff`` of a
    change's per-question differences, the minimum detectable ``mde`` (None: nothing is
    detectable) and, when an effect was asked about, the ``needed`` questions (None: more than
    100,000)."""

    n: int
    sd_diff: float
    mde: float | None
    needed: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "sd_diff": self.sd_diff, "mde": self.mde, "needed": self.needed}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> MetricPower:
        return cls(int(d["n"]), float(d["sd_diff"]), None if d["mde"] is None else float(d["mde"]),
                   None if d.get("needed") is None else int(d["needed"]))


@dataclass(frozen=True)
class PowerReport:
    metrics: dict[str, MetricPower]
    by_tag: dict[str, dict[str, MetricPower]]
    meta: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"ragauge_power": POWER_VERSION, "metrics": {m: p.to_dict() for m, p in self.metrics.items()},
                "by_tag": {t: {m: p.to_dict() for m, p in d.items()} for t, d in self.by_tag.items()},
                "meta": self.meta}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> PowerReport:
        if d.get("ragauge_power") != POWER_VERSION:
            from ragauge.errors import InputError

            raise InputError(f"not a ragauge power report (version {d.get('ragauge_power')!r})")
        return cls({m: MetricPower.from_dict(p) for m, p in d["metrics"].items()},
                   {t: {m: MetricPower.from_dict(p) for m, p in v.items()} for t, v in d["by_tag"].items()},
                   dict(d["meta"]))


def power_of(base: Evaluation, new: Evaluation | None = None, *, effect: float | None = None,
             alpha: float = DEFAULT_ALPHA, target_power: float = DEFAULT_POWER,
             correlation: float = DEFAULT_CORRELATION) -> PowerReport:
    """The power figures of ``base``'s questions for each of its metrics, overall and per tag: from
    ``base`` alone (one-run model with ``correlation``), or from the paired differences to ``new``
    (the questions answerable in both)."""
    alpha = check_number(alpha, "alpha", PROBABILITY)
    target_power = check_number(target_power, "power", POWER)
    correlation = check_number(correlation, "correlation", CORRELATION)
    if effect is not None:
        effect = check_number(effect, "effect", UNIT)
    ids = [i for i in base.row_ids if new is None or i in new.positions]  # read without making the rows

    def figures(subset: list[str], m: str) -> MetricPower:
        b = base.column(m, subset)
        n = len(b)
        observed = new.column(m, subset) - b if new is not None else None
        model = Differences.best(n, observed, b, correlation)
        needed = required_questions(model, effect, alpha, target_power) if effect else None
        return MetricPower(n, model.sd, minimum_detectable_effect(model, n, alpha, target_power), needed)

    metrics = [m for m in base.metrics if new is None or m in new.metrics]
    keep = set(ids)
    groups = group_by_tag([q for q in base.asked if q.id in keep])
    overall = {m: figures(ids, m) for m in metrics}
    by_tag = {t: {m: figures([q.id for q in groups[t]], m) for m in metrics} for t in sorted(groups)}
    meta = {"run": base.meta["run"], "golden": base.meta["golden"], "alpha": alpha, "power": target_power,
            "effect": effect, "min_questions": min_questions(alpha), "method": "simulated for the betting test",
            "spread": (f"paired differences to {new.meta['run']['path']}" if new is not None else
                       f"one run, assuming a per-question correlation of {correlation} between the runs compared")}
    if new is not None:
        meta["new_run"] = new.meta["run"]
    return PowerReport(overall, by_tag, meta)


def power(golden: Any, run: Any, *, new: Any = None, metrics: Sequence[str] | str | None = None,
          k: int | Sequence[int] = DEFAULT_K, effect: float | None = None, alpha: float = DEFAULT_ALPHA,
          target_power: float = DEFAULT_POWER, correlation: float = DEFAULT_CORRELATION, fetch: int | None = None,
          doc_id_sep: str | None = None, doc_id_pattern: str | None = None, corpus: Any = None,
          tokenizer: str | None = None, unjudged: Unjudged = "non-relevant",
          grades: str | Mapping[float, float] | None = None) -> PowerReport:
    """Evaluate ``run`` (and ``new``, a second run, when given) on ``golden`` and return what the
    golden set can detect for each metric: ``power_of`` (``ragauge power``); ``corpus``,
    ``tokenizer``, ``unjudged`` and ``grades`` as in ``evaluate_run``, so the figures are those of the
    comparison or gate scored the same way."""
    from ragauge.evaluation.evaluate import score_run
    from ragauge.evaluation.options import EvalOptions
    from ragauge.formats.golden import as_golden
    from ragauge.formats.runs import as_run
    from ragauge.metrics.spec import parse_metrics

    names = [str(s) for s in parse_metrics(metrics)] if metrics is not None else None
    options = EvalOptions(names, k, fetch, doc_id_sep, doc_id_pattern, unjudged=unjudged, corpus=corpus,
                          tokenizer=tokenizer, grades=grades)
    gold = as_golden(golden)
    base = score_run(gold, as_run(run), options)
    other = score_run(gold, as_run(new), options) if new is not None else None
    return power_of(base, other, effect=effect, alpha=alpha, target_power=target_power, correlation=correlation)

