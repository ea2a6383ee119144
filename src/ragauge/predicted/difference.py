"""The prediction-powered paired difference of two runs (new - base), from two prediction-powered
evaluations of one golden set with one assessor's labels (``predicted.evaluate``): what ``compare``
shows beside its human-only paired test, and what the gate decides on with automatic labels.

**Pairs.** A labelled question is one both evaluations score from human labels (answerable, the same
golden set); an unlabelled one is one both hold an automatic value for. Per question ``Y = Y_new -
Y_base`` from the human labels and ``Yhat = Yhat_new - Yhat_base`` from the automatic ones, in [-1, 1];
``stats.ppi.ppi_difference`` estimates E[Y] with the betting interval (valid at every n), beside the
human-only interval of the same method (the one ``compare``'s paired test reports for its own n).
Both ``Yhat`` must be one function of the question: the two evaluations must have read automatic
labels of one assessor and one calibration (``AutoLabels.identity``), else InputError.

**Verdicts.** A change is claimed when its interval at level ``alpha / m`` (Bonferroni over the ``m``
metrics estimated: one family, as ``compare``'s headline is one) excludes 0; the interval shown is the
one at ``alpha``. Without any labelled pair, no verdict: the mean of ``Yhat`` is what the assessor
says, never a measurement.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragauge.errors import InputError, flag
from ragauge.predicted import METHOD, TARGET_TEXT
from ragauge.predicted.evaluate import METHOD_TEXT, estimable

if TYPE_CHECKING:
    from ragauge.evaluation.result import Evaluation


def automatic_of(ev: Evaluation) -> Mapping[str, Any] | None:
    """``meta["ppi"]`` of a prediction-powered evaluation (None for a plain one)."""
    ppi = ev.meta.get("ppi")
    return ppi if isinstance(ppi, Mapping) else None


def check_same_labels(base: Evaluation, new: Evaluation) -> bool:
    """Whether both evaluations are prediction-powered (False when neither is); InputError when one is
    and the other not, or their automatic labels are not one function (another assessor or calibration)."""
    a, b = automatic_of(base), automatic_of(new)
    if a is None and b is None:
        return False
    if a is None or b is None:
        which = "base" if a is None else "new"
        raise InputError(f"only one of the two results was evaluated with automatic labels (the {which} one was not)",
                         hint=f"evaluate both with the same {flag('auto_labels', 'auto.jsonl')}, or neither")
    if a["auto_labels"]["identity"] != b["auto_labels"]["identity"]:
        raise InputError(f"the two results were evaluated with different automatic labels "
                         f"({a['auto_labels']['assessor']} and {b['auto_labels']['assessor']}, or another "
                         "calibration): their values are not one function of the question, so they cannot be paired",
                         hint="assess both runs' top k into one file (ragauge golden assess GOLDEN --run BASE "
                              "--run NEW ... -o auto.jsonl) and evaluate both with it")
    return True


@dataclass(frozen=True)
class Values:
    """One run's values beside one assessor's labels (``identity``): ``human`` per labelled question
    its metric values (from the human labels), ``automatic`` per question its values from the
    automatic labels, ``unlabelled`` the unlabelled questions; what a difference pairs."""

    human: Mapping[str, Mapping[str, float]]
    automatic: Mapping[str, Mapping[str, float]]
    unlabelled: Sequence[str]
    identity: str
    assessor: str

    @classmethod
    def of(cls, ev: Evaluation) -> Values:
        """The values of a prediction-powered evaluation (InputError for a plain one)."""
        ppi = automatic_of(ev)
        if ppi is None:
            raise InputError("the result was evaluated without automatic labels",
                             hint=f"evaluate it with {flag('auto_labels', 'auto.jsonl')}")
        names = list(ppi["metrics"])
        columns = {m: ev.column(m).tolist() for m in names}
        human = {q: {m: columns[m][i] for m in names} for i, q in enumerate(ev.row_ids)}
        return cls(human, ppi["automatic"], list(ppi["unlabelled"]), ppi["auto_labels"]["identity"],
                   ppi["auto_labels"]["assessor"])


def pairs(base: Values, new: Values) -> tuple[list[str], list[str]]:
    """The labelled and the unlabelled questions both hold values of, in the base's order."""
    labelled = [q for q in base.human if q in new.human and q in base.automatic and q in new.automatic]
    theirs = set(new.unlabelled)
    return labelled, [q for q in base.unlabelled if q in theirs and q in base.automatic and q in new.automatic]


