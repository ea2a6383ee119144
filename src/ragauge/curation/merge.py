"""Merging into a golden set: reviewed candidates become new questions, judgements become labels.

One code path for ``golden merge`` (reviewed candidates from ``golden add``) and ``golden judge
--finish`` (graded documents from a judgements log). Every problem is collected and reported at
once, each at its ``file:line``, and nothing is written when there is one. The golden set's own
lines are copied unchanged, except the lines of questions that gain labels, which are written
anew (same fields, same order, ``relevant`` extended).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import dumps, to_jsonl
from ragauge.errors import InputError, flag, where

REJECTED = "rejected"
REVIEW_FIELDS = ("status", "hint_retrieved", "feedback", "seen", "first_seen", "log_ref", "scrubbed", "leakage")
"""Fields that help a reviewer and are stripped on merge (``added``, ``source``, ``no_answer`` stay)."""


@dataclass(frozen=True)
class MergeReport:
    """``golden`` questions before, ``merged`` new questions, ``rejected`` candidates dropped,
    ``labelled`` labels added to ``questions_labelled`` questions already in the set."""

    golden: int
    merged: int
    rejected: int
    labelled: int = 0
    questions_labelled: int = 0


def reviewed_entry(obj: Mapping[str, Any], loc: str) -> dict[str, Any] | None:
    """A reviewed candidate as a golden line (review-only fields stripped), or None when the reviewer
    rejected it (``"status": "rejected"``). Raises InputError at ``loc`` when ``relevant`` is missing or
    null, or empty without ``"no_answer": true``, or non-empty with it, or the line is not a valid
    golden line."""
    from ragauge.data.golden import parse_golden_line

    if obj.get("status") == REJECTED:
        return None
    hint = ('fill "relevant" with the ids that answer it, mark a question without an answer with '
            '"relevant": [] and "no_answer": true, or set "status": "rejected" (or delete the line)')
    if obj.get("relevant") is None:
        raise InputError("candidate not reviewed: 'relevant' is missing or null", where=loc, hint=hint)
    no_answer = obj.get("no_answer") is True
    empty = not obj["relevant"] if isinstance(obj["relevant"], (list, dict)) else False
    if empty and not no_answer:
        raise InputError("'relevant' is empty but the candidate is not marked \"no_answer\": true", where=loc,
                         hint=hint)
    if no_answer and not empty:
        raise InputError("\"no_answer\": true but 'relevant' lists documents", where=loc,
                         hint='remove "no_answer" or empty "relevant"')
    parse_golden_line(obj, loc)  # schema check: id, query, relevant, tags
    head = {k: obj[k] for k in ("id", "query", "relevant", "tags") if k in obj}
    return {**head, **{k: v for k, v in obj.items() if k not in head and k not in REVIEW_FIELDS}}


def _candidates(golden_ids: Mapping[str, str], candidates: Iterable[tuple[str, Mapping[str, Any]]],
                problems: list[InputError]) -> tuple[list[dict[str, Any]], int]:
    out: list[dict[str, Any]] = []
    seen = dict(golden_ids)
    rejected = 0
    for loc, obj in candidates:
        try:
            entry = reviewed_entry(obj, loc)
        except InputError as exc:
            problems.append(exc)
            continue
        if entry is None:
            rejected += 1
            continue
        if entry["id"] in seen:
            problems.append(InputError(f"duplicate id {entry['id']!r} (also at {seen[entry['id']]})", where=loc,
                                       hint="give the candidate a new id"))
            continue
        seen[entry["id"]] = loc
        out.append(entry)
    return out, rejected


def _raise_all(problems: list[InputError]) -> None:
    """One InputError naming the first problem at its location and listing the rest."""
    if not problems:
        return
    first = problems[0]
    rest = "".join(f"\n  {p.where}: {p.message}" for p in problems[1:])
    raise InputError(f"{first.message}{rest}" + (f"\n  ({len(problems)} problems, nothing written)"
                                                  if len(problems) > 1 else ""),
                     where=first.where, hint=first.hint)


def merge_lines(golden_ids: Mapping[str, str], candidates: Iterable[tuple[str, Mapping[str, Any]]],
                ) -> tuple[list[dict[str, Any]], int]:
    """Reviewed ``(location, line)`` candidates as golden lines, and how many were rejected.

    Every problem is collected; the InputError names the first at its location and lists the rest.
    Ids must not repeat an id of the golden set (``golden_ids`` maps id -> location) or of an earlier
    candidate."""
    problems: list[InputError] = []
    out, rejected = _candidates(golden_ids, candidates, problems)
    _raise_all(problems)
    return out, rejected


def add_labels(obj: Mapping[str, Any], grades: Mapping[str, float], loc: str,
               problems: list[InputError]) -> tuple[dict[str, Any], int]:
    """A golden line with ``grades`` (``{doc: grade}``) added to its ``relevant``, and how many labels
    are new. A document it labels already with the same grade is left as is; with another grade it
    is a problem (appended to ``problems``): the golden set changed after pooling, and a person must
    choose. ``relevant`` stays a list when it was one and every new grade is 1, or when it holds
    span labels (a new graded document is then ``{"doc": ..., "grade": ...}``)."""
    from ragauge.data.golden import parse_golden_line

    current = parse_golden_line(obj, loc).relevant
    new: dict[str, float] = {}
    for doc, grade in grades.items():
        if doc not in current:
            new[doc] = grade
        elif current[doc] != grade:
            problems.append(InputError(
                f"question {obj['id']!r} labels {doc!r} with grade {current[doc]:g}; the judgements say {grade:g}",
                where=loc, hint="the golden set changed after pooling: settle the grade in the golden set, or undo "
                                "that judgement on the page"))
    if not new:
        return dict(obj), 0
    relevant: Any
    listed = obj["relevant"] if isinstance(obj["relevant"], list) else None
    if listed is not None and (all(g == 1 for g in new.values()) or any(isinstance(i, dict) for i in listed)):
        relevant = [*listed, *(d if g == 1 else {"doc": d, "grade": g} for d, g in new.items())]
    else:
        relevant = {**current, **new}
    out = {k: (relevant if k == "relevant" else v) for k, v in obj.items()}
    parse_golden_line(out, loc)
    return out, len(new)


def merge_golden(golden_path: str | Path, candidates: Iterable[tuple[str, Mapping[str, Any]]] = (),
                 labels: Mapping[str, Mapping[str, float]] | None = None) -> tuple[str, MergeReport]:
    """The text of the golden set at ``golden_path`` with ``labels`` (``{question id: {doc: grade}}``)
    added to its questions and reviewed ``candidates`` (``(location, line)``) appended as new
    questions. Raises InputError listing every problem (nothing is to be written then): a candidate
    :func:`reviewed_entry` refuses, an id used twice, a label for a question the set lacks, a label
    that contradicts one the set has."""
    from ragauge.core.jsonl import read_jsonl
    from ragauge.formats.golden import load_golden

    golden_path = Path(golden_path)
    golden = load_golden(golden_path)
    ids = {q.id: where(golden_path, q.line) for q in golden}
    labels = labels or {}
    problems: list[InputError] = [
        InputError(f"question {qid!r} is not in the golden set", where=str(golden_path),
                   hint=f"merge into the golden set the pool was made from ({flag('golden')})")
        for qid in labels if qid not in ids]
    text = golden_path.read_bytes().decode("utf-8-sig")
    rows = text.split("\n")
    labelled = questions = 0
    for number, obj in read_jsonl(golden_path, what="golden set"):
        if obj["id"] in labels:
            updated, added = add_labels(obj, labels[obj["id"]], where(golden_path, number), problems)
            if added:
                rows[number - 1] = dumps(updated) + ("\r" if rows[number - 1].endswith("\r") else "")
                labelled += added
                questions += 1
    entries, rejected = _candidates(ids, candidates, problems)
    _raise_all(problems)
    text = "\n".join(rows)
    if text and not text.endswith("\n"):
        text += "\n"
    return text + to_jsonl(entries), MergeReport(len(golden), len(entries), rejected, labelled, questions)


def merge_text(golden_path: Path, candidates_path: Path) -> tuple[str, MergeReport]:
    """The golden set's lines unchanged followed by the reviewed candidates, as the text of the merged
    file (raises InputError, and nothing is to be written, when any candidate is refused)."""
    from ragauge.core.jsonl import read_jsonl

    lines = [(where(candidates_path, n), obj) for n, obj in read_jsonl(candidates_path, what="candidates")]
    return merge_golden(golden_path, lines)
