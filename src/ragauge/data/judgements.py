"""Relevance judgements made on a pool, one record per action, and the state they add up to.

A judgements log is append-only: a person grades a candidate (``grade``), passes over it
(``skip``) or takes back their last action on it (``undo``); nothing is ever rewritten. The state
of an annotator is the log replayed in order: for each (question, document) a stack of the grade
and skip records in effect, where an ``undo`` pops the top one. What is on top is that
annotator's current judgement; an item whose stack is empty is unjudged again. The file format is
in :mod:`ragauge.formats.judgements`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from ragauge.core.numbers import GRADE, check_number
from ragauge.errors import InputError

LOG_VERSION = 1
ACTIONS = ("grade", "skip", "undo")
GRADES = {0: "not relevant", 1: "relevant", 2: "highly relevant"}
"""The grades the judging page offers (a log may hold any grade a golden set can)."""

Item = tuple[str, str]
"""(question id, document id)."""


@dataclass(frozen=True)
class Judgement:
    """One record of a judgements log: ``annotator`` did ``action`` on ``doc_id`` for ``question``
    at ``time`` (ISO 8601, UTC). ``grade`` is set exactly when the action is ``"grade"``; ``line``
    is the record's line in its file (None when made in memory)."""

    question: str
    doc_id: str
    action: str
    annotator: str
    time: str
    grade: float | None = None
    line: int | None = None

    @property
    def item(self) -> Item:
        return (self.question, self.doc_id)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"v": LOG_VERSION, "question": self.question, "doc_id": self.doc_id,
                               "action": self.action}
        if self.grade is not None:
            out["grade"] = self.grade
        out.update({"annotator": self.annotator, "time": self.time})
        return out


def now_utc() -> str:
    """The current time as the log writes it: ISO 8601 in UTC with milliseconds and a ``Z``."""
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_time(text: str) -> datetime:
    """A log time (ISO 8601; ``Z`` or an offset; no offset reads as UTC) as an aware datetime;
    ValueError when it is not one."""
    value = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    return value if value.tzinfo is not None else value.replace(tzinfo=timezone.utc)


_HINT = ('a judgement looks like {"v": 1, "question": "q1", "doc_id": "kb-7", "action": "grade", "grade": 2, '
         '"annotator": "ana", "time": "2026-11-03T09:12:00.000Z"}')


def parse_judgement(obj: Mapping[str, Any], loc: str, line: int | None = None) -> Judgement:
    """One decoded log line, checked field by field; InputError at ``loc`` otherwise. A newer
    ``v`` asks to upgrade ragauge; unknown fields are refused."""
    version = obj.get("v")
    if version != LOG_VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > LOG_VERSION
        raise InputError(f"unsupported judgements log version {version!r} (this ragauge reads version "
                         f"{LOG_VERSION})", where=loc, hint="upgrade ragauge" if newer else _HINT)
    known = ("v", "question", "doc_id", "action", "grade", "annotator", "time")
    unknown = sorted(k for k in obj if k not in known)
    if unknown:
        raise InputError(f"a judgement has unknown field(s) {', '.join(repr(k) for k in unknown)}", where=loc,
                         hint=_HINT)
    texts = {}
    for key in ("question", "doc_id", "action", "annotator", "time"):
        value = obj.get(key)
        if not isinstance(value, str) or not value:
            raise InputError(f"'{key}' must be a non-empty string, got {value!r}", where=loc, hint=_HINT)
        texts[key] = value
    if texts["action"] not in ACTIONS:
        raise InputError(f"'action' must be one of {', '.join(ACTIONS)}, got {texts['action']!r}", where=loc)
    try:
        parse_time(texts["time"])
    except ValueError:
        raise InputError(f"'time' must be an ISO 8601 time, got {texts['time']!r}", where=loc,
                         hint='e.g. "2026-11-03T09:12:00.000Z"') from None
    grade = None
    if texts["action"] == "grade":
        if "grade" not in obj:
            raise InputError("a 'grade' action needs a 'grade'", where=loc, hint=_HINT)
        grade = check_number(obj["grade"], "'grade'", GRADE, where=loc)
        grade = int(grade) if grade.is_integer() else grade
    elif "grade" in obj:
        raise InputError(f"a '{texts['action']}' action has no 'grade'", where=loc, hint=_HINT)
    return Judgement(texts["question"], texts["doc_id"], texts["action"], texts["annotator"], texts["time"],
                     grade, line)


@dataclass
class AnnotatorState:
    """One annotator's judgements after replaying a log: ``stacks`` maps an item to the grade and
    skip records in effect (the last one counts), ``order`` lists the records in effect in the
    order they were made (an undo takes back the last of them for its item), ``times`` every
    record's time (for the pace), and ``stray_undos`` the undo records that had nothing to undo."""

    annotator: str
    stacks: dict[Item, list[Judgement]] = field(default_factory=dict)
    order: list[Judgement] = field(default_factory=list)
    times: list[str] = field(default_factory=list)
    stray_undos: list[Judgement] = field(default_factory=list)

    def apply(self, record: Judgement) -> Judgement | None:
        """Add ``record``; for an undo, the record it took back (None: nothing to undo)."""
        self.times.append(record.time)
        stack = self.stacks.setdefault(record.item, [])
        if record.action != "undo":
            stack.append(record)
            self.order.append(record)
            return None
        if not stack:
            self.stray_undos.append(record)
            return None
        undone = stack.pop()
        for i in range(len(self.order) - 1, -1, -1):
            if self.order[i] is undone:
                del self.order[i]
                break
        return undone

    def current(self, item: Item) -> Judgement | None:
        """The record in effect for ``item`` (a grade or a skip), None when unjudged."""
        stack = self.stacks.get(item)
        return stack[-1] if stack else None

    def grades(self) -> dict[Item, float]:
        """``{item: grade}`` for every item whose record in effect is a grade (skips left out)."""
        out: dict[Item, float] = {}
        for item, stack in self.stacks.items():
            if stack and stack[-1].grade is not None:
                out[item] = stack[-1].grade
        return out

    def last(self) -> Judgement | None:
        """The most recent record still in effect: what the next undo takes back."""
        return self.order[-1] if self.order else None


def replay(records: Iterable[Judgement]) -> dict[str, AnnotatorState]:
    """Every annotator's state after ``records`` in order (see the module docstring)."""
    states: dict[str, AnnotatorState] = {}
    for record in records:
        states.setdefault(record.annotator, AnnotatorState(record.annotator)).apply(record)
    return states
