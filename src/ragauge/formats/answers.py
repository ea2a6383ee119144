"""Answers files: one JSON object a line, ``{"id", "verdict" | "score", "answer", "source"}``, read with
file:line errors; and answers from Python data."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ragauge.core.jsonl import read_jsonl
from ragauge.data.answers import Answers, AnswerVerdict, parse_answer_line
from ragauge.errors import InputError, where


def read_answers(path: str | Path) -> Answers:
    """Read an answers file (see ``ragauge.data.answers`` for the fields).

    Raises InputError with ``file:line`` for bad JSON, a missing id, a verdict other than
    good/bad/true/false, a score that is not a finite number, an answer or source that is not a
    string, a question id given twice (naming both lines) and a file with no lines.
    """
    lines = [replace(parse_answer_line(obj, where(path, number)), line=number)
             for number, obj in read_jsonl(path, what="answers")]
    if not lines:
        raise InputError("the answers file has no lines", where=str(path),
                         hint='one line per answered question: {"id": "q42", "verdict": "good"}')
    return Answers.from_lines(lines, str(path))


def as_answers(value: Answers | str | Path | Mapping[str, Any] | Iterable[AnswerVerdict | Mapping[str, Any]]
               ) -> Answers:
    """Answers from an Answers, an answers file's path, lines as AnswerVerdict objects or dicts in the
    file's line format, or ``{question_id: verdict}`` where a verdict is ``"good"``/``"bad"``/a bool
    or a number (a score); each checked like a file line."""
    if isinstance(value, Answers):
        return value
    if isinstance(value, (str, Path)):
        return read_answers(value)
    lines: list[AnswerVerdict] = []
    if isinstance(value, Mapping):
        for qid, given in value.items():
            key = "score" if isinstance(given, (int, float)) and not isinstance(given, bool) else "verdict"
            lines.append(parse_answer_line({"id": qid, key: given}, f"answer {qid!r}"))
    else:
        for number, item in enumerate(value, start=1):
            if isinstance(item, AnswerVerdict):
                lines.append(item)
            elif isinstance(item, Mapping):
                lines.append(parse_answer_line(item, f"answer {number}"))
            else:
                raise InputError(f"answer {number}: expected an AnswerVerdict or a dict, got {type(item).__name__}")
    if not lines:
        raise InputError("no answers given", hint='e.g. {"q1": "good", "q2": "bad"}')
    return Answers.from_lines(lines)
