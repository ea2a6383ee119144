"""Automatic labels: grades an assessor gave (question, document) pairs, as JSON Lines.

One line per pair, version 1 (``ragauge.schemas.schema("autolabels")``)::

    {"v": 1, "question": "q1", "doc_id": "d7", "grade": 1, "score": 0.6123,
     "assessor": "minilm@8199be6f699a", "key": "3f0c...",
     "calibration": {"cutoffs": [0.5312], "grades": [0, 1], "fitted_on": 2810, "kappa": 0.41},
     "golden": "sha256:9a1e..."}

- ``grade``: the calibrated grade (one of ``calibration.grades``), what a metric reads;
- ``score``: the assessor's raw output before calibration (a cosine, a logit, the model's 0-3 grade);
- ``assessor``: ``NAME@VERSION``; NAME one of :data:`SCHEMES` (the assessor specs), VERSION what
  identifies its behaviour (a model file's hash, a model name and prompt hash, a function's source hash);
- ``key``: the hash of (assessor, prompt, question text, document text) the score is cached under:
  a resumed ``golden assess`` reuses a line only when its key is the one it would compute;
- ``calibration``: how ``score`` became ``grade``: grade ``grades[i]`` for a score at or above
  ``cutoffs[i - 1]`` and below ``cutoffs[i]``; ``fitted_on`` human-labelled pairs (0: the assessor's
  default mapping, no human label to fit on), with the agreement ``kappa`` reached there (None then);
- ``golden`` (optional; every ``golden assess`` writes it): the hash of the questions of the golden set
  assessed, ids and texts (``GoldenSet.questions_hash``: labels excluded, so labelling more questions
  by hand keeps it), which the prediction-powered metrics check the golden set against.

Every line of a file comes from one assessor, one calibration and one golden set: the reader refuses
a mix, an unknown version ``v`` and an unknown assessor name, with the file and line.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ragauge.core.files import atomic_writer
from ragauge.core.jsonl import dumps, read_jsonl
from ragauge.core.numbers import GRADE, check_number
from ragauge.errors import InputError, where

FORMAT_VERSION = 1
SCHEMES = ("minilm", "cross-encoder", "llm", "python")
"""The assessor names a label may carry (the schemes of ``golden assess --assessor``)."""
_FIELDS = ("v", "question", "doc_id", "grade", "score", "assessor", "key", "calibration", "golden")


@dataclass(frozen=True)
class Calibration:
    """Score -> grade: ``grades[i]`` for ``cutoffs[i-1] <= score < cutoffs[i]`` (one grade more than
    cutoffs, both ascending). ``fitted_on`` human-labelled pairs (0: a default, not fitted), where the
    mapping reached weighted kappa ``kappa``."""

    cutoffs: tuple[float, ...]
    grades: tuple[float, ...]
    fitted_on: int = 0
    kappa: float | None = None

    def __post_init__(self) -> None:
        if len(self.grades) != len(self.cutoffs) + 1 or list(self.cutoffs) != sorted(self.cutoffs) \
                or list(self.grades) != sorted(set(self.grades)):
            raise InputError(f"a calibration needs ascending cutoffs and one more ascending grade, got cutoffs "
                             f"{list(self.cutoffs)} and grades {list(self.grades)}")

    def grade(self, score: float) -> float:
        return self.grades[sum(score >= c for c in self.cutoffs)]

    def to_dict(self) -> dict[str, Any]:
        return {"cutoffs": [float(c) for c in self.cutoffs], "grades": [_number(g) for g in self.grades],
                "fitted_on": self.fitted_on, "kappa": None if self.kappa is None else round(self.kappa, 6)}

    @classmethod
    def from_dict(cls, d: Any, loc: str) -> Calibration:
        hint = '"calibration": {"cutoffs": [0.53], "grades": [0, 1], "fitted_on": 2810, "kappa": 0.41}'
        if not isinstance(d, Mapping) or not isinstance(d.get("cutoffs"), list) \
                or not isinstance(d.get("grades"), list):
            raise InputError(f"'calibration' must be an object with cutoffs and grades, got {d!r}", where=loc,
                             hint=hint)
        try:
            cutoffs = tuple(check_number(c, "a cutoff", where=loc) for c in d["cutoffs"])
            grades = tuple(check_number(g, "a grade", GRADE, where=loc) for g in d["grades"])
            fitted = d.get("fitted_on", 0)
            if isinstance(fitted, bool) or not isinstance(fitted, int) or fitted < 0:
                raise InputError(f"'fitted_on' must be a count, got {fitted!r}", where=loc, hint=hint)
            kappa = d.get("kappa")
            kappa = None if kappa is None else check_number(kappa, "kappa", where=loc)
            return cls(cutoffs, grades, fitted, kappa)
        except InputError as exc:
            raise InputError(exc.message, where=loc, hint=exc.hint or hint) from None


def _number(x: float) -> float | int:
    return int(x) if float(x).is_integer() else float(x)


@dataclass(frozen=True)
class AutoLabel:
    """One pair's automatic label (module docstring); ``line`` is where it was read (None: made here)."""

    question: str
    doc_id: str
    grade: float
    score: float
    key: str
    line: int | None = None

    def to_dict(self, assessor: str, calibration: Calibration, golden: str | None = None) -> dict[str, Any]:
        return {"v": FORMAT_VERSION, "question": self.question, "doc_id": self.doc_id, "grade": _number(self.grade),
                "score": float(self.score), "assessor": assessor, "key": self.key,
                "calibration": calibration.to_dict(), **({"golden": golden} if golden is not None else {})}


