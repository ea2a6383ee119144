"""A partly labelled golden set beside an assessor's automatic labels: the two label sets a
prediction-powered evaluation scores a run against, the checks that the labels belong to the golden
set, and how much of a run's top k each kind of label covers.

**The two label sets** (:func:`label_sets`):

- *human*: every question with its human labels; an unlabelled question (``"relevant": null``) is
  kept with no label, so that scoring lists it beside the no-answer questions, out of every mean
  (the caller takes it out of that list). With ``fill`` (``--unjudged unknown``: the golden set's
  labels are declared incomplete), a labelled question's *holes* -- documents it does not list
  that the assessor labelled -- take the assessor's grade, and are counted.
- *automatic*: every question with the assessor's labels alone (any grade, 0 included; spans and
  evidence groups do not apply to them), the same for labelled and unlabelled questions: a
  prediction-powered estimate needs one function of the question on both.

Under the default rule (``--unjudged non-relevant``) a document a labelled question does not list
counts as not relevant, as it does without automatic labels: the holes are counted, never filled,
so the human figures stay those of a plain evaluation of the labelled questions.

**The checks** (:func:`check_labels`): every label's question is in the golden set (else exit 2 at
the label's line), and the file records the questions it was assessed for
(``GoldenSet.questions_hash``, written by ``golden assess``) and they are this set's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from ragauge.data.golden import GoldenSet
from ragauge.data.relevance import is_relevant
from ragauge.errors import InputError, where

if TYPE_CHECKING:
    from ragauge.data.run import Run
    from ragauge.formats.autolabels import AutoLabels

ASSESS = ("assess this golden set's questions: ragauge golden assess GOLDEN --run RUN... --corpus CORPUS "
          "--assessor SPEC -o auto.jsonl (it reuses every score it already has)")


def check_labels(golden: GoldenSet, labels: AutoLabels) -> None:
    """InputError (exit 2) when ``labels`` do not belong to ``golden``: a label of a question the set
    does not hold (its file:line), a file that does not say which questions it assessed, or that
    assessed other questions (ids or texts) than these."""
    ids = golden.by_id
    for label in labels.labels:
        if label.question not in ids:
            raise InputError(f"a label for question {label.question!r}, which the golden set does not hold",
                             where=where(labels.source, label.line),
                             hint="give the golden set the labels were assessed for, or " + ASSESS)
    if labels.golden is None:
        raise InputError("the automatic labels do not say which golden set they were assessed for (written by "
                         "an older ragauge)", where=where(labels.source, 1), hint="re-" + ASSESS)
    if labels.golden != golden.questions_hash:
        raise InputError(f"the automatic labels were assessed for another golden set (its questions hash "
                         f"{labels.golden[:19]}..., this set's {golden.questions_hash[:19]}...): a question was added, "
                         "removed or reworded since", where=where(labels.source, 1),
                         hint="give the golden set they were assessed for, or " + ASSESS)


@dataclass(frozen=True)
class LabelSets:
    """The human and the automatic label sets of :func:`label_sets`; ``filled`` the (question,
    document) holes that took the assessor's grade (empty unless ``fill``)."""

    human: GoldenSet
    automatic: GoldenSet
    unlabelled: tuple[str, ...]
    filled: tuple[tuple[str, str], ...]


def label_sets(golden: GoldenSet, labels: AutoLabels, *, fill: bool) -> LabelSets:
    """The two label sets of the module docstring (``labels`` checked by :func:`check_labels` first)."""
    check_labels(golden, labels)
    by_question: dict[str, dict[str, float]] = {}
    for label in labels.labels:
        by_question.setdefault(label.question, {})[label.doc_id] = label.grade
    human, filled = [], []
    for q in golden:
        if not q.labelled:
            human.append(replace(q, labelled=True))  # no label: a no-answer question to scoring, taken out after
            continue
        holes = {d: g for d, g in by_question.get(q.id, {}).items() if d not in q.relevant} if fill else {}
        filled += [(q.id, d) for d in holes]
        human.append(replace(q, relevant={**q.relevant, **holes}) if holes else q)
    automatic = [replace(q, relevant=by_question.get(q.id, {}), spans={}, groups=(), labelled=True) for q in golden]
    return LabelSets(GoldenSet(tuple(human), golden.source), GoldenSet(tuple(automatic), golden.source),
                     golden.unlabelled, tuple(filled))


