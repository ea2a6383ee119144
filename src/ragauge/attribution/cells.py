"""Link an evaluation to answer verdicts, question by question: a pure function, no files, no network.

A question's retrieval outcome is hit@k: its first relevant document at rank <= k in the run's
fetched, deduplicated list (``QueryScore.found``). Its answer outcome is its verdict. Together they
place it in one cell of the 2 × 2:

- not found, answer bad: search never found it -> fix retrieval;
- found, answer bad: the model had the document and still answered wrong -> fix the prompt or model;
- not found, answer good: right without the labelled document -> check the label (another document
  answers too), or the model answered from its own knowledge;
- found, answer good.

No-answer questions (empty ``relevant``) have nothing to find: they go to a table of their own by
verdict (a good verdict usually means the assistant declined). A question without a verdict, missing
from the run or failed in the retriever is in no cell: it is listed, with a loud note.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from ragauge.attribution.result import (
    ERROR,
    FOUND_BAD,
    FOUND_GOOD,
    MISSED_BAD,
    MISSED_GOOD,
    MISSING,
    NO_ANSWER_BAD,
    NO_ANSWER_GOOD,
    UNJUDGED,
    Attribution,
    Linked,
)
from ragauge.core.notes import LOUD
from ragauge.core.numbers import COUNT, check_number
from ragauge.data.answers import BAD, GOOD, Answers, AnswerVerdict
from ragauge.evaluation.result import Evaluation
from ragauge.metrics.spec import DEFAULT_K

SHOWN_IDS = 10


def attribute_evaluation(evaluation: Evaluation, answers: Answers, *, k: int = DEFAULT_K,
                         threshold: float | None = None,
                         why_unjudged: Mapping[str, str] | None = None,
                         meta: Mapping[str, Any] | None = None) -> Attribution:
    """Link every question of ``evaluation`` to its verdict in ``answers`` at cutoff ``k``.

    ``threshold`` turns scores into verdicts (score >= threshold is good; an explicit verdict wins);
    ``why_unjudged`` gives, per question id, the reason a question has no verdict when it is known
    better than "no verdict on its line" (a judge that could not decide); ``meta`` is added to the
    result's metadata. Answer lines for ids the evaluation does not hold are listed in
    ``not_in_golden``. The evaluation's loud warnings (ids that cannot match, ...) are carried over:
    they make "not found" mean something else. InputError for a bad ``k`` or ``threshold`` and for
    a line with a score but no threshold."""
    k = int(check_number(k, "k (the cutoff of 'found')", COUNT))
    if threshold is not None:
        threshold = check_number(threshold, "threshold")
    verdicts = answers.resolve(threshold)
    why = dict(why_unjudged or {})
    rows: list[Linked] = []

    def verdict_of(qid: str) -> tuple[str | None, str | None]:
        if qid not in answers.by_id:
            return None, "not in the answers file"
        good = verdicts[qid]
        if good is None:
            line = answers.by_id[qid]
            return None, why.get(qid) or ("no verdict or score" + (f" on line {line.line}" if line.line else ""))
        return (GOOD if good else BAD), None

    for q in evaluation.queries:
        verdict, note = verdict_of(q.id)
        line = answers.by_id.get(q.id)
        if q.status == "missing":
            cell = MISSING
        elif q.status == "error":
            cell = ERROR
        elif verdict is None:
            cell = UNJUDGED
        elif q.found(k):
            cell = FOUND_GOOD if verdict == GOOD else FOUND_BAD
        else:
            cell = MISSED_GOOD if verdict == GOOD else MISSED_BAD
        rows.append(Linked(q.id, q.tags, cell, q.first_relevant_rank, verdict, *_given(line), note))
    for na in evaluation.no_answer.get("questions", []):
        verdict, note = verdict_of(na["id"])
        line = answers.by_id.get(na["id"])
        cell = UNJUDGED if verdict is None else NO_ANSWER_GOOD if verdict == GOOD else NO_ANSWER_BAD
        rows.append(Linked(na["id"], tuple(na.get("tags", [])), cell, None, verdict, *_given(line), note))

    known = {row.id for row in rows}
    not_in_golden = tuple(a.id for a in answers if a.id not in known)
    sources = Counter(row.source or "(none)" for row in rows if row.verdict is not None)
    info: dict[str, Any] = {
        "ragauge_version": evaluation.meta.get("ragauge_version"),
        "golden": evaluation.meta.get("golden", {}), "run": evaluation.meta.get("run", {}),
        "answers": {"path": answers.source, "lines": len(answers), "verdicts_by_source": dict(sources.most_common())},
        "contract": evaluation.meta.get("contract", {}),
        **dict(meta or {}),
    }
    return Attribution(k, threshold, tuple(rows), not_in_golden,
                       tuple(_notes(evaluation, rows, not_in_golden, k)), info)


def _given(line: AnswerVerdict | None) -> tuple[float | None, str | None]:
    return (None, None) if line is None else (line.score, line.source)


def _ids(ids: list[str]) -> str:
    more = f" (+{len(ids) - SHOWN_IDS} more)" if len(ids) > SHOWN_IDS else ""
    return ", ".join(ids[:SHOWN_IDS]) + more


def _notes(evaluation: Evaluation, rows: list[Linked], not_in_golden: tuple[str, ...], k: int) -> list[str]:
    notes = [w for w in evaluation.warnings if w.startswith(LOUD)]
    by_cell: dict[str, list[str]] = {}
    for row in rows:
        by_cell.setdefault(row.cell, []).append(row.id)
    unjudged = by_cell.get(UNJUDGED, [])
    if unjudged:
        notes.append(f"{LOUD}{len(unjudged)} of {len(rows)} question(s) have no answer verdict and are in no cell: "
                     f"{_ids(unjudged)}")
    if by_cell.get(MISSING):
        notes.append(f"{LOUD}{len(by_cell[MISSING])} question(s) are missing from the run: what search found for "
                     f"them is unknown, so they are in no cell: {_ids(by_cell[MISSING])}")
    if by_cell.get(ERROR):
        notes.append(f"{LOUD}{len(by_cell[ERROR])} question(s) failed in the retriever, so they are in no cell: "
                     f"{_ids(by_cell[ERROR])}")
    skipped = evaluation.meta.get("counts", {}).get("skipped")
    if skipped:
        notes.append(f"{LOUD}{skipped} question(s) were skipped by the evaluation (retriever errors) and are not "
                     "linked at all")
    if not_in_golden:
        notes.append(f"{len(not_in_golden)} answer line(s) name questions the golden set does not have, ignored: "
                     f"{_ids(list(not_in_golden))}")
    in_table = sum(len(by_cell.get(c, [])) for c in (FOUND_GOOD, FOUND_BAD, MISSED_GOOD, MISSED_BAD))
    if not in_table:
        notes.append(f"{LOUD}no answerable question has both an answer verdict and a retrieval result at k={k}: "
                     "the table is empty")
    return notes
