"""Grade mappings: a golden set whose scale is not ragauge's (grade >= 1 relevant, higher better).

Cranfield's judgements run the other way (1 = the most relevant, 4 = the least, -1 = not relevant),
and some sets use negative grades for "judged not relevant". ``--grades "1:3,2:2,3:1,4:0,-1:0"`` (or
``grades`` in ``ragauge.toml``'s ``[eval]``) maps each grade the golden set uses to the grade ragauge
scores; the mapping is part of the result's contract (``contract.grades``), so results scored under
different mappings are not compared. Every grade the set uses must be mapped (an unmapped grade is an
error naming it, never a silent pass-through).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ragauge.core.numbers import GRADE_LIMIT
from ragauge.data.golden import GoldenQuery, GoldenSet
from ragauge.errors import InputError, flag

EXAMPLE = '"1:3,2:2,3:1,4:0,-1:0" (Cranfield: 1 is the best grade, -1 not relevant)'
HINT = f"e.g. --grades {EXAMPLE}"
"""The example in ``negative_grade_note``: a note is part of the result, the same whoever evaluated."""


def _hint() -> str:
    """The example in an error's hint, in the caller's words (``errors.flag``)."""
    return "e.g. " + flag("grades", EXAMPLE)


def parse_grades(text: str | Mapping[float, float] | None) -> dict[float, float] | None:
    """``"1:3,2:2,3:1,4:0,-1:0"`` (or a mapping) -> ``{1.0: 3.0, 2.0: 2.0, ...}``; None for None or "".
    InputError for a malformed pair, a grade given twice, or a number that is not finite."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    pairs: list[tuple[object, object]]
    if isinstance(text, Mapping):
        pairs = list(text.items())
    else:
        pairs = []
        for part in text.split(","):
            head, colon, tail = part.partition(":")
            if not colon:
                raise InputError(f"grade mapping part {part.strip()!r} is not FROM:TO", hint=_hint())
            pairs.append((head, tail))
    out: dict[float, float] = {}
    for source, target in pairs:
        a, b = _grade(source), _grade(target)
        if a in out:
            raise InputError(f"grade {_text(a)} is mapped twice", hint=_hint())
        out[a] = b
    return out


def _grade(value: object) -> float:
    try:
        number = float(str(value).strip())  # text or number alike; a boolean's text ("True") is refused
    except ValueError:
        raise InputError(f"{str(value).strip()!r} is not a grade (a number)", hint=_hint()) from None
    if not math.isfinite(number) or abs(number) > GRADE_LIMIT:
        raise InputError(f"{value!r} is not a grade (a finite number)", hint=_hint())
    return number


def _text(grade: float) -> str:
    return str(int(grade)) if float(grade).is_integer() else str(float(grade))


def describe(mapping: Mapping[float, float]) -> str:
    """The canonical text of a mapping (sorted by the grade mapped), as the contract records it."""
    return ",".join(f"{_text(a)}:{_text(b)}" for a, b in sorted(mapping.items()))


def map_grades(golden: GoldenSet, mapping: Mapping[float, float]) -> GoldenSet:
    """``golden`` with every label's grade mapped (span labels' grades too); InputError naming the
    grades the set uses that ``mapping`` does not cover."""
    used = {float(g) for q in golden for g in q.relevant.values()}
    used |= {float(s.grade) for q in golden for spans in q.spans.values() for s in spans if s.grade is not None}
    missing = sorted(used - set(mapping))
    if missing:
        raise InputError(f"the grade mapping does not say what grade(s) {', '.join(map(_text, missing))} become",
                         where=golden.source, hint=f"map every grade the golden set uses; {_hint()}")
    from dataclasses import replace

    queries = []
    for q in golden:
        spans = {d: tuple(replace(s, grade=None if s.grade is None else mapping[float(s.grade)]) for s in ss)
                 for d, ss in q.spans.items()}
        queries.append(GoldenQuery(q.id, q.query, {d: mapping[float(g)] for d, g in q.relevant.items()}, q.tags,
                                   q.extra, q.line, spans))
    return GoldenSet.from_queries(queries, golden.source)


def negative_grade_note(golden: GoldenSet) -> str | None:
    """A note for a golden set holding negative grades: they count as not relevant (as trec_eval
    counts them), which is right for "judged not relevant" and wrong for a scale that runs the other
    way; None when there is none."""
    negative = sorted({g for q in golden for g in q.relevant.values() if g < 0})
    if not negative:
        return None
    count = sum(1 for q in golden for g in q.relevant.values() if g < 0)
    return (f"{count} label(s) have negative grades ({', '.join(map(_text, negative))}): they count as not relevant, "
            f"as in trec_eval; if the scale runs the other way, map it with --grades ({HINT})")