def agreement_pairs(golden: GoldenSet, labels: AutoLabels) -> tuple[dict[str, list[tuple[float, float]]], int]:
    """Every automatic label of a labelled question against its human grade (0 for a document the
    question does not list: the rule scoring reads), as ``{question: [(human, automatic), ...]}``, and
    how many labels of unlabelled questions were left out. InputError at the label's line for a
    question the golden set does not hold (``where`` names the file of ``labels``)."""
    pairs: dict[str, list[tuple[float, float]]] = {}
    left_out = 0
    ids = golden.by_id
    for label in labels.labels:
        q = ids.get(label.question)
        if q is None:
            raise InputError(f"a label for question {label.question!r}, which the golden set does not hold",
                             where=where(labels.source, label.line),
                             hint="give the golden set the labels were assessed for")
        if not q.labelled:
            left_out += 1
            continue
        pairs.setdefault(q.id, []).append((float(q.relevant.get(label.doc_id, 0)), label.grade))
    return pairs, left_out


@dataclass(frozen=True)
class Coverage:
    """What labels the first ``k`` documents of a run carry. Over the labelled questions ``labelled``:
    the mean shares of each question's top k with a human label (``human``: judged@k) and with an
    automatic label only (``automatic``), and the ``holes`` (documents without a human label) the
    assessor labelled, how many of them it calls relevant, and in how many questions; over the
    unlabelled ones: the mean share the assessor labelled (``unlabelled_automatic``), and the
    ``unassessed`` documents it never saw (they count as not relevant in the automatic values).
    ``filled``: the holes took the assessor's grade (``--unjudged unknown``)."""

    k: int
    human: float | None
    automatic: float | None
    holes: int
    holes_relevant: int
    hole_questions: int
    unlabelled_automatic: float | None
    unassessed: int
    filled: bool

    def to_dict(self) -> dict[str, Any]:
        return {"k": self.k, "human": self.human, "automatic": self.automatic, "holes": self.holes,
                "holes_relevant": self.holes_relevant, "hole_questions": self.hole_questions,
                "unlabelled_automatic": self.unlabelled_automatic, "unassessed": self.unassessed,
                "filled": self.filled}


def coverage(golden: GoldenSet, labels: AutoLabels, run: Run, labelled: Sequence[str], unlabelled: Sequence[str],
             k: int, *, fetch: int | None, doc_id_sep: str | None, doc_id_pattern: str | None,
             filled: bool) -> Coverage:
    """:class:`Coverage` of ``run``'s top ``k`` (folded and cut as scoring folds and cuts it:
    ``evaluation.topdocs``), over the ``labelled`` and the ``unlabelled`` questions given. A share's
    divisor is what came back, as judged@k's (``metrics.judged``); a question with nothing in its top
    k adds 0."""
    from ragauge.evaluation.topdocs import top_documents

    grades: Mapping[tuple[str, str], float] = labels.grades()
    top = top_documents(run, [*labelled, *unlabelled], k, fetch=fetch, doc_id_sep=doc_id_sep,
                        doc_id_pattern=doc_id_pattern).top
    by_id = golden.by_id
    human, automatic = [], []
    holes = relevant = questions = 0
    for qid in labelled:
        docs, listed = top[qid], by_id[qid].relevant
        unlisted = [d for d in docs if d not in listed]
        assessed = [d for d in unlisted if (qid, d) in grades]
        human.append((len(docs) - len(unlisted)) / len(docs) if docs else 0.0)
        automatic.append(len(assessed) / len(docs) if docs else 0.0)
        holes += len(assessed)
        relevant += sum(is_relevant(grades[(qid, d)]) for d in assessed)
        questions += bool(assessed)
    seen, unassessed = [], 0
    for qid in unlabelled:
        docs = top[qid]
        known = sum((qid, d) in grades for d in docs)
        seen.append(known / len(docs) if docs else 0.0)
        unassessed += len(docs) - known
    return Coverage(k, _mean(human), _mean(automatic), holes, relevant, questions, _mean(seen), unassessed, filled)


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