@dataclass(frozen=True)
class AutoLabels:
    """The lines of one automatic-labels file: one ``assessor`` (``NAME@VERSION``), one ``calibration``,
    one ``golden`` set's questions hash (None: a file written before ragauge recorded it)."""

    labels: tuple[AutoLabel, ...]
    assessor: str
    calibration: Calibration
    source: str | None = None
    golden: str | None = None

    @property
    def name(self) -> str:
        return self.assessor.partition("@")[0]

    @property
    def identity(self) -> str:
        """What makes two files' grades one function of (question, document): the assessor and its
        calibration (a file extended with more pairs by the same assessor, calibration unchanged, keeps
        it). Prediction-powered differences pair automatic values of one identity only."""
        from ragauge.core.hashing import content_hash

        return content_hash({"assessor": self.assessor, "calibration": self.calibration.to_dict()})

    def grades(self) -> dict[tuple[str, str], float]:
        """``{(question, doc_id): grade}``."""
        return {(a.question, a.doc_id): a.grade for a in self.labels}


def check_assessor(value: Any, loc: str) -> str:
    """An ``assessor`` field: ``NAME@VERSION`` with NAME one of :data:`SCHEMES` (InputError otherwise)."""
    hint = f"an assessor is NAME@VERSION with NAME one of {', '.join(SCHEMES)}; re-run ragauge golden assess"
    if not isinstance(value, str) or "@" not in value:
        raise InputError(f"'assessor' must be NAME@VERSION, got {value!r}", where=loc, hint=hint)
    name, _, version = value.partition("@")
    if name not in SCHEMES:
        raise InputError(f"unknown assessor {name!r} (in {value!r})", where=loc, hint=hint)
    if not version:
        raise InputError(f"the assessor {value!r} has no version", where=loc, hint=hint)
    return value


