"""The attribution result: each golden question linked to its retrieval outcome and its answer verdict,
and the 2 × 2 table (found in the top k or not × answer good or bad) that says what to fix."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

ATTRIBUTION_VERSION = 1

FOUND_GOOD, FOUND_BAD, MISSED_GOOD, MISSED_BAD = "found_good", "found_bad", "missed_good", "missed_bad"
CELLS = (MISSED_BAD, FOUND_BAD, MISSED_GOOD, FOUND_GOOD)
"""The four cells of the table, in the order reports list them: what to fix first."""
NO_ANSWER_GOOD, NO_ANSWER_BAD = "no_answer_good", "no_answer_bad"
UNJUDGED, MISSING, ERROR = "unjudged", "missing_from_run", "retriever_error"
OUTSIDE = (UNJUDGED, MISSING, ERROR)
"""Rows in no cell: no verdict; the run lacks the question; the retriever failed on it."""

ACTIONS = {
    MISSED_BAD: "search never found it: fix retrieval",
    FOUND_BAD: "found, but the answer was wrong: fix the prompt or the model",
    MISSED_GOOD: "answer right without the document: check the label, or the model's own knowledge",
    FOUND_GOOD: "found and answered well",
    NO_ANSWER_BAD: "nothing to find, yet the answer was bad: teach the assistant to decline",
    NO_ANSWER_GOOD: "nothing to find and the answer was good (it declined, or knew the answer itself)",
}
LABELS = {
    MISSED_BAD: "not found, answer bad", FOUND_BAD: "found, answer bad",
    MISSED_GOOD: "not found, answer good", FOUND_GOOD: "found, answer good",
    NO_ANSWER_BAD: "no-answer question, answer bad", NO_ANSWER_GOOD: "no-answer question, answer good",
    UNJUDGED: "no verdict", MISSING: "missing from the run", ERROR: "retriever error",
}


@dataclass(frozen=True)
class Linked:
    """One golden question, linked: ``cell`` (one of CELLS, NO_ANSWER_GOOD/BAD, or OUTSIDE),
    ``rank`` of its first relevant document in the run (None: not retrieved, or a no-answer
    question), the ``verdict`` used (``"good"``/``"bad"``, after the threshold), the ``score`` and
    ``source`` its answer line gave, and ``note``: why it has no verdict, when it has none."""

    id: str
    tags: tuple[str, ...]
    cell: str
    rank: int | None = None
    verdict: str | None = None
    score: float | None = None
    source: str | None = None
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "tags": list(self.tags), "cell": self.cell, "rank": self.rank,
                               "verdict": self.verdict}
        for key in ("score", "source", "note"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Linked:
        return cls(str(d["id"]), tuple(d.get("tags", [])), str(d["cell"]), d.get("rank"), d.get("verdict"),
                   d.get("score"), d.get("source"), d.get("note"))


@dataclass(frozen=True)
class Table:
    """The 2 × 2 of a group of answerable questions: the question ids in each of CELLS.
    ``n`` counts the questions in the table (each has a verdict and a retrieval outcome)."""

    cells: Mapping[str, tuple[str, ...]]

    @classmethod
    def of(cls, rows: Iterable[Linked]) -> Table:
        cells: dict[str, list[str]] = {c: [] for c in CELLS}
        for row in rows:
            if row.cell in cells:
                cells[row.cell].append(row.id)
        return cls({c: tuple(ids) for c, ids in cells.items()})

    @property
    def n(self) -> int:
        return sum(len(ids) for ids in self.cells.values())

    def count(self, cell: str) -> int:
        return len(self.cells[cell])

    def share(self, cell: str) -> float:
        """The cell's share of the table (NaN for an empty table)."""
        return self.count(cell) / self.n if self.n else math.nan

    @property
    def bad(self) -> int:
        return self.count(FOUND_BAD) + self.count(MISSED_BAD)

    @property
    def good_when_found(self) -> float:
        """Share of good answers among the questions whose document was found (NaN: none found)."""
        found = self.count(FOUND_GOOD) + self.count(FOUND_BAD)
        return self.count(FOUND_GOOD) / found if found else math.nan

    @property
    def good_when_missed(self) -> float:
        """Share of good answers among the questions whose document was not found (NaN: none missed)."""
        missed = self.count(MISSED_GOOD) + self.count(MISSED_BAD)
        return self.count(MISSED_GOOD) / missed if missed else math.nan

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "good_when_found": self.good_when_found, "good_when_missed": self.good_when_missed,
                "cells": {c: {"n": self.count(c), "share": self.share(c), "action": ACTIONS[c],
                              "questions": list(self.cells[c])} for c in CELLS}}


