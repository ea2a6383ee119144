"""Several annotators: agreement (Cohen's kappa per pair), disagreements, and the rule that settles them.

**The adjudication rule** (what ``golden judge --finish`` merges for a (question, document) that
more than one annotator graded; skips are not grades):

1. every annotator who graded it gave the same grade: that grade;
2. else, when an adjudicator is named (``--adjudicator NAME``) and graded it: the adjudicator's grade;
3. else, a grade given by more than half of the annotators who graded it (2 of 3): that grade;
4. else (a tie, such as 1 against 2 with two annotators) it is **unresolved**: not merged, and
   listed for an adjudicator to grade.

Every disagreement is listed with how it was settled, so a majority never hides one.
Agreement is Cohen's kappa (:mod:`ragauge.stats.kappa`) for each pair of annotators over the items
both graded, on the grades themselves and on relevant-or-not (grade >= 1, as the metrics read it).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from ragauge.data.judgements import AnnotatorState, Item, Judgement, replay
from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError
from ragauge.stats.kappa import Kappa, cohen_kappa

RULE = ("the grade all annotators gave; else the adjudicator's, when named and they graded it; else a grade "
        "more than half of its annotators gave; else unresolved (not merged)")
SHOWN = 50


@dataclass(frozen=True)
class Resolution:
    """The grades an item got (``{annotator: grade}``) and what the rule made of them: ``grade``
    (None when unresolved) and ``how``: single, unanimous, adjudicator, majority or unresolved."""

    question: str
    doc_id: str
    grades: Mapping[str, float]
    grade: float | None
    how: str

    @property
    def disagreement(self) -> bool:
        return len(set(self.grades.values())) > 1

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "doc_id": self.doc_id, "grades": dict(self.grades),
                "grade": self.grade, "how": self.how}


def resolve(grades: Mapping[str, float], adjudicator: str | None = None) -> tuple[float | None, str]:
    """The grade the rule (module docstring) gives an item graded ``grades`` and how it got it."""
    values = list(grades.values())
    if not values:
        return None, "unresolved"
    if len(set(values)) == 1:
        return values[0], "single" if len(values) == 1 else "unanimous"
    if adjudicator is not None and adjudicator in grades:
        return grades[adjudicator], "adjudicator"
    grade, count = Counter(values).most_common(1)[0]
    if 2 * count > len(values):
        return grade, "majority"
    return None, "unresolved"


def item_grades(states: Mapping[str, AnnotatorState]) -> dict[Item, dict[str, float]]:
    """``{item: {annotator: grade}}`` over every annotator's grades in effect, items in the order first
    graded by the first annotator, then the next."""
    out: dict[Item, dict[str, float]] = {}
    for name, state in states.items():
        for item, grade in state.grades().items():
            out.setdefault(item, {})[name] = grade
    return out


def resolve_all(states: Mapping[str, AnnotatorState], adjudicator: str | None = None) -> list[Resolution]:
    """The rule applied to every graded item."""
    out = []
    for (qid, doc), grades in item_grades(states).items():
        grade, how = resolve(grades, adjudicator)
        out.append(Resolution(qid, doc, grades, grade, how))
    return out


@dataclass(frozen=True)
class PairAgreement:
    """Two annotators' agreement over the items both graded: on grades and on relevant-or-not."""

    a: str
    b: str
    grades: Kappa
    binary: Kappa

    def to_dict(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "items": self.grades.n, "agreement": self.grades.agreement,
                "kappa": self.grades.value, "kappa_relevant": self.binary.value,
                "undefined": self.grades.reason, "undefined_relevant": self.binary.reason}


@dataclass(frozen=True)
class AnnotatorSummary:
    name: str
    graded: int
    skipped: int
    relevant: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "graded": self.graded, "skipped": self.skipped, "relevant": self.relevant}


@dataclass(frozen=True)
class JudgeStats:
    """What a judgements log holds: per annotator, per pair of annotators, the disagreements and
    how the rule settles them (``adjudicator`` as given), and notes (torn or stray records)."""

    logs: tuple[str, ...]
    annotators: tuple[AnnotatorSummary, ...]
    pairs: tuple[PairAgreement, ...]
    items: int
    disagreements: tuple[Resolution, ...]
    adjudicator: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def unresolved(self) -> int:
        return sum(r.grade is None for r in self.disagreements)

    def to_dict(self) -> dict[str, Any]:
        return {"version": 1, "logs": list(self.logs), "rule": RULE, "adjudicator": self.adjudicator,
                "items": self.items, "annotators": [a.to_dict() for a in self.annotators],
                "pairs": [p.to_dict() for p in self.pairs], "unresolved": self.unresolved,
                "disagreements": [r.to_dict() for r in self.disagreements], "notes": list(self.notes)}


def pair_agreement(a: AnnotatorState, b: AnnotatorState) -> PairAgreement:
    """Kappa of ``a`` and ``b`` over the items both graded (in ``a``'s order)."""
    ga, gb = a.grades(), b.grades()
    both = [item for item in ga if item in gb]
    x, y = [ga[i] for i in both], [gb[i] for i in both]
    return PairAgreement(a.annotator, b.annotator, cohen_kappa(x, y),
                         cohen_kappa([is_relevant(v) for v in x], [is_relevant(v) for v in y]))


def judgement_stats(records: Iterable[Judgement], *, logs: Sequence[str] = (), adjudicator: str | None = None,
                    notes: Sequence[str] = ()) -> JudgeStats:
    """Agreement and disagreements over ``records`` (every annotator's, in log order). Pure."""
    states = replay(records)
    names = sorted(states)
    summaries = []
    out_notes = list(notes)
    for name in names:
        state = states[name]
        grades = state.grades()
        skipped = sum(1 for stack in state.stacks.values() if stack and stack[-1].action == "skip")
        summaries.append(AnnotatorSummary(name, len(grades), skipped, sum(is_relevant(g) for g in grades.values())))
        if state.stray_undos:
            out_notes.append(f"{len(state.stray_undos)} undo record(s) of {name} had nothing to undo (ignored)")
    if adjudicator is not None and adjudicator not in states:
        out_notes.append(f"the adjudicator {adjudicator!r} has no judgement in the log")
    pairs = tuple(pair_agreement(states[a], states[b]) for a, b in combinations(names, 2))
    resolutions = resolve_all(states, adjudicator)
    return JudgeStats(tuple(logs), tuple(summaries), pairs, len(resolutions),
                      tuple(r for r in resolutions if r.disagreement), adjudicator, tuple(out_notes))


# --- rendering --------------------------------------------------------------------------------------

def judge_stats(logs: str | Path | Sequence[str | Path], *, adjudicator: str | None = None) -> JudgeStats:
    """Agreement and disagreements over one judgements log or several (read in the order given, as if
    concatenated): what ``ragauge golden judge-stats`` prints."""
    from ragauge.formats.judgements import read_judgements

    paths = [logs] if isinstance(logs, (str, Path)) else list(logs)
    if not paths:
        raise InputError("no judgements log given", hint="ragauge golden judge-stats pool.judgements.jsonl")
    records: list[Judgement] = []
    notes: list[str] = []
    for path in paths:
        read = read_judgements(path)
        records += read.records
        notes += read.notes
    return judgement_stats(records, logs=[str(p) for p in paths], adjudicator=adjudicator, notes=notes)