def estimate(base: Values, new: Values, metric: str, alpha: float,
             levels: Mapping[str, float] | None = None) -> dict[str, Any]:
    """The human-only and the prediction-powered difference (new - base) of ``metric`` over
    :func:`pairs`, at ``alpha``; ``levels`` names more alphas whose intervals go in
    ``entry["at"][name]`` (a verdict's or a gate rule's). ``reason`` instead of the PPI figures
    when there are fewer than 2 labelled or no unlabelled pairs."""
    import numpy as np

    from ragauge.stats.ppi import ppi_difference

    labelled, unlabelled = pairs(base, new)

    def column(values: Mapping[str, Mapping[str, float]], ids: Sequence[str]) -> np.ndarray:
        return np.array([values[q][metric] for q in ids], dtype=np.float64)

    entry: dict[str, Any] = {"n": len(labelled), "unlabelled": len(unlabelled)}
    if labelled:
        entry["human"] = float(np.mean(column(new.human, labelled) - column(base.human, labelled)))
    if len(labelled) < 2 or not unlabelled:
        entry["reason"] = (f"{len(labelled)} human-labelled question(s): PPI needs 2 or more" if len(labelled) < 2
                           else "every question is human-labelled: nothing for the assessor to add")
        return entry
    args = (column(new.human, labelled), column(base.human, labelled), column(new.automatic, labelled),
            column(base.automatic, labelled), column(new.automatic, unlabelled), column(base.automatic, unlabelled))
    est = ppi_difference(*args, alpha=alpha, method=METHOD)
    entry.update({"estimate": est.estimate, "interval": list(est.interval),
                  "human_interval": list(est.classical_interval),
                  "effective_n": None if math.isinf(est.effective_n) else est.effective_n, "lambda": est.lam,
                  "width_ratio": None if math.isnan(est.width_ratio) else est.width_ratio,
                  "wider": bool(est.width_ratio > 1.0)})
    if levels:
        entry["at"] = {name: list(ppi_difference(*args, alpha=level, method=METHOD).interval) if level != alpha
                       else list(est.interval) for name, level in levels.items()}
    return entry


def assessor_says(base: Values, new: Values, metrics: Sequence[str]) -> dict[str, Any] | None:
    """The mean automatic difference (new - base) over the unlabelled pairs, when no question is
    labelled in both: what the assessor says, never a measurement (None when there is nothing)."""
    import numpy as np

    labelled, unlabelled = pairs(base, new)
    if labelled or not unlabelled or not metrics:
        return None
    return {"n": len(unlabelled), **{m: float(np.mean([new.automatic[q][m] - base.automatic[q][m]
                                                       for q in unlabelled])) for m in metrics}}


def ppi_differences(base: Evaluation, new: Evaluation, metrics: Sequence[str], alpha: float) -> dict[str, Any]:
    """``meta["ppi"]`` of a comparison of ``new`` against ``base`` (module docstring): per metric the
    human-only difference and interval beside the PPI estimate, its interval and verdict, the pairs,
    the method, the assessor's agreement, and the documents the assessor never saw in each run's top k;
    ``assessor_says`` (the mean automatic difference) instead when no question is labelled. Both must
    be prediction-powered evaluations with one assessor's labels (:func:`check_same_labels`)."""
    check_same_labels(base, new)
    a, b = automatic_of(base) or {}, automatic_of(new) or {}
    old, now = Values.of(base), Values.of(new)
    labelled, unlabelled = pairs(old, now)
    names = [m for m in metrics if estimable(m) and m in a["metrics"] and m in b["metrics"]]
    out: dict[str, Any] = {
        "version": 1, "method": METHOD, "method_text": METHOD_TEXT[METHOD], "alpha": alpha,
        "target": "population", "target_text": TARGET_TEXT["population"],
        "auto_labels": {k: a["auto_labels"][k] for k in ("assessor", "identity", "golden")},
        "questions": {"labelled": len(labelled), "unlabelled": len(unlabelled)},
        "agreement": a.get("agreement"), "correction": f"Bonferroni over the {len(names)} metric(s) estimated",
        "unassessed": {"base": (a.get("coverage") or {}).get("unassessed"),
                       "new": (b.get("coverage") or {}).get("unassessed")},
        "human_only": [m for m in metrics if m not in names], "metrics": {},
    }
    says = assessor_says(old, now, names)
    if says is not None:
        out["assessor_says"] = says
    if not labelled:
        return out
    for m in names:
        entry = estimate(old, now, m, alpha, {"verdict": alpha / len(names)})
        if "at" in entry:
            lo, hi = entry.pop("at")["verdict"]
            direction = "better" if lo > 0 else "worse" if hi < 0 else None
            entry["verdict"] = f"{direction} (significant)" if direction else "no evidence of a change"
        out["metrics"][m] = entry
    return out


def notes(ppi: Mapping[str, Any]) -> list[str]:
    """What a comparison says in words of its ``meta["ppi"]``: loud where it changes how the figures read."""
    from ragauge.core.notes import LOUD

    out: list[str] = []
    says = ppi.get("assessor_says")
    if says is not None:
        figures = ", ".join(f"{m} {v:+.4f}" for m, v in says.items() if m != "n")
        out.append(f"{LOUD}no question carries a human label, so no difference here is measured and there is no "
                   f"verdict: the assessor {ppi['auto_labels']['assessor']} says {figures} (new - base) over "
                   f"{says['n']} question(s), with errors nobody has measured")
    elif not ppi["questions"]["labelled"]:
        out.append(f"{LOUD}no question is human-labelled in both results: no difference is measured")
    wider = [m for m, e in ppi.get("metrics", {}).items() if e.get("wider")]
    if wider:
        out.append(f"{LOUD}the prediction-powered interval of the difference is wider than the human-only one for "
                   f"{', '.join(wider)} ({ppi['questions']['labelled']} human-labelled question(s)): there, read the "
                   "human-only interval")
    unseen = {side: n for side, n in (ppi.get("unassessed") or {}).items() if n}
    if unseen:
        out.append("the assessor never saw " + " and ".join(f"{n} document(s) of the {side} run's top k"
                                                           for side, n in unseen.items())
                   + " of the unlabelled questions (they count as not relevant in its values): the estimates stay "
                     "valid; assessing both runs' top k (golden assess --run BASE --run NEW) can narrow them")
    return out
