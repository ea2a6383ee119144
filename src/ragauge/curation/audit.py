"""``golden agreement``: an automatic assessor audited against the human labels, before anyone uses it.

**The pairs compared.** Every automatic label of a *labelled* question of the golden set (a question
whose ``relevant`` is not null), against the human grade of its document: the grade the question lists,
0 for a document it does not list (the rule ``eval`` scores by). Labels of unlabelled questions are
counted and left out; a label of a question the golden set does not hold is refused (exit 2, file:line).

**Figures.** Cohen's kappa with linear weights on the grades (:func:`ragauge.stats.kappa.weighted_kappa`;
plain kappa with two grades), plain kappa on relevant-or-not (grade >= 1, as the metrics read it),
the share of pairs graded alike, the confusion counts (human grade by assessor grade), overall and per
tag (a tag's questions' pairs).

**Intervals: a bootstrap over questions.** The pairs of one question are not independent (one
question's documents are judged against one need, and an assessor that misreads the question misreads
them all), so questions, not pairs, are resampled: ``REPLICATES`` resamples of the questions with
replacement (from a fixed seed), each question's pairs kept together, kappa computed on each; the
interval is the 2.5th and 97.5th percentiles (at ``alpha`` 0.05) of the replicates where kappa is
defined. A percentile bootstrap is approximate (its coverage approaches the nominal level as questions
grow); with fewer than ``MIN_QUESTIONS`` questions no interval is given.

**The bar.** With ``min_kappa``, an assessor whose weighted kappa is below it is refused
(:meth:`AssessorAudit.check`, exit 2 with the figures and a fix) unless ``force``.

**The systems under test.** With ``runs`` (the runs the labels will measure), a loud warning for each
run whose retriever or reranker is the assessor's model or of its model family: the assessor shares
that system's blind spots (:mod:`ragauge.curation.family`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError, flag, where

if TYPE_CHECKING:
    import numpy as np

REPLICATES = 2000
MIN_QUESTIONS = 5
SEED = 20240611


@dataclass(frozen=True)
class Agreement:
    """Agreement over ``questions`` questions' ``pairs`` pairs: weighted ``kappa`` on grades (None:
    undefined, ``reason`` says why) with its bootstrap ``interval``, ``kappa_relevant`` on
    relevant-or-not with its interval, the share graded alike, and ``confusion[human][auto]`` counts."""

    questions: int
    pairs: int
    kappa: float | None
    interval: tuple[float, float] | None
    kappa_relevant: float | None
    interval_relevant: tuple[float, float] | None
    agreement: float | None
    confusion: dict[str, dict[str, int]]
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"questions": self.questions, "pairs": self.pairs, "kappa": self.kappa,
                "interval": None if self.interval is None else list(self.interval),
                "kappa_relevant": self.kappa_relevant,
                "interval_relevant": None if self.interval_relevant is None else list(self.interval_relevant),
                "agreement": self.agreement, "confusion": self.confusion, "undefined": self.reason}


@dataclass(frozen=True)
class AssessorAudit:
    """An assessor's agreement with the human labels, overall and per tag (``golden agreement``)."""

    assessor: str
    human: str
    auto: str
    overall: Agreement
    by_tag: dict[str, Agreement]
    grades: tuple[float, ...]
    alpha: float
    min_kappa: float | None = None
    forced: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)
    warnings: tuple[str, ...] = field(default_factory=tuple)
    """Loud warnings (each starting with ``core.notes.LOUD``): the assessor shares a model with a run under test."""

    @property
    def below_bar(self) -> bool:
        k = self.overall.kappa
        return self.min_kappa is not None and (k is None or k < self.min_kappa)

    def check(self) -> None:
        """InputError (exit 2) when the assessor is below ``min_kappa`` and the audit was not forced."""
        if self.below_bar and not self.forced:
            k = self.overall.kappa
            shown = "undefined" if k is None else f"{k:.3f}"
            raise InputError(f"the assessor {self.assessor} agrees with the human labels at weighted kappa {shown}"
                             f"{_interval(self.overall.interval)}, below the bar of {self.min_kappa:g}",
                             where=self.auto,
                             hint="label with a better assessor (a cross-encoder or an LLM: golden assess), label more "
                                  f"by hand, or accept it knowingly with {flag('force')}")

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "assessor": self.assessor, "human": self.human, "auto": self.auto,
                "grades": list(self.grades), "alpha": self.alpha, "method": METHOD,
                "min_kappa": self.min_kappa, "below_bar": self.below_bar, "forced": self.forced,
                "overall": self.overall.to_dict(), "by_tag": {t: a.to_dict() for t, a in self.by_tag.items()},
                "warnings": list(self.warnings), "notes": list(self.notes)}

    def lines(self) -> list[str]:
        o = self.overall
        out = [f"{self.assessor} against the human labels of {self.human}: {o.pairs} pairs of {o.questions} questions",
               f"  weighted kappa {_k(o.kappa)}{_interval(o.interval)}; relevant-or-not kappa "
               f"{_k(o.kappa_relevant)}{_interval(o.interval_relevant)}; graded alike "
               f"{'n/a' if o.agreement is None else f'{o.agreement:.1%}'}"
               + (f" ({o.reason})" if o.reason else ""),
               f"  ({METHOD}, {1 - self.alpha:.0%})",
               "  confusion (rows: human grade, columns: assessor grade):"]
        grades = [_g(g) for g in self.grades]
        out.append("    human\\auto " + "".join(f"{g:>8}" for g in grades))
        for h in grades:
            out.append(f"    {h:>10} " + "".join(f"{o.confusion[h][a]:>8}" for a in grades))
        if self.by_tag:
            out.append("  by tag:")
            width = max(len(t) for t in self.by_tag)
            for tag, a in self.by_tag.items():
                out.append(f"    {tag:<{width}}  kappa {_k(a.kappa)}{_interval(a.interval)}, {a.pairs} pairs of "
                           f"{a.questions} questions")
        if self.min_kappa is not None:
            verdict = ("BELOW the bar" + (" (used anyway: --force)" if self.forced else "")) if self.below_bar \
                else "meets the bar"
            out.append(f"  bar: weighted kappa >= {self.min_kappa:g}: {verdict}")
        return out + list(self.warnings) + [f"NOTE: {n}" for n in self.notes]


