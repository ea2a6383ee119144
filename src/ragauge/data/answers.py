"""Answer verdicts: what someone said about the answer the assistant gave to a golden question.

The answer stage stays apart from retrieval: a verdict comes from anywhere (a user's thumbs in the
production logs, a human review, any LLM-as-judge tool) and is linked to a question by its id only.
A verdict is ``"good"`` or ``"bad"`` (``true``/``false`` read as good/bad), or a ``score`` that a
threshold turns into one (score >= threshold is good). An explicit verdict wins over a score on the
same line. A line with neither gives no verdict: it is counted and listed, never dropped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from ragauge.core.numbers import check_number
from ragauge.errors import InputError, flag, where

GOOD, BAD = "good", "bad"
_HINT = 'each line looks like {"id": "q42", "verdict": "good"} or {"id": "q42", "score": 0.8}'


@dataclass(frozen=True)
class AnswerVerdict:
    """One line of an answers file.

    ``verdict`` is ``"good"``, ``"bad"`` or None (none given); ``score`` a finite number or None;
    ``answer`` the answer's text and ``source`` where the verdict came from (free text such as
    ``"feedback"``, ``"review"``, ``"judge:llama3"``), both optional. ``line`` is its line in the file.
    """

    id: str
    verdict: str | None = None
    score: float | None = None
    answer: str | None = None
    source: str | None = None
    line: int | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id}
        for key in ("verdict", "score", "answer", "source"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> AnswerVerdict:
        """The inverse of ``to_dict``: one answers line, checked as the file reader checks it."""
        return parse_answer_line(d, f"answer {d.get('id')!r}")

    def good(self, threshold: float | None, loc: str | None = None) -> bool | None:
        """True for a good answer, False for a bad one, None when the line gives no verdict: the
        verdict when given, else ``score >= threshold``. InputError (naming ``loc``) for a line with
        only a score when no threshold is set: a score means nothing without one."""
        if self.verdict is not None:
            return self.verdict == GOOD
        if self.score is None:
            return None
        if threshold is None:
            raise InputError(f"question {self.id!r} has a score ({self.score:g}) but no threshold was set",
                             where=loc, hint="pass --threshold T (threshold=T): a score >= T is a good answer")
        return self.score >= threshold


def parse_verdict(value: Any, loc: str) -> str | None:
    """``"good"``/``"bad"`` (any case, spaces trimmed), ``true``/``false`` or null/absent (None)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return GOOD if value else BAD
    if isinstance(value, str) and value.strip().lower() in (GOOD, BAD):
        return value.strip().lower()
    raise InputError(f"'verdict' must be \"good\", \"bad\", true or false, got {value!r}", where=loc,
                     hint='or leave "verdict" out and give a "score" with ' + flag("threshold"))


def parse_answer_line(obj: Mapping[str, Any], loc: str) -> AnswerVerdict:
    """Validate one decoded answers line; ``loc`` is used in error messages. Fields other than
    ``id``, ``verdict``, ``score``, ``answer`` and ``source`` are ignored."""
    qid = obj.get("id")
    if not isinstance(qid, str) or not qid:
        raise InputError(f"missing or invalid 'id': {qid!r}", where=loc, hint=_HINT)
    verdict = parse_verdict(obj.get("verdict"), loc)
    score = obj.get("score")
    if score is not None:
        score = check_number(score, "'score'", where=loc,
                             hint="a score is a finite number, read with " + flag("threshold"))
    texts = []
    for key in ("answer", "source"):
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            raise InputError(f"'{key}' must be a string, got {type(value).__name__}", where=loc)
        texts.append(value)
    return AnswerVerdict(qid, verdict, score, texts[0], texts[1])


@dataclass(frozen=True)
class Answers:
    """The verdicts of an answers file (or of Python data), one line per question id, in file order."""

    lines: tuple[AnswerVerdict, ...]
    source: str | None = None

    def __iter__(self) -> Iterator[AnswerVerdict]:
        return iter(self.lines)

    def __len__(self) -> int:
        return len(self.lines)

    @cached_property
    def by_id(self) -> dict[str, AnswerVerdict]:
        return {a.id: a for a in self.lines}

    def where(self, answer: AnswerVerdict) -> str:
        """Where a line came from, for messages: ``file:line``, or the question id."""
        if self.source is not None and answer.line is not None:
            return where(self.source, answer.line)
        return f"answer {answer.id!r}"

    def resolve(self, threshold: float | None) -> dict[str, bool | None]:
        """Question id -> good (True), bad (False) or no verdict (None); see ``AnswerVerdict.good``."""
        return {a.id: a.good(threshold, self.where(a)) for a in self.lines}

    def with_verdicts(self, verdicts: Mapping[str, tuple[str, str]]) -> Answers:
        """A copy where each id of ``verdicts`` gets that ``(verdict, source)``; other lines unchanged."""
        return Answers(tuple(replace(a, verdict=verdicts[a.id][0], source=verdicts[a.id][1]) if a.id in verdicts
                             else a for a in self.lines), self.source)

    @classmethod
    def from_lines(cls, lines: Iterable[AnswerVerdict], source: str | None = None) -> Answers:
        """Collect lines, refusing a question id given twice (naming both lines when known)."""
        seen: dict[str, AnswerVerdict] = {}
        for a in lines:
            if a.id in seen:
                first = seen[a.id].line
                loc = where(source, a.line) if source is not None and a.line is not None else None
                raise InputError(f"question {a.id!r} has two answer lines"
                                 + (f" (first on line {first})" if first is not None else ""), where=loc,
                                 hint="give one verdict per question: keep the one you trust")
            seen[a.id] = a
        return cls(tuple(seen.values()), source)