def parse_auto_label(obj: Mapping[str, Any], loc: str,
                     line: int | None = None) -> tuple[AutoLabel, str, Calibration, str | None]:
    """One decoded line: the label, its assessor, its calibration and its golden set's questions hash
    (None when the line has none; InputError at ``loc`` when wrong)."""
    version = obj.get("v")
    if version != FORMAT_VERSION:
        raise InputError(f"unknown automatic-labels version {version!r} (this ragauge reads {FORMAT_VERSION})",
                         where=loc, hint="upgrade ragauge, or re-run ragauge golden assess to write the file again")
    for name in ("question", "doc_id", "key"):
        if not isinstance(obj.get(name), str) or not obj[name]:
            raise InputError(f"'{name}' must be a non-empty string, got {obj.get(name)!r}", where=loc,
                             hint="each line is written by ragauge golden assess; see docs/formats.md")
    stray = sorted(set(obj) - set(_FIELDS))
    if stray:
        raise InputError(f"unknown field(s) {', '.join(map(repr, stray))}", where=loc,
                         hint=f"a line holds {', '.join(_FIELDS)}")
    assessor = check_assessor(obj.get("assessor"), loc)
    calibration = Calibration.from_dict(obj.get("calibration"), loc)
    grade = check_number(obj.get("grade"), "grade", GRADE, where=loc)
    if grade not in calibration.grades:
        raise InputError(f"grade {grade:g} is not one of the calibration's grades {list(calibration.grades)}",
                         where=loc, hint="the file was edited by hand: re-run ragauge golden assess")
    score = obj.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
        raise InputError(f"'score' must be a finite number, got {score!r}", where=loc,
                         hint="the assessor's raw score; re-run ragauge golden assess")
    golden = obj.get("golden")
    if golden is not None and (not isinstance(golden, str) or not golden):
        raise InputError(f"'golden' must be the golden set's questions hash, got {golden!r}", where=loc,
                         hint="the file was edited by hand: re-run ragauge golden assess")
    label = AutoLabel(obj["question"], obj["doc_id"], grade, float(score), obj["key"], line)
    return label, assessor, calibration, golden


def read_auto_labels(path: str | Path) -> AutoLabels:
    """Read an automatic-labels file (module docstring), refusing with ``file:line`` a bad line, a
    second label of one pair, and a line of another assessor, calibration or golden set than the first's."""
    labels: list[AutoLabel] = []
    first: tuple[str, Calibration, int, str | None] | None = None
    seen: dict[tuple[str, str], int] = {}
    for number, obj in read_jsonl(path, what="automatic labels"):
        loc = where(path, number)
        label, assessor, calibration, golden = parse_auto_label(obj, loc, number)
        if first is None:
            first = (assessor, calibration, number, golden)
        elif assessor != first[0]:
            raise InputError(f"labels of assessor {assessor!r} after labels of {first[0]!r} (line {first[2]})",
                             where=loc, hint="keep one assessor's labels per file (write each to its own -o)")
        elif calibration != first[1]:
            raise InputError(f"a calibration other than line {first[2]}'s", where=loc,
                             hint="a file holds one calibration: re-run ragauge golden assess to write it whole")
        elif golden != first[3]:
            raise InputError(f"a label of another golden set than line {first[2]}'s", where=loc,
                             hint="a file holds one golden set's labels: re-run ragauge golden assess")
        pair = (label.question, label.doc_id)
        if pair in seen:
            raise InputError(f"a second label for document {label.doc_id!r} of question {label.question!r} "
                             f"(first on line {seen[pair]})", where=loc, hint="keep one line per pair")
        seen[pair] = number
        labels.append(label)
    if first is None:
        raise InputError("the automatic-labels file holds no label", where=str(path),
                         hint="write it with ragauge golden assess")
    return AutoLabels(tuple(labels), first[0], first[1], str(path), first[3])


def write_auto_labels(labels: Iterable[AutoLabel], path: str | Path, assessor: str, calibration: Calibration,
                      golden: str | None = None) -> None:
    """Write labels as JSON Lines, replacing ``path`` atomically; ``golden`` the questions hash of the
    golden set assessed (``GoldenSet.questions_hash``)."""
    with atomic_writer(path, what="automatic labels") as fh:
        for label in labels:
            fh.write(dumps(label.to_dict(assessor, calibration, golden)) + "\n")