@dataclass(frozen=True)
class Attribution:
    """Every golden question linked to its retrieval outcome at ``k`` and its answer verdict.

    ``questions`` holds one row per golden question (answerable ones first, in golden order, then
    the no-answer ones); the tables are computed from them: ``overall`` and ``by_tag`` (the 2 × 2
    of answerable questions with a verdict and a retrieval outcome; tags with the largest share of
    bad answers first), ``no_answer`` (no-answer questions by verdict), and the rows in no cell.
    ``not_in_golden`` lists answer lines naming questions the golden set does not have; ``notes``
    say what changes how the numbers read (those starting with ``NOTE: `` loudly).
    """

    k: int
    threshold: float | None
    questions: tuple[Linked, ...]
    not_in_golden: tuple[str, ...]
    notes: tuple[str, ...]
    meta: Mapping[str, Any]

    @cached_property
    def overall(self) -> Table:
        return Table.of(self.questions)

    @cached_property
    def by_tag(self) -> dict[str, Table]:
        groups: dict[str, list[Linked]] = {}
        for row in self.questions:
            if row.cell in CELLS:
                for tag in row.tags:
                    groups.setdefault(tag, []).append(row)
        tables = {tag: Table.of(rows) for tag, rows in groups.items()}
        return dict(sorted(tables.items(), key=lambda kv: (-kv[1].bad / kv[1].n, kv[0])))

    def ids(self, cell: str) -> tuple[str, ...]:
        """The question ids in ``cell`` (any cell, including NO_ANSWER_* and OUTSIDE), in row order."""
        return tuple(row.id for row in self.questions if row.cell == cell)

    @property
    def no_answer(self) -> dict[str, tuple[str, ...]]:
        return {NO_ANSWER_BAD: self.ids(NO_ANSWER_BAD), NO_ANSWER_GOOD: self.ids(NO_ANSWER_GOOD)}

    def to_dict(self) -> dict[str, Any]:
        return {
            "ragauge_attribution": ATTRIBUTION_VERSION,
            "k": self.k,
            "threshold": self.threshold,
            "overall": self.overall.to_dict(),
            "by_tag": {tag: table.to_dict() for tag, table in self.by_tag.items()},
            "no_answer": {c: {"n": len(ids), "action": ACTIONS[c], "questions": list(ids)}
                          for c, ids in self.no_answer.items()},
            "outside": {c: list(self.ids(c)) for c in OUTSIDE},
            "not_in_golden": list(self.not_in_golden),
            "questions": [row.to_dict() for row in self.questions],
            "notes": list(self.notes),
            "meta": dict(self.meta),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Attribution:
        """The inverse of ``to_dict`` (the tables are recomputed from the rows); InputError for
        anything but a saved attribution."""
        from ragauge.errors import InputError

        version = d.get("ragauge_attribution")
        if version != ATTRIBUTION_VERSION:
            raise InputError(f"not a ragauge attribution (version {version!r})",
                             hint="pass a file written by 'ragauge attribute --format json'")
        threshold = d.get("threshold")
        return cls(int(d["k"]), None if threshold is None else float(threshold),
                   tuple(Linked.from_dict(q) for q in d["questions"]), tuple(d.get("not_in_golden", [])),
                   tuple(d.get("notes", [])), dict(d.get("meta", {})))