METHOD = f"percentile bootstrap over questions, {REPLICATES} resamples"


def _g(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


def _k(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _interval(ci: tuple[float, float] | None) -> str:
    return "" if ci is None else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def _kappas(counts: np.ndarray, weighted: bool) -> np.ndarray:
    """Kappa of each confusion matrix in ``counts`` (..., L, L): linear weights, or plain (0/1) weights;
    NaN where undefined."""
    import numpy as np

    size = counts.shape[-1]
    total = counts.sum(axis=(-2, -1), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = counts / total
        expected = observed.sum(axis=-1, keepdims=True) * observed.sum(axis=-2, keepdims=True)
        grid = np.arange(size)
        weights = (np.abs(grid[:, None] - grid[None, :]) / max(size - 1, 1) if weighted
                   else (grid[:, None] != grid[None, :]).astype(float))
        chance = (weights * expected).sum(axis=(-2, -1))
        value = 1.0 - (weights * observed).sum(axis=(-2, -1)) / chance
    return np.where(chance > 1e-15, value, np.nan)


def agreement_of(per_question: np.ndarray, grades: Sequence[float], alpha: float,
                 rng: np.random.Generator | None) -> Agreement:
    """The figures of the module docstring from per-question confusion counts (Q, L, L), rows the
    human grade and columns the assessor's (both indexed by ``grades``); ``rng`` None: no interval."""
    import numpy as np

    total = per_question.sum(axis=0)
    relevant = np.array([is_relevant(g) for g in grades], dtype=np.float64)
    merge = np.stack([1.0 - relevant, relevant], axis=1)  # (L, 2): grade -> not relevant, relevant
    binary = np.einsum("li,qlm,mj->qij", merge, per_question, merge)
    kappa = float(_kappas(total, True))
    kappa_rel = float(_kappas(binary.sum(axis=0), False))
    pairs = int(total.sum())
    names = [_g(g) for g in grades]
    confusion = {h: {a: int(total[i, j]) for j, a in enumerate(names)} for i, h in enumerate(names)}
    ci = ci_rel = None
    q = per_question.shape[0]
    if rng is not None and q >= MIN_QUESTIONS:
        weights = rng.multinomial(q, np.full(q, 1.0 / q), size=REPLICATES).astype(np.float64)  # (B, Q)
        ci = _percentiles(_kappas(np.einsum("bq,qij->bij", weights, per_question), True), alpha)
        ci_rel = _percentiles(_kappas(np.einsum("bq,qij->bij", weights, binary), False), alpha)
    reason = None if np.isfinite(kappa) else ("no pair" if pairs == 0 else
                                              "both gave every pair one and the same grade")
    return Agreement(q, pairs, None if not np.isfinite(kappa) else kappa, ci,
                     None if not np.isfinite(kappa_rel) else kappa_rel, ci_rel,
                     None if pairs == 0 else float(np.trace(total)) / pairs, confusion, reason)


def _percentiles(values: np.ndarray, alpha: float) -> tuple[float, float] | None:
    import numpy as np

    values = values[np.isfinite(values)]
    if len(values) < REPLICATES // 2:
        return None
    low, high = np.quantile(values, [alpha / 2.0, 1.0 - alpha / 2.0])
    return float(low), float(high)


def assessor_agreement(human: str | Path, auto: str | Path, *, min_kappa: float | None = None, force: bool = False,
                       alpha: float = 0.05, seed: int = SEED,
                       runs: Sequence[Any] | Mapping[str, Any] = ()) -> AssessorAudit:
    """Audit the automatic labels ``auto`` (a ``golden assess`` output) against the human labels of the
    golden set ``human`` (module docstring); ``min_kappa`` and ``force`` set the bar that
    :meth:`AssessorAudit.check` enforces. ``runs`` (run files or Runs; a mapping names them) are the
    systems under test, whose ``_meta`` is read for the same-model-family warning. Pure apart from
    reading the files."""
    import numpy as np

    from ragauge.core.numbers import KAPPA, PROBABILITY, check_number
    from ragauge.curation.assess import read_questions
    from ragauge.formats.autolabels import read_auto_labels

    alpha = check_number(alpha, flag("alpha"), PROBABILITY)
    if min_kappa is not None:
        min_kappa = check_number(min_kappa, flag("min_kappa"), KAPPA, hint="a kappa in [-1, 1], e.g. 0.4")
    questions = {q.id: q for q in read_questions(human)}
    labels = read_auto_labels(auto)
    unlabelled = 0
    by_question: dict[str, list[tuple[float, float]]] = {}
    for label in labels.labels:
        q = questions.get(label.question)
        if q is None:
            raise InputError(f"a label for question {label.question!r}, which the golden set does not hold",
                             where=where(auto, label.line),
                             hint="audit the labels against the golden set they were assessed for (--human)")
        if q.labels is None:
            unlabelled += 1
            continue
        by_question.setdefault(q.id, []).append((float(q.labels.get(label.doc_id, 0)), label.grade))
    if not by_question:
        raise InputError("no automatic label is for a human-labelled question: nothing to compare",
                         where=str(auto), hint="label some questions by hand (golden pool, golden judge), then assess "
                                               "their top k too")
    grades = sorted({g for pairs in by_question.values() for pair in pairs for g in pair}
                    | set(labels.calibration.grades))
    index = {g: i for i, g in enumerate(grades)}
    ids = list(by_question)
    counts = np.zeros((len(ids), len(grades), len(grades)))
    for row, qid in enumerate(ids):
        for h, a in by_question[qid]:
            counts[row, index[h], index[a]] += 1
    rng = np.random.default_rng(seed)
    overall = agreement_of(counts, grades, alpha, rng)
    tags: dict[str, list[int]] = {}
    for row, qid in enumerate(ids):
        for tag in questions[qid].tags:
            tags.setdefault(tag, []).append(row)
    by_tag = {tag: agreement_of(counts[rows], grades, alpha, np.random.default_rng(seed))
              for tag, rows in sorted(tags.items())}
    notes = [f"{unlabelled} label(s) of unlabelled questions left out"] if unlabelled else []
    if labels.calibration.fitted_on:
        notes.append("the assessor's cutoffs were fitted on these human labels: the agreement is a little "
                     "optimistic")
    warnings: list[str] = []
    if runs:
        from ragauge.curation.family import family_warnings
        from ragauge.curation.pool import name_systems
        from ragauge.formats.runs import as_run

        warnings, unread = family_warnings(labels.assessor, [(name, as_run(run).meta)
                                                             for name, run in name_systems(runs, "run")])
        notes += unread
    return AssessorAudit(labels.assessor, str(human), str(auto), overall, by_tag, tuple(grades), alpha, min_kappa,
                         force, tuple(notes), tuple(warnings))
